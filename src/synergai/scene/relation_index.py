"""The relation index: a graph's object boxes as arrays, and which stored edges perception made.

:func:`synergai.scene.building.build_graph` creates one and keeps it in ``graph.relation_index``;
:func:`synergai.scene.refresh.refresh_object` follows it to the graph's current objects (or rebuilds
it, taking every stored edge as perception's, when the graph has none: a copy, a graph from the store).
"""


from __future__ import annotations

import operator
from dataclasses import dataclass, field

import numpy as np

from synergai.geometry.boxes import BoxArray
from synergai.scene.model import (
    SUPPORT_RELATIONS,
    ObjectKind,
    Relation,
    SceneGraph,
    SceneObject,
)
from synergai.scene.relations.thresholds import RelationThresholds

#: The index's code for each kind of object (``RelationIndex.kind``).
KIND_OBJECT, KIND_FLOOR, KIND_WALL, KIND_CEILING = 0, 1, 2, 3
_KIND_CODE = {ObjectKind.OBJECT: KIND_OBJECT, ObjectKind.FLOOR: KIND_FLOOR, ObjectKind.WALL: KIND_WALL,
              ObjectKind.CEILING: KIND_CEILING}
_SYMMETRIC = frozenset({Relation.NEAR, Relation.BESIDE, Relation.NEXT_TO})
SYNTHETIC_FLOOR_ID = "floor"
#: Provenance of the floor added when none is labelled; it lies under everything, wherever it is.
SYNTHETIC_FLOOR_PROVENANCE = "synthetic-floor"

Triples = list[tuple[int, Relation, int]]


# ----------------------------------------------------------------------------- array index
def _canon(s: int, rel: Relation, o: int) -> tuple[int, Relation, int]:
    """One key per fact: symmetric relations with the earlier row first."""
    return (o, rel, s) if rel in _SYMMETRIC and o < s else (s, rel, o)


@dataclass
class RelationIndex:
    """Arrays of a graph's objects (rows in insertion order) and the edges perception stored for
    them, cached on the graph between refreshes."""

    th: RelationThresholds
    objs: list[SceneObject]
    mins: np.ndarray = field(init=False)
    maxs: np.ndarray = field(init=False)
    kind: np.ndarray = field(init=False)
    row: dict[str, int] = field(init=False)
    structure: np.ndarray = field(init=False)
    ordinary: np.ndarray = field(init=False)
    is_ordinary: np.ndarray = field(init=False)
    unbounded_floors: np.ndarray = field(init=False)
    #: Holder edge of each held row, the rows each row holds, and the array form (-1: none).
    holder: dict[int, tuple[Relation, int]] = field(init=False, default_factory=dict)
    held: dict[int, set[int]] = field(init=False, default_factory=dict)
    holder_row: np.ndarray = field(init=False)
    #: Stored non-holder edges (canonical triples) touching each row.
    pairs: dict[int, set[tuple[int, Relation, int]]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.objs)
        c = np.array([o.center for o in self.objs], dtype=float).reshape(n, 3)
        s = np.abs(np.array([o.size for o in self.objs], dtype=float).reshape(n, 3))
        self.mins, self.maxs = c - s / 2.0, c + s / 2.0
        self.kind = np.array([_KIND_CODE[o.kind] for o in self.objs], dtype=np.int8)
        self.row = {o.id: k for k, o in enumerate(self.objs)}
        self.holder_row = np.full(n, -1, dtype=np.intp)
        self._kinds_changed()

    def _kinds_changed(self) -> None:
        self.is_ordinary = self.kind == KIND_OBJECT
        self.structure = np.flatnonzero(~self.is_ordinary)
        self.ordinary = np.flatnonzero(self.is_ordinary)
        floors = np.flatnonzero(self.kind == KIND_FLOOR)
        synthetic = [self.objs[k].provenance == SYNTHETIC_FLOOR_PROVENANCE for k in floors]
        self.unbounded_floors = floors[np.array(synthetic, dtype=bool)]

    @property
    def boxes(self) -> BoxArray:
        return BoxArray(self.mins, self.maxs)

    def set_object(self, k: int, obj: SceneObject) -> None:
        c, s = np.asarray(obj.center, dtype=float), np.abs(np.asarray(obj.size, dtype=float))
        self.mins[k], self.maxs[k] = c - s / 2.0, c + s / 2.0
        self.objs[k] = obj
        if self.kind[k] != _KIND_CODE[obj.kind] or obj.kind is ObjectKind.FLOOR:
            self.kind[k] = _KIND_CODE[obj.kind]
            self._kinds_changed()

    def append(self, obj: SceneObject) -> None:
        self.objs.append(obj)
        self.row[obj.id] = len(self.objs) - 1
        self.mins = np.vstack([self.mins, np.zeros((1, 3))])
        self.maxs = np.vstack([self.maxs, np.zeros((1, 3))])
        self.kind = np.append(self.kind, np.int8(-1))
        self.holder_row = np.append(self.holder_row, -1)
        self.set_object(len(self.objs) - 1, obj)

    def sync(self, graph: SceneGraph) -> bool:
        """Follow the graph's objects (moved, replaced or appended ones); False when objects were
        removed or reordered and the index must be rebuilt."""
        now = graph.objects
        n = len(self.objs)
        if len(now) < n:
            return False
        changed = np.fromiter(map(operator.is_not, self.objs, now[:n]), dtype=bool, count=n)
        for k in np.flatnonzero(changed).tolist():
            if now[k].id != self.objs[k].id:
                return False
            self.set_object(k, now[k])
        for obj in now[n:]:
            self.append(obj)
        return True

    def set_holder(self, r: int, sup: tuple[Relation, int] | None) -> None:
        old = self.holder.pop(r, None)
        if old is not None:
            self.held.get(old[1], set()).discard(r)
        self.holder_row[r] = -1
        if sup is not None:
            self.holder[r] = sup
            self.held.setdefault(sup[1], set()).add(r)
            self.holder_row[r] = sup[1]

    def add_pair(self, t: tuple[int, Relation, int]) -> None:
        self.pairs.setdefault(t[0], set()).add(t)
        self.pairs.setdefault(t[2], set()).add(t)

    def discard_pair(self, t: tuple[int, Relation, int]) -> None:
        self.pairs.get(t[0], set()).discard(t)
        self.pairs.get(t[2], set()).discard(t)


def index_of(graph: SceneGraph, th: RelationThresholds) -> RelationIndex:
    """The graph's cached index, followed to its current objects, or a new one whose bookkeeping
    takes every stored edge as perception's."""
    idx = graph.relation_index
    if isinstance(idx, RelationIndex) and idx.th == th and idx.sync(graph):
        return idx
    idx = RelationIndex(th, list(graph.objects))
    for e in graph.edges:
        s, o = idx.row[e.subject], idx.row[e.object]
        if e.relation in SUPPORT_RELATIONS:
            if s not in idx.holder:
                idx.set_holder(s, (e.relation, o))
        else:
            idx.add_pair(_canon(s, e.relation, o))
    graph.relation_index = idx
    return idx
