"""Where an object is, as a person says it: "on the desk", "under the window", "next to the sink".

A place is read from the stored graph, not guessed. Places are ranked as people pick landmarks:

1. what holds the object up or contains it (not the floor);
2. what it is under, next to, beside, above or near, preferring landmarks: an anchor of another
   category before one of its own ("next to the chair" says little of a chair), and one at least
   ``LANDMARK_RATIO`` of the object's size before a smaller one ("the desk next to the shoes");
3. last, the wall it hangs or is mounted on: every picture is on a wall, so "above the sink" says more.

Before them all comes "in the middle of the room" for a large piece of furniture that nothing but the floor
holds and that stands clear of the room's walls (a table, a bed in the open): people place it by the
room, not by a chair beside it.

Before the rest of rank 2 comes "between" two landmarks of one category ("between the beds" for a
nightstand) when the object lies between them as Sr3D defines it
(:func:`~synergai.scene.relations.comparative.between_mask`): it says more than "next to the bed". Two
landmarks of different categories are not paired: in ScanNet rooms nearly every object lies between some
two of its neighbours' footprints, and "next to the sink" beats "between the sink and the door".

What lies inside the box of a bed, couch or chair (whose box holds its headboard or backrest) is "on"
it, as people say (:func:`~synergai.scene.vocabulary.is_seat`), not "in" it.

The floor and the ceiling are never an anchor; a wall only for what hangs or is mounted on it. Within a
rank the relation order of ``PLACE_WORDS`` holds, then the closest anchor.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from synergai.scene.grounding.layout import RoomExtent, position_keys
from synergai.scene.model import STRUCTURE_KINDS, ObjectKind, Relation, SceneGraph
from synergai.scene.relations.comparative import between_mask, object_distance
from synergai.scene.relations.thresholds import RelationThresholds
from synergai.scene.vocabulary import is_seat, plural

#: Relations a place is made of, in the order a person reaches for them, with the words for each.
PLACE_WORDS: tuple[tuple[Relation, str], ...] = (
    (Relation.SUPPORTED_BY, "on"),
    (Relation.INSIDE, "in"),
    (Relation.HANGING_ON, "on"),
    (Relation.MOUNTED_ON, "on"),
    (Relation.AFFIXED_ON, "on"),
    (Relation.EMBEDDED_IN, "in"),
    (Relation.BELOW, "under"),
    (Relation.ABOVE, "above"),
    (Relation.NEXT_TO, "next to"),
    (Relation.BESIDE, "next to"),  # the words people use for both
    (Relation.NEAR, "near"),
)
_ORDER = {relation: k for k, (relation, _) in enumerate(PLACE_WORDS)}
_WORDS = dict(PLACE_WORDS)
#: Relations whose anchor may be a wall (what hangs on it); the floor never is.
_WALL_ANCHORED = frozenset({Relation.HANGING_ON, Relation.MOUNTED_ON, Relation.AFFIXED_ON,
                            Relation.EMBEDDED_IN})
#: Relations that say where an object is by what is around it (rank 2 of the module doc-string).
_AROUND = frozenset({Relation.BELOW, Relation.NEXT_TO, Relation.BESIDE, Relation.ABOVE, Relation.NEAR})
#: How many of the nearest landmarks are tried in pairs for "between".
BETWEEN_LANDMARKS = 6
#: An anchor whose largest side is below this fraction of the object's largest side is a poor landmark.
LANDMARK_RATIO = 1 / 3
#: "In the middle of the room": furniture this long (metres, its longer floor side) this far from every wall.
MIDDLE_MIN_SIDE_M = 1.0
MIDDLE_CLEARANCE_M = 1.0
#: The place of what stands in the middle of its room (it has no anchor object).
MIDDLE = "in the middle of the room"


@dataclass(frozen=True)
class Place:
    """One way to say where an object is: ``relation`` words and the ``anchor`` object's id (and the
    ``other`` anchor's of "between"); with no anchor, the words are the whole place (:data:`MIDDLE`)."""

    relation: str
    anchor: str
    other: str = ""

    @property
    def anchors(self) -> tuple[str, ...]:
        return tuple(a for a in (self.anchor, self.other) if a)

    def words(self, graph: SceneGraph) -> str:
        """ "on the desk", "between the beds", "between the window and the radiator"."""
        if not self.anchor:
            return self.relation
        first = graph.get(self.anchor).category
        if not self.other:
            return f"{self.relation} the {first}"
        second = graph.get(self.other).category
        return f"{self.relation} the {plural(first)}" if first == second else \
            f"{self.relation} the {first} and the {second}"


