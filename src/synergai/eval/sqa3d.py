"""SQA3D: situated questions, with the agent placed at the question's position and facing.

SQA3D stores ``position`` in the raw scan frame re-centred on the raw mesh's bounding-box centre and
``rotation`` as a quaternion (x, y, z, w) under which the agent faces ``R(q)·[-1, 0, 0]``. Our boxes
are in ScanNet's axis-aligned frame. Without raw meshes the centre is approximated as the centre of
the ground-truth boxes' corners taken back to the raw frame (about 0.1 m off where it could be
checked), so positions are approximate and the situation text stays the primary cue.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from synergai.agent.answer_forms import answer_form
from synergai.agent.loop import BATCH_LIMITS
from synergai.agent.program.loop import (
    ProgramLimits,
    ProgramLoop,
    ProgramResult,
)
from synergai.agent.result import Answered
from synergai.agent.session import AgentSession
from synergai.eval.metrics import aggregate, soft_match, sqa3d_question_type, strict_match
from synergai.eval.program_stats import lenient_counts, program_error_classes, program_stats, repair_counts
from synergai.eval.runner import ResumableRun
from synergai.eval.split import Half, select
from synergai.geometry.frames import SQA3D_FACING, Viewpoint, quat_to_matrix
from synergai.llm.base import ChatModel, LLMError
from synergai.scene.catalog import SceneCatalog
from synergai.scene.model import SceneError, SceneGraph
from synergai.scene.store import SceneStore

QUESTION_FIELDS = ("question_id", "scene_id", "situation", "question", "answers", "position", "rotation")


def check_questions(records: object, source: str) -> list[dict[str, Any]]:
    """SQA3D records with the fields the runner needs (SceneError naming the first bad one)."""
    if not isinstance(records, list):
        raise SceneError(f"{source}: expected a JSON list of SQA3D questions")
    for k, r in enumerate(records):
        missing = [f for f in QUESTION_FIELDS if not isinstance(r, dict) or f not in r]
        if missing:
            raise SceneError(f"{source}: question {k} lacks {', '.join(missing)}")
    return records


def situated_viewpoint(record: Mapping[str, Any], graph: SceneGraph, alignment: np.ndarray) -> Viewpoint:
    """The agent's viewpoint in the graph's (axis-aligned) frame."""
    align = np.asarray(alignment, dtype=float).reshape(4, 4)
    lo = np.array([o.min_corner for o in graph])
    hi = np.array([o.max_corner for o in graph])
    corners = np.concatenate(
        [lo, hi, np.stack([lo[:, 0], hi[:, 1], lo[:, 2]], 1), np.stack([hi[:, 0], lo[:, 1], hi[:, 2]], 1)]
    )
    inv = np.linalg.inv(align)
    raw = corners @ inv[:3, :3].T + inv[:3, 3]
    centre_raw = (raw.min(axis=0) + raw.max(axis=0)) / 2.0
    p = record["position"]
    q = record["rotation"]
    pos_raw = np.array([p["x"], p["y"], p["z"]], dtype=float) + centre_raw
    pos = align[:3, :3] @ pos_raw + align[:3, 3]
    facing = align[:3, :3] @ (quat_to_matrix((q["_x"], q["_y"], q["_z"], q["_w"])) @ np.array(SQA3D_FACING))
    return Viewpoint((float(pos[0]), float(pos[1]), 1.2), (float(facing[0]), float(facing[1]), 0.0))


def answer_question(
    catalog: SceneCatalog,
    llm: ChatModel,
    alignments: Mapping[str, Sequence[float]],
    q: Mapping[str, Any],
    mode: str,
    program_limits: ProgramLimits | None = None,
) -> dict[str, Any]:
    """One situated question in program or react mode."""
    start = time.perf_counter()
    record: dict[str, Any] = {
        "scene_id": q["scene_id"],
        "question": q["question"],
        "answers": q["answers"],
        "answer_type": q.get("answer_type", "other"),
        "question_type": sqa3d_question_type(q["question"]),
    }
    if mode == "program":
        record["answer_form"] = answer_form(q["question"]).value
    try:
        graph = catalog.open(q["scene_id"])
        if q["scene_id"] not in alignments:
            raise SceneError(f"no axis alignment for {q['scene_id']}")
        viewpoint = situated_viewpoint(q, graph, np.asarray(alignments[q["scene_id"]]))
        result: Answered
        if mode == "program":
            result = ProgramLoop(llm, program_limits).run(graph, q["question"], q["situation"], viewpoint)
        else:
            session = AgentSession(catalog.store, q["scene_id"], llm, viewpoint=viewpoint,
                                   limits=BATCH_LIMITS)  # nobody to answer a question asked back
            result = session.ask(f"{q['situation']} {q['question']}")
    except (LLMError, SceneError) as exc:
        record.update(answer="", error=str(exc), llm_calls=0, latency_s=time.perf_counter() - start, trace=[])
        return record
    record.update(
        answer=result.short_answer or result.answer,
        raw_answer=result.answer,
        **result.usage.to_dict(),
        latency_s=result.seconds,
        trace=[t for t in result.trace if t["type"] in ("program", "final", "error")],
    )
    if isinstance(result, ProgramResult):  # mode == "program"
        record["program_error"] = result.error
    return record


def run_sqa3d(
    questions: Sequence[Mapping[str, Any]],
    objects_path: Path,
    alignments: Mapping[str, Any],
    llm: ChatModel,
    out_dir: Path,
    *,
    mode: str = "program",
    limit: int | None = None,
    half: Half | None = None,
    concurrency: int = 1,
    progress: bool = True,
    program_limits: ProgramLimits | None = None,
) -> list[dict[str, Any]]:
    """Answer (a fixed spread-out subset of) the questions of one half of the dev split (all with
    ``half`` None), resumably, into ``out_dir``; program mode runs
    under ``program_limits`` (default :class:`ProgramLimits`; all its values are kept in the run's
    settings, so a directory never mixes two setups)."""
    if mode not in ("program", "react"):
        raise SceneError(f"mode must be 'program' or 'react', got {mode!r}")
    subset = select(sorted(questions, key=lambda q: str(q["question_id"])), lambda q: str(q["scene_id"]),
                    half=half, limit=limit)
    settings = {"benchmark": "sqa3d", "mode": mode, "llm": llm.name, "objects": Path(objects_path).name}
    if mode == "program":  # every limit, so a change of the defaults is not resumed into either
        limits = asdict(program_limits or ProgramLimits())
        settings["program_limits"] = json.loads(json.dumps(limits, default=str))
    run = ResumableRun(out_dir, settings)
    store = SceneStore(Path(out_dir) / "scenes.sqlite3")
    try:
        catalog = SceneCatalog(store, objects_path)
        return run.run(
            subset,
            lambda q: str(q["question_id"]),
            lambda q: answer_question(catalog, llm, alignments, q, mode, program_limits),
            concurrency=concurrency,
            desc=f"SQA3D ({mode})",
            progress=progress,
        )
    finally:
        store.close()


def sqa3d_metrics(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Soft and strict match overall, per answer type, question type (what / is / how / can / which /
    others) and, in program mode, answer form; the mean of new (uncached) prompt tokens and of generated
    tokens per question;
    program statistics overall and per question type, and program errors by class."""
    if not results:
        raise SceneError("no SQA3D results to score")
    failed = sum(1 for r in results if r.get("error"))
    results = [r for r in results if not r.get("error")]  # a failed item is counted, never scored
    if not results:
        return {"n": 0, "errors": failed}
    rows = [
        {
            **r,
            "soft": soft_match(r["answer"], r["answers"]),
            "strict": strict_match(r["answer"], r["answers"]),
        }
        for r in results
    ]
    out: dict[str, Any] = {
        "n": len(rows),
        "soft_match": 100 * statistics.fmean(r["soft"] for r in rows),
        "strict_match": 100 * statistics.fmean(r["strict"] for r in rows),
        "llm_calls_per_question": statistics.fmean(r["llm_calls"] for r in rows),
        "median_latency_s": statistics.median(r["latency_s"] for r in rows),
        "mean_new_prompt_tokens": statistics.fmean(
            r.get("prompt_tokens", 0) - r.get("cached_tokens", 0) for r in rows
        ),
        "mean_completion_tokens": statistics.fmean(r.get("completion_tokens", 0) for r in rows),
        "errors": failed,
    }
    for key in ("answer_type", "question_type", "answer_form"):
        if not all(key in r for r in rows):
            continue
        soft = aggregate(rows, key, "soft")
        strict = aggregate(rows, key, "strict")
        out[f"by_{key}"] = {
            k: {
                "n": soft[k]["n"],
                "soft_match": 100 * soft[k]["mean"],
                "strict_match": 100 * strict[k]["mean"],
            }
            for k in sorted(soft)
        }
    if any(t.get("type") == "program" for r in rows for t in r.get("trace", [])):
        out["program"] = program_stats(rows)
        out["program_errors"] = program_error_classes(rows)
        out["program_repairs"] = repair_counts(rows)
        out["program_lenient"] = lenient_counts(rows)
        out["program_by_question_type"] = {
            k: program_stats([r for r in rows if r["question_type"] == k])
            for k in sorted({r["question_type"] for r in rows})
        }
    return out
