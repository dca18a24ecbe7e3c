"""Running the benchmark: loading and analysing the dev scenes, the dialogues, knowledge transfer.

The automatic perception-alignment benchmark (SynergAI Tables III and IV) and SynergAI's Table A.2 tasks.

Per task (:mod:`synergai.eval.alignment.tasks`): the robot's graph (predicted instances) is registered under
the task's own scene id in the *robot* store, and the simulated user (:mod:`synergai.eval.alignment.judge`)
runs the dialogue through a real :class:`~synergai.agent.session.AgentSession`, so corrections go through the
agent's tools into the store's edit log. Knowledge transfer (Table IV) then asks the task's transfer question
three times, each in a fresh session: *init* on the uncorrected graph (a second, *baseline* store), the
*in-context* baseline on the uncorrected graph with the task's ground-truth corrections given as text in a
previous dialogue turn, and *ours* on the graph as the alignment left it (the robot store).

Table A.2 tasks run once, on the uncorrected graph (SR_init); material and shape questions cannot be judged
from this data (no meshes or material labels: boxes and mean colours only) and are listed, not run.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synergai.agent.session import AgentSession
from synergai.eval.alignment.judge import SimulatedUser
from synergai.eval.alignment.matching import MIN_IOU, LabelVocabulary
from synergai.eval.alignment.tasks import (
    TABLE_A2,
    AlignmentTask,
    PaperTask,
    SceneAnalysis,
    analyse_scene,
    paper_question,
    select_tasks,
    why_uncheckable,
)
from synergai.eval.runner import ResumableRun, stride_subset
from synergai.llm.base import ChatModel, LLMError
from synergai.scene.build import build_graph
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.model import SceneError, SceneGraph
from synergai.scene.store import SceneStore

ROBOT_STORE = "scenes_robot.sqlite3"
BASELINE_STORE = "scenes_baseline.sqlite3"
LABELS_FILE = "scannetv2-labels.combined.tsv"
KNOWLEDGE_ACK = "Understood. I will keep these facts about the room in mind."


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


