"""Vertical proximity: support, embedded in, inside, hanging on, above, below (SynergAI Table A.1).

Pairs are ``(i[k], j[k])`` read as ``subject RELATION object``. The geometric tests give every
candidate holder; :func:`choose_support` then keeps one per subject (the support hierarchy is a
forest), and the floor is handled by :func:`on_floor` with :func:`ground_level`. MOUNTED_ON and
AFFIXED_ON are wordings of a hanging or support contact chosen by ``scene.verification`` from the
categories; geometry alone cannot tell them apart.
"""

from __future__ import annotations

import numpy as np

from synergai.geometry.boxes import BoxArray, box_gap, xy_intersection_area
from synergai.scene.model import Relation
from synergai.scene.relations.thresholds import RelationThresholds

_EPS = 1e-9


def area_of(b: BoxArray, i: np.ndarray) -> np.ndarray:
    """Footprint areas of boxes i (without touching the other boxes)."""
    d = b.maxs[i, :2] - b.mins[i, :2]
    return d[..., 0] * d[..., 1]


def volume_of(b: BoxArray, i: np.ndarray) -> np.ndarray:
    """Volumes of boxes i."""
    d = b.maxs[i] - b.mins[i]
    return d[..., 0] * d[..., 1] * d[..., 2]


def footprint_overlap(b: BoxArray, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Footprint overlap area and its ratios to the footprints of i and of j."""
    ov = xy_intersection_area(b, i, j)
    return ov, ov / np.maximum(area_of(b, i), _EPS), ov / np.maximum(area_of(b, j), _EPS)


def _support_kinds(
    b: BoxArray, i: np.ndarray, j: np.ndarray, th: RelationThresholds
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Masks (rests on, embedded in, inside) for subject i held by object j."""
    _, ri, _ = footprint_overlap(b, i, j)
    area_i, area_j = area_of(b, i), area_of(b, j)
    gap = b.mins[i, 2] - b.maxs[j, 2]  # subject bottom above the holder's top
    lift = b.mins[i, 2] - b.mins[j, 2]  # the holder raises the subject
    height = np.maximum(b.maxs[i, 2] - b.mins[i, 2], _EPS)
    depth = -gap / height  # how deep the subject sits below the holder's top, in subject heights
    lifted = lift >= th.support_min_lift
    on = (
        lifted
        & (gap <= th.touch)
        & ((gap >= -th.touch) | (depth < th.embed_z_rate))
        & (ri > th.min_supported_area_ratio)
        & (area_i / np.maximum(area_j, _EPS) < th.max_supporting_area_ratio)
    )
    sunk = lifted & ~on & (depth >= th.embed_z_rate) & (ri >= th.min_inside_area_ratio)
    smaller = volume_of(b, i) < volume_of(b, j)
    inside = sunk & smaller & (depth >= th.inside_z_rate) & (b.maxs[i, 2] <= b.maxs[j, 2] + th.touch)
    embedded = sunk & ~inside
    return on, embedded, inside


def above(b: BoxArray, i: np.ndarray, j: np.ndarray, th: RelationThresholds) -> np.ndarray:
    """Subject i is above object j: a vertical gap over ``min_above_gap`` and footprints that
    overlap by more than ``min_above_area_ratio`` of the smaller one (Sr3D)."""
    _, ri, rj = footprint_overlap(b, i, j)
    gap = b.mins[i, 2] - b.maxs[j, 2]
    return (gap > th.min_above_gap) & (np.maximum(ri, rj) > th.min_above_area_ratio)


def hanging_contact(b: BoxArray, i: np.ndarray, j: np.ndarray, th: RelationThresholds) -> np.ndarray:
    """Subject i touches object j from the side or from below while j reaches above i's middle.

    This is the geometric "hanging on" (a picture on a wall, a lamp under the ceiling, a towel on
    a rail). Whether it applies also depends on the subject not resting on anything, which the
    graph builder decides.
    """
    gap = box_gap(b, i, j)
    mid = (b.mins[i, 2] + b.maxs[i, 2]) / 2.0
    lifted = b.mins[i, 2] > b.mins[j, 2] + th.support_min_lift
    return (gap <= th.attach_gap) & (b.maxs[j, 2] >= mid) & lifted


def holding_relations(
    b: BoxArray, i: np.ndarray, j: np.ndarray, th: RelationThresholds
) -> dict[Relation, np.ndarray]:
    """The ways object j may hold subject i up: SUPPORTED_BY, EMBEDDED_IN, INSIDE, HANGING_ON
    (see :func:`vertical_relations`)."""
    i = np.asarray(i, dtype=np.intp)
    j = np.asarray(j, dtype=np.intp)
    on, embedded, inside = _support_kinds(b, i, j, th)
    return {
        Relation.SUPPORTED_BY: on,
        Relation.EMBEDDED_IN: embedded,
        Relation.INSIDE: inside,
        Relation.HANGING_ON: hanging_contact(b, i, j, th) & ~(on | embedded | inside),
    }


def vertical_relations(
    b: BoxArray, i: np.ndarray, j: np.ndarray, th: RelationThresholds
) -> dict[Relation, np.ndarray]:
    """Masks of the vertical relations for the pairs ``(i[k], j[k])``.

    SUPPORTED_BY: i rests on j's top (Sr3D touch, area ratios; j lifts i). EMBEDDED_IN / INSIDE:
    i sits below j's top by at least ``embed_z_rate`` / ``inside_z_rate`` of its height
    (SceneVerse). HANGING_ON: :func:`hanging_contact` where i is not held from below by j.
    SUPPORTS: j rests on i. ABOVE / BELOW: a vertical gap over ``min_above_gap`` with overlapping
    footprints (the graph builder drops them where the pair is linked by a holder edge: Sr3D
    prefers touching relations).
    """
    i = np.asarray(i, dtype=np.intp)
    j = np.asarray(j, dtype=np.intp)
    out = holding_relations(b, i, j, th)
    out[Relation.SUPPORTS] = _support_kinds(b, j, i, th)[0]
    out[Relation.ABOVE] = above(b, i, j, th)
    out[Relation.BELOW] = above(b, j, i, th)
    return out


def ground_level(b: BoxArray, floors: np.ndarray, th: RelationThresholds) -> np.ndarray:
    """Height of each floor's walking surface: its box top, but at most ``floor_band`` above its
    bottom (scanned floor boxes are thick and noisy; their tops reach 0.2-0.7 m in ScanNet)."""
    f = np.asarray(floors, dtype=np.intp)
    return np.minimum(b.maxs[f, 2], b.mins[f, 2] + th.floor_band)


def on_floor(
    b: BoxArray, i: np.ndarray, f: np.ndarray, ground: np.ndarray, th: RelationThresholds,
    unbounded: np.ndarray | None = None,
) -> np.ndarray:
    """Subject i stands on floor f (whose surface height is ``ground``, one per pair): its bottom
    is within ``touch`` of the surface and it is over the floor's footprint (within
    ``floor_xy_margin``), unless that floor is ``unbounded`` (a synthetic floor under everything)."""
    over = box_gap(b, i, f, dims=slice(0, 2)) <= th.floor_xy_margin
    if unbounded is not None:
        over |= unbounded
    return over & (b.mins[i, 2] <= ground + th.touch)


def choose_support(
    subject: np.ndarray, priority: np.ndarray, score: np.ndarray, holder: np.ndarray
) -> np.ndarray:
    """Index (into the candidate arrays) of the best holder of each subject.

    Candidates are sorted by subject, then by ``priority`` (lower first), then by ``score``
    (higher first), then by ``holder`` (lower first, so ties break the same way whatever the
    order of the candidates); the first of each subject wins.
    """
    if len(subject) == 0:
        return np.zeros(0, dtype=np.intp)
    order = np.lexsort((holder, -score, priority, subject))
    first = np.ones(len(order), dtype=bool)
    first[1:] = subject[order][1:] != subject[order][:-1]
    return order[first]
