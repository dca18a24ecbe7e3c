"""Perception-alignment tasks built from real perception errors (SynergAI §IV-B, Table A.2).

The robot's graph is built from predicted instances (3D-VisTA / Mask3D proposals with ScanNet200 labels);
the simulated user sees the ScanNet ground truth. Per scene:

1. **Matching.** Predictions are matched one-to-one to ground-truth objects by the 3D IoU of their
   axis-aligned boxes with the Hungarian algorithm (``scipy.optimize.linear_sum_assignment``, maximising
   the summed IoU); a pair counts when IoU >= 0.25 (ScanRefer's Acc@0.25 threshold). Ordinary objects
   and structure (floor / wall / ceiling) are matched separately, so a door box lying in a wall's plane
   is never called a mislabelled wall. Unmatched ground truth is *missed*; an unmatched prediction that
   overlaps (IoU >= 0.25) an object another prediction already claimed is *duplicated*; the rest are
   *spurious* (false positives, or objects the ground truth does not list). None of these three can be
   repaired with the Table I tools; they are counted and reported.
2. **Misperceptions the tools can repair**, on matched ordinary objects: a wrong *label* (the predicted
   label does not name the ground-truth category: :meth:`LabelVocabulary.same`), a wrong *colour* (colour
   names of the predicted and true mean colours are not compatible: :func:`colors_compatible`), and a
   wrong or missing *support* ("on") relation (the ground-truth graph, built from the true boxes by the
   same relation engine, has ``x on y`` between two matched objects and the robot's graph does not).
3. **Tasks.** Question templates (count, what is on, what is it on, colour, existence) over ground-truth
   names. A task is kept when the answer implied by the robot's graph is wrong, and the answer implied by
   the robot's graph with exactly the task's corrections applied is right (so the answer depends on the
   misperceived objects and the toolset can repair it). EASY = one misaligned object, HARD = more. Each
   task gets a *transfer* question with a different template about its corrected objects that the
   uncorrected graph also gets wrong (Table IV). Selection is deterministic for a seed.
"""

from __future__ import annotations

import csv
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from synergai.agent.matching import category_matches, find_objects
from synergai.geometry.boxes import BoxArray, intersection_volume
from synergai.scene.build import build_graph, structure_kind
from synergai.scene.model import (
    STRUCTURE_KINDS,
    Edge,
    ObjectKind,
    Relation,
    SceneError,
    SceneGraph,
    SceneObject,
)
from synergai.scene.vocabulary import (
    COLOR_ALIASES,
    COLOR_NAMES,
    COLOR_NEIGHBOURS,
    WORD_TO_NUMBER,
    plural,
    singular,
)

#: Minimum 3D IoU for a prediction to count as the ground-truth object (ScanRefer Acc@0.25).
MIN_IOU = 0.25
#: Most misaligned objects a generated task may involve (a person fixes them one per turn).
MAX_TASK_OBJECTS = 3
#: Largest count a Numeric task asks about.
MAX_COUNT = 12

# fmt: off
#: Ground-truth labels a person would not use to name an object.
GENERIC_LABELS = frozenset({"object", "objects", "otherprop", "otherfurniture", "otherstructure", "item",
                            "stuff", "thing", "things", "unknown"})
#: NYU40 classes too broad to make two labels mean the same thing.
BROAD_NYU40 = frozenset({"", "otherprop", "otherfurniture", "otherstructure"})

# fmt: on


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", str(text).lower()).split())


def color_family(name: str) -> str:
    """The colour's family: its last word, grey spelled gray ("dark gray" -> "gray")."""
    words = _norm(name).replace("grey", "gray").split()
    return words[-1] if words else ""


def colors_compatible(a: str, b: str) -> bool:
    """Whether a person would accept colour name ``a`` for colour name ``b``."""
    na, nb = _norm(a).replace("grey", "gray"), _norm(b).replace("grey", "gray")
    if not na or not nb:
        return False
    return color_family(na) == color_family(nb) or frozenset({na, nb}) in COLOR_NEIGHBOURS


