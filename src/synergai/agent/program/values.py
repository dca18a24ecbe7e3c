"""The one place where the values programs pass are read: the legal relations, directions, clock hours,
attribute types and fields, and :func:`legal_value` / :func:`clock_hour`, which forgive case, underscores,
relation affixes ("to the left of", "right side") and the vocabulary's synonyms."""

from __future__ import annotations

import re
from collections.abc import Iterable
from types import MappingProxyType

from synergai.agent.situated import hours_apart
from synergai.scene.vocabulary import (
    ATTRIBUTE_TYPE_SYNONYMS,
    COLOR_WORDS,
    MATERIAL_WORDS,
    RELATION_SYNONYMS,
    SHAPE_WORDS,
    WORD_TO_NUMBER,
)

RELATE_RELATIONS = ("on", "under", "above", "below", "inside", "supporting", "near", "far", "next to",
                    "hanging on", "left", "right", "front", "behind", "closest", "farthest", "within reach",
                    "around")
#: What query_relation() answers: the directions as seen by the agent, and relate()'s relations that
#: hold between two objects.
QUERY_RELATIONS = ("left", "right", "front", "back", "behind", *(
    r for r in RELATE_RELATIONS if r not in ("left", "right", "front", "behind", "closest", "farthest")))
AGENT_RELATIONS = ("left", "right", "front", "behind", "within reach", "around", "closest", "farthest")
DIRECTIONS = ("left", "right", "front", "back", "o'clock")
ATTRIBUTE_TYPES = ("lwh", "distance", "color", "shape", "material")
#: The fields every object has; query_attribute() returns them too.
OBJECT_FIELDS = ("category", "xyz", "id")
#: Every field an object answers: its own, and query_attribute()'s attribute types (``obj.color``).
FIELDS = (*OBJECT_FIELDS, *ATTRIBUTE_TYPES)
#: The vocabulary's words ``query_attribute`` reads an object's attributes with, per attribute type.
ATTRIBUTE_WORDS = MappingProxyType({"color": COLOR_WORDS, "shape": SHAPE_WORDS, "material": MATERIAL_WORDS})
#: What ``query_attribute`` and ``query_state`` return when the object's attributes do not say.
UNKNOWN = "unknown"
#: What ``query_relation_agent`` returns for its "o'clock" candidate.
CLOCK_HOURS = tuple(f"{hour} o'clock" for hour in range(1, 13))
#: Hours either side of a clock direction that still count as it ("7 o'clock": 6, 7 and 8 o'clock).
CLOCK_SPREAD = 1
_CLOCK_PHRASE = re.compile(r"^(?:at |to )?(?:the |my )?(\d{1,2}|[a-z]+)(?: |_|-)?(?:o'? ?clock|:00)"
                           r"(?: direction| position)?$")
_VALUE_SYNONYMS = MappingProxyType({**RELATION_SYNONYMS, **ATTRIBUTE_TYPE_SYNONYMS})
_AFFIXES = re.compile(r"^(?:to |on )?(?:the |my )|(?: of| side)$")


def legal_value(value: object, legal: Iterable[str]) -> str | None:
    """``value`` as one of ``legal`` (case, underscores, "to the ... of" / "... side" and the synonyms of
    the vocabulary's relation and attribute-type words forgiven), or None."""
    v = " ".join(str(value).strip().lower().replace("_", " ").split())
    legal = tuple(legal)
    if v not in legal and v not in _VALUE_SYNONYMS:
        v = _AFFIXES.sub("", _AFFIXES.sub("", v)).strip()
    v = _VALUE_SYNONYMS.get(v, v)
    if v in ("back", "behind"):  # each names the other where only one is legal
        v = next((d for d in ("back", "behind") if d in legal), v)
    return v if v in legal else None


def choose(value: str, legal: Iterable[str], what: str, hint: str = "") -> str:
    """``value`` as one of ``legal`` (:func:`legal_value`); a ValueError listing them (and ``hint``: where
    else the value is read) otherwise."""
    legal = tuple(legal)
    if (v := legal_value(value, legal)) is None:
        said = f"{what} must be one of {list(legal)}, got {value!r}"
        raise ValueError(f"{said}; {hint}" if hint else said)
    return v


def clock_hour(value: object) -> int | None:
    """The hour (1..12) of a clock direction ("7 o'clock", "seven oclock", "at my 7 o'clock"), or None."""
    if (match := _CLOCK_PHRASE.match(" ".join(str(value).strip().lower().split()))) is None:
        return None
    hour = int(match[1]) if match[1].isdigit() else WORD_TO_NUMBER.get(match[1])
    return hour if hour is not None and 1 <= hour <= 12 else None


def near_hours(a: int, b: int) -> bool:
    """Whether two clock hours are at most :data:`CLOCK_SPREAD` apart, either way round."""
    return hours_apart(a, b) <= CLOCK_SPREAD
