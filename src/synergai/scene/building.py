"""Build a scene graph from objects (the relations that hold them up, then the pairwise ones).

Storage policy: one direction per fact (SUPPORTED_BY not SUPPORTS, ABOVE not BELOW, HIGHER_THAN
not LOWER_THAN; NEAR / BESIDE / NEXT_TO once per unordered pair). Every object has at most one
holder (supported by, embedded in, inside, hanging / mounted / affixed on), worded and sanity-
checked by :mod:`synergai.scene.verification` and chosen in this order: a wall for wall-bound
things (pictures, doors, curtains...), an object it rests on (the highest), an object it sits in,
the floor, a wall or ceiling it hangs on, an object it hangs on. ABOVE is not stored between an
object and its holder (Sr3D prefers touching relations). NEXT_TO, BESIDE and NEAR are exclusive
(the closest applies) and skip pairs already linked vertically. FAR, WITHIN_REACH, left / right /
in front of / behind, clock directions, closest / farthest and between are computed on query by
:mod:`synergai.scene.queries`.
Edges join only objects on the same or adjacent support levels (SynergAI appendix B).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial import cKDTree

from synergai.geometry.boxes import BoxArray, box_gap
from synergai.geometry.frames import vec3
from synergai.scene.hierarchy import compute_levels
from synergai.scene.model import (
    Edge,
    ObjectKind,
    Relation,
    Room,
    SceneError,
    SceneGraph,
    SceneObject,
)
from synergai.scene.relation_index import (
    KIND_FLOOR,
    KIND_OBJECT,
    KIND_WALL,
    SYNTHETIC_FLOOR_ID,
    SYNTHETIC_FLOOR_PROVENANCE,
    RelationIndex,
    Triples,
)
from synergai.scene.relations.allocentric import (
    side_relations,
)
from synergai.scene.relations.horizontal import horizontal_relations
from synergai.scene.relations.thresholds import RelationThresholds
from synergai.scene.relations.vertical import (
    above,
    choose_support,
    ground_level,
    hanging_contact,
    holding_relations,
    on_floor,
    volume_of,
)
from synergai.scene.rooms import fill_rooms
from synergai.scene.verification import WALL_FIRST, category_in, normalize_category, verify_support

#: Objects with a footprint half-diagonal above this are paired one-vs-all, not through the tree.
_LARGE = 1.0
#: Holder preference (lower wins): wall-bound things (pictures, doors, curtains...) on their wall,
#: resting on an object, sitting in one, the floor, other hanging on walls / ceilings, hanging on
#: objects.
_P_WALL_FIRST, _P_ON, _P_IN, _P_FLOOR, _P_STRUCT, _P_HANG = -1, 0, 1, 3, 4, 5
_SUPPORT_CODES = (Relation.SUPPORTED_BY, Relation.EMBEDDED_IN, Relation.INSIDE, Relation.HANGING_ON)


def structure_kind(category: str) -> ObjectKind:
    """FLOOR / WALL / CEILING when the label's head word names one ("shower walls" is a wall,
    "floor lamp" is not a floor), else OBJECT."""
    words = normalize_category(category).split()
    head = words[-1] if words else ""
    return {"floor": ObjectKind.FLOOR, "wall": ObjectKind.WALL, "ceiling": ObjectKind.CEILING}.get(
        head, ObjectKind.OBJECT
    )


def prepare_objects(objects: Iterable[SceneObject]) -> list[SceneObject]:
    """Objects with floor / wall / ceiling kinds set from their labels, plus a synthetic floor
    (id ``"floor"``, under everything) when none is labelled."""
    out = []
    for o in objects:
        if not isinstance(o, SceneObject):
            raise SceneError(f"expected SceneObject, got {type(o).__name__}")
        kind = structure_kind(o.category) if o.kind is ObjectKind.OBJECT else o.kind
        out.append(o if kind is o.kind else o.with_changes(kind=kind))
    if out and not any(o.kind is ObjectKind.FLOOR for o in out):
        out.append(_synthetic_floor(out))
    return out


def _synthetic_floor(objects: list[SceneObject]) -> SceneObject:
    lo = np.min([o.min_corner for o in objects], axis=0)
    hi = np.max([o.max_corner for o in objects], axis=0)
    ids = {o.id for o in objects}
    fid, k = SYNTHETIC_FLOOR_ID, 1
    while fid in ids:
        fid, k = f"{SYNTHETIC_FLOOR_ID}_{k}", k + 1
    thick = 0.02
    center = ((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2] - thick / 2)
    size = (hi[0] - lo[0] + 1.0, hi[1] - lo[1] + 1.0, thick)
    return SceneObject(id=fid, category="floor", center=vec3(center),
                       size=vec3(size), provenance=SYNTHETIC_FLOOR_PROVENANCE,
                       kind=ObjectKind.FLOOR)



# ----------------------------------------------------------------------------- candidate pairs
def _reach(th: RelationThresholds) -> float:
    return max(th.near_gap, th.beside_gap, th.next_to_gap, th.attach_gap, th.touch)


def _object_pairs(idx: RelationIndex, th: RelationThresholds) -> tuple[np.ndarray, np.ndarray]:
    """Unordered pairs (p < q) of ordinary objects that may stand in a stored relation."""
    b = idx.boxes
    objs = idx.ordinary
    if len(objs) < 2:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    sizes = b.sizes[objs]
    half = np.hypot(sizes[:, 0], sizes[:, 1]) / 2.0
    small, large = objs[half <= _LARGE], objs[half > _LARGE]
    reach = _reach(th)
    ps, qs = [], []
    if len(small) > 1:
        radius = reach + 2.0 * float(np.max(half[half <= _LARGE]))
        pairs = cKDTree(b.centers[small, :2]).query_pairs(radius, output_type="ndarray")
        ps.append(small[pairs[:, 0]])
        qs.append(small[pairs[:, 1]])
    if len(large):  # a superset of the pairs with a large object (the gap filter below decides)
        half_large = half[half > _LARGE]
        if len(small):
            radius = reach + half_large + float(np.max(half[half <= _LARGE]))
            hits = cKDTree(b.centers[small, :2]).query_ball_point(b.centers[large, :2], radius)
            counts = np.array([len(h) for h in hits], dtype=np.intp)
            if counts.sum():
                ps.append(np.repeat(large, counts))
                qs.append(small[np.concatenate([np.asarray(h, dtype=np.intp) for h in hits])])
        if len(large) > 1:
            if len(large) <= 4000:
                i, j = np.triu_indices(len(large), 1)
            else:
                pairs = cKDTree(b.centers[large, :2]).query_pairs(reach + 2.0 * float(half_large.max()),
                                                                   output_type="ndarray")
                i, j = pairs[:, 0], pairs[:, 1]
            ps.append(large[i])
            qs.append(large[j])
    p = np.concatenate(ps).astype(np.intp) if ps else np.zeros(0, dtype=np.intp)
    q = np.concatenate(qs).astype(np.intp) if qs else np.zeros(0, dtype=np.intp)
    lo, hi = np.minimum(p, q), np.maximum(p, q)
    key = np.sort(lo.astype(np.int64) * (len(b) + 1) + hi)  # np.unique without its slower hashing
    key = key[np.concatenate(([True], key[1:] != key[:-1]))] if len(key) else key
    p, q = (key // (len(b) + 1)).astype(np.intp), (key % (len(b) + 1)).astype(np.intp)
    keep = box_gap(b, p, q, dims=slice(0, 2)) <= reach
    return p[keep], q[keep]


def partners(idx: RelationIndex, row: int, th: RelationThresholds, memo: dict[int, np.ndarray] | None = None
              ) -> np.ndarray:
    """Ordinary objects (other than ``row``) within reach of ``row`` in the floor plane
    (remembered in ``memo`` while the geometry stays the same)."""
    if memo is not None and row in memo:
        return memo[row]
    reach = _reach(th)
    lo, hi = idx.mins[row, :2] - reach, idx.maxs[row, :2] + reach
    mask = ((idx.mins[:, 0] <= hi[0]) & (idx.maxs[:, 0] >= lo[0]) & (idx.mins[:, 1] <= hi[1])
            & (idx.maxs[:, 1] >= lo[1]) & idx.is_ordinary)
    mask[row] = False
    cand = np.flatnonzero(mask)
    gap = box_gap(idx.boxes, cand, np.full(len(cand), row), dims=slice(0, 2))
    out = cand[gap <= reach]
    if memo is not None:
        memo[row] = out
    return out


# ----------------------------------------------------------------------------- relations of pairs
@dataclass
class _Candidates:
    """Possible holders: subject row, holder row, relation code, priority, score."""

    subject: list[np.ndarray] = field(default_factory=list)
    holder: list[np.ndarray] = field(default_factory=list)
    code: list[np.ndarray] = field(default_factory=list)
    priority: list[np.ndarray] = field(default_factory=list)
    score: list[np.ndarray] = field(default_factory=list)

    def add(self, s: np.ndarray, h: np.ndarray, code: int, priority: float | np.ndarray,
            score: np.ndarray) -> None:
        if len(s):
            self.subject.append(np.asarray(s, dtype=np.intp))
            self.holder.append(np.asarray(h, dtype=np.intp))
            self.code.append(np.full(len(s), code, dtype=np.int8))
            self.priority.append(np.broadcast_to(np.asarray(priority, dtype=float), (len(s),)).copy())
            self.score.append(np.asarray(score, dtype=float))

    def arrays(self) -> tuple[np.ndarray, ...]:
        if not self.subject:
            e = np.zeros(0, dtype=np.intp)
            return e, e, np.zeros(0, dtype=np.int8), np.zeros(0), np.zeros(0)
        parts = (self.subject, self.holder, self.code, self.priority, self.score)
        return tuple(np.concatenate(x) for x in parts)


@dataclass
class PairFacts:
    """Geometric relations of unordered object pairs (p, q), in both readings."""

    p: np.ndarray
    q: np.ndarray
    v_pq: dict[Relation, np.ndarray]
    v_qp: dict[Relation, np.ndarray]
    side: dict[Relation, np.ndarray]
    hor: dict[Relation, np.ndarray]


def pair_facts(b: BoxArray, p: np.ndarray, q: np.ndarray, th: RelationThresholds) -> PairFacts:
    v_pq = holding_relations(b, p, q, th)
    v_qp = holding_relations(b, q, p, th)
    v_pq[Relation.ABOVE] = v_qp[Relation.BELOW] = above(b, p, q, th)
    v_pq[Relation.BELOW] = v_qp[Relation.ABOVE] = above(b, q, p, th)
    return PairFacts(p, q, v_pq, v_qp, side_relations(b, p, q, th), horizontal_relations(b, p, q, th))


def _add_object_candidates(b: BoxArray, s: np.ndarray, h: np.ndarray, v: dict[Relation, np.ndarray],
                           cands: _Candidates) -> None:
    """Holder candidates (subject s held by object h) from their vertical relations."""
    m = v[Relation.SUPPORTED_BY]
    cands.add(s[m], h[m], 0, _P_ON, b.maxs[h[m], 2])
    for code, rel in ((1, Relation.EMBEDDED_IN), (2, Relation.INSIDE)):
        m = v[rel]
        cands.add(s[m], h[m], code, _P_IN, -volume_of(b, h[m]))
    m = v[Relation.HANGING_ON]
    cands.add(s[m], h[m], 3, _P_HANG, -box_gap(b, s[m], h[m]))


def pair_edges(f: PairFacts, holder: np.ndarray) -> Triples:
    """Stored non-holder edges of the pairs: ABOVE (unless one holds the other), then NEXT_TO,
    BESIDE or NEAR and HIGHER_THAN for pairs not vertically related. ``holder`` maps rows to their
    chosen holder row (-1 for none)."""
    p, q, v_pq, v_qp = f.p, f.q, f.v_pq, f.v_qp
    held = (holder[p] == q) | (holder[q] == p)
    vert = held | v_pq[Relation.ABOVE] | v_pq[Relation.BELOW]
    for v in (v_pq, v_qp):
        vert = vert | v[Relation.SUPPORTED_BY] | v[Relation.EMBEDDED_IN] | v[Relation.INSIDE]
    next_to = f.side[Relation.NEXT_TO] & ~vert
    beside = f.side[Relation.BESIDE] & ~vert & ~next_to
    near = f.hor[Relation.NEAR] & ~vert & ~next_to & ~beside
    lo, hi = np.minimum(p, q), np.maximum(p, q)  # symmetric facts: earlier row first
    out: Triples = []
    for mask, s, rel, o in (
        (v_pq[Relation.ABOVE] & ~held, p, Relation.ABOVE, q),
        (v_pq[Relation.BELOW] & ~held, q, Relation.ABOVE, p),
        (next_to, lo, Relation.NEXT_TO, hi),
        (beside, lo, Relation.BESIDE, hi),
        (near, lo, Relation.NEAR, hi),
        (f.hor[Relation.HIGHER_THAN] & ~vert, p, Relation.HIGHER_THAN, q),
        (f.hor[Relation.LOWER_THAN] & ~vert, q, Relation.HIGHER_THAN, p),
    ):
        out.extend(zip(s[mask].tolist(), [rel] * int(mask.sum()), o[mask].tolist(), strict=True))
    return out


def _flags(categories: list[str], vocabulary: frozenset[str]) -> np.ndarray:
    """Per label: whether it is in ``vocabulary`` (each distinct label matched once)."""
    memo: dict[str, bool] = {}
    for c in categories:
        if c not in memo:
            memo[c] = category_in(c, vocabulary)
    return np.array([memo[c] for c in categories], dtype=bool)


def _structure_pairs(idx: RelationIndex, subjects: np.ndarray, margin: float
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(subject, structural node) pairs whose footprints come within ``margin`` of each other."""
    b = idx.boxes
    structure = idx.structure[np.isin(idx.structure, subjects, invert=True)]
    if len(subjects) == 0 or len(structure) == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    if len(subjects) <= 8:  # few subjects: keep the structure near their joint footprint
        lo = b.mins[subjects, :2].min(axis=0) - margin
        hi = b.maxs[subjects, :2].max(axis=0) + margin
        sm, sx = b.mins[structure], b.maxs[structure]
        near = (sm[:, 0] <= hi[0]) & (sx[:, 0] >= lo[0]) & (sm[:, 1] <= hi[1]) & (sx[:, 1] >= lo[1])
        structure = structure[near]
        s = np.repeat(subjects, len(structure))
        t = np.tile(structure, len(subjects))
    elif len(subjects) * len(structure) <= 200_000:
        s = np.repeat(subjects, len(structure))
        t = np.tile(structure, len(subjects))
    else:
        half = np.hypot(b.sizes[:, 0], b.sizes[:, 1]) / 2.0
        radius = half[structure] + margin + float(half[subjects].max())
        hits = cKDTree(b.centers[subjects, :2]).query_ball_point(b.centers[structure, :2], radius)
        counts = np.array([len(h) for h in hits], dtype=np.intp)
        s = subjects[np.concatenate([np.asarray(h, dtype=np.intp) for h in hits])] if counts.sum() else (
            np.zeros(0, dtype=np.intp))
        t = np.repeat(structure, counts)
    keep = box_gap(b, s, t, dims=slice(0, 2)) <= margin
    s, t = s[keep], t[keep]
    for f in idx.unbounded_floors:  # a synthetic floor lies under everything
        s = np.concatenate([s[t != f], subjects])
        t = np.concatenate([t[t != f], np.full(len(subjects), f)])
    return s, t


