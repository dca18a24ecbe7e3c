"""Rooms as anchors of a referring expression: "the chair in the office", "the cup inside the kitchen".

A relation of containment ("inside") whose single anchor names a room of the scene -- its category,
name or id, in a person's words ("kitchens", "living room") -- and no object category is a room
constraint: a candidate in one of the named rooms scores 1, any other 0. A scene without rooms (a
ScanNet scan) has no room anchors: such a word stays an object word, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from synergai.scene.grounding.expression import RelationRef
from synergai.scene.grounding.vocabulary import map_word_to
from synergai.scene.model import Room, SceneGraph
from synergai.scene.vocabulary import words_of

#: Relation names that put the target in the anchor (a room anchor is read through them).
ROOM_RELATIONS = frozenset({"inside"})


def rooms_named(graph: SceneGraph, phrase: str) -> list[Room]:
    """The rooms ``phrase`` names by category, name or id (plural and spelling slips allowed)."""
    if not graph.rooms:
        return []
    words = " ".join(words_of(phrase))
    words = " ".join(w for w in words.split() if w not in ("the", "a", "an")) or words
    labels: dict[str, list[Room]] = {}
    for r in graph.rooms:
        for label in dict.fromkeys(" ".join(words_of(t)) for t in (r.category, r.name, r.id)):
            labels.setdefault(label, []).append(r)
    hits = map_word_to(words, sorted(labels))
    return list(dict.fromkeys(r for label in hits for r in labels[label]))


def room_anchor(graph: SceneGraph, relation: RelationRef, categories: Sequence[str]) -> list[Room] | None:
    """The rooms a relation's anchor names, when the relation puts the target in a room; None when it
    is an ordinary relation to an object (the anchor names an object category, or no room)."""
    if relation.relation not in ROOM_RELATIONS or len(relation.anchors) != 1 or not graph.rooms:
        return None
    anchor = relation.anchors[0]
    if map_word_to(anchor.category, list(categories)):
        return None  # "inside the cabinet": an object of the scene
    return rooms_named(graph, anchor.category) or None


def room_parts(graph: SceneGraph, rooms: Sequence[Room], ids: Sequence[str]) -> dict[str, tuple[float, str]]:
    """Per candidate: 1 with "in the kitchen" when it is in one of ``rooms``, else 0 with where it is."""
    wanted = {r.id for r in rooms}
    named = " or ".join(r.name for r in rooms)
    out = {}
    for i in ids:
        room = graph.get(i).room
        if room in wanted:
            out[i] = (1.0, f"in the {graph.room(room).name}")
        else:
            where = f"in the {graph.room(room).name}" if room else "in no room"
            out[i] = (0.0, f"not in the {named} ({where})")
    return out
