"""Comparative relations: closest, farthest (the LLM-TPC / Sr3D epsilon rule) and between.

They compare a subject against a set of candidates, so they are computed on query and never
stored in the graph.
"""

from __future__ import annotations

import numpy as np

from synergai.geometry.boxes import BoxArray, box_gap
from synergai.scene.relations.allocentric import aabb_corners, footprint_samples
from synergai.scene.relations.thresholds import RelationThresholds
from synergai.scene.relations.vertical import footprint_overlap


def object_distance(b: BoxArray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Distance used by closest / farthest: the gap between the boxes (0 when they touch), with
    the centre distance breaking ties between touching boxes at a hundredth of its weight."""
    centre_gap = (b.mins[i] + b.maxs[i] - b.mins[j] - b.maxs[j]) / 2.0
    return box_gap(b, i, j) + 0.01 * np.linalg.norm(centre_gap, axis=1)


def extreme(distances: np.ndarray, epsilon: float, largest: bool = False) -> int:
    """Position of the unique smallest (or largest) distance, or -1 when the runner-up is within
    ``epsilon`` of it (not clear-cut). A single candidate is trivially the extreme."""
    d = np.asarray(distances, dtype=float)
    if d.size == 0:
        return -1
    if d.size == 1:
        return 0
    order = np.argsort(-d if largest else d, kind="stable")
    if abs(d[order[1]] - d[order[0]]) > epsilon:
        return int(order[0])
    return -1


def _in_hull_of_two_boxes(p: np.ndarray, a_lo: np.ndarray, a_hi: np.ndarray, b_lo: np.ndarray,
                          b_hi: np.ndarray) -> np.ndarray:
    """Whether points p (T, S, 2) lie in the convex hull of two axis-aligned rectangles (T, 2 each).

    conv(A u B) is the union over t in [0, 1] of the rectangles t*A + (1 - t)*B, whose corners
    interpolate linearly; each coordinate bound gives an interval of t, and p is inside when the
    intervals meet.
    """
    t_lo = np.zeros(p.shape[:2])
    t_hi = np.ones(p.shape[:2])
    ok = np.ones(p.shape[:2], dtype=bool)
    for d in range(2):
        # lower edge: b_lo + t (a_lo - b_lo) <= p ; upper edge: p <= b_hi + t (a_hi - b_hi)
        for k, r, sign in ((a_lo[:, d] - b_lo[:, d], p[..., d] - b_lo[:, d, None], 1.0),
                           (a_hi[:, d] - b_hi[:, d], p[..., d] - b_hi[:, d, None], -1.0)):
            k = np.broadcast_to((sign * k)[:, None], r.shape)
            r = sign * r
            with np.errstate(divide="ignore", invalid="ignore"):
                bound = r / k
            pos, neg = k > 1e-12, k < -1e-12
            t_hi = np.where(pos, np.minimum(t_hi, bound), t_hi)
            t_lo = np.where(neg, np.maximum(t_lo, bound), t_lo)
            ok &= pos | neg | (r >= -1e-12)
    return ok & (t_lo <= t_hi + 1e-12)


def between_mask(
    b: BoxArray, s: np.ndarray, a1: np.ndarray, a2: np.ndarray, th: RelationThresholds
) -> np.ndarray:
    """Subject s lies between anchors a1 and a2 (per triple), as Sr3D defines it.

    At least ``between_occupancy`` of s's footprint lies in the convex hull of the two anchors'
    footprints, and s overlaps neither anchor's footprint by more than
    ``between_max_anchor_overlap`` of its own.
    """
    s = np.asarray(s, dtype=np.intp)
    a1 = np.asarray(a1, dtype=np.intp)
    a2 = np.asarray(a2, dtype=np.intp)
    pts = footprint_samples(aabb_corners(b)[s], int(th.footprint_samples))
    inside = _in_hull_of_two_boxes(pts, b.mins[a1, :2], b.maxs[a1, :2], b.mins[a2, :2], b.maxs[a2, :2])
    occupancy = inside.mean(axis=1)
    _, r1, _ = footprint_overlap(b, s, a1)
    _, r2, _ = footprint_overlap(b, s, a2)
    limit = th.between_max_anchor_overlap
    return (occupancy >= th.between_occupancy) & (r1 <= limit) & (r2 <= limit)