def _structure_candidates(
    idx: RelationIndex, subjects: np.ndarray, th: RelationThresholds, cands: _Candidates
) -> None:
    """Floor support and hanging on walls / ceilings for the given subject rows."""
    b = idx.boxes
    s, t = _structure_pairs(idx, np.asarray(subjects, dtype=np.intp), max(th.floor_xy_margin, th.attach_gap))
    if len(s) == 0:
        return
    kind = idx.kind[t]
    fl = kind == KIND_FLOOR
    unbounded = np.isin(t, idx.unbounded_floors)
    m = fl & on_floor(b, s, t, ground_level(b, t, th), th, unbounded)
    cands.add(s[m], t[m], 0, _P_FLOOR, -box_gap(b, s[m], t[m], dims=slice(0, 2)))
    m = ~fl & hanging_contact(b, s, t, th)
    if m.any():
        first = _flags([idx.objs[r].category for r in s[m]], WALL_FIRST) & (kind[m] == KIND_WALL)
        cands.add(s[m], t[m], 3, np.where(first, _P_WALL_FIRST, _P_STRUCT), -box_gap(b, s[m], t[m]))


def _choose(idx: RelationIndex, cands: _Candidates) -> dict[int, tuple[Relation, int]]:
    """Verified best holder per subject row: ``{subject: (relation, holder)}``."""
    s, h, code, prio, score = cands.arrays()
    if len(s) == 0:
        return {}
    memo: dict[tuple[str, ObjectKind, Relation, str, ObjectKind], Relation | None] = {}
    rels: list[Relation | None] = []
    for a, c, k in zip(s.tolist(), h.tolist(), code.tolist(), strict=True):
        so, ho = idx.objs[a], idx.objs[c]
        key = (so.category, so.kind, _SUPPORT_CODES[k], ho.category, ho.kind)
        if key not in memo:
            memo[key] = verify_support(so, _SUPPORT_CODES[k], ho)
        rels.append(memo[key])
    keep = np.flatnonzero(np.array([r is not None for r in rels], dtype=bool))
    best = keep[choose_support(s[keep], prio[keep], score[keep], h[keep])]
    return {int(s[k]): (rels[k], int(h[k])) for k in best}


