"""Program mode's figures over a benchmark run: LLM-TPC's pass rate and the classes of failed programs.

They read the run records (``ProgramResult.to_dict()`` or the eval's records: ``trace`` and ``llm_calls``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from synergai.agent.program.prompt import EMPTY_OUTPUT


def program_stats(results: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """LLM-TPC's program figures over results with ``trace`` and ``llm_calls`` (``ProgramResult.to_dict()``
    or run records): ``pass_rate`` is the % of questions whose last program ran without error (rectifying
    raises it, as in LLM-TPC Table 4; a question with no program does not pass), ``programs_ok`` the % of
    all programs run that did, ``mean_rounds`` the LLM calls per question."""
    runs = [[t for t in r.get("trace", []) if t.get("type") == "program"] for r in results]
    programs = [t for run in runs for t in run]
    n = len(results)
    return {
        "questions": n,
        "programs": len(programs),
        "pass_rate": 100 * sum(1 for run in runs if run and run[-1]["ok"]) / n if n else 0.0,
        "programs_ok": 100 * sum(1 for t in programs if t["ok"]) / len(programs) if programs else 0.0,
        "mean_rounds": sum(r["llm_calls"] for r in results) / n if n else 0.0,
    }


def error_class(step: Mapping[str, Any]) -> str | None:
    """The class of a program step's failure: ``check:<finding>`` (the first finding of a program the static
    check stopped), ``sandbox:<exception type>``, ``empty-output``; None for a program that printed."""
    if step.get("ok"):
        return None if str(step.get("stdout", "")).strip() else "empty-output"
    if step.get("stage") == "check":
        kinds = step.get("findings") or ["unknown"]
        return f"check:{kinds[0]}"
    error = str(step.get("error") or "")
    if error == EMPTY_OUTPUT:
        return "empty-output"
    return f"sandbox:{error.split(':', 1)[0].strip() or 'unknown'}"


def program_error_classes(results: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many programs failed in each class (:func:`error_class`), plus ``not-computed``: questions whose
    answer could not be computed."""
    counts: dict[str, int] = {}
    for r in results:
        for t in r.get("trace", []):
            kind = error_class(t) if t.get("type") == "program" else None
            if kind:
                counts[kind] = counts.get(kind, 0) + 1
        if any(t.get("type") == "final" and t.get("forced") for t in r.get("trace", [])):
            counts["not-computed"] = counts.get("not-computed", 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
