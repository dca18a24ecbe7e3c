"""Tables III and IV: success rates, interactions, query ratio, knowledge transfer, and report.md.

Confidence intervals: mean ± 1.96·s/√n (s the sample standard deviation over tasks; none when n < 2), as
SynergAI reports mean and 95 % intervals.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from synergai.eval.report import write_report


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