def color_of(obj: SceneObject) -> str:
    """The object's colour attribute (the first attribute that is a palette colour name), or ""."""
    for a in obj.attributes:
        if _norm(a).replace("grey", "gray") in COLOR_NAMES:
            return _norm(a).replace("grey", "gray")
    return ""


def with_article(noun: str) -> str:
    """ "a chair", "an oven"; plural-looking names stay bare ("clothes", "blinds")."""
    if _looks_plural(noun):
        return noun
    return f"{'an' if noun[:1].lower() in set('aeiou') else 'a'} {noun}"


def _looks_plural(name: str) -> bool:
    last = _norm(name).split()[-1] if _norm(name) else ""
    return singular(last) != last


# ---------------------------------------------------------------------------------------------- labels
@dataclass(frozen=True)
class LabelVocabulary:
    """ScanNet's label table: raw category -> ScanNet200-style name and NYU40 class."""

    common: Mapping[str, str] = field(default_factory=dict)
    nyu40: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_tsv(cls, path: str | Path) -> LabelVocabulary:
        """Read ``scannetv2-labels.combined.tsv`` (columns raw_category, category, nyu40class, count)."""
        p = Path(path)
        try:
            with p.open(encoding="utf-8", newline="") as f:
                rows = list(csv.DictReader(f, delimiter="\t"))
        except OSError as exc:
            raise SceneError(f"{p}: cannot read the label table ({exc.strerror or exc})") from None
        if not rows or not {"raw_category", "category", "nyu40class"} <= set(rows[0]):
            raise SceneError(f"{p}: not a ScanNet label table (needs raw_category, category, nyu40class)")
        common: dict[str, str] = {}
        nyu: dict[str, str] = {}
        votes: dict[str, dict[str, int]] = {}
        for r in rows:
            raw, cat, cls_ = _norm(r["raw_category"]), _norm(r["category"]), _norm(r["nyu40class"])
            if not raw:
                continue
            common[raw] = cat or raw
            nyu[raw] = cls_
            count = int(r.get("count") or 0) if str(r.get("count") or "0").isdigit() else 0
            bucket = votes.setdefault(cat, {})
            bucket[cls_] = bucket.get(cls_, 0) + count + 1
        for cat, bucket in votes.items():  # a ScanNet200 name that is not itself a raw label
            nyu.setdefault(cat, max(sorted(bucket), key=lambda c: bucket[c]))
        return cls(common, nyu)

    def common_name(self, label: str) -> str:
        """The everyday (ScanNet200) name of a label: "kitchen cabinets" -> "kitchen cabinet"."""
        n = _norm(label)
        return self.common.get(n, n)

    def nyu40_class(self, label: str) -> str:
        """The label's NYU40 class, or "" when the table does not know it."""
        n = _norm(label)
        return self.nyu40.get(n) or self.nyu40.get(self.common_name(n), "")

    def same(self, a: str, b: str) -> bool:
        """Whether two labels name the same kind of object (a person would accept either)."""
        na, nb = self.common_name(a), self.common_name(b)
        if not na or not nb:
            return False
        if na == nb or category_matches(na, nb) or category_matches(nb, na):
            return True
        ca, cb = self.nyu40_class(a), self.nyu40_class(b)
        return ca == cb and ca not in BROAD_NYU40


# -------------------------------------------------------------------------------------------- matching
@dataclass(frozen=True)
class Pair:
    """A prediction matched to a ground-truth object."""

    gt_id: str
    pred_id: str
    iou: float


@dataclass(frozen=True)
class SceneMatch:
    """The one-to-one matching of one scene's predictions to its ground truth."""

    scene_id: str
    pairs: tuple[Pair, ...]
    missed: tuple[str, ...]
    duplicated: tuple[str, ...]
    spurious: tuple[str, ...]

    @cached_property
    def pred_of(self) -> dict[str, str]:
        """Ground-truth id -> matched prediction id."""
        return {p.gt_id: p.pred_id for p in self.pairs}

    @cached_property
    def gt_of(self) -> dict[str, str]:
        """Prediction id -> matched ground-truth id."""
        return {p.pred_id: p.gt_id for p in self.pairs}


