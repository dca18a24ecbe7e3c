"""ScanQA with the SynergAI agent: each question answered on its scene's graph, zero-shot.

Both the raw answer (a sentence, as the paper's system gave) and a short-answer form (the model's own
``short_answer``, else :func:`synergai.eval.answers.short_answer`) are scored, because EM punishes
full sentences (SynergAI Table II discussion).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from synergai.agent.loop import BATCH_LIMITS, LoopLimits
from synergai.agent.session import AgentSession
from synergai.eval.answers import em_normal_form, short_answer
from synergai.eval.metrics import (
    CaptionScorer,
    aggregate,
    exact_match,
    refined_exact_match,
    scanqa_question_type,
)
from synergai.eval.runner import ResumableRun
from synergai.eval.split import Half, select
from synergai.llm.base import ChatModel, LLMError
from synergai.scene.catalog import SceneCatalog
from synergai.scene.model import SceneError
from synergai.scene.store import SceneStore

QUESTION_FIELDS = ("question_id", "scene_id", "question", "answers")


def check_questions(records: object, source: str) -> list[dict[str, Any]]:
    """ScanQA records with the fields the runner needs (SceneError naming the first bad one)."""
    if not isinstance(records, list):
        raise SceneError(f"{source}: expected a JSON list of ScanQA questions")
    for k, r in enumerate(records):
        missing = [f for f in QUESTION_FIELDS if not isinstance(r, dict) or f not in r]
        if missing:
            raise SceneError(f"{source}: question {k} lacks {', '.join(missing)}")
    return records


def answer_question(catalog: SceneCatalog, llm: ChatModel, q: Mapping[str, Any],
                    limits: LoopLimits | None = None) -> dict[str, Any]:
    """One question: the agent's answer, its cost and its short form (no metric yet)."""
    start = time.perf_counter()
    record: dict[str, Any] = {"scene_id": q["scene_id"], "question": q["question"], "answers": q["answers"],
                              "type": scanqa_question_type(q["question"])}
    try:
        catalog.open(q["scene_id"])
        session = AgentSession(catalog.store, q["scene_id"], llm, limits=limits or BATCH_LIMITS)
        result = session.ask(q["question"])
    except (LLMError, SceneError) as exc:
        record.update(answer="", short="", error=str(exc), llm_calls=0, query_ratio=0.0, actions=0,
                      prompt_tokens=0, new_prompt_tokens=0, completion_tokens=0,
                      latency_s=time.perf_counter() - start)
        return record
    record.update(
        answer=result.answer,
        short=result.short_answer or short_answer(result.answer, q["question"]),
        objects=result.objects,
        **result.usage.to_dict(),
        query_ratio=result.query_ratio,
        actions=result.actions,
        latency_s=result.seconds,
        harness_s=time.perf_counter() - start - result.usage.model_seconds,
        trace=result.trace,
    )
    return record


def run_scanqa(
    questions: Sequence[Mapping[str, Any]],
    objects_path: Path,
    llm: ChatModel,
    out_dir: Path,
    *,
    limit: int | None = None,
    half: Half | None = None,
    concurrency: int = 1,
    progress: bool = True,
    limits: LoopLimits | None = None,
) -> list[dict[str, Any]]:
    """Answer (a fixed spread-out subset of) the questions of one half of the dev split (all with
    ``half`` None), resumably, into ``out_dir``; the agent under ``limits`` (default
    :data:`~synergai.agent.loop.BATCH_LIMITS`: no question asked back)."""
    subset = select(sorted(questions, key=lambda q: str(q["question_id"])), lambda q: str(q["scene_id"]),
                    half=half, limit=limit)
    run = ResumableRun(out_dir, {"benchmark": "scanqa", "llm": llm.name, "objects": Path(objects_path).name})
    store = SceneStore(Path(out_dir) / "scenes.sqlite3")
    try:
        catalog = SceneCatalog(store, objects_path)
        return run.run(subset, lambda q: str(q["question_id"]),
                       lambda q: answer_question(catalog, llm, q, limits),
                       concurrency=concurrency, desc="ScanQA", progress=progress)
    finally:
        store.close()


def scanqa_metrics(
    results: Sequence[Mapping[str, Any]], scorer: CaptionScorer | None = None
) -> dict[str, Any]:
    """EM, EM-R and the caption metrics for raw and short answers, by question type, and the costs."""
    if not results:
        raise SceneError("no ScanQA results to score")
    failed = sum(1 for r in results if r.get("error"))
    results = [r for r in results if not r.get("error")]  # a failed item is counted, never scored
    if not results:
        return {"n": 0, "errors": failed}
    rows = []
    for r in results:
        rows.append({**r, "em": exact_match(r["answer"], r["answers"]),
                     "em_r": refined_exact_match(r["answer"], r["answers"]),
                     "em_short": exact_match(r["short"], r["answers"]),
                     "em_r_short": refined_exact_match(r["short"], r["answers"])})
    refs = {str(r["id"]): list(r["answers"]) for r in rows}
    out: dict[str, Any] = {"n": len(rows)}
    for suffix, key in (("", "answer"), ("_short", "short")):
        preds = {str(r["id"]): r[key] or "none" for r in rows}
        caps = scorer.score(preds, refs) if scorer is not None else {}
        out[f"EM{suffix}"] = 100 * statistics.fmean(r[f"em{suffix}"] for r in rows)
        out[f"EM_R{suffix}"] = 100 * statistics.fmean(r[f"em_r{suffix}"] for r in rows)
        out |= {f"{name}{suffix}": value for name, value in caps.items()}
    if scorer is not None:  # short answers as EM reads them, as ScanQA's references are written (no articles)
        clean = {str(r["id"]): em_normal_form(r["short"]) or "none" for r in rows}
        clean_refs = {k: [em_normal_form(a) for a in v] for k, v in refs.items()}
        out["CIDEr_short_clean"] = scorer.cider(clean, clean_refs)
    out["llm_calls_per_question"] = statistics.fmean(r["llm_calls"] for r in rows)
    out["query_ratio"] = statistics.fmean(r["query_ratio"] for r in rows)
    # new prompt tokens: what the model processed, not served from its prefix cache (older records lack it)
    for key in ("new_prompt_tokens", "prompt_tokens", "completion_tokens"):
        values = [r[key] for r in rows if key in r]
        out[f"mean_{key}"] = statistics.fmean(values) if values else None
    out["median_latency_s"] = statistics.median(r["latency_s"] for r in rows)
    harness = [r["harness_s"] for r in rows if "harness_s" in r]
    out["median_harness_s"] = statistics.median(harness) if harness else None
    out["errors"] = failed
    em = aggregate(rows, "type", "em_short")
    em_r = aggregate(rows, "type", "em_r_short")
    out["by_type"] = {
        t: {"n": em[t]["n"], "EM_short": 100 * em[t]["mean"], "EM_R_short": 100 * em_r[t]["mean"]}
        for t in sorted(em)
    }
    return out
