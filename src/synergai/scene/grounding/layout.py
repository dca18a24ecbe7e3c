"""Where an object is in its room and in its group, as people say it without naming an anchor.

* Room positions ("in the center of the room", "in the corner", "against the wall") are measured
  against the room's floor extent: the footprint of all its objects (walls and floor included).
* Order within a group of same-category candidates ("the middle window", "second from the left", "the
  one at the end of the row") is read from a viewpoint: left / right across the line of sight, front /
  back along it, middle / end along the group's main axis (its centres' first principal direction).
* A viewpoint is set by the sentence ("facing the door": from the room's centre looking at the door;
  "with your back to the window": from the window looking into the room) or, when it sets none, is
  the one a person in the room takes: from the room's centre looking at what is talked about.

Every measure is a key per candidate (smaller is better); :func:`graded` turns keys into scores in
[0, 1] with the extremes within a tolerance sharing the top, so ambiguity stays a tie.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from synergai.geometry.frames import Viewpoint
from synergai.scene.model import SceneGraph

#: Keys (metres) closer than this to the best share the top score.
ORDER_TIE_M = 0.1
#: A group centre closer than this to the viewer gives no line of sight of its own.
MIN_SIGHT_M = 0.3
#: Objects of a group whose boxes come closer than this stand together (a row, a cluster).
CLUSTER_GAP_M = 1.0


@dataclass(frozen=True)
class RoomExtent:
    """The floor extent of a room: its minimum and maximum x, y."""

    lo: np.ndarray
    hi: np.ndarray

    @classmethod
    def of(cls, graph: SceneGraph) -> RoomExtent:
        """The footprint of every object of the graph."""
        b = graph.box_array()
        if len(b.mins) == 0:
            return cls(np.zeros(2), np.zeros(2))
        return cls(b.mins[:, :2].min(axis=0), b.maxs[:, :2].max(axis=0))

    @property
    def diagonal(self) -> float:
        """The length of the footprint's diagonal (metres)."""
        return float(np.linalg.norm(self.hi - self.lo))

    @property
    def center(self) -> np.ndarray:
        return (self.lo + self.hi) / 2.0

    def corners(self) -> np.ndarray:
        return np.array([[self.lo[0], self.lo[1]], [self.lo[0], self.hi[1]], [self.hi[0], self.lo[1]],
                         [self.hi[0], self.hi[1]]])


def extent_of(graph: SceneGraph, object_id: str, whole: RoomExtent) -> RoomExtent:
    """The room ``object_id`` stands in: its room's footprint where the graph has rooms, else ``whole``
    (a scan is one room)."""
    obj = graph.get(object_id)
    if obj is None or obj.room is None:
        return whole
    points = np.asarray(graph.room(obj.room).footprint, dtype=float)
    return RoomExtent(points.min(axis=0), points.max(axis=0))


def position_keys(graph: SceneGraph, room: RoomExtent, ids: Sequence[str], position: str) -> dict[str, float]:
    """Per candidate, how far it is from the room ``position`` (center / corner / wall), in metres: the
    room is the candidate's own where the graph has rooms, else ``room``."""
    if position not in ("center", "corner", "wall"):
        raise ValueError(f"unknown room position {position!r}")
    b = graph.box_array(list(ids))
    keys: dict[str, float] = {}
    for k, oid in enumerate(ids):
        lo, hi, r = b.mins[k, :2], b.maxs[k, :2], extent_of(graph, oid, room)
        if position == "center":
            d = float(np.linalg.norm((lo + hi) / 2.0 - r.center))
        elif position == "corner":
            corners = r.corners()
            d = float(np.linalg.norm(np.clip(corners, lo, hi) - corners, axis=1).min())  # box point nearest
        else:
            d = max(0.0, float(np.minimum(lo - r.lo, r.hi - hi).min()))
        keys[oid] = d
    return keys


def looking_at(room: RoomExtent, target: np.ndarray, fallback: Viewpoint | None = None) -> Viewpoint:
    """A person at the room's centre looking at ``target`` (x, y); ``fallback`` (or looking along +y)
    when the target is at the centre."""
    sight = np.asarray(target[:2], dtype=float) - room.center
    if float(np.linalg.norm(sight)) < MIN_SIGHT_M:
        if fallback is not None:
            return fallback
        sight = np.array([0.0, 1.0])
    return Viewpoint((float(room.center[0]), float(room.center[1]), 0.0),
                     (float(sight[0]), float(sight[1]), 0.0))


def back_to(room: RoomExtent, anchor: np.ndarray) -> Viewpoint:
    """A person standing at ``anchor`` (x, y) with their back to it, looking into the room."""
    sight = room.center - np.asarray(anchor[:2], dtype=float)
    if float(np.linalg.norm(sight)) < MIN_SIGHT_M:
        sight = np.array([0.0, 1.0])
    return Viewpoint((float(anchor[0]), float(anchor[1]), 0.0), (float(sight[0]), float(sight[1]), 0.0))