def iou_matrix(a: Sequence[SceneObject], b: Sequence[SceneObject]) -> np.ndarray:
    """(len(a), len(b)) 3D IoU of the axis-aligned boxes."""
    if not a or not b:
        return np.zeros((len(a), len(b)))
    objs = [*a, *b]
    boxes = BoxArray.from_center_size(np.array([o.center for o in objs]), np.array([o.size for o in objs]))
    i, j = np.meshgrid(np.arange(len(a)), len(a) + np.arange(len(b)), indexing="ij")
    i, j = i.ravel(), j.ravel()
    inter = intersection_volume(boxes, i, j)
    vol = boxes.volume()
    union = vol[i] + vol[j] - inter
    return (inter / np.maximum(union, 1e-12)).reshape(len(a), len(b))


def _is_structure(obj: SceneObject) -> bool:
    return obj.kind in STRUCTURE_KINDS or structure_kind(obj.category) is not ObjectKind.OBJECT


def match_objects(
    scene_id: str, gt: Sequence[SceneObject], pred: Sequence[SceneObject], min_iou: float = MIN_IOU
) -> SceneMatch:
    """Hungarian matching by 3D IoU (ordinary objects and structure separately); pairs need IoU >= min_iou."""
    if not 0.0 < min_iou <= 1.0:
        raise SceneError(f"min_iou must be in (0, 1], got {min_iou}")
    pairs: list[Pair] = []
    missed: list[str] = []
    duplicated: list[str] = []
    spurious: list[str] = []
    for structure in (False, True):
        g = [o for o in gt if _is_structure(o) is structure]
        p = [o for o in pred if _is_structure(o) is structure]
        m = iou_matrix(g, p)
        taken_g: set[int] = set()
        taken_p: set[int] = set()
        if m.size:
            rows, cols = linear_sum_assignment(-m)
            for r, c in zip(rows, cols, strict=True):
                if m[r, c] >= min_iou:
                    pairs.append(Pair(g[r].id, p[c].id, round(float(m[r, c]), 4)))
                    taken_g.add(int(r))
                    taken_p.add(int(c))
        missed += [o.id for k, o in enumerate(g) if k not in taken_g]
        for k, o in enumerate(p):
            if k in taken_p:
                continue
            overlaps = m.shape[0] > 0 and float(m[:, k].max()) >= min_iou
            (duplicated if overlaps else spurious).append(o.id)
    return SceneMatch(scene_id, tuple(pairs), tuple(missed), tuple(duplicated), tuple(spurious))


# ------------------------------------------------------------------------------------ misperceptions
class ErrorKind(StrEnum):
    """What the robot got wrong about one object."""

    LABEL = "label"
    COLOR = "color"
    SUPPORT = "support"


