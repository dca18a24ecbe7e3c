"""Rooms of a scene: which room each object is in, found from the rooms' footprints.

An object belongs to the room whose footprint holds the centre of its box in the floor plane (the
first such room, in the graph's room order); an object outside every footprint is in no room.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from synergai.scene.model import Room, SceneGraph, SceneObject
from synergai.scene.relation_index import SYNTHETIC_FLOOR_PROVENANCE


def room_index(rooms: Sequence[Room], points: np.ndarray) -> np.ndarray:
    """For each (x, y) row of ``points``, the index of the first room holding it, or -1."""
    import shapely

    out = np.full(len(points), -1, dtype=int)
    if len(points) == 0:
        return out
    for k, room in enumerate(rooms):
        free = out < 0
        if not free.any():
            break
        inside = shapely.intersects_xy(room.polygon(), points[free, 0], points[free, 1])
        idx = np.flatnonzero(free)[np.asarray(inside, dtype=bool)]
        out[idx] = k
    return out


def assign_rooms(objects: Iterable[SceneObject], rooms: Sequence[Room]) -> list[SceneObject]:
    """The objects, each with ``room`` set to the room holding its centre (or None)."""
    objs = list(objects)
    if not rooms:
        return [o.with_changes(room=None) if o.room is not None else o for o in objs]
    idx = room_index(rooms, np.array([o.center[:2] for o in objs], dtype=float).reshape(-1, 2))
    return [o.with_changes(room=rooms[k].id if k >= 0 else None) for o, k in zip(objs, idx, strict=True)]


def fill_rooms(objects: Iterable[SceneObject], rooms: Sequence[Room]) -> list[SceneObject]:
    """The objects, each that has no room put in the room holding its centre (an object with a room
    keeps it; a synthetic floor lies under every room: it is in none). How a built graph's objects and
    an imported graph's that do not name their room get one (Spark-DSG objects without a room node
    above them, synergai JSON without a per-object ``room``)."""
    objs = list(objects)
    free = [i for i, o in enumerate(objs) if o.room is None and o.provenance != SYNTHETIC_FLOOR_PROVENANCE]
    if not rooms or not free:
        return objs
    idx = room_index(rooms, np.array([objs[i].center[:2] for i in free], dtype=float).reshape(-1, 2))
    for i, k in zip(free, idx.tolist(), strict=True):
        if k >= 0:
            objs[i] = objs[i].with_changes(room=rooms[k].id)
    return objs


def fill_graph_rooms(graph: SceneGraph) -> SceneGraph:
    """``graph`` with :func:`fill_rooms` applied to its objects (in place; returned for chaining)."""
    for obj in fill_rooms(graph, graph.rooms):
        if obj.room != graph.get(obj.id).room:
            graph.put(obj)
    return graph


def room_members(graph: SceneGraph) -> dict[str, list[str]]:
    """Room id -> the ids of its objects (every room present, empty ones too)."""
    out: dict[str, list[str]] = {r.id: [] for r in graph.rooms}
    for o in graph:
        if o.room is not None:
            out[o.room].append(o.id)
    return out
