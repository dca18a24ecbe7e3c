"""The automatic perception-alignment benchmark (SynergAI Tables III and IV) and SynergAI's Table A.2 tasks.

Per task (:mod:`synergai.eval.alignment_tasks`): the robot's graph (predicted instances) is registered under
the task's own scene id in the *robot* store, and the simulated user (:mod:`synergai.eval.simulated_user`)
runs the dialogue through a real :class:`~synergai.agent.session.AgentSession`, so corrections go through the
agent's tools into the store's edit log. Knowledge transfer (Table IV) then asks the task's transfer question
three times, each in a fresh session: *init* on the uncorrected graph (a second, *baseline* store), the
*in-context* baseline on the uncorrected graph with the task's ground-truth corrections given as text in a
previous dialogue turn, and *ours* on the graph as the alignment left it (the robot store).

Table A.2 tasks run once, on the uncorrected graph (SR_init); material and shape questions cannot be judged
from this data (no meshes or material labels: boxes and mean colours only) and are listed, not run.

Confidence intervals: mean ± 1.96·s/√n (s the sample standard deviation over tasks; none when n < 2), as
SynergAI reports mean and 95 % intervals.
"""

from __future__ import annotations

import math
import re
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synergai.agent.session import AgentSession
from synergai.eval.alignment_tasks import (
    MIN_IOU,
    AlignmentTask,
    LabelVocabulary,
    Question,
    SceneAnalysis,
    Template,
    analyse_scene,
    graph_answer,
    select_tasks,
)
from synergai.eval.report import write_report
from synergai.eval.runner import ResumableRun, stride_subset
from synergai.eval.simulated_user import SimulatedUser
from synergai.llm.base import ChatModel, LLMError
from synergai.scene.build import build_graph
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.model import SceneError, SceneGraph
from synergai.scene.store import SceneStore

ROBOT_STORE = "scenes_robot.sqlite3"
BASELINE_STORE = "scenes_baseline.sqlite3"
LABELS_FILE = "scannetv2-labels.combined.tsv"
KNOWLEDGE_ACK = "Understood. I will keep these facts about the room in mind."


# ------------------------------------------------------------------------------------------ Table A.2
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


_MATERIAL = "material: not in the data (boxes and mean colours only, no meshes or material labels)"
_SHAPE = "shape: not in the data (axis-aligned boxes only, no meshes)"


def _paper(
    scene: str,
    task: str,
    cat: str,
    diff: str,
    question: str,
    answer: str,
    kind: str | None,
    expected: tuple[tuple[str, ...], ...] = (),
    subject: str = "",
) -> PaperTask:
    return PaperTask(scene, task, cat, diff, question, answer, kind, expected, subject)


_E = "easy"
_H = "hard"

