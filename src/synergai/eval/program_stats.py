"""Program mode's figures over a benchmark run: LLM-TPC's pass rate, the classes of failed programs, and
how often each registered repair pass and each lenient form of the scene API was used.

They read the run records (``ProgramResult.to_dict()`` or the eval's records: ``trace`` and ``llm_calls``).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from synergai.agent.program.api import KEYWORD_ALIASES, api_signatures, full_keyword
from synergai.agent.program.check import sets_as_objects
from synergai.agent.program.prompt import EMPTY_OUTPUT
from synergai.agent.program.repairs import applied
from synergai.agent.program.values import FIELDS, OBJECT_FIELDS, legal_value


def program_stats(results: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """LLM-TPC's program figures over results with ``trace`` and ``llm_calls`` (``ProgramResult.to_dict()``
    or run records): ``pass_rate`` is the % of the questions the model was asked whose last program ran
    without error (rectifying raises it, as in LLM-TPC Table 4; a question with no program does not pass),
    ``from_graph`` the questions answered from the graph with no model call (no program was wanted: not in
    ``pass_rate``), ``programs_ok`` the % of all programs run that did, ``mean_rounds`` the LLM calls per
    question."""
    runs = [[t for t in r.get("trace", []) if t.get("type") == "program"] for r in results]
    programs = [t for run in runs for t in run]
    n = len(results)
    graph = sum(1 for r in results
                if not r["llm_calls"] and any(t.get("from_graph") for t in r.get("trace", [])))
    asked = n - graph
    return {
        "questions": n,
        "from_graph": graph,
        "programs": len(programs),
        "pass_rate": 100 * sum(1 for run in runs if run and run[-1]["ok"]) / asked if asked else 0.0,
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


def repair_counts(results: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How often each registered repair pass (:data:`synergai.agent.program.repairs.REPAIRS`) fired, and
    how often an earlier attempt's assignments were carried (``carry-definitions``) or a name that spells
    a category was defined (``define-categories``)."""
    counts: Counter[str] = Counter()
    for r in results:
        for t in r.get("trace", []):
            if t.get("type") == "program":
                counts.update(t.get("repairs") or [])
                counts.update(applied(t))
    return dict(counts.most_common())


_DIRECTIONS = ("left", "right", "front", "back", "behind")


def _lenient_forms(code: str) -> list[str]:
    """The lenient forms of the scene API a program uses (see :mod:`synergai.agent.program.api`)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr not in OBJECT_FIELDS \
                and legal_value(node.attr, FIELDS) is not None:
            found.append("object-attribute-field")  # obj.color, obj.size (on a set it is an error)
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        keywords = {k.arg for k in node.keywords if k.arg}
        params = set(api_signatures()[name].parameters) if name in api_signatures() else set()
        if name in ("relate_agent", "query_relation_agent") and "reference_object" in keywords:
            found.append(f"{name}-reference-object")
        if name == "filter" and node.args and isinstance(node.args[0], ast.Lambda):
            found.append("filter-function-first")
        elif name == "filter" and any(isinstance(a, ast.Lambda) for a in [*node.args[1:], *(
                k.value for k in node.keywords)]):
            found.append("filter-predicate")
        if name == "query_attribute" and any(isinstance(a, ast.Constant) and a.value in OBJECT_FIELDS
                                             for a in [*node.args[1:2], *(k.value for k in node.keywords)]):
            found.append("query-attribute-field")
        asked = [*node.args[2:], *(k.value for k in node.keywords if k.arg == "candidate_relations")]
        if name == "query_relation" and any(isinstance(c, ast.Constant) and isinstance(c.value, str)
                                            and legal_value(c.value, _DIRECTIONS) is None
                                            for a in asked for c in ast.walk(a)):
            found.append("query-relation-relate-relation")
        if isinstance(func, ast.Attribute) and func.attr == "sort" and not node.args:
            found.append("sort")  # on a list too: the trace does not say which
        if params and any(k not in params and KEYWORD_ALIASES.get(k) in params for k in keywords):
            found.append("keyword-alias")  # object_set= for object=, relation= for candidate_relations=
        elif params and any(k not in params and full_keyword(k, params) != k for k in keywords):
            found.append("keyword-prefix")
        if name == "filter" and "relation" in keywords:
            found.append("filter-relation")
    # a set where one object is expected stands for its nearest
    found += ["set-as-one-object"] * sets_as_objects(tree)
    return found


def lenient_counts(results: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How often programs used each lenient form of the scene API (read from the programs run)."""
    counts: Counter[str] = Counter()
    for r in results:
        for t in r.get("trace", []):
            if t.get("type") == "program" and t.get("stage") == "sandbox":
                counts.update(_lenient_forms(str(t.get("program", ""))))
    return dict(counts.most_common())
