"""Allocentric relations: beside, next to (stored), and left, right, in front of, behind and clock
directions for a :class:`~synergai.geometry.frames.Viewpoint` (computed, never stored).

The view-dependent tests follow Sr3D's oriented sections: around the anchor's footprint, as the
viewer sees it, lie four sectors (left, right, in front = towards the viewer, behind) that start at
the anchor's edges and widen by ``sector_angle``; the subject is in a sector when at least
``min_sector_occupancy`` of its footprint is. Only the viewer's facing direction matters, so the
answers do not depend on where the world origin is.
"""

from __future__ import annotations

import numpy as np

from synergai.geometry.boxes import BoxArray, box_gap
from synergai.geometry.frames import Viewpoint
from synergai.scene.model import Relation
from synergai.scene.relations.thresholds import RelationThresholds
from synergai.scene.relations.vertical import footprint_overlap


def side_relations(
    b: BoxArray, i: np.ndarray, j: np.ndarray, th: RelationThresholds
) -> dict[Relation, np.ndarray]:
    """NEXT_TO / BESIDE masks for the pairs ``(i[k], j[k])`` (both symmetric).

    Side by side = footprints overlap by at most ``max_side_overlap`` of the smaller one and the
    height ranges overlap. NEXT_TO: horizontal gap at most ``next_to_gap``; BESIDE: a gap above
    that, up to ``beside_gap``.
    """
    i = np.asarray(i, dtype=np.intp)
    j = np.asarray(j, dtype=np.intp)
    _, ri, rj = footprint_overlap(b, i, j)
    z_overlap = np.minimum(b.maxs[i, 2], b.maxs[j, 2]) - np.maximum(b.mins[i, 2], b.mins[j, 2])
    side = (np.maximum(ri, rj) <= th.max_side_overlap) & (z_overlap > 0)
    gap = box_gap(b, i, j, dims=slice(0, 2))
    return {
        Relation.NEXT_TO: side & (gap <= th.next_to_gap),
        Relation.BESIDE: side & (gap > th.next_to_gap) & (gap <= th.beside_gap),
    }


def aabb_corners(b: BoxArray) -> np.ndarray:
    """(N, 4, 2) footprint corners of axis-aligned boxes, counter-clockwise from (min x, min y)."""
    lo, hi = b.mins[:, :2], b.maxs[:, :2]
    return np.stack(
        [lo, np.stack([hi[:, 0], lo[:, 1]], 1), hi, np.stack([lo[:, 0], hi[:, 1]], 1)], axis=1
    )


def oriented_corners(center_xy: np.ndarray, size_xy: np.ndarray, yaw: np.ndarray) -> np.ndarray:
    """(N, 4, 2) footprint corners of boxes rotated by ``yaw`` about z, in the same order."""
    c = np.asarray(center_xy, dtype=float).reshape(-1, 2)
    h = np.asarray(size_xy, dtype=float).reshape(-1, 2) / 2.0
    yaw = np.asarray(yaw, dtype=float).reshape(-1)
    local = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])[None] * h[:, None, :]
    cos, sin = np.cos(yaw)[:, None], np.sin(yaw)[:, None]
    x = local[..., 0] * cos - local[..., 1] * sin
    y = local[..., 0] * sin + local[..., 1] * cos
    return np.stack([x, y], axis=-1) + c[:, None, :]


def footprint_samples(corners: np.ndarray, n: int) -> np.ndarray:
    """(P, n*n, 2) points on a regular grid inside each footprint (corners (P, 4, 2))."""
    t = (np.arange(n) + 0.5) / n
    u, v = (g.reshape(-1) for g in np.meshgrid(t, t, indexing="ij"))
    c0 = corners[:, 0:1, :]
    e1 = corners[:, 1:2, :] - c0
    e3 = corners[:, 3:4, :] - c0
    return c0 + u[None, :, None] * e1 + v[None, :, None] * e3


def view_relations(
    b: BoxArray,
    i: np.ndarray,
    j: np.ndarray,
    viewpoint: Viewpoint,
    th: RelationThresholds,
    corners: np.ndarray | None = None,
) -> dict[Relation, np.ndarray]:
    """LEFT_OF / RIGHT_OF / IN_FRONT_OF / BEHIND masks of subject i relative to anchor j.

    ``corners`` (N, 4, 2) gives oriented footprints where known (defaults to the axis-aligned
    ones). "In front of" means between the anchor and the viewer; "behind" means farther away.
    """
    i = np.asarray(i, dtype=np.intp)
    j = np.asarray(j, dtype=np.intp)
    fp = aabb_corners(b) if corners is None else np.asarray(corners, dtype=float)
    right, fwd = (a[:2] for a in viewpoint.axes())
    pts = footprint_samples(fp[i], int(th.footprint_samples))
    sr, sf = pts @ right, pts @ fwd
    ar, af = fp[j] @ right, fp[j] @ fwd
    left_out = ar.min(axis=1)[:, None] - sr
    right_out = sr - ar.max(axis=1)[:, None]
    front_out = af.min(axis=1)[:, None] - sf
    back_out = sf - af.max(axis=1)[:, None]
    lateral = np.maximum(np.maximum(left_out, right_out), 0.0)
    depth = np.maximum(np.maximum(front_out, back_out), 0.0)
    t = np.tan(np.radians(th.sector_angle))
    need = th.min_sector_occupancy

    def occupied(out: np.ndarray, across: np.ndarray) -> np.ndarray:
        return np.mean((out > 0) & (across <= out * t), axis=1) >= need

    return {
        Relation.LEFT_OF: occupied(left_out, depth),
        Relation.RIGHT_OF: occupied(right_out, depth),
        Relation.IN_FRONT_OF: occupied(front_out, lateral),
        Relation.BEHIND: occupied(back_out, lateral),
    }


def clock_directions(points: np.ndarray, viewpoint: Viewpoint) -> np.ndarray:
    """Clock hour (1..12, 12 = straight ahead, 3 = right) of each point seen from the viewpoint."""
    local = viewpoint.to_local(points)
    angle = np.degrees(np.arctan2(local[:, 0], local[:, 1]))  # clockwise from straight ahead
    hours = np.round(angle / 30.0).astype(int) % 12
    return np.where(hours == 0, 12, hours)