# fmt: off
#: SynergAI Table A.2 (scene ids as in ScanNet). ``kind`` None marks the tasks this data cannot judge.
TABLE_A2: tuple[PaperTask, ...] = (
    _paper("scene0011_00", "t1", "Attribute", _E, "What is the tv made from?", "Plastic.", None),
    _paper("scene0011_00", "t2", "Spatial", _H, "What is the item that is above the stove?", "Stove hood.",
           "names", (("stove hood", "range hood", "hood"),)),
    _paper("scene0011_00", "t3", "Numeric", _H, "How many tables are there in the room?", "Two.", "count",
           subject="table"),
    _paper("scene0050_00", "t1", "Attribute", _E, "Is the blue box triangular in shape?", "No.", None),
    # not "tool box": its head noun would match an echo of "blue box"
    _paper("scene0050_00", "t2", "Spatial", _E, "What is the item above the blue box?", "Toolbox.", "names",
           (("toolbox",),)),
    _paper("scene0050_00", "t3", "Spatial", _H,
           "What is the item's name for sitting and to the right of desk and behind the door?", "Sofa.",
           "names", (("sofa", "couch"),)),
    _paper("scene0050_00", "t4", "Spatial", _H, "What is the item above the desk and beside the laptop?",
           "Printer.", "names", (("printer",),)),
    _paper("scene0050_00", "t5", "Spatial", _H, "What is the item in front of the piano?", "Piano bench.",
           "names", (("piano bench",),)),
    _paper("scene0050_00", "t6", "Numeric", _E, "How many chairs are there in the room?", "One.", "count",
           subject="chair"),
    _paper("scene0169_00", "t1", "Attribute", _E, "What is the color of the plastic trash can?", "Gray.",
           "color", (("gray",),)),
    _paper("scene0169_00", "t2", "Attribute", _H, "What is the partition made from?", "Glass.", None),
    _paper("scene0169_00", "t3", "Attribute", _H, "Is the red backpack oblong in shape?", "No.", None),
    _paper("scene0342_00", "t1", "Attribute", _E, "What is the color of the screen?", "Black.", "color",
           (("black",),)),
    _paper("scene0342_00", "t2", "Attribute", _E,
           "What is the color of the desk that is lower than the screen?", "Brown.", "color", (("brown",),)),
    _paper("scene0342_00", "t3", "Spatial", _H, "Is the red backpack placed on the black table?", "Yes.",
           "yes_no", (("yes",),)),
    _paper("scene0342_00", "t4", "Spatial", _E, "Is the red backpack hung on the wall?", "No.", "yes_no",
           (("no",),)),
    _paper("scene0355_00", "t1", "Attribute", _E, "What is the microwave oven made from?", "Stainless steel.",
           None),
    _paper("scene0355_00", "t2", "Attribute", _H, "Is the armchair round in shape?", "No.", None),
    _paper("scene0355_00", "t3", "Attribute", _E, "Is the armchair made from wood?", "No.", None),
    _paper("scene0355_00", "t4", "Numeric", _H, "How many tables are there in the room?", "Two.", "count",
           subject="table"),
    _paper("scene0355_00", "t5", "Numeric", _H, "How many chairs are there in the room?", "Eight.", "count",
           subject="chair"),
    _paper("scene0356_00", "t1", "Attribute", _E, "What is the color of the dresser?", "Shallow yellow.",
           "color", (("yellow", "beige"),)),
    _paper("scene0356_00", "t2", "Attribute", _E, "Is there any white recycling bin in the room?", "Yes.",
           "yes_no", (("yes",),)),
    _paper("scene0356_00", "t3", "Attribute", _E, "Is the black chair rectangular in shape?", "No.", None),
    _paper("scene0356_00", "t4", "Attribute", _E, "Are the shelf and the desk of the same color?", "Yes.",
           "yes_no", (("yes",),)),
    _paper("scene0356_00", "t5", "Numeric", _H, "How many doors are there in the room?", "Two.", "count",
           subject="door"),
    _paper("scene0389_00", "t1", "Attribute", _E, "What is the color of the door?", "White.", "color",
           (("white",),)),
    _paper("scene0389_00", "t2", "Spatial", _H, "Is the hanger located to the left of the ironing board?",
           "Yes.", "yes_no", (("yes",),)),
    _paper("scene0389_00", "t3", "Spatial", _H,
           "What is to the left of the cabinet on which a TV is resting?", "Include a refrigerator.", "names",
           (("refrigerator", "fridge"),)),
    _paper("scene0389_00", "t4", "Attribute", _E, "Are the two doors in the same color?", "Yes.", "yes_no",
           (("yes",),)),
    _paper("scene0406_00", "t1", "Attribute", _E, "What is the shape of the door?", "Rectangular / oblong.",
           None),
    _paper("scene0406_00", "t2", "Attribute", _E, "What is the white sink made from?", "Ceramic.", None),
    _paper("scene0406_00", "t3", "Attribute", _E,
           "Are the sink and the bathtub made from the same materials?", "Yes.", None),
    _paper("scene0427_00", "t1", "Spatial", _H, "What is behind the trash bin?",
           "A glass partition and a door frame.", "names", (("partition",), ("doorframe", "door frame"))),
    _paper("scene0427_00", "t2", "Numeric", _E, "How many tables are there in the room?", "One.", "count",
           subject="table"),
    _paper("scene0427_00", "t3", "Numeric", _H, "How many chairs are there in the room?", "Four.", "count",
           subject="chair"),
    _paper("scene0427_00", "t4", "Numeric", _H, "How many doors are there in the room?", "One.", "count",
           subject="door"),
    _paper("scene0144_00", "t1", "Attribute", _E, "What is the white rectangular dresser made from?",
           "Wood or metal.", None),
    _paper("scene0144_00", "t2", "Attribute", _E, "What is the monitor made from?", "Plastic.", None),
    _paper("scene0144_00", "t3", "Spatial", _E, "What is item on top of nightstand?", "Printer.", "names",
           (("printer",),)),
    _paper("scene0144_00", "t4", "Spatial", _E, "What is item supporting the monitor?", "Small desk.",
           "names", (("desk",),)),
    _paper("scene0144_00", "t5", "Numeric", _E, "How many dressers are there?", "Two.", "count",
           subject="dresser"),
)
# fmt: on


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


