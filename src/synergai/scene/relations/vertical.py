"""Vertical proximity: support, embedded in, inside, hanging on, above, below (SynergAI Table A.1).

Pairs are ``(i[k], j[k])`` read as ``subject RELATION object``. The geometric tests give every
candidate; :func:`choose_support` then keeps one holder per subject (the support hierarchy is a
forest). MOUNTED_ON and AFFIXED_ON are wordings of a hanging or support contact chosen by
``scene.verification`` from the categories; geometry alone cannot tell them apart.
"""

from __future__ import annotations

import numpy as np

from synergai.geometry.boxes import BoxArray, box_gap, xy_intersection_area
from synergai.scene.model import Relation
from synergai.scene.relations.thresholds import RelationThresholds

_EPS = 1e-9


def footprint_overlap(b: BoxArray, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Footprint overlap area and its ratios to the footprints of i and of j."""
    ov = xy_intersection_area(b, i, j)
    area = b.footprint_area()
    return ov, ov / np.maximum(area[i], _EPS), ov / np.maximum(area[j], _EPS)


def _support_kinds(
    b: BoxArray, i: np.ndarray, j: np.ndarray, th: RelationThresholds
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Masks (rests on, embedded in, inside) for subject i held by object j."""
    _, ri, _ = footprint_overlap(b, i, j)
    area = b.footprint_area()
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
        & (area[i] / np.maximum(area[j], _EPS) < th.max_supporting_area_ratio)
    )
    sunk = lifted & ~on & (depth >= th.embed_z_rate) & (ri >= th.min_inside_area_ratio)
    smaller = b.volume()[i] < b.volume()[j]
    inside = sunk & smaller & (depth >= th.inside_z_rate) & (b.maxs[i, 2] <= b.maxs[j, 2] + th.touch)
    embedded = sunk & ~inside
    return on, embedded, inside


def _above(b: BoxArray, i: np.ndarray, j: np.ndarray, th: RelationThresholds, on: np.ndarray) -> np.ndarray:
    _, ri, rj = footprint_overlap(b, i, j)
    gap = b.mins[i, 2] - b.maxs[j, 2]
    return (gap > th.min_above_gap) & (np.maximum(ri, rj) > th.min_above_area_ratio) & ~on


def hanging_contact(b: BoxArray, i: np.ndarray, j: np.ndarray, th: RelationThresholds) -> np.ndarray:
    """Subject i touches object j from the side or from below while j reaches above i's middle.

    This is the geometric "hanging on" (a picture on a wall, a lamp under the ceiling, a towel on
    a rail). Whether it applies also depends on the subject not resting on anything, which the
    graph builder decides.
    """
    gap = box_gap(b, i, j)
    mid = (b.mins[i, 2] + b.maxs[i, 2]) / 2.0
    return (gap <= th.attach_gap) & (b.maxs[j, 2] >= mid) & (b.mins[i, 2] > b.mins[j, 2] + th.support_min_lift)


def vertical_relations(
    b: BoxArray, i: np.ndarray, j: np.ndarray, th: RelationThresholds
) -> dict[Relation, np.ndarray]:
    """Masks of the vertical relations for the pairs ``(i[k], j[k])``.

    SUPPORTED_BY: i rests on j's top (Sr3D touch, area ratios; j lifts i). EMBEDDED_IN / INSIDE:
    i sits below j's top by at least ``embed_z_rate`` / ``inside_z_rate`` of its height
    (SceneVerse). HANGING_ON: :func:`hanging_contact` where i is not held from below by j.
    ABOVE / BELOW: a vertical gap over ``min_above_gap`` with overlapping footprints, when
    no support links the pair (Sr3D prefers touching relations).
    """
    i = np.asarray(i, dtype=np.intp)
    j = np.asarray(j, dtype=np.intp)
    on, embedded, inside = _support_kinds(b, i, j, th)
    on_rev, _, _ = _support_kinds(b, j, i, th)
    held = on | embedded | inside
    return {
        Relation.SUPPORTED_BY: on,
        Relation.SUPPORTS: on_rev,
        Relation.EMBEDDED_IN: embedded,
        Relation.INSIDE: inside,
        Relation.HANGING_ON: hanging_contact(b, i, j, th) & ~held,
        Relation.ABOVE: _above(b, i, j, th, on | on_rev),
        Relation.BELOW: _above(b, j, i, th, on | on_rev),
    }


def ground_level(b: BoxArray, floor: int, th: RelationThresholds) -> float:
    """Height of a floor's walking surface.

    Scanned floor boxes are thick and noisy (their tops reach 0.2-0.7 m in ScanNet), so the
    surface is taken as the median bottom of the boxes standing over the floor box, clipped to it.
    """
    lo, hi = b.mins[floor, 2], b.maxs[floor, 2]
    xy_gap = box_gap(b, np.arange(len(b)), np.full(len(b), floor), dims=slice(0, 2))
    bottoms = b.mins[:, 2]
    stand = (xy_gap <= th.floor_xy_margin) & (bottoms >= lo - th.touch) & (bottoms <= hi + th.touch)
    stand[floor] = False
    if not np.any(stand):
        return float(hi if hi - lo < th.touch else lo)
    return float(np.clip(np.median(bottoms[stand]), lo, hi))


def on_floor(
    b: BoxArray, i: np.ndarray, f: np.ndarray, ground: np.ndarray, th: RelationThresholds
) -> np.ndarray:
    """Subject i stands on floor f (whose surface height is ``ground``, one per pair)."""
    near = box_gap(b, i, f, dims=slice(0, 2)) <= th.floor_xy_margin
    return near & (b.mins[i, 2] <= ground + th.touch)


#: Preference of holders when a subject has several: resting on an object, then being embedded
#: in / inside one, then the floor, then hanging.
SUPPORT_PRIORITY: tuple[Relation, ...] = (
    Relation.SUPPORTED_BY, Relation.EMBEDDED_IN, Relation.INSIDE, Relation.HANGING_ON,
)


def choose_support(
    subject: np.ndarray, priority: np.ndarray, score: np.ndarray
) -> np.ndarray:
    """Index (into the candidate arrays) of the best holder of each subject.

    Candidates are sorted by subject, then by ``priority`` (lower first), then by ``score``
    (higher first); the first of each subject wins.
    """
    if len(subject) == 0:
        return np.zeros(0, dtype=np.intp)
    order = np.lexsort((-score, priority, subject))
    first = np.ones(len(order), dtype=bool)
    first[1:] = subject[order][1:] != subject[order][:-1]
    return order[first]
