"""Rooms of a scene: which room each object is in, found from the rooms' footprints.

An object belongs to the room whose footprint holds the centre of its box in the floor plane (the
first such room, in the graph's room order); an object outside every footprint is in no room.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from synergai.scene.model import Room, SceneGraph, SceneObject


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


def room_members(graph: SceneGraph) -> dict[str, list[str]]:
    """Room id -> the ids of its objects (every room present, empty ones too)."""
    out: dict[str, list[str]] = {r.id: [] for r in graph.rooms}
    for o in graph:
        if o.room is not None:
            out[o.room].append(o.id)
    return out
