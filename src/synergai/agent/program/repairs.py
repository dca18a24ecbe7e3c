"""The one pipeline of repairs of a model's program: every transform registered here, in order, and
counted per run (:func:`applied`). A program gets back the assignments of earlier attempts it dropped
("carry-definitions") and the names it reads that spell a scene category ("define-categories"). A program
that does not parse goes back with the syntax error's hint; calls that parse are never rewritten: the
scene API reads them leniently.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from synergai.agent.program.check import name_uses
from synergai.agent.program.names import (
    carry_definitions,
    category_named,
    one_object_code,
    parsed,
    undefined_names,
)

#: Every repair of a program's text, in the order the pipeline applies them, and the key of the record
#: (:func:`repair_program`) that lists what it did.
RECORD_KEYS = MappingProxyType({"carry-definitions": "carried", "define-categories": "defined"})
REPAIRS = tuple(RECORD_KEYS)


def define_categories(code: str, counts: Mapping[str, int], *,
                      ordered_sets: bool = True) -> tuple[str, list[str]] | None:
    """``code`` with an assignment in front for each undefined name that spells a scene category and is
    used one way only: as a set, the category's objects; as one object, when the scene has exactly one
    (``counts``: objects per category). None when no name qualifies."""
    if (tree := parsed(code)) is None:
        return None
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
    far) gets this one."""
    carry = carry_definitions(code, earlier)
    earlier.append(code)
    code, carried = carry or (code, [])
    code, made = define_categories(code, counts, ordered_sets=ordered_sets) or (code, [])
    return code, {"carried": carried, "defined": made}


def applied(done: Mapping[str, Any]) -> list[str]:
    """The repairs a program's record (:func:`repair_program`) says were applied."""
    return [name for name, key in RECORD_KEYS.items() if done.get(key)]
