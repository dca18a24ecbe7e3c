"""The one pipeline of repairs of a model's program: every transform registered here, in order, and
counted per run (:func:`applied`). The parse passes (:data:`PASSES`) run only on text that does not parse
and are kept only when the result parses; then a program gets back the assignments of earlier attempts it
dropped ("carry-definitions") and the names it reads that spell a scene category ("define-categories").
Calls that parse are never rewritten: the scene API reads them leniently.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from synergai.agent.program.check import name_uses
from synergai.agent.program.names import carry_definitions, category_named, one_object_code, undefined_names
from synergai.agent.program.rewrite import (
    clock_names,
    close_fields,
    name_positional_arguments,
    parses,
    requote_fstrings,
)

#: The parse repairs :func:`make_parse` tries, in order, by name (each documented in docs/overview.md and
#: tested): code -> code; ValueError: no fix.
PASSES: Mapping[str, Callable[[str], str]] = MappingProxyType({
    "requote-fstrings": requote_fstrings,
    "clock-names": clock_names,
    "close-fields": close_fields,
    "name-positional-arguments": name_positional_arguments,
})
#: Every repair of a program's text, in the order the pipeline applies them.
REPAIRS = (*PASSES, "carry-definitions", "define-categories")


def make_parse(code: str) -> tuple[str, list[str]] | None:
    """A repair of ``code`` that does not parse by the passes of :data:`PASSES` in turn, and the passes it
    took; None when it parses already or they do not make it parse."""
    if parses(code):
        return None
    candidate, used = code, []
    for name, repair in PASSES.items():
        try:
            fixed = repair(candidate)
        except ValueError:
            continue
        if fixed != candidate:
            candidate = fixed
            used.append(name)
        if parses(candidate):
            return candidate, used
    return None


def define_categories(code: str, counts: Mapping[str, int], *,
                      ordered_sets: bool = True) -> tuple[str, list[str]] | None:
    """``code`` with an assignment in front for each undefined name that spells a scene category and is
    used one way only: as a set, the category's objects; as one object, when the scene has exactly one
    (``counts``: objects per category). None when no name qualifies."""
    if not parses(code):
        return None
    tree = ast.parse(code)
    uses, found = name_uses(tree, ordered_sets), {}
    for name in dict.fromkeys(n.id for n in undefined_names(tree)):
        category, kinds = category_named(name, list(counts)), uses.get(name, set())
        if category is not None and kinds == {"set"}:
            found[name] = f"filter(object_set=scene(), category={category!r})"
        elif category is not None and kinds == {"object"} and counts[category] == 1:
            found[name] = one_object_code(category, ordered_sets)
    return ("".join(f"{n} = {v}\n" for n, v in found.items()) + code, list(found)) if found else None


def repair_program(code: str, counts: Mapping[str, int], earlier: list[str], *,
                   ordered_sets: bool = True) -> tuple[str, dict[str, Any]]:
    """The program through every stage, and what was done (for the trace); ``earlier`` (the programs so
    far) gets this one, parse-repaired."""
    code, repairs = make_parse(code) or (code, [])
    carry = carry_definitions(code, earlier)
    earlier.append(code)
    code, carried = carry or (code, [])
    code, made = define_categories(code, counts, ordered_sets=ordered_sets) or (code, [])
    return code, {"rewritten": bool(repairs), "repairs": repairs, "carried": carried, "defined": made}


def applied(done: Mapping[str, Any]) -> list[str]:
    """The repairs a program's record (:func:`repair_program`) says were applied."""
    stages = (("carry-definitions", "carried"), ("define-categories", "defined"))
    return [*done.get("repairs", []), *(name for name, key in stages if done.get(key))]