def _gaps(graph: SceneGraph, ids: Sequence[str], dims: int) -> np.ndarray:
    """The gap between each two of the objects' boxes over their first ``dims`` axes: the largest
    per-axis gap (0 where they overlap on every axis)."""
    b = graph.box_array(list(ids))
    lo, hi = b.mins[:, :dims], b.maxs[:, :dims]
    return np.maximum(0.0, np.maximum(lo[:, None] - hi[None], lo[None] - hi[:, None])).max(axis=2)


def main_cluster(graph: SceneGraph, ids: Sequence[str], gap: float = CLUSTER_GAP_M) -> list[str]:
    """The largest cluster of the objects (single linkage: boxes within ``gap``): "the three windows",
    "the group of trash cans" is the row they stand in, not a stray one across the room. All of them
    when no cluster is larger than every other."""
    n = len(ids)
    if n < 3:
        return list(ids)
    d = _gaps(graph, ids, 2)
    label = list(range(n))
    for i in range(n):
        for j in range(i + 1, n):
            if d[i, j] <= gap and label[i] != label[j]:
                old, new = label[j], label[i]
                label = [new if x == old else x for x in label]
    sizes = {x: label.count(x) for x in set(label)}
    best = max(sizes.values())
    if list(sizes.values()).count(best) > 1 or best < 2:
        return list(ids)
    return [i for i, x in zip(ids, label, strict=True) if sizes[x] == best]


def tightest(graph: SceneGraph, ids: Sequence[str], size: int) -> list[str]:
    """The ``size`` objects of ``ids`` that stand closest together ("of the three cups", "the group of
    3"): of the sets of each object with its ``size - 1`` nearest (box gaps), the one whose largest gap
    between two of its objects is smallest. All of them when there are not more than ``size``."""
    n = len(ids)
    if n <= size:
        return list(ids)
    d = _gaps(graph, ids, 3)
    best: tuple[float, list[int]] | None = None
    for i in range(n):
        members = sorted(np.argsort(d[i], kind="stable")[:size].tolist())
        spread = float(d[np.ix_(members, members)].max())
        if best is None or spread < best[0]:
            best = (spread, members)
    assert best is not None
    return [ids[k] for k in best[1]]


def order_keys(graph: SceneGraph, ids: Sequence[str], order: str, viewpoint: Viewpoint) -> dict[str, float]:
    """Per candidate of a same-category group, how far it is from the ``order`` place (left, right,
    middle, second from left / right, front, back, end) as seen from ``viewpoint``."""
    c = np.array([graph.get(i).center for i in ids], dtype=float)
    local = viewpoint.to_local(c)
    x, y = local[:, 0], local[:, 1]
    if order in ("left", "right", "front", "back"):
        key = {"left": x, "right": -x, "front": y, "back": -y}[order]
        return {i: float(v - key.min()) for i, v in zip(ids, key, strict=True)}
    if order.startswith("second from "):
        key = x if order.endswith("left") else -x
        rank = np.argsort(np.argsort(key, kind="stable"), kind="stable")
        second = np.sort(key)[min(1, len(key) - 1)]
        return {i: float(abs(v - second)) + (0.0 if r == 1 else ORDER_TIE_M / 2) for i, v, r in
                zip(ids, key, rank, strict=True)}
    # middle / end: along the group's main axis (left-right across the sight when it has no clear one)
    xy = c[:, :2] - c[:, :2].mean(axis=0)
    if len(ids) >= 2 and float(np.abs(xy).max()) > 0:
        axis = np.linalg.svd(xy, full_matrices=False)[2][0]
        t = xy @ axis
    else:
        t = x
    mid = (t.min() + t.max()) / 2.0
    off = np.abs(t - mid)
    key = off if order == "middle" else off.max() - off
    return {i: float(v) for i, v in zip(ids, key, strict=True)}


def graded(keys: dict[str, float], tolerance: float = ORDER_TIE_M, scale: float = 0.0) -> dict[str, float]:
    """Scores from keys (smaller is better): 1 within ``tolerance`` of the best, else falling linearly
    (at most 0.9, so a graded second never ties the best) to 0 at the worst, or at ``scale`` from the
    best when that is larger: with one scale (metres of the room), graded measures of different things
    weigh their differences alike when they are averaged."""
    if not keys:
        return {}
    best, worst = min(keys.values()), max(keys.values())
    span = max(worst - best, scale) or 1.0
    return {i: 1.0 if k - best <= tolerance else max(0.0, 0.9 * (1.0 - (k - best) / span))
            for i, k in keys.items()}