@dataclass(frozen=True)
class Correction:
    """One repairable misperception, and what the user tells the robot to fix it.

    ``pred_id`` is the robot's object (the one the user marks); ``truth`` the true name (LABEL), colour
    (COLOR) or the true supporting object's name (SUPPORT, with its robot id in ``anchor_id``);
    ``perceived`` what the robot has now ("" when a support relation is missing).
    """

    kind: ErrorKind
    pred_id: str
    truth: str
    perceived: str = ""
    anchor_id: str = ""

    def applied(self, graph: SceneGraph, vocab: LabelVocabulary) -> bool:
        """Whether the robot's graph now agrees with the truth on this point."""
        if self.pred_id not in graph:
            return False
        obj = graph.get(self.pred_id)
        if self.kind is ErrorKind.LABEL:
            return vocab.same(obj.category, self.truth)
        if self.kind is ErrorKind.COLOR:
            words = [_norm(a) for a in obj.attributes]
            return any(colors_compatible(w, self.truth) for w in words) and not any(
                w in COLOR_NAMES and not colors_compatible(w, self.truth) for w in words
            )
        return self.anchor_id in graph and graph.has_edge(self.pred_id, Relation.SUPPORTED_BY, self.anchor_id)

    def apply_to(self, graph: SceneGraph) -> None:
        """Make the fix directly (the oracle used to decide which tasks the toolset can solve)."""
        obj = graph.get(self.pred_id)
        if self.kind is ErrorKind.LABEL:
            graph.put(obj.with_changes(category=self.truth))
        elif self.kind is ErrorKind.COLOR:
            rest = tuple(a for a in obj.attributes if _norm(a) not in COLOR_NAMES)
            graph.put(obj.with_changes(attributes=(self.truth, *rest)))
        elif not graph.has_edge(self.pred_id, Relation.SUPPORTED_BY, self.anchor_id):
            graph.add_edge(Edge(self.pred_id, Relation.SUPPORTED_BY, self.anchor_id, "user"))

    def fact(self) -> str:
        """The ground-truth fact as text with the robot's ids (the in-context baseline's knowledge)."""
        if self.kind is ErrorKind.LABEL:
            truth, perceived = with_article(self.truth), with_article(self.perceived)
            return f"The object with id {self.pred_id} is {truth}, not {perceived}."
        if self.kind is ErrorKind.COLOR:
            return f"The object with id {self.pred_id} is {self.truth}, not {self.perceived}."
        return f"The object with id {self.pred_id} is on the {self.truth} with id {self.anchor_id}."

    def to_dict(self) -> dict[str, str]:
        return {
            "kind": self.kind.value,
            "pred_id": self.pred_id,
            "truth": self.truth,
            "perceived": self.perceived,
            "anchor_id": self.anchor_id,
        }


# ------------------------------------------------------------------------------------------ questions
class Template(StrEnum):
    """Question templates; each reads its answer off a graph the same way for truth and robot."""

    COUNT = "count"
    WHAT_ON = "what_on"
    ON_WHAT = "on_what"
    COLOR = "color"
    EXISTS = "exists"


#: Task category (SynergAI's Numeric / Spatial / Attribute, plus Naming) of each template.
CATEGORY = {
    Template.COUNT: "Numeric",
    Template.WHAT_ON: "Spatial",
    Template.ON_WHAT: "Spatial",
    Template.COLOR: "Attribute",
    Template.EXISTS: "Naming",
}
#: How the answer is judged.
ANSWER_KIND = {
    Template.COUNT: "count",
    Template.WHAT_ON: "names",
    Template.ON_WHAT: "names",
    Template.COLOR: "color",
    Template.EXISTS: "yes_no",
}


@dataclass(frozen=True)
class Question:
    """A question with its judged answer: ``expected`` holds groups of alternatives, every group must be
    matched (count: one number; color: one colour; yes_no: "yes" / "no"; names: one group per object)."""

    text: str
    kind: str
    expected: tuple[tuple[str, ...], ...]
    template: str = ""
    subject: str = ""
    targets: tuple[str, ...] = ()  # robot ids the answer is about (empty: not checked)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "kind": self.kind,
            "expected": [list(g) for g in self.expected],
            "template": self.template,
            "subject": self.subject,
            "targets": list(self.targets),
        }


def question_text(template: Template, subject: str) -> str:
    """The question a person asks."""
    if template is Template.COUNT:
        return f"How many {plural(subject)} are there in the room?"
    if template is Template.WHAT_ON:
        return f"What is on the {subject}?"
    if template is Template.ON_WHAT:
        return f"What is the {subject} on?"
    if template is Template.COLOR:
        return f"What color is the {subject}?"
    return f"Is there {with_article(subject)} in the room?"


