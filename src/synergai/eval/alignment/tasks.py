"""Alignment tasks built from real perception errors, and SynergAI's Table A.2 tasks.

3. **Tasks.** Question templates (count, what is on, what is it on, colour, existence) over ground-truth
   names. A task is kept when the answer implied by the robot's graph is wrong, and the answer implied by
   the robot's graph with exactly the task's corrections applied is right (so the answer depends on the
   misperceived objects and the toolset can repair it). EASY = one misaligned object, HARD = more. Each
   task gets a *transfer* question with a different template about its corrected objects that the
   uncorrected graph also gets wrong (Table IV). Selection is deterministic for a seed.

Table A.2 (the paper's own tasks, with its answers) is the package data file ``table_a2.json``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any

from synergai.eval.alignment.judge import judge_answer
from synergai.eval.alignment.matching import (
    GENERIC_LABELS,
    MIN_IOU,
    Correction,
    ErrorKind,
    LabelVocabulary,
    SceneMatch,
    match_objects,
)
from synergai.eval.alignment.questions import (
    CATEGORY,
    Question,
    Template,
    graph_answer,
    make_question,
    ordinary_objects,
    single_object,
)
from synergai.eval.words import color_of, colors_compatible, names_category, plain
from synergai.scene.build import build_graph
from synergai.scene.model import STRUCTURE_KINDS, Relation, SceneError, SceneGraph, SceneObject
from synergai.scene.vocabulary import singular

#: Most misaligned objects a generated task may involve (a person fixes them one per turn).
MAX_TASK_OBJECTS = 3
#: The package data file holding SynergAI's Table A.2.
TABLE_A2_FILE = "table_a2.json"


def _looks_plural(name: str) -> bool:
    words = plain(name).split()
    return bool(words) and singular(words[-1]) != words[-1]


# ------------------------------------------------------------------------------------------------ tasks
@dataclass(frozen=True)
class AlignmentTask:
    """One alignment task: a question the robot's perception gets wrong and the corrections that fix it."""

    id: str
    scene_id: str
    category: str
    question: Question
    corrections: tuple[Correction, ...]
    transfer: Question | None = None

    @property
    def objects(self) -> tuple[str, ...]:
        """The misaligned objects (robot ids), in correction order."""
        return tuple(dict.fromkeys(c.pred_id for c in self.corrections))

    @property
    def difficulty(self) -> str:
        """EASY: one misaligned object; HARD: more (SynergAI's split)."""
        return "easy" if len(self.objects) == 1 else "hard"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "scene_id": self.scene_id,
            "category": self.category,
            "difficulty": self.difficulty,
            "question": self.question.to_dict(),
            "corrections": [c.to_dict() for c in self.corrections],
            "transfer": self.transfer.to_dict() if self.transfer else None,
        }


@dataclass(frozen=True)
class SceneAnalysis:
    """Ground-truth graph, robot graph, their matching and the repairable misperceptions of one scene."""

    scene_id: str
    truth: SceneGraph
    robot: SceneGraph
    match: SceneMatch
    errors: tuple[Correction, ...]

    def counts(self) -> dict[str, int]:
        """Matching and error counts."""
        m = self.match
        out = {
            "gt_objects": len(m.pairs) + len(m.missed),
            "pred_objects": len(m.pairs) + len(m.duplicated) + len(m.spurious),
            "matched": len(m.pairs),
            "missed": len(m.missed),
            "duplicated": len(m.duplicated),
            "spurious": len(m.spurious),
        }
        for kind in ErrorKind:
            out[f"{kind.value}_errors"] = sum(1 for e in self.errors if e.kind is kind)
        return out