def support_of(idx: RelationIndex, rows: Iterable[int], th: RelationThresholds,
                memo: dict[int, np.ndarray] | None = None) -> dict[int, tuple[Relation, int]]:
    """Chosen holders of some rows, each computed one-vs-all."""
    rows = [r for r in rows if idx.kind[r] == KIND_OBJECT]
    cands = _Candidates()
    if rows:
        parts = [partners(idx, r, th, memo) for r in rows]
        rr = np.repeat(np.asarray(rows, dtype=np.intp), [len(p) for p in parts])
        part = np.concatenate(parts)
        _add_object_candidates(idx.boxes, rr, part, holding_relations(idx.boxes, rr, part, th), cands)
    _structure_candidates(idx, np.asarray(rows, dtype=np.intp), th, cands)
    return _choose(idx, cands)


def dependents(idx: RelationIndex, row: int, th: RelationThresholds,
                memo: dict[int, np.ndarray] | None = None) -> set[int]:
    """Rows that could be held by ``row`` (so their holder may change when it moves)."""
    b = idx.boxes
    if idx.kind[row] == KIND_OBJECT:
        part = partners(idx, row, th, memo)
        if len(part) == 0:
            return set()
        v = holding_relations(b, part, np.full(len(part), row), th)
        m = v[Relation.SUPPORTED_BY] | v[Relation.EMBEDDED_IN] | v[Relation.INSIDE] | v[Relation.HANGING_ON]
        return set(part[m].tolist())
    cands = _Candidates()
    _structure_candidates(idx, idx.ordinary, th, cands)
    s, h, *_ = cands.arrays()
    return set(s[h == row].tolist())