# -------------------------------------------------------------------------------------------- judging
_ID_REFS = re.compile(r"\(\s*ids?\b[^)]*\)|\bids?\s*[:#]?\s*\d+(?:\s*(?:,|and|&)\s*(?:id\s*)?\d+)*")
_VECTORS = re.compile(r"\[[^\]]*\]|\d+\.\d+")
_COUNT = re.compile(r"\b(\d+|" + "|".join(WORD_TO_NUMBER) + r")\b")
_NEGATIVE = re.compile(
    r"\b(there (is|are) no|there (isn|aren) t|no such|not|cannot find|can t find|could not find|"
    r"couldn t find|don t see|do not see|none)\b"
)
_POSITIVE = re.compile(r"\b(yes|there is|there are|i found|i see)\b")


def extract_count(text: str) -> int | None:
    """The number an answer states (digits or words; "no"/"none" = 0); ids and coordinates are ignored."""
    t = _VECTORS.sub(" ", _ID_REFS.sub(" ", str(text).lower()))
    m = _COUNT.search(t)
    if m:
        word = m.group(1)
        return int(word) if word.isdigit() else WORD_TO_NUMBER[word]
    return 0 if re.search(r"\b(no|none|not any)\b", t) else None


def yes_no(text: str) -> bool | None:
    """True / False for an answer that says yes / no, None when it says neither."""
    t = _norm(str(text).replace("'", " "))
    if re.match(r"(yes|yeah|yep|correct|indeed)\b", t):
        return True
    if re.match(r"(no|nope)\b", t):
        return False
    if _NEGATIVE.search(t):
        return False
    return True if _POSITIVE.search(t) else None


def colour_words(text: str) -> list[str]:
    """Palette colour names an answer mentions ("grey" -> "gray", "silver" -> "light gray")."""
    t = f" {_norm(text)} "
    for word, name in COLOR_ALIASES.items():
        t = t.replace(f" {word} ", f" {name} ")
    found = []
    for name in COLOR_NAMES:  # longest first, so "dark gray" is not also read as "gray"
        if f" {name} " in t:
            found.append(name)
            t = t.replace(f" {name} ", " ")
    return found


def mentioned_ids(text: str) -> set[str]:
    """Object ids an answer cites ("(id: 41)", "id 7 and 9")."""
    out: set[str] = set()
    for m in _ID_REFS.finditer(str(text).lower()):
        out.update(re.findall(r"\d+", m.group(0)))
    return out


def judge_answer(q: Question, answer: str, short: str = "", objects: Sequence[str] = ()) -> bool:
    """The simulated user's rule-based verdict; an empty answer is never right.

    count: the first number stated (short answer first) equals the expected one; yes_no: the stated
    polarity; color: a mentioned colour is compatible with the expected one; names: every expected object
    is named (:func:`synergai.agent.matching.category_matches`: whole words, plurals, synonyms).
    When the question has ``targets`` and the answer cites or highlights objects (``objects``), one of them
    must be a target: a person sees in the GUI when the robot talks about another object.
    """
    answer, short = str(answer or "").strip(), str(short or "").strip()
    if not answer and not short:
        return False
    cited = mentioned_ids(answer) | {str(o) for o in objects}
    if q.targets and cited and not cited & set(q.targets):
        return False
    text = f"{short} {answer}".strip()
    if q.kind == "count":
        n = extract_count(short) if short and extract_count(short) is not None else extract_count(answer)
        return n is not None and str(n) == q.expected[0][0]
    if q.kind == "yes_no":
        v = yes_no(short) if short and yes_no(short) is not None else yes_no(answer)
        return v is not None and v == (q.expected[0][0] == "yes")
    if q.kind == "color":
        return any(colors_compatible(c, alt) for c in colour_words(text) for alt in q.expected[0])
    if q.kind == "names":
        return all(any(category_matches(text, alt) for alt in group) for group in q.expected)
    raise SceneError(f"unknown answer kind {q.kind!r}")


def _ordinary(graph: SceneGraph, name: str) -> list[SceneObject]:
    return [o for o in find_objects(graph, name) if o.kind not in STRUCTURE_KINDS]