def analyse_scene(
    scene_id: str,
    gt_objects: Sequence[SceneObject],
    pred_objects: Sequence[SceneObject],
    vocab: LabelVocabulary,
    *,
    robot: SceneGraph | None = None,
    min_iou: float = MIN_IOU,
) -> SceneAnalysis:
    """Match, build both graphs (true categories as everyday names) and list the repairable errors.

    ``robot`` is the robot's graph of ``pred_objects`` when already built (as the runner registers it).
    """
    truth_objs = [o.with_changes(category=vocab.common_name(o.category)) for o in gt_objects]
    truth = build_graph(scene_id, truth_objs)
    robot = robot if robot is not None else build_graph(scene_id, list(pred_objects))
    match = match_objects(scene_id, gt_objects, pred_objects, min_iou)
    errors: list[Correction] = []
    for pair in match.pairs:
        g, p = truth.get(pair.gt_id), robot.get(pair.pred_id)
        if g.kind in STRUCTURE_KINDS or p.kind in STRUCTURE_KINDS or g.category in GENERIC_LABELS:
            continue
        if not vocab.same(p.category, g.category):
            errors.append(Correction(ErrorKind.LABEL, p.id, g.category, p.category))
        gc, pc = color_of(g), color_of(p)
        if gc and pc and not colors_compatible(gc, pc):
            errors.append(Correction(ErrorKind.COLOR, p.id, gc, pc))
    for e in truth.edges:
        if e.relation is not Relation.SUPPORTED_BY:
            continue
        g, h = truth.get(e.subject), truth.get(e.object)
        if g.kind in STRUCTURE_KINDS or h.kind in STRUCTURE_KINDS or h.category in GENERIC_LABELS:
            continue
        held, holder = match.pred_of.get(g.id), match.pred_of.get(h.id)  # the robot's ids
        if held is None or holder is None or robot.has_edge(held, Relation.SUPPORTED_BY, holder):
            continue
        now = [robot.get(o).category for o in robot.related(held, Relation.SUPPORTED_BY)]
        errors.append(Correction(ErrorKind.SUPPORT, held, h.category, now[0] if now else "", holder))
    return SceneAnalysis(scene_id, truth, robot, match, tuple(errors))


def corrected(graph: SceneGraph, corrections: Iterable[Correction]) -> SceneGraph:
    """A copy of ``graph`` with the corrections applied directly."""
    g = graph.copy()
    for c in corrections:
        c.apply_to(g)
    return g


def _judge_graph(graph: SceneGraph, q: Question) -> bool:
    answer = graph_answer(graph, Template(q.template), q.subject)
    return answer is not None and judge_answer(q, ", ".join(answer))


def _relevant(a: SceneAnalysis, template: Template, subject: str) -> list[Correction]:
    """The errors that can change this question's answer on the robot's graph."""
    by_pred: dict[str, list[Correction]] = {}
    for e in a.errors:
        by_pred.setdefault(e.pred_id, []).append(e)
    labels = [e for e in a.errors if e.kind is ErrorKind.LABEL]
    if template is Template.COUNT:
        return [
            e for e in labels if names_category(subject, e.perceived) != names_category(subject, e.truth)
        ]
    if template is Template.EXISTS:  # one renamed object is enough
        return [
            e
            for e in labels
            if names_category(subject, e.truth) and not names_category(subject, e.perceived)
        ][:1]
    target = single_object(a.truth, subject)
    if target is None or target.id not in a.match.pred_of:
        return []
    p = a.match.pred_of[target.id]
    # the target's own label, and robot objects wrongly called like the target (they make it ambiguous)
    out = [e for e in by_pred.get(p, []) if e.kind is ErrorKind.LABEL]
    out += [
        e
        for e in labels
        if e.pred_id != p
        and names_category(subject, e.perceived)
        and not names_category(subject, e.truth)
    ]
    if template is Template.COLOR:
        return out + [e for e in by_pred.get(p, []) if e.kind is ErrorKind.COLOR]
    rel = Relation.SUPPORTS if template is Template.WHAT_ON else Relation.SUPPORTED_BY
    for other in a.truth.related(target.id, rel):
        q = a.match.pred_of.get(other)
        if q is None:
            continue
        out += [e for e in by_pred.get(q, []) if e.kind is ErrorKind.LABEL]
        sub, anchor = (q, p) if template is Template.WHAT_ON else (p, q)
        out += [
            e for e in a.errors if e.kind is ErrorKind.SUPPORT and e.pred_id == sub and e.anchor_id == anchor
        ]
    return list(dict.fromkeys(out))