# ----------------------------------------------------------------------------------------------- setup
@dataclass(frozen=True)
class AlignmentSetup:
    """Everything a run needs: the analysed scenes, the generated tasks, the Table A.2 tasks."""

    analyses: Mapping[str, SceneAnalysis]
    tasks: tuple[AlignmentTask, ...]
    paper_tasks: tuple[PaperTask, ...]
    vocab: LabelVocabulary
    source: Mapping[str, str]

    def matching(self) -> dict[str, int]:
        """Matching and misperception counts over the analysed scenes."""
        out: dict[str, int] = {"scenes": len(self.analyses)}
        for a in self.analyses.values():
            for k, v in a.counts().items():
                out[k] = out.get(k, 0) + v
        return out


def dev_scenes(
    questions: Sequence[Mapping[str, Any]], gt_ids: Sequence[str], pred_ids: Sequence[str]
) -> list[str]:
    """Scenes of the question file present in both objects files, sorted."""
    asked = {str(q.get("scene_id")) for q in questions if isinstance(q, Mapping)}
    return sorted(asked & set(gt_ids) & set(pred_ids))


def prepare(
    questions: Sequence[Mapping[str, Any]],
    objects_path: Path,
    pred_objects_path: Path,
    *,
    labels_path: Path | None = None,
    scenes: Sequence[str] | None = None,
    per_scene: int = 4,
    seed: int = 0,
    limit: int | None = None,
    table_a2: bool = True,
    min_iou: float = MIN_IOU,
) -> AlignmentSetup:
    """Load both objects files, analyse the dev scenes (or ``scenes``), generate and subset the tasks."""
    vocab = LabelVocabulary.from_tsv(labels_path or Path(objects_path).parent / LABELS_FILE)
    gt = load_objects_file(objects_path)
    pred = load_objects_file(pred_objects_path)
    dev = dev_scenes(questions, gt.scene_ids, pred.scene_ids)
    if scenes:
        unknown = [s for s in scenes if s not in dev]
        if unknown:
            raise SceneError(
                f"scene {unknown[0]!r} is not a dev scene (in the questions and both objects files)"
            )
        dev = [s for s in dev if s in set(scenes)]
    if not dev:
        raise SceneError("no dev scenes: no scene of the questions file is in both objects files")
    analyses = {}
    for sid in dev:
        robot = build_graph(sid, pred.objects(sid), scene_type=pred.scene_type(sid))
        analyses[sid] = analyse_scene(
            sid, gt.objects(sid), pred.objects(sid), vocab, robot=robot, min_iou=min_iou
        )
    tasks = select_tasks(list(analyses.values()), vocab, per_scene=per_scene, seed=seed)
    tasks = stride_subset(tasks, limit)
    paper = tuple(t for t in TABLE_A2 if t.scene_id in analyses) if table_a2 else ()
    source = {
        "objects": str(Path(objects_path).resolve()),
        "pred_objects": str(Path(pred_objects_path).resolve()),
    }
    return AlignmentSetup(analyses, tuple(tasks), paper, vocab, source)


def fresh_scene(store: SceneStore, graph: SceneGraph, scene_id: str, source: Mapping[str, str]) -> None:
    """Register ``graph`` under ``scene_id``, dropping whatever an earlier (interrupted) run left there."""
    if store.has_scene(scene_id):
        store.drop(scene_id)
    copy = SceneGraph(
        scene_id, graph.objects, graph.edges, scene_type=graph.scene_type, levels=dict(graph.levels)
    )
    store.register(copy, {"builder": "alignment-benchmark", "scene": graph.scene_id, **source})


def knowledge_text(task: AlignmentTask) -> str:
    """The task's ground-truth corrections as text (what the in-context baseline is told)."""
    return "Please remember these facts about this room: " + " ".join(c.fact() for c in task.corrections)