# ----------------------------------------------------------------------------- build
def build_graph(
    scene_id: str,
    objects: Sequence[SceneObject],
    *,
    scene_type: str | None = None,
    thresholds: RelationThresholds | None = None,
    rooms: Sequence[Room] = (),
) -> SceneGraph:
    """The scene graph of ``objects``: structure kinds marked, a synthetic floor when none is
    labelled, stored relations computed and verified, levels from the support hierarchy, and only
    edges joining the same or adjacent levels. With ``rooms``, an object without a room is put in the
    room whose footprint holds its centre (:func:`synergai.scene.rooms.fill_rooms`; the synthetic
    floor is in none)."""
    th = thresholds or RelationThresholds()
    objs = fill_rooms(prepare_objects(objects), rooms)
    graph = SceneGraph(scene_id, objs, scene_type=scene_type, rooms=rooms)
    if not objs:
        return graph
    idx = RelationIndex(th, list(graph.objects))
    b = idx.boxes
    p, q = _object_pairs(idx, th)
    facts = pair_facts(b, p, q, th)
    cands = _Candidates()
    _add_object_candidates(b, p, q, facts.v_pq, cands)
    _add_object_candidates(b, q, p, facts.v_qp, cands)
    _structure_candidates(idx, idx.ordinary, th, cands)
    supports = _choose(idx, cands)
    ids = [o.id for o in idx.objs]
    for s, sup in sorted(supports.items()):
        graph.add_edge(Edge(ids[s], sup[0], ids[sup[1]]))
        idx.set_holder(s, sup)
    graph.levels = compute_levels(graph)
    lev = np.array([graph.levels[i] for i in ids])
    for t in pair_edges(facts, idx.holder_row):
        if abs(lev[t[0]] - lev[t[2]]) <= 1:
            graph.add_edge(Edge(ids[t[0]], t[1], ids[t[2]]))
            idx.add_pair(t)
    graph.relation_index = idx
    return graph