def _single(graph: SceneGraph, name: str) -> SceneObject | None:
    found = _ordinary(graph, name)
    return found[0] if len(found) == 1 else None


def graph_answer(graph: SceneGraph, template: Template, subject: str) -> tuple[str, ...] | None:
    """The answer the graph implies (read the way the agent's tools read it); None when the subject is
    absent or ambiguous. count -> (n,), names -> sorted names, color -> (colour,), exists -> ("yes"|"no",)."""
    if template is Template.COUNT:
        return (str(len(_ordinary(graph, subject))),)
    if template is Template.EXISTS:
        return ("yes" if _ordinary(graph, subject) else "no",)
    obj = _single(graph, subject)
    if obj is None:
        return None
    if template is Template.COLOR:
        return (color_of(obj),) if color_of(obj) else None
    rel = Relation.SUPPORTS if template is Template.WHAT_ON else Relation.SUPPORTED_BY
    names = {
        graph.get(o).category for o in graph.related(obj.id, rel) if graph.get(o).kind not in STRUCTURE_KINDS
    }
    return tuple(sorted(names)) or None


def make_question(truth: SceneGraph, template: Template, subject: str) -> Question | None:
    """The question about ``subject`` with its answer read off the ground-truth graph (None if undefined)."""
    answer = graph_answer(truth, template, subject)
    if answer is None:
        return None
    if template is Template.COUNT and not 1 <= int(answer[0]) <= MAX_COUNT:
        return None
    if ANSWER_KIND[template] == "names" and any(
        category_matches(subject, n) or category_matches(n, subject) for n in answer
    ):
        return None  # "what is on the box?" -> "box": an echo of the question would pass
    expected = tuple((a,) for a in answer) if ANSWER_KIND[template] == "names" else (answer,)
    return Question(
        question_text(template, subject), ANSWER_KIND[template], expected, template.value, subject
    )


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
        p, q = match.pred_of.get(g.id), match.pred_of.get(h.id)
        if p is None or q is None or robot.has_edge(p, Relation.SUPPORTED_BY, q):
            continue
        now = [robot.get(o).category for o in robot.related(p, Relation.SUPPORTED_BY)]
        errors.append(Correction(ErrorKind.SUPPORT, p, h.category, now[0] if now else "", q))
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
            e for e in labels if category_matches(subject, e.perceived) != category_matches(subject, e.truth)
        ]
    if template is Template.EXISTS:  # one renamed object is enough
        return [
            e
            for e in labels
            if category_matches(subject, e.truth) and not category_matches(subject, e.perceived)
        ][:1]
    target = _single(a.truth, subject)
    if target is None or target.id not in a.match.pred_of:
        return []
    p = a.match.pred_of[target.id]
    # the target's own label, and robot objects wrongly called like the target (they make it ambiguous)
    out = [e for e in by_pred.get(p, []) if e.kind is ErrorKind.LABEL]
    out += [
        e
        for e in labels
        if e.pred_id != p
        and category_matches(subject, e.perceived)
        and not category_matches(subject, e.truth)
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
            if not _looks_plural(n) and all(_plainly_named(n, o.category) for o in _ordinary(a.truth, n))
        ]
    return [n for n in names if _single(a.truth, n) is not None]


def _plainly_named(subject: str, category: str) -> bool:
    """Whether ``subject`` names ``category`` word for word ("chair" names "office chair"; "desk" does not
    name "table", although the agent's matching treats them as synonyms)."""
    s, c = _norm(subject).split(), _norm(category).split()
    return bool(s and c) and (f" {' '.join(c)} " in f" {' '.join(s)} " or singular(s[-1]) == singular(c[-1]))


def _scene_question(a: SceneAnalysis, template: Template, subject: str) -> Question | None:
    """:func:`make_question` with the robot ids of the objects the answer is about (colour and support
    questions: the subject and its related objects)."""
    q = make_question(a.truth, template, subject)
    target = (
        _single(a.truth, subject)
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