def _order(corrections: Iterable[Correction]) -> tuple[Correction, ...]:
    rank = {ErrorKind.LABEL: 0, ErrorKind.COLOR: 1, ErrorKind.SUPPORT: 2}
    return tuple(sorted(corrections, key=lambda c: (rank[c.kind], _id_key(c.pred_id))))


def _id_key(oid: str) -> tuple[int, str]:
    return (int(oid), oid) if oid.isdigit() else (10**9, oid)


def _subjects(a: SceneAnalysis, template: Template) -> list[str]:
    names = sorted(
        {
            o.category
            for o in a.truth
            if o.kind not in STRUCTURE_KINDS and o.category not in GENERIC_LABELS and o.category
        }
    )
    if template in (Template.COUNT, Template.EXISTS):  # the name must say what it counts, without synonyms
        return [
            n
            for n in names
            if not _looks_plural(n)
            and all(_plainly_named(n, o.category) for o in ordinary_objects(a.truth, n))
        ]
    return [n for n in names if single_object(a.truth, n) is not None]


def _plainly_named(subject: str, category: str) -> bool:
    """Whether ``subject`` names ``category`` word for word ("chair" names "office chair"; "desk" does not
    name "table", although the synonym list relates them)."""
    s, c = plain(subject).split(), plain(category).split()
    return bool(s and c) and (f" {' '.join(c)} " in f" {' '.join(s)} " or singular(s[-1]) == singular(c[-1]))


def _scene_question(a: SceneAnalysis, template: Template, subject: str) -> Question | None:
    """:func:`make_question` with the robot ids of the objects the answer is about (colour and support
    questions: the subject and its related objects)."""
    q = make_question(a.truth, template, subject)
    target = (
        single_object(a.truth, subject)
        if template in (Template.COLOR, Template.ON_WHAT, Template.WHAT_ON)
        else None
    )
    if q is None or target is None:
        return q
    gt_ids = [target.id]
    if template is not Template.COLOR:
        rel = Relation.SUPPORTS if template is Template.WHAT_ON else Relation.SUPPORTED_BY
        gt_ids += a.truth.related(target.id, rel)
    targets = tuple(a.match.pred_of[g] for g in gt_ids if g in a.match.pred_of)
    return replace(q, targets=targets)


def candidate_tasks(a: SceneAnalysis, vocab: LabelVocabulary) -> list[AlignmentTask]:
    """Every task the scene supports (before the per-scene cap), without transfer questions."""
    out: list[AlignmentTask] = []
    for template in Template:
        for subject in _subjects(a, template):
            q = _scene_question(a, template, subject)
            if q is None or _judge_graph(a.robot, q):
                continue
            fixes = _order(_relevant(a, template, subject))
            objects = {c.pred_id for c in fixes}
            if not 1 <= len(objects) <= MAX_TASK_OBJECTS:
                continue
            if not _judge_graph(corrected(a.robot, fixes), q):
                continue
            slug = re.sub(r"[^a-z0-9]+", "_", subject.lower()).strip("_")
            out.append(
                AlignmentTask(
                    f"{a.scene_id}/{template.value}/{slug}", a.scene_id, CATEGORY[template], q, fixes
                )
            )
    return out


def transfer_question(
    a: SceneAnalysis, task: AlignmentTask, vocab: LabelVocabulary, rng: random.Random
) -> Question | None:
    """A new question about the task's corrected objects, with another template, that the uncorrected
    graph gets wrong and the graph with the task's corrections gets right (None if there is none)."""
    fixed = corrected(a.robot, task.corrections)
    subjects = {task.question.subject}
    for c in task.corrections:
        gt_id = a.match.gt_of.get(c.pred_id)
        if gt_id is not None:
            subjects.add(a.truth.get(gt_id).category)
    options: list[Question] = []
    for template in Template:
        for subject in sorted(subjects):
            if template.value == task.question.template:
                continue
            if subject in GENERIC_LABELS or (
                template in (Template.COUNT, Template.EXISTS) and _looks_plural(subject)
            ):
                continue
            q = _scene_question(a, template, subject)
            if q is None or _judge_graph(a.robot, q) or not _judge_graph(fixed, q):
                continue
            options.append(q)
    return rng.choice(options) if options else None