# ---------------------------------------------------------------------------------------------- running
@dataclass
class AlignmentRunner:
    """Runs alignment tasks and Table A.2 tasks against one chat model and two stores."""

    setup: AlignmentSetup
    llm: ChatModel
    robot_store: SceneStore
    baseline_store: SceneStore
    max_turns: int = 4
    seed: int = 0

    def __post_init__(self) -> None:
        if self.max_turns < 1:
            raise SceneError(f"max_turns must be at least 1, got {self.max_turns}")
        self.user = SimulatedUser(self.setup.vocab, self.seed)

    def _graph(self, scene_id: str) -> SceneGraph:
        return self.setup.analyses[scene_id].robot

    def run_task(self, task: AlignmentTask) -> dict[str, Any]:
        """The alignment dialogue, then the transfer question three ways."""
        start = time.perf_counter()
        record: dict[str, Any] = {
            "suite": "alignment",
            "scene_id": task.scene_id,
            "category": task.category,
            "difficulty": task.difficulty,
            "task": task.to_dict(),
        }
        try:
            fresh_scene(self.robot_store, self._graph(task.scene_id), task.id, self.setup.source)
            session = AgentSession(self.robot_store, task.id, self.llm)
            record |= self.user.align(session, task, self.max_turns)
            record["edits"] = [
                {"op": r.op, "actor": str(r.actor), "utterance": r.utterance, "summary": r.summary()}
                for r in self.robot_store.edits(task.id)
            ]
            record["transfer"] = self.run_transfer(task) if task.transfer is not None else None
            if record["transfer"]:
                record["model_errors"] += sum(
                    record["transfer"][f"{k}_turn"]["model_errors"] for k in ("init", "in_context", "ours")
                )
        except (LLMError, SceneError) as exc:
            record["error"] = str(exc)
        record["seconds"] = round(time.perf_counter() - start, 3)
        return record

    def run_transfer(self, task: AlignmentTask) -> dict[str, Any]:
        """Init (uncorrected, no knowledge), in-context (uncorrected, knowledge as text), ours (aligned)."""
        q = task.transfer
        if q is None:
            raise SceneError(f"task {task.id} has no transfer question")
        out: dict[str, Any] = {"question": q.to_dict()}
        base = self._graph(task.scene_id)
        for name, history in (("init", []), ("in_context", [(knowledge_text(task), KNOWLEDGE_ACK)])):
            fresh_scene(self.baseline_store, base, task.id, self.setup.source)
            session = AgentSession(self.baseline_store, task.id, self.llm, history=list(history))
            ok, turn = self.user.ask(session, q, f"transfer_{name}")
            out[name], out[f"{name}_turn"] = ok, turn
        ok, turn = self.user.ask(AgentSession(self.robot_store, task.id, self.llm), q, "transfer_ours")
        out["ours"], out["ours_turn"] = ok, turn
        return out

    def run_paper_task(self, task: PaperTask) -> dict[str, Any]:
        """A Table A.2 task on the uncorrected graph (checkable ones only are asked)."""
        truth = self.setup.analyses[task.scene_id].truth
        q = paper_question(task, truth)
        record: dict[str, Any] = {
            "suite": "table_a2",
            "scene_id": task.scene_id,
            "task": task.task,
            "category": task.category,
            "difficulty": task.difficulty,
            "question": task.question,
            "paper_answer": task.paper_answer,
            "checkable": q is not None,
            "note": why_uncheckable(task),
            "reference": [list(g) for g in q.expected] if q else None,
        }
        if q is None:
            return record
        try:
            fresh_scene(self.baseline_store, self._graph(task.scene_id), task.id, self.setup.source)
            ok, turn = self.user.ask(AgentSession(self.baseline_store, task.id, self.llm), q, "table_a2")
            record |= {"correct": ok, "answer": turn["answer"], "short": turn["short"], "turn": turn}
        except (LLMError, SceneError) as exc:
            record["error"] = str(exc)
        return record