def _allowed(graph: SceneGraph, relation: Relation, anchor: str) -> bool:
    kind = graph.get(anchor).kind
    if kind not in STRUCTURE_KINDS:
        return True
    return kind is ObjectKind.WALL and relation in _WALL_ANCHORED


def _rank(graph: SceneGraph, object_id: str, relation: Relation, anchor: str) -> tuple[int, ...]:
    """The sort key of one (relation, anchor) fact: rank, poor-landmark marks, relation order."""
    obj, other = graph.get(object_id), graph.get(anchor)
    order = _ORDER[relation]
    if other.kind is ObjectKind.WALL:
        return (2, 0, 0, order)
    if relation not in _AROUND:
        return (0, 0, 0, order)
    same = int(other.category == obj.category)
    small = int(max(other.size) < LANDMARK_RATIO * max(obj.size))
    return (1, same, small, order)


def places(graph: SceneGraph, object_id: str, limit: int = 4) -> list[Place]:
    """Up to ``limit`` places of the object, best first (see the module doc-string), each anchor and each
    wording once ("next to the chair" once however many chairs); [] when the graph holds nothing to say
    it by."""
    oid = graph.get(object_id).id
    facts = list(dict.fromkeys((r, o) for r, o in graph.relations_of(oid)
                               if r in _WORDS and o in graph and _allowed(graph, r, o)))
    middle = [Place(MIDDLE, "")] if _in_the_middle(graph, oid) else []
    if not facts:
        return middle
    boxes = graph.box_array([oid, *(o for _, o in facts)])
    gaps = object_distance(boxes, np.zeros(len(facts), dtype=int), np.arange(1, len(facts) + 1))
    ranks = [_rank(graph, oid, *fact) for fact in facts]
    ranked = sorted(range(len(facts)), key=lambda k: (*ranks[k], float(gaps[k])))
    out = middle
    said: set[tuple[str, str]] = set()
    between = _between(graph, oid, [facts[k][1] for k in ranked if ranks[k][:3] == (1, 0, 0)])
    for k in ranked:
        relation, anchor = facts[k]
        if between is not None and ranks[k][0] >= 1:
            out.append(between)
            between = None
        inside_seat = relation is Relation.INSIDE and is_seat(graph.get(anchor).category)
        place = Place("on" if inside_seat else _WORDS[relation], anchor)
        wording = (place.relation, graph.get(anchor).category)
        if all(anchor not in p.anchors for p in out) and wording not in said:
            out.append(place)
            said.add(wording)
    return out[:limit]


def _in_the_middle(graph: SceneGraph, oid: str) -> bool:
    """Whether the object is large furniture that only the floor holds, clear of the room's walls."""
    holders = [graph.get(h).kind for h in graph.holders(oid)]
    if ObjectKind.FLOOR not in holders or any(k not in STRUCTURE_KINDS for k in holders) \
            or max(graph.get(oid).size[:2]) < MIDDLE_MIN_SIDE_M:
        return False
    return position_keys(graph, RoomExtent.of(graph), [oid], "wall")[oid] > MIDDLE_CLEARANCE_M


def _between(graph: SceneGraph, oid: str, landmarks: list[str]) -> Place | None:
    """ "between" the first pair of same-category landmarks (best first) the object lies between, or
    None."""
    near = list(dict.fromkeys(landmarks))[:BETWEEN_LANDMARKS]
    cats = [graph.get(i).category for i in near]
    pairs = [(a, b) for a, b in combinations(range(len(near)), 2) if cats[a] == cats[b]]
    if not pairs:
        return None
    boxes = graph.box_array([oid, *near])
    first, second = (np.array([p[k] + 1 for p in pairs]) for k in (0, 1))
    holds = between_mask(boxes, np.zeros(len(pairs), dtype=int), first, second, RelationThresholds())
    k = next((k for k, ok in enumerate(holds) if ok), None)
    return None if k is None else Place("between", near[pairs[k][0]], near[pairs[k][1]])