def select_tasks(
    analyses: Sequence[SceneAnalysis], vocab: LabelVocabulary, *, per_scene: int = 4, seed: int = 0
) -> list[AlignmentTask]:
    """Up to ``per_scene`` tasks per scene, spread over category and difficulty (seeded round robin), each
    about a different set of misaligned objects, with transfer questions; deterministic for a seed."""
    if per_scene < 1:
        raise SceneError(f"per_scene must be at least 1, got {per_scene}")
    chosen: list[AlignmentTask] = []
    for a in analyses:
        rng = random.Random(f"{seed}:{a.scene_id}")
        groups: dict[tuple[str, str], list[AlignmentTask]] = {}
        for t in candidate_tasks(a, vocab):
            groups.setdefault((t.category, t.difficulty), []).append(t)
        for tasks in groups.values():
            rng.shuffle(tasks)
        picked: list[AlignmentTask] = []
        seen: set[frozenset[str]] = set()  # one task per set of misaligned objects
        while len(picked) < per_scene and any(groups.values()):
            for key in sorted(groups):
                while groups[key] and len(picked) < per_scene:
                    t = groups[key].pop(0)
                    if frozenset(t.objects) not in seen:
                        seen.add(frozenset(t.objects))
                        picked.append(t)
                        break
        for t in sorted(picked, key=lambda t: t.id):
            trng = random.Random(f"{seed}:{t.id}")
            chosen.append(replace(t, transfer=transfer_question(a, t, vocab, trng)))
    return chosen


# ------------------------------------------------------------------------------------------- Table A.2
@dataclass(frozen=True)
class PaperTask:
    """One task of SynergAI Table A.2, with how (and whether) it can be judged on this data.

    ``kind`` None: not checkable here. Numeric tasks are judged against the ground-truth count in the
    objects file (``subject``); the others against the paper's expected answer (``expected`` groups).
    """

    scene_id: str
    task: str
    category: str
    difficulty: str
    question: str
    paper_answer: str
    kind: str | None
    expected: tuple[tuple[str, ...], ...] = ()
    subject: str = ""

    @property
    def id(self) -> str:
        return f"table_a2/{self.scene_id}/{self.task}"


    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> PaperTask:
        """One task of ``table_a2.json``."""
        return cls(
            scene_id=raw["scene_id"],
            task=raw["task"],
            category=raw["category"],
            difficulty=raw["difficulty"],
            question=raw["question"],
            paper_answer=raw["paper_answer"],
            kind=raw["kind"],
            expected=tuple(tuple(group) for group in raw.get("expected", ())),
            subject=raw.get("subject", ""),
        )


def load_table_a2() -> tuple[PaperTask, ...]:
    """SynergAI Table A.2 from the package data (scene ids as in ScanNet; ``kind`` None: not judged)."""
    text = resources.files(__package__).joinpath(TABLE_A2_FILE).read_text(encoding="utf-8")
    return tuple(PaperTask.from_dict(t) for t in json.loads(text)["tasks"])


#: SynergAI Table A.2, read once from ``table_a2.json`` (an immutable tuple).
TABLE_A2: tuple[PaperTask, ...] = load_table_a2()

_MATERIAL = "material: not in the data (boxes and mean colours only, no meshes or material labels)"
_SHAPE = "shape: not in the data (axis-aligned boxes only, no meshes)"


def why_uncheckable(task: PaperTask) -> str:
    """Why a Table A.2 task cannot be judged on this data ("" when it can)."""
    if task.kind is not None:
        return ""
    return _SHAPE if re.search(r"\bshape\b", task.question.lower()) else _MATERIAL


def paper_question(task: PaperTask, truth: SceneGraph) -> Question | None:
    """The judged form of a checkable Table A.2 task (Numeric: the count in the ground-truth graph)."""
    if task.kind is None:
        return None
    if task.kind == "count":
        count = graph_answer(truth, Template.COUNT, task.subject)
        return Question(task.question, "count", (count or ("0",),), Template.COUNT.value, task.subject)
    return Question(task.question, task.kind, task.expected)