def run_alignment(
    setup: AlignmentSetup,
    llm: ChatModel,
    out_dir: Path,
    *,
    max_turns: int = 4,
    seed: int = 0,
    concurrency: int = 1,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Run every task of ``setup`` resumably into ``out_dir/results.jsonl``; returns all results."""
    run = ResumableRun(out_dir, {"benchmark": "alignment", "llm": llm.name, "max_turns": str(max_turns),
                                 "seed": str(seed)})
    robot = SceneStore(Path(out_dir) / ROBOT_STORE)
    baseline = SceneStore(Path(out_dir) / BASELINE_STORE)
    try:
        runner = AlignmentRunner(setup, llm, robot, baseline, max_turns=max_turns, seed=seed)
        items: list[AlignmentTask | PaperTask] = [*setup.tasks, *setup.paper_tasks]

        def work(item: AlignmentTask | PaperTask) -> dict[str, Any]:
            if isinstance(item, PaperTask):
                return runner.run_paper_task(item)
            return runner.run_task(item)

        return run.run(
            items, lambda it: it.id, work, concurrency=concurrency, desc="alignment", progress=progress
        )
    finally:
        robot.close()
        baseline.close()


# ---------------------------------------------------------------------------------------------- metrics
def mean_ci(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and the half-width of its 95 % interval (1.96·s/√n; None when n < 2)."""
    vals = [float(v) for v in values]
    if not vals:
        return None, None
    if len(vals) < 2:
        return vals[0], None
    return statistics.fmean(vals), 1.96 * statistics.stdev(vals) / math.sqrt(len(vals))


def _scaled(values: Sequence[float], scale: float) -> tuple[float | None, float | None]:
    m, h = mean_ci(values)
    return (None if m is None else round(scale * m, 4)), (None if h is None else round(scale * h, 4))


def table3(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """SynergAI Table III figures (percentages for SR and QR) with 95 % intervals."""
    out: dict[str, Any] = {"tasks": len(rows)}
    figures: tuple[tuple[str, Callable[[Mapping[str, Any]], float], float], ...] = (
        ("SR_init", lambda r: float(r["init_correct"]), 100.0),
        ("SR", lambda r: float(r["success"]), 100.0),
        ("interactions_per_task", lambda r: float(r["interactions"]), 1.0),
        ("actions_per_interaction", lambda r: float(r["actions_per_interaction"]), 1.0),
        ("query_ratio", lambda r: float(r["query_ratio"]), 100.0),
    )
    for name, get, scale in figures:
        out[name], out[f"{name}_ci95"] = _scaled([get(r) for r in rows], scale)
    return out


def table4(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """SynergAI Table IV: transfer success (%) for init, the in-context baseline and ours."""
    done = [r["transfer"] for r in rows if r.get("transfer")]
    out: dict[str, Any] = {"tasks": len(done)}
    for name in ("init", "in_context", "ours"):
        out[name], out[f"{name}_ci95"] = _scaled([float(t[name]) for t in done], 100.0)
    return out


def alignment_metrics(
    results: Sequence[Mapping[str, Any]], matching: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """The `eval alignment` metrics: Table III overall / easy / hard, Table IV, Table A.2, matching counts."""
    rows = [r for r in results if r.get("suite") == "alignment" and "error" not in r]
    paper = [r for r in results if r.get("suite") == "table_a2"]
    errors = sum(1 for r in results if "error" in r)
    easy = [r for r in rows if r["difficulty"] == "easy"]
    hard = [r for r in rows if r["difficulty"] == "hard"]
    out = table3(rows)
    out["easy"], out["hard"] = table3(easy), table3(hard)
    out["transfer"] = table4(rows) | {"easy": table4(easy), "hard": table4(hard)}
    judged = [r for r in paper if r.get("checkable") and "error" not in r]
    out["table_a2"] = [
        {
            k: r.get(k)
            for k in (
                "scene_id",
                "task",
                "category",
                "difficulty",
                "question",
                "paper_answer",
                "checkable",
                "note",
                "reference",
                "answer",
                "correct",
                "error",
            )
        }
        for r in paper
    ]
    out["table_a2_SR_init"] = _scaled([float(r["correct"]) for r in judged], 100.0)[0]
    out["table_a2_judged"] = len(judged)
    out["errors"] = errors
    out["model_errors"] = sum(int(r.get("model_errors", 0)) for r in rows)
    out["matching"] = dict(matching or {})
    groups = {"EASY": easy, "HARD": hard, "OVERALL": rows}
    out["by_difficulty"] = {
        g: {"n": len(v), "SR_init": table3(v)["SR_init"], "SR": table3(v)["SR"]}
        for g, v in groups.items()
        if v
    }
    cats = sorted({r["category"] for r in rows})
    out["by_category"] = {
        c: {
            "n": len(v),
            "SR_init": table3(v)["SR_init"],
            "SR": table3(v)["SR"],
            "interactions": table3(v)["interactions_per_task"],
        }
        for c in cats
        for v in [[r for r in rows if r["category"] == c]]
    }
    out["by_transfer"] = {
        g: {"n": t["tasks"], "init": t["init"], "in_context": t["in_context"], "ours": t["ours"]}
        for g, v in groups.items()
        for t in [table4(v)]
        if t["tasks"]
    }
    return out


def _fmt(value: Any, ci: Any = None) -> str:
    if value is None:
        return "–"
    text = f"{value:.2f}" if isinstance(value, float) else str(value)
    return text + (f" ± {ci:.2f}" if isinstance(ci, float) else "")


def report_markdown(metrics: Mapping[str, Any], command: str = "") -> str:
    """report.md: Table III, Table IV, Table A.2 and the matching counts."""
    lines = ["# Perception alignment (SynergAI Tables III, IV and A.2)", ""]
    if command:
        lines += ["Reproduce with:", "", f"    {command}", ""]
    cols = ("SR_init", "SR", "interactions_per_task", "actions_per_interaction", "query_ratio")
    lines += [
        "## Alignment tasks (Table III; SR and QR in %, mean ± 95 % interval)",
        "",
        "| | tasks | SR_init | SR | #Inter./Task | #Action/Inter. | QR |",
        "|---" * 7 + "|",
    ]
    for name, d in (("EASY", metrics["easy"]), ("HARD", metrics["hard"]), ("OVERALL", metrics)):
        lines.append(
            f"| {name} | {d['tasks']} | " + " | ".join(_fmt(d[c], d.get(f"{c}_ci95")) for c in cols) + " |"
        )
    lines += [
        "",
        "## Knowledge transfer (Table IV; success rate %)",
        "",
        "| | tasks | Init. | In-context | Ours |",
        "|---" * 5 + "|",
    ]
    tr = metrics["transfer"]
    for name, d in (("EASY", tr["easy"]), ("HARD", tr["hard"]), ("OVERALL", tr)):
        lines.append(
            f"| {name} | {d['tasks']} | "
            + " | ".join(_fmt(d[c], d.get(f"{c}_ci95")) for c in ("init", "in_context", "ours"))
            + " |"
        )
    lines += [
        "",
        f"## SynergAI Table A.2 on the predicted graph (SR_init {_fmt(metrics['table_a2_SR_init'])} % "
        f"over {metrics['table_a2_judged']} judged tasks)",
        "",
        "| scene | task | category | question | paper | reference | correct | note |",
        "|---" * 8 + "|",
    ]
    for r in metrics["table_a2"]:
        ref = " / ".join("|".join(g) for g in r["reference"]) if r.get("reference") else ""
        verdict = "error" if r.get("error") else ("–" if r.get("correct") is None else str(r["correct"]))
        lines.append(
            f"| {r['scene_id']} | {r['task']} | {r['category']} | {r['question']} | {r['paper_answer']} "
            f"| {ref.replace('|', ' or ')} | {verdict} | {r.get('note') or ''} |"
        )
    lines += [
        "",
        "## Matching of predictions to ground truth (3D IoU >= 0.25, Hungarian)",
        "",
        "| figure | value |",
        "|---|---|",
    ]
    lines += [f"| {k} | {v} |" for k, v in metrics.get("matching", {}).items()]
    lines += [
        "",
        f"Errors (tasks that could not run, left out of the figures): {metrics['errors']}; failed model "
        f"calls inside agent turns (those answers count as wrong): {metrics.get('model_errors', 0)}",
        "",
    ]
    return "\n".join(lines)


def write_alignment_report(out_dir: Path, metrics: Mapping[str, Any], command: str = "") -> None:
    """metrics.json and plots (shared report writer), then the alignment report.md."""
    write_report(out_dir, "Perception alignment", metrics, command)
    (Path(out_dir) / "report.md").write_text(report_markdown(metrics, command), encoding="utf-8")
