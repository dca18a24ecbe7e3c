"""One-to-one matching of a new perception's objects to the stored ones (issue 39).

A pair's cost adds how little the axis-aligned boxes overlap (1 - 3D IoU), how far the centres moved
(relative to a gate that grows with the object's size) and how much the labels disagree (the same
category after :data:`~synergai.scene.vocabulary.CANONICAL_CATEGORY`, a synonym in
:data:`~synergai.scene.vocabulary.QUERY_SYNONYMS`, or neither). Pairs are gated first: boxes that barely
overlap and whose centres are farther apart than the gate (or that are of unlike volume), pairs of a
different kind (a wall and a table), and a far pair of unrelated labels are never matched. Candidates
come from a k-d tree over the centres; the optimal assignment (``scipy.optimize.linear_sum_assignment``)
is solved per connected group of candidates, so a scene of 100,000 objects costs what its groups cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from synergai.scene.building import structure_kind
from synergai.scene.model import ObjectKind, SceneError, SceneObject
from synergai.scene.vocabulary import CANONICAL_CATEGORY, QUERY_SYNONYMS, singular


@dataclass(frozen=True)
class MatchGates:
    """When a stored object and a new one may be the same object, and what a pair costs."""

    min_iou: float = 0.1  # boxes overlapping at least this much may be one object
    shift_per_size: float = 0.5  # the centre may move this fraction of the larger box's diagonal ...
    min_shift: float = 0.1  # ... but at least this far (m; small objects)
    max_shift: float = 1.0  # ... and at most this far (m)
    sure_iou: float = 0.25  # boxes overlapping this much are one object whatever their labels
    label_weight: float = 0.5  # cost of labels that disagree (half of it for synonyms)
    shift_weight: float = 0.5  # cost of a centre moved by a whole gate
    max_big_shift: float = 5.0  # m: two large boxes (a floor, a wall) farther apart are never one object
    min_volume_ratio: float = 0.3  # boxes that do not overlap must be of like volume (smaller / larger)

    def __post_init__(self) -> None:
        values = (self.min_iou, self.shift_per_size, self.min_shift, self.max_shift, self.sure_iou,
                  self.label_weight, self.shift_weight, self.max_big_shift, self.min_volume_ratio)
        if not all(np.isfinite(v) and v >= 0 for v in values) or not 0 < self.min_shift <= self.max_shift:
            raise SceneError(f"match gates must be finite, non-negative, 0 < min_shift <= max_shift: {self}")


def _label(text: str) -> str:
    words = " ".join(text.lower().replace("_", " ").split()).split()
    if words:
        words[-1] = singular(words[-1])
    name = " ".join(words)
    return CANONICAL_CATEGORY.get(name, name)


def label_agreement(a: str, b: str) -> float:
    """1 for the same category, 0.5 for synonyms (the vocabulary's list), 0 otherwise."""
    la, lb = _label(a), _label(b)
    if la == lb:
        return 1.0
    if lb in QUERY_SYNONYMS.get(la, ()) or la in QUERY_SYNONYMS.get(lb, ()):
        return 0.5
    return 0.0


def _boxes(objs: Sequence[SceneObject]) -> tuple[np.ndarray, np.ndarray]:
    if not objs:
        return np.zeros((0, 3)), np.zeros((0, 3))
    return (np.array([o.center for o in objs], dtype=float), np.array([o.size for o in objs], dtype=float))


def _codes(labels: Sequence[str]) -> np.ndarray:
    """Each label's index in the sorted list of the labels present (a dict, not a sort of every label:
    a scene holds few distinct labels)."""
    index = {label: k for k, label in enumerate(sorted(set(labels)))}
    return np.fromiter((index[label] for label in labels), dtype=np.int64, count=len(labels))


def _agreement(a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """:func:`label_agreement` between every label present on each side (few: one table)."""
    xs, ys = sorted(set(a)), sorted(set(b))
    return np.array([[label_agreement(x, y) for y in ys] for x in xs], dtype=float).reshape(len(xs), len(ys))


def _kinds(objs: Sequence[SceneObject]) -> np.ndarray:
    """Floor, wall, ceiling or object: the kind, else what the label names (a format without kinds)."""
    named: dict[str, str] = {}  # category -> the kind it names (one look-up per distinct category)
    out = []
    for o in objs:
        if o.kind is not ObjectKind.OBJECT:
            out.append(o.kind.value)
        else:
            kind = named.get(o.category)
            if kind is None:
                kind = named[o.category] = structure_kind(o.category).value
            out.append(kind)
    return np.array(out, dtype=object)


def _pair_costs(stored: Sequence[SceneObject], new: Sequence[SceneObject], labels: Sequence[str],
                i: np.ndarray, j: np.ndarray, gates: MatchGates) -> np.ndarray:
    """The cost of each candidate pair (``i[k]``, ``j[k]``), ``inf`` where the gates refuse it."""
    (ca, sa), (cb, sb) = _boxes(stored), _boxes(new)
    lo = np.maximum(ca[i] - sa[i] / 2, cb[j] - sb[j] / 2)
    hi = np.minimum(ca[i] + sa[i] / 2, cb[j] + sb[j] / 2)
    inter = np.prod(np.clip(hi - lo, 0.0, None), axis=1)
    va, vb = np.prod(sa[i], axis=1), np.prod(sb[j], axis=1)
    union = va + vb - inter
    iou = np.where(union > 1e-12, inter / np.maximum(union, 1e-12), 0.0)
    shift = np.linalg.norm(ca[i] - cb[j], axis=1)
    diag = np.maximum(np.linalg.norm(sa[i], axis=1), np.linalg.norm(sb[j], axis=1))
    gate = np.clip(gates.shift_per_size * diag, gates.min_shift, gates.max_shift)
    new_labels = [o.category for o in new]
    agree = _agreement(labels, new_labels)[_codes(labels)[i], _codes(new_labels)[j]]
    same_kind = _kinds(stored)[i] == _kinds(new)[j]
    alike = np.minimum(va, vb) >= gates.min_volume_ratio * np.maximum(va, vb)
    near = (iou >= gates.min_iou) | ((shift <= gate) & alike)
    related = (agree > 0) | (iou >= gates.sure_iou) | (shift <= gate / 2)
    cost = (1.0 - iou) + gates.shift_weight * np.minimum(shift / gate, 2.0) + gates.label_weight * (1 - agree)
    return np.where(near & related & same_kind, cost, np.inf)


def match_objects(stored: Sequence[SceneObject], new: Sequence[SceneObject],
                  gates: MatchGates | None = None,
                  labels: Sequence[str] | None = None) -> list[tuple[int, int]]:
    """Pairs ``(index in stored, index in new)``: a one-to-one matching of least total cost among the
    pairs the gates allow (as many pairs as the gates allow first). ``labels``: what to compare the new
    labels with instead of the stored categories (eg. what perception called an object a person renamed:
    a new perception calls it that again)."""
    gates = gates or MatchGates()
    labels = [o.category for o in stored] if labels is None else list(labels)
    if len(labels) != len(stored):
        raise SceneError(f"{len(labels)} labels for {len(stored)} stored objects")
    if not stored or not new:
        return []
    (ca, sa), (cb, sb) = _boxes(stored), _boxes(new)
    # candidates: centres within the largest gate, or two large boxes (floor, walls, beds) whose centres
    # are close enough for their boxes to overlap
    near = cKDTree(ca).sparse_distance_matrix(cKDTree(cb), gates.max_shift, output_type="ndarray")
    i, j = near["i"].astype(np.int64), near["j"].astype(np.int64)
    da, db = np.linalg.norm(sa, axis=1), np.linalg.norm(sb, axis=1)
    big_a, big_b = np.flatnonzero(da > gates.max_shift), np.flatnonzero(db > gates.max_shift)
    if len(big_a) and len(big_b):
        reach = min(0.5 * (float(da[big_a].max()) + float(db[big_b].max())), gates.max_big_shift)
        far = cKDTree(ca[big_a]).sparse_distance_matrix(cKDTree(cb[big_b]), reach, output_type="ndarray")
        # the pairs once each, in (i, j) order: one integer key per pair (a sort of integers, not of rows)
        pair_i, pair_j = np.concatenate([i, big_a[far["i"]]]), np.concatenate([j, big_b[far["j"]]])
        keys = np.unique(pair_i * len(new) + pair_j)
        i, j = keys // len(new), keys % len(new)
    cost = _pair_costs(stored, new, labels, i, j, gates)
    ok = np.isfinite(cost)
    i, j, cost = i[ok], j[ok], cost[ok]
    if not len(i):
        return []
    m = len(stored)
    graph = coo_matrix((np.ones(len(i)), (i, m + j)), shape=(m + len(new), m + len(new)))
    _, group = connected_components(graph, directed=False)
    pair_group = group[i]
    order = np.argsort(pair_group, kind="stable")
    i, j, cost, pair_group = i[order], j[order], cost[order], pair_group[order]
    starts = np.flatnonzero(np.r_[True, pair_group[1:] != pair_group[:-1]])
    ends = np.r_[starts[1:], len(i)]
    out: list[tuple[int, int]] = []
    for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
        if e - s == 1:  # one candidate pair: nothing to choose
            out.append((int(i[s]), int(j[s])))
            continue
        ii, jj = i[s:e].tolist(), j[s:e].tolist()
        rows, cols = sorted(set(ii)), sorted(set(jj))
        r_of, c_of = {r: k for k, r in enumerate(rows)}, {c: k for k, c in enumerate(cols)}
        dense = np.full((len(rows), len(cols)), 1e6)
        dense[[r_of[r] for r in ii], [c_of[c] for c in jj]] = cost[s:e]
        for r, c in zip(*linear_sum_assignment(dense), strict=True):
            if dense[r, c] < 1e6:
                out.append((rows[r], cols[c]))
    return sorted(out)
