"""Where an object is, as a person says it: "on the desk", "under the window", "next to the sink".

A place is read from the stored graph, not guessed: what holds the object up (not the floor), then
what it is under, next to, beside, above or near, the closest anchor first. Walls count for what hangs
or is mounted on them; floor, walls and ceiling are never the anchor of a proximity relation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from synergai.scene.model import STRUCTURE_KINDS, ObjectKind, Relation, SceneGraph
from synergai.scene.relations.comparative import object_distance

#: Relations a place is made of, in the order a person reaches for them, with the words for each.
PLACE_WORDS: tuple[tuple[Relation, str], ...] = (
    (Relation.SUPPORTED_BY, "on"),
    (Relation.INSIDE, "in"),
    (Relation.HANGING_ON, "on"),
    (Relation.MOUNTED_ON, "on"),
    (Relation.AFFIXED_ON, "on"),
    (Relation.EMBEDDED_IN, "in"),
    (Relation.BELOW, "under"),
    (Relation.NEXT_TO, "next to"),
    (Relation.BESIDE, "beside"),
    (Relation.ABOVE, "above"),
    (Relation.NEAR, "near"),
)
#: Relations whose anchor may be a wall (what hangs on it); the floor never is.
_WALL_ANCHORED = frozenset({Relation.HANGING_ON, Relation.MOUNTED_ON, Relation.AFFIXED_ON,
                            Relation.EMBEDDED_IN})


@dataclass(frozen=True)
class Place:
    """One way to say where an object is: ``relation`` words and the ``anchor`` object's id."""

    relation: str
    anchor: str

    def words(self, graph: SceneGraph) -> str:
        """ "on the desk"."""
        return f"{self.relation} the {graph.get(self.anchor).category}"


def _allowed(graph: SceneGraph, relation: Relation, anchor: str) -> bool:
    kind = graph.get(anchor).kind
    if kind not in STRUCTURE_KINDS:
        return True
    return kind is ObjectKind.WALL and relation in _WALL_ANCHORED


def places(graph: SceneGraph, object_id: str, limit: int = 4) -> list[Place]:
    """Up to ``limit`` places of the object, best first (see the module doc-string), each anchor and each
    wording once ("next to the chair" once however many chairs); [] when the graph holds nothing to say
    it by."""
    oid = graph.get(object_id).id
    facts = graph.relations_of(oid)
    out: list[Place] = []
    for relation, words in PLACE_WORDS:
        anchors = list(dict.fromkeys(o for r, o in facts if r == relation and o in graph
                                     and _allowed(graph, relation, o)))
        if not anchors:
            continue
        boxes = graph.box_array([oid, *anchors])
        gaps = object_distance(boxes, np.zeros(len(anchors), dtype=int), np.arange(1, len(anchors) + 1))
        for k in np.argsort(gaps, kind="stable"):
            place = Place(words, anchors[int(k)])
            said = {(p.relation, graph.get(p.anchor).category) for p in out}
            if all(p.anchor != place.anchor for p in out) and \
                    (words, graph.get(place.anchor).category) not in said:
                out.append(place)
    return out[:limit]
