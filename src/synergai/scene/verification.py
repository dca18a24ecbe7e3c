"""Automatic verification of support edges (SynergAI appendix B): common-sense wording and sanity.

Geometry says *that* something holds an object up; this module says *how* people put it
("the TV is mounted on the wall", "the picture is hanging on the wall", "the sign is affixed on
the door") and drops what cannot be ("the floor is on the table", "the bed is on the chair").

Categories are matched on their normalised form (lower case, singular, synonyms folded), taking
the longest phrase at the end of the label, so "kitchen cabinets" reads as "kitchen cabinet" /
"cabinet", "tv stand" stays a stand and "light switch" is not a light.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from synergai.scene.model import (
    STRUCTURE_KINDS,
    SUPPORT_RELATIONS,
    Edge,
    ObjectKind,
    Relation,
    SceneGraph,
    SceneObject,
)
from synergai.scene.vocabulary import CANONICAL_CATEGORY, singular

#: Things held to a wall by brackets: "mounted on".
MOUNTED: frozenset[str] = frozenset({
    "tv", "monitor", "screen", "projector screen", "projector", "speaker", "shelf", "wall shelf",
    "kitchen cabinet", "wall cabinet", "bathroom cabinet", "medicine cabinet", "light", "lamp", "wall lamp",
    "sconce", "fan", "ceiling fan", "air conditioner", "ac unit", "heater", "radiator", "board",
    "bulletin board", "fire extinguisher", "dispenser", "paper towel dispenser", "soap dispenser",
    "hand dryer", "rail", "handrail", "towel bar", "towel rail", "grab bar", "bar", "rack", "towel rack",
    "coat rack", "hook", "coat hook", "smoke detector", "camera", "security camera", "sink", "urinal",
    "toilet paper holder", "toilet paper dispenser", "mailbox", "telephone", "phone", "intercom", "router",
    "alarm", "fire alarm", "curtain rod", "shower curtain rod", "shower head", "faucet", "light fixture",
    "chandelier", "vent hood", "range hood", "exhaust fan", "microwave",
})
#: Things that hang from a hook, nail or rod: "hanging on".
HANGING: frozenset[str] = frozenset({
    "picture", "painting", "poster", "mirror", "clock", "curtain", "shower curtain", "towel", "hand towel",
    "bath towel", "coat", "jacket", "clothes", "clothing", "shirt", "hat", "cap", "scarf", "robe",
    "bathrobe", "apron", "calendar", "map", "banner", "flag", "tapestry", "wreath", "blinds", "blind",
    "umbrella", "bag", "backpack", "purse", "guitar", "toilet paper", "paper towel", "plant", "basket",
    "decoration", "ornament", "key",
})
#: Flat things stuck to a surface: "affixed on".
AFFIXED: frozenset[str] = frozenset({
    "sign", "exit sign", "sticker", "light switch", "paper", "label", "note", "sticky note", "outlet",
    "thermostat", "tape", "decal", "card", "notice", "flyer", "postcard", "switch plate", "plate",
    "keypad", "doorbell", "number", "nameplate", "placard", "certificate",
})
#: Parts built into a wall: "embedded in".
EMBEDDED: frozenset[str] = frozenset({
    "window", "door", "door frame", "vent", "air vent", "fireplace", "window sill", "windowsill", "elevator",
    "closet door", "shower door", "sliding door", "garage door", "niche", "safe", "fuse box",
    "electrical panel", "breaker box", "skylight",
})
#: Things fixed to a ceiling by brackets: "mounted on" the ceiling (everything else hangs).
CEILING_MOUNTED: frozenset[str] = frozenset({
    "light", "lamp", "light fixture", "fan", "ceiling fan", "projector", "smoke detector", "camera",
    "security camera", "vent", "air vent", "speaker", "sprinkler", "chandelier", "track light",
})
#: Surfaces nothing can rest on.
CANNOT_SUPPORT: frozenset[str] = frozenset({
    "picture", "painting", "poster", "mirror", "window", "door", "door frame", "curtain", "shower curtain",
    "blinds", "sign", "light switch", "outlet", "paper", "clock", "towel", "cup", "mug", "glass",
    "bottle", "can", "light", "plant", "flower", "vase", "board", "calendar", "banner", "flag",
    "sticker", "label", "note", "pen", "pencil", "mouse", "remote", "remote control", "phone",
    "cell phone", "toilet paper", "paper towel", "soap", "toothbrush", "candle", "tissue", "ceiling",
    "ball", "keyboard", "monitor", "tv", "lamp", "fan", "rail", "bar", "coat", "jacket", "clothes",
    "clothing", "shirt", "hat", "bag", "backpack", "purse", "umbrella", "guitar", "trash can",
    "recycling bin", "faucet",
})
#: Furniture and fixtures that stand on the floor or are fixed to a wall, never resting on another
#: object (Sr3D's "cannot be supported" classes are the same idea).
FLOOR_ONLY: frozenset[str] = frozenset({
    "bed", "couch", "sectional", "table", "dining table", "coffee table", "kitchen table", "desk",
    "dresser", "wardrobe", "closet", "refrigerator", "bookshelf", "toilet", "bathtub", "piano", "door",
    "counter", "kitchen counter", "bathroom counter", "kitchen island", "stove", "oven", "washing machine",
    "dryer", "clothes dryer", "dishwasher", "radiator", "fireplace", "shower", "stairs", "staircase",
    "column", "pillar", "chair", "office chair", "armchair", "sofa chair", "bench", "bathroom vanity",
    "vanity", "file cabinet", "kitchen cabinet", "night stand", "end table", "cabinet", "wall",
    "bed frame", "bunk bed", "copier", "water cooler", "treadmill", "pool table", "ping pong table",
    "door frame", "window", "shelf", "rail", "handrail", "grab bar", "towel bar", "towel rail",
})
#: Things that belong on a wall even when they reach down to the floor (a door, long curtains, a
#: big mirror): when they touch a wall, the wall holds them rather than the floor.
WALL_FIRST: frozenset[str] = EMBEDDED | frozenset({
    "picture", "painting", "poster", "mirror", "curtain", "shower curtain", "blinds", "board",
    "bulletin board", "radiator", "clock", "calendar", "sign", "light switch", "outlet",
})
#: Categories that behave like a wall when something hangs on them.
WALL_LIKE: frozenset[str] = frozenset({"wall", "shower wall", "partition", "divider", "column", "pillar"})


def normalize_category(text: str) -> str:
    """Lower case, singular, synonyms folded: ``"Kitchen Cabinets"`` -> ``"kitchen cabinet"``,
    ``"Television"`` -> ``"tv"``, ``"shelves"`` -> ``"shelf"``."""
    words = [singular(w) for w in re.sub(r"[^a-z0-9]+", " ", text.lower()).split()]
    phrase = " ".join(words)
    if phrase in CANONICAL_CATEGORY:
        return CANONICAL_CATEGORY[phrase]
    if words and words[-1] in CANONICAL_CATEGORY and " " not in CANONICAL_CATEGORY[words[-1]]:
        words[-1] = CANONICAL_CATEGORY[words[-1]]
    return " ".join(words)


def _tails(category: str) -> list[str]:
    """Ending phrases of the normalised label, longest first, with their synonyms."""
    words = normalize_category(category).split()
    out: list[str] = []
    for start in range(len(words)):
        tail = " ".join(words[start:])
        out.append(tail)
        if tail in CANONICAL_CATEGORY:
            out.append(CANONICAL_CATEGORY[tail])
    return out


def category_in(category: str, vocabulary: Iterable[str]) -> bool:
    """Whether the label or one of its ending phrases is in ``vocabulary`` (plural- and
    synonym-insensitive): ``"kitchen cabinets"`` is in ``{"cabinet"}``; ``"tv stand"`` is not in
    ``{"tv"}``."""
    vocab = vocabulary if isinstance(vocabulary, frozenset | set) else frozenset(vocabulary)
    return any(t in vocab for t in _tails(category))


def _most_specific(category: str, table: tuple[tuple[frozenset[str], Relation], ...]) -> Relation | None:
    """The relation of the table row holding the longest ending phrase of the label
    (``"toilet paper"`` hangs although ``"paper"`` is affixed)."""
    for tail in _tails(category):
        for vocab, rel in table:
            if tail in vocab:
                return rel
    return None


def _kind(obj: SceneObject) -> ObjectKind:
    if obj.kind is not ObjectKind.OBJECT:
        return obj.kind
    if category_in(obj.category, WALL_LIKE):
        return ObjectKind.WALL
    return ObjectKind.OBJECT


_WALL_TABLE: tuple[tuple[frozenset[str], Relation], ...] = (
    (AFFIXED, Relation.AFFIXED_ON), (EMBEDDED, Relation.EMBEDDED_IN),
    (MOUNTED, Relation.MOUNTED_ON), (HANGING, Relation.HANGING_ON),
)
_OBJECT_TABLE: tuple[tuple[frozenset[str], Relation], ...] = (
    (AFFIXED, Relation.AFFIXED_ON), (MOUNTED, Relation.MOUNTED_ON), (HANGING, Relation.HANGING_ON),
)


def _wall_wording(category: str) -> Relation:
    return _most_specific(category, _WALL_TABLE) or Relation.HANGING_ON


def verify_support(subject: SceneObject, relation: Relation, holder: SceneObject) -> Relation | None:
    """The wording of ``subject relation holder`` for a support-like relation, or None to drop it.

    Rules, in order: structure (floor, walls, ceiling) is held by nothing; the floor holds by
    support only; nothing rests on a ceiling (it hangs, or is mounted when it is a light, fan,
    projector...); on a wall things are mounted / hanging / affixed / embedded by category;
    floor-standing furniture is held by no object; on an object a hanging contact becomes
    affixed / mounted by category, and nothing rests on a surface that cannot carry it.
    Relations outside ``SUPPORT_RELATIONS`` are returned unchanged.
    """
    if relation not in SUPPORT_RELATIONS:
        return relation
    if subject.kind in STRUCTURE_KINDS:
        return None
    kind = _kind(holder)
    if kind is ObjectKind.FLOOR:
        return Relation.SUPPORTED_BY
    if kind is ObjectKind.CEILING:
        return Relation.MOUNTED_ON if category_in(subject.category, CEILING_MOUNTED) else Relation.HANGING_ON
    if kind is ObjectKind.WALL:
        return _wall_wording(subject.category)
    if category_in(subject.category, FLOOR_ONLY):
        return None
    if relation is Relation.HANGING_ON:
        return _most_specific(subject.category, _OBJECT_TABLE) or Relation.HANGING_ON
    if relation is Relation.SUPPORTED_BY and category_in(holder.category, CANNOT_SUPPORT):
        return None
    return relation


def verify_graph(graph: SceneGraph) -> list[tuple[Edge, Edge | None]]:
    """Apply :func:`verify_support` to every stored support edge; return (old, new or None) changes."""
    changes: list[tuple[Edge, Edge | None]] = []
    for edge in graph.edges:
        if edge.relation not in SUPPORT_RELATIONS:
            continue
        rel = verify_support(graph.get(edge.subject), edge.relation, graph.get(edge.object))
        if rel is edge.relation:
            continue
        graph.remove_edge(edge.subject, edge.relation, edge.object)
        new = None if rel is None else Edge(edge.subject, rel, edge.object, edge.provenance)
        if new is not None:
            graph.add_edge(new)
        changes.append((edge, new))
    return changes
