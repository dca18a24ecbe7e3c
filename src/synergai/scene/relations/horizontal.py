"""Horizontal proximity: higher than, lower than, near, far, within reach (SynergAI Table A.1, LLM-TPC).

Pairs are ``(i[k], j[k])`` read as ``subject RELATION object``. NEAR and the height comparisons
are for neighbours; FAR is dense, so it is evaluated on query and never stored.
"""

from __future__ import annotations

import numpy as np

from synergai.geometry.boxes import BoxArray, box_gap
from synergai.scene.model import Relation
from synergai.scene.relations.thresholds import RelationThresholds
from synergai.scene.relations.vertical import footprint_overlap


def half_diagonals(b: BoxArray, i: np.ndarray) -> np.ndarray:
    """Half of the footprint diagonal of boxes i."""
    d = b.maxs[i, :2] - b.mins[i, :2]
    return np.hypot(d[..., 0], d[..., 1]) / 2.0


def _center_distance(b: BoxArray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    return np.linalg.norm((b.mins[i] + b.maxs[i] - b.mins[j] - b.maxs[j]) / 2.0, axis=-1)


def far(b: BoxArray, i: np.ndarray, j: np.ndarray, th: RelationThresholds) -> np.ndarray:
    """Centre distance over ``far_ratio`` x the sum of half-diagonals and over ``far_min_distance``."""
    limit = np.maximum(th.far_ratio * (half_diagonals(b, i) + half_diagonals(b, j)), th.far_min_distance)
    return _center_distance(b, i, j) > limit


def horizontal_relations(
    b: BoxArray, i: np.ndarray, j: np.ndarray, th: RelationThresholds
) -> dict[Relation, np.ndarray]:
    """Masks of the horizontal relations for the pairs ``(i[k], j[k])``.

    NEAR: 3D box gap at most ``near_gap``. HIGHER_THAN / LOWER_THAN: near, not stacked, and the
    centres differ in height by more than ``min_height_diff``. FAR: see :func:`far`.
    WITHIN_REACH: box gap at most ``reach``.
    """
    i = np.asarray(i, dtype=np.intp)
    j = np.asarray(j, dtype=np.intp)
    gap = box_gap(b, i, j)
    near = gap <= th.near_gap
    _, ri, rj = footprint_overlap(b, i, j)
    apart = np.maximum(ri, rj) <= th.max_side_overlap
    dz = (b.mins[i, 2] + b.maxs[i, 2] - b.mins[j, 2] - b.maxs[j, 2]) / 2.0
    return {
        Relation.NEAR: near,
        Relation.HIGHER_THAN: near & apart & (dz > th.min_height_diff),
        Relation.LOWER_THAN: near & apart & (dz < -th.min_height_diff),
        Relation.FAR: far(b, i, j, th),
        Relation.WITHIN_REACH: gap <= th.reach,
    }


def point_box_distance(b: BoxArray, idx: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Distance from one point to each box in ``idx`` (0 inside)."""
    p = np.asarray(point, dtype=float).reshape(3)
    d = np.maximum(b.mins[idx] - p, p - b.maxs[idx])
    return np.linalg.norm(np.clip(d, 0.0, None), axis=1)


def within_reach_of_point(
    b: BoxArray, idx: np.ndarray, point: np.ndarray, th: RelationThresholds
) -> np.ndarray:
    """Boxes in ``idx`` whose nearest point is within ``reach`` of ``point``."""
    return point_box_distance(b, np.asarray(idx, dtype=np.intp), point) <= th.reach
