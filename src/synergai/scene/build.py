"""Build a scene graph from objects, keep it fresh when one object moves, and answer the relations
that are never stored (viewpoint-dependent and comparative ones).

Storage policy: one direction per fact (SUPPORTED_BY not SUPPORTS, ABOVE not BELOW, HIGHER_THAN
not LOWER_THAN; NEAR / BESIDE / NEXT_TO once per unordered pair). Every object has at most one
holder (supported by, embedded in, inside, hanging / mounted / affixed on), worded and sanity-
checked by :mod:`synergai.scene.verification` and chosen in this order: a wall for wall-bound
things (pictures, doors, curtains...), an object it rests on (the highest), an object it sits in,
the floor, a wall or ceiling it hangs on, an object it hangs on. ABOVE is not stored between an
object and its holder (Sr3D prefers touching relations). NEXT_TO, BESIDE and NEAR are exclusive
(the closest applies) and skip pairs already linked vertically. FAR, WITHIN_REACH, left / right /
in front of / behind, clock directions, closest / farthest and between are computed on query by
the functions below.
Edges join only objects on the same or adjacent support levels (SynergAI appendix B).
"""

from __future__ import annotations

import operator
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial import cKDTree

from synergai.geometry.boxes import BoxArray, box_gap
from synergai.geometry.frames import Viewpoint
from synergai.scene.hierarchy import compute_levels
from synergai.scene.model import (
    COMPARATIVE,
    STRUCTURE_KINDS,
    SUPPORT_RELATIONS,
    VIEW_DEPENDENT,
    Edge,
    ObjectKind,
    Relation,
    SceneError,
    SceneGraph,
    SceneObject,
)
from synergai.scene.relations.allocentric import (
    aabb_corners,
    clock_directions,
    oriented_corners,
    side_relations,
    view_relations,
)
from synergai.scene.relations.comparative import between_mask, extreme, object_distance
from synergai.scene.relations.horizontal import far as far_mask
from synergai.scene.relations.horizontal import horizontal_relations, within_reach_of_point
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
from synergai.scene.verification import WALL_FIRST, category_in, normalize_category, verify_support

_OBJ, _FLOOR, _WALL, _CEILING = 0, 1, 2, 3
_KIND_CODE = {ObjectKind.OBJECT: _OBJ, ObjectKind.FLOOR: _FLOOR, ObjectKind.WALL: _WALL,
              ObjectKind.CEILING: _CEILING}
#: Objects with a footprint half-diagonal above this are paired one-vs-all, not through the tree.
_LARGE = 1.0
#: Holder preference (lower wins): wall-bound things (pictures, doors, curtains...) on their wall,
#: resting on an object, sitting in one, the floor, other hanging on walls / ceilings, hanging on
#: objects.
_P_WALL_FIRST, _P_ON, _P_IN, _P_FLOOR, _P_STRUCT, _P_HANG = -1, 0, 1, 3, 4, 5
_SUPPORT_CODES = (Relation.SUPPORTED_BY, Relation.EMBEDDED_IN, Relation.INSIDE, Relation.HANGING_ON)
_INDEX_ATTR = "_synergai_relation_index"
_SYMMETRIC = frozenset({Relation.NEAR, Relation.BESIDE, Relation.NEXT_TO})
SYNTHETIC_FLOOR_ID = "floor"
#: Provenance of the floor added when none is labelled; it lies under everything, wherever it is.
SYNTHETIC_FLOOR_PROVENANCE = "synthetic-floor"

Triples = list[tuple[int, Relation, int]]


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
    return SceneObject(id=fid, category="floor", center=tuple(float(v) for v in center),
                       size=tuple(float(v) for v in size), provenance=SYNTHETIC_FLOOR_PROVENANCE,
                       kind=ObjectKind.FLOOR)


# ----------------------------------------------------------------------------- array index
def _canon(s: int, rel: Relation, o: int) -> tuple[int, Relation, int]:
    """One key per fact: symmetric relations with the earlier row first."""
    return (o, rel, s) if rel in _SYMMETRIC and o < s else (s, rel, o)


@dataclass
class _Index:
    """Arrays of a graph's objects (rows in insertion order) and the edges perception stored for
    them, cached on the graph between refreshes."""

    th: RelationThresholds
    objs: list[SceneObject]
    mins: np.ndarray = field(init=False)
    maxs: np.ndarray = field(init=False)
    kind: np.ndarray = field(init=False)
    row: dict[str, int] = field(init=False)
    structure: np.ndarray = field(init=False)
    ordinary: np.ndarray = field(init=False)
    is_ordinary: np.ndarray = field(init=False)
    unbounded_floors: np.ndarray = field(init=False)
    #: Holder edge of each held row, the rows each row holds, and the array form (-1: none).
    holder: dict[int, tuple[Relation, int]] = field(init=False, default_factory=dict)
    held: dict[int, set[int]] = field(init=False, default_factory=dict)
    holder_row: np.ndarray = field(init=False)
    #: Stored non-holder edges (canonical triples) touching each row.
    pairs: dict[int, set[tuple[int, Relation, int]]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.objs)
        c = np.array([o.center for o in self.objs], dtype=float).reshape(n, 3)
        s = np.abs(np.array([o.size for o in self.objs], dtype=float).reshape(n, 3))
        self.mins, self.maxs = c - s / 2.0, c + s / 2.0
        self.kind = np.array([_KIND_CODE[o.kind] for o in self.objs], dtype=np.int8)
        self.row = {o.id: k for k, o in enumerate(self.objs)}
        self.holder_row = np.full(n, -1, dtype=np.intp)
        self._kinds_changed()

    def _kinds_changed(self) -> None:
        self.is_ordinary = self.kind == _OBJ
        self.structure = np.flatnonzero(~self.is_ordinary)
        self.ordinary = np.flatnonzero(self.is_ordinary)
        floors = np.flatnonzero(self.kind == _FLOOR)
        synthetic = [self.objs[k].provenance == SYNTHETIC_FLOOR_PROVENANCE for k in floors]
        self.unbounded_floors = floors[np.array(synthetic, dtype=bool)]

    @property
    def boxes(self) -> BoxArray:
        return BoxArray(self.mins, self.maxs)

    def set_object(self, k: int, obj: SceneObject) -> None:
        c, s = np.asarray(obj.center, dtype=float), np.abs(np.asarray(obj.size, dtype=float))
        self.mins[k], self.maxs[k] = c - s / 2.0, c + s / 2.0
        self.objs[k] = obj
        if self.kind[k] != _KIND_CODE[obj.kind] or obj.kind is ObjectKind.FLOOR:
            self.kind[k] = _KIND_CODE[obj.kind]
            self._kinds_changed()

    def append(self, obj: SceneObject) -> None:
        self.objs.append(obj)
        self.row[obj.id] = len(self.objs) - 1
        self.mins = np.vstack([self.mins, np.zeros((1, 3))])
        self.maxs = np.vstack([self.maxs, np.zeros((1, 3))])
        self.kind = np.append(self.kind, np.int8(-1))
        self.holder_row = np.append(self.holder_row, -1)
        self.set_object(len(self.objs) - 1, obj)

    def sync(self, graph: SceneGraph) -> bool:
        """Follow the graph's objects (moved, replaced or appended ones); False when objects were
        removed or reordered and the index must be rebuilt."""
        now = graph.objects
        n = len(self.objs)
        if len(now) < n:
            return False
        changed = np.fromiter(map(operator.is_not, self.objs, now[:n]), dtype=bool, count=n)
        for k in np.flatnonzero(changed).tolist():
            if now[k].id != self.objs[k].id:
                return False
            self.set_object(k, now[k])
        for obj in now[n:]:
            self.append(obj)
        return True

    def set_holder(self, r: int, sup: tuple[Relation, int] | None) -> None:
        old = self.holder.pop(r, None)
        if old is not None:
            self.held.get(old[1], set()).discard(r)
        self.holder_row[r] = -1
        if sup is not None:
            self.holder[r] = sup
            self.held.setdefault(sup[1], set()).add(r)
            self.holder_row[r] = sup[1]

    def add_pair(self, t: tuple[int, Relation, int]) -> None:
        self.pairs.setdefault(t[0], set()).add(t)
        self.pairs.setdefault(t[2], set()).add(t)

    def discard_pair(self, t: tuple[int, Relation, int]) -> None:
        self.pairs.get(t[0], set()).discard(t)
        self.pairs.get(t[2], set()).discard(t)


def _index_of(graph: SceneGraph, th: RelationThresholds) -> _Index:
    """The graph's cached index, followed to its current objects, or a new one whose bookkeeping
    takes every stored edge as perception's."""
    idx = graph.__dict__.get(_INDEX_ATTR)
    if isinstance(idx, _Index) and idx.th == th and idx.sync(graph):
        return idx
    idx = _Index(th, list(graph.objects))
    for e in graph.edges:
        s, o = idx.row[e.subject], idx.row[e.object]
        if e.relation in SUPPORT_RELATIONS:
            if s not in idx.holder:
                idx.set_holder(s, (e.relation, o))
        else:
            idx.add_pair(_canon(s, e.relation, o))
    graph.__dict__[_INDEX_ATTR] = idx
    return idx


# ----------------------------------------------------------------------------- candidate pairs
def _reach(th: RelationThresholds) -> float:
    return max(th.near_gap, th.beside_gap, th.next_to_gap, th.attach_gap, th.touch)


def _object_pairs(idx: _Index, th: RelationThresholds) -> tuple[np.ndarray, np.ndarray]:
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
    for big in large:
        gap = box_gap(b, objs, np.full(len(objs), big), dims=slice(0, 2))
        other = objs[(gap <= reach) & (objs != big)]
        ps.append(np.full(len(other), big))
        qs.append(other)
    p = np.concatenate(ps).astype(np.intp) if ps else np.zeros(0, dtype=np.intp)
    q = np.concatenate(qs).astype(np.intp) if qs else np.zeros(0, dtype=np.intp)
    lo, hi = np.minimum(p, q), np.maximum(p, q)
    key = np.unique(lo.astype(np.int64) * (len(b) + 1) + hi)
    p, q = (key // (len(b) + 1)).astype(np.intp), (key % (len(b) + 1)).astype(np.intp)
    keep = box_gap(b, p, q, dims=slice(0, 2)) <= reach
    return p[keep], q[keep]


def _partners(idx: _Index, row: int, th: RelationThresholds, memo: dict[int, np.ndarray] | None = None
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
class _PairFacts:
    """Geometric relations of unordered object pairs (p, q), in both readings."""

    p: np.ndarray
    q: np.ndarray
    v_pq: dict[Relation, np.ndarray]
    v_qp: dict[Relation, np.ndarray]
    side: dict[Relation, np.ndarray]
    hor: dict[Relation, np.ndarray]


def _pair_facts(b: BoxArray, p: np.ndarray, q: np.ndarray, th: RelationThresholds) -> _PairFacts:
    v_pq = holding_relations(b, p, q, th)
    v_qp = holding_relations(b, q, p, th)
    v_pq[Relation.ABOVE] = v_qp[Relation.BELOW] = above(b, p, q, th)
    v_pq[Relation.BELOW] = v_qp[Relation.ABOVE] = above(b, q, p, th)
    return _PairFacts(p, q, v_pq, v_qp, side_relations(b, p, q, th), horizontal_relations(b, p, q, th))


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


def _pair_edges(f: _PairFacts, holder: np.ndarray) -> Triples:
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


def _structure_pairs(idx: _Index, subjects: np.ndarray, margin: float) -> tuple[np.ndarray, np.ndarray]:
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
    idx: _Index, subjects: np.ndarray, th: RelationThresholds, cands: _Candidates
) -> None:
    """Floor support and hanging on walls / ceilings for the given subject rows."""
    b = idx.boxes
    s, t = _structure_pairs(idx, np.asarray(subjects, dtype=np.intp), max(th.floor_xy_margin, th.attach_gap))
    if len(s) == 0:
        return
    kind = idx.kind[t]
    fl = kind == _FLOOR
    unbounded = np.isin(t, idx.unbounded_floors)
    m = fl & on_floor(b, s, t, ground_level(b, t, th), th, unbounded)
    cands.add(s[m], t[m], 0, _P_FLOOR, -box_gap(b, s[m], t[m], dims=slice(0, 2)))
    m = ~fl & hanging_contact(b, s, t, th)
    if m.any():
        first = _flags([idx.objs[r].category for r in s[m]], WALL_FIRST) & (kind[m] == _WALL)
        cands.add(s[m], t[m], 3, np.where(first, _P_WALL_FIRST, _P_STRUCT), -box_gap(b, s[m], t[m]))


def _choose(idx: _Index, cands: _Candidates) -> dict[int, tuple[Relation, int]]:
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
    return {int(s[k]): (rels[k], int(h[k])) for k in best}  # type: ignore[misc]


def _support_of(idx: _Index, rows: Iterable[int], th: RelationThresholds,
                memo: dict[int, np.ndarray] | None = None) -> dict[int, tuple[Relation, int]]:
    """Chosen holders of some rows, each computed one-vs-all."""
    rows = [r for r in rows if idx.kind[r] == _OBJ]
    cands = _Candidates()
    if rows:
        parts = [_partners(idx, r, th, memo) for r in rows]
        rr = np.repeat(np.asarray(rows, dtype=np.intp), [len(p) for p in parts])
        part = np.concatenate(parts)
        _add_object_candidates(idx.boxes, rr, part, holding_relations(idx.boxes, rr, part, th), cands)
    _structure_candidates(idx, np.asarray(rows, dtype=np.intp), th, cands)
    return _choose(idx, cands)


def _dependents(idx: _Index, row: int, th: RelationThresholds,
                memo: dict[int, np.ndarray] | None = None) -> set[int]:
    """Rows that could be held by ``row`` (so their holder may change when it moves)."""
    b = idx.boxes
    if idx.kind[row] == _OBJ:
        part = _partners(idx, row, th, memo)
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
) -> SceneGraph:
    """The scene graph of ``objects``: structure kinds marked, a synthetic floor when none is
    labelled, stored relations computed and verified, levels from the support hierarchy, and only
    edges joining the same or adjacent levels."""
    th = thresholds or RelationThresholds()
    objs = prepare_objects(objects)
    graph = SceneGraph(scene_id, objs, scene_type=scene_type)
    if not objs:
        return graph
    idx = _Index(th, list(graph.objects))
    b = idx.boxes
    p, q = _object_pairs(idx, th)
    facts = _pair_facts(b, p, q, th)
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
    for t in _pair_edges(facts, idx.holder_row):
        if abs(lev[t[0]] - lev[t[2]]) <= 1:
            graph.add_edge(Edge(ids[t[0]], t[1], ids[t[2]]))
            idx.add_pair(t)
    graph.__dict__[_INDEX_ATTR] = idx
    return graph


# ----------------------------------------------------------------------------- refresh
def _level_from(graph: SceneGraph, idx: _Index, row: int, sup: tuple[Relation, int] | None) -> int:
    if idx.kind[row] != _OBJ or sup is None:
        return 0
    holder = sup[1]
    if idx.kind[holder] == _FLOOR:
        return 0
    if idx.kind[holder] != _OBJ:
        return 1
    return graph.levels.get(idx.objs[holder].id, 0) + 1


def _edges_of_row(idx: _Index, row: int, th: RelationThresholds,
                  memo: dict[int, np.ndarray] | None = None) -> Triples:
    """Stored non-holder edges between ``row`` and its partners (before the level filter)."""
    if idx.kind[row] != _OBJ:
        return []
    part = _partners(idx, row, th, memo)
    return _pair_edges(_pair_facts(idx.boxes, np.full(len(part), row), part, th), idx.holder_row)


def refresh_object(
    graph: SceneGraph, object_id: str, thresholds: RelationThresholds | None = None
) -> tuple[list[Edge], list[Edge]]:
    """Recompute the stored edges touching one object after it moved or was added, apply them to
    the graph, update levels, and return ``(added, removed)``.

    The object is compared one-vs-all (vectorised); the objects it held or may now hold get their
    holder re-chosen, and objects whose level changes get their edges re-filtered. Only facts
    that changed are applied: edges perception stored (kept in an index cached on the graph) and
    no longer true are removed, new ones added; edges added or removed by hand are left alone
    for facts that did not change. Without a cached index (e.g. a graph loaded from the store)
    the index is rebuilt and takes every stored edge as perception's.
    """
    th = thresholds or RelationThresholds()
    obj = graph.get(object_id)
    kind = structure_kind(obj.category) if obj.kind is ObjectKind.OBJECT else obj.kind
    if kind is not obj.kind:
        obj = obj.with_changes(kind=kind)
        graph.put(obj)
    idx = _index_of(graph, th)
    x = idx.row[obj.id]
    added: list[Edge] = []
    removed: list[Edge] = []

    def name(r: int) -> str:
        return idx.objs[r].id

    def drop(t: tuple[int, Relation, int], pair: bool = True) -> None:
        if pair:
            idx.discard_pair(t)
        if graph.has_edge(name(t[0]), t[1], name(t[2])):
            removed.append(graph.remove_edge(name(t[0]), t[1], name(t[2])))

    def put(t: tuple[int, Relation, int], pair: bool = True) -> None:
        if pair:
            idx.add_pair(t)
        if not graph.has_edge(name(t[0]), t[1], name(t[2])):
            e = Edge(name(t[0]), t[1], name(t[2]))
            graph.add_edge(e)
            added.append(e)

    memo: dict[int, np.ndarray] = {}
    affected = {x} | idx.held.get(x, set()) | _dependents(idx, x, th, memo)
    support_new = _support_of(idx, affected, th, memo)
    rehung: list[tuple[int, int]] = []  # (row, holder) pairs whose holder link changed
    for r in sorted(affected):
        before, after = idx.holder.get(r), support_new.get(r)
        if before == after:
            continue  # unchanged facts stay as they are (also when a user removed them)
        if before is not None:
            drop((r, before[0], before[1]), pair=False)
            rehung.append((r, before[1]))
        if after is not None:
            put((r, after[0], after[1]), pair=False)
            rehung.append((r, after[1]))
        idx.set_holder(r, after)

    # levels: the object and the rows it may hold, then whoever a re-levelled row holds
    level_changed: set[int] = set()
    queue = deque(sorted(affected, key=lambda r: (r != x, r)))
    budget = 4 * len(idx.objs) + 16  # holder chains are acyclic; this only guards the loop
    while queue and budget:
        budget -= 1
        r = queue.popleft()
        new_level = _level_from(graph, idx, r, idx.holder.get(r))
        if graph.levels.get(name(r)) != new_level:
            graph.levels[name(r)] = new_level
            if r != x:
                level_changed.add(r)
            queue.extend(sorted(idx.held.get(r, ())))

    lev = graph.levels

    def fits(t: tuple[int, Relation, int]) -> bool:
        return abs(lev[name(t[0])] - lev[name(t[2])]) <= 1

    def settle(old: Iterable[tuple[int, Relation, int]], fresh: Iterable[tuple[int, Relation, int]]) -> None:
        old, keep = set(old), {t for t in fresh if fits(t)}
        for t in old - keep:
            drop(t)
        for t in sorted(keep - old, key=lambda t: (t[0], t[1].value, t[2])):
            put(t)

    settle(idx.pairs.get(x, set()), _edges_of_row(idx, x, th, memo))
    pairs = [(r, h) for r, h in rehung if x not in (r, h) and idx.kind[h] == _OBJ]
    if pairs:  # a pair that gained or lost a holder link may gain or lose ABOVE / NEAR ...
        p = np.array([r for r, _ in pairs], dtype=np.intp)
        q = np.array([h for _, h in pairs], dtype=np.intp)
        fresh = _pair_edges(_pair_facts(idx.boxes, p, q, th), idx.holder_row)
        ends = {frozenset(pq) for pq in pairs}
        settle([t for r, _ in pairs for t in idx.pairs.get(r, ()) if frozenset((t[0], t[2])) in ends], fresh)
    for r in sorted(level_changed):  # re-filter the edges of objects that changed level
        settle([t for t in idx.pairs.get(r, ()) if x not in (t[0], t[2])],
               [t for t in _edges_of_row(idx, r, th, memo) if x not in (t[0], t[2])])
    return added, removed


def remove_object(
    graph: SceneGraph, object_id: str, thresholds: RelationThresholds | None = None
) -> tuple[list[Edge], list[Edge]]:
    """Remove an object and re-choose the holders (and levels) of what it held; return
    ``(added, removed)`` edges. It is first moved out of reach through :func:`refresh_object`, so
    the consequences are computed exactly as for a move."""
    obj = graph.get(object_id)
    away = obj.with_changes(center=(1e9, 1e9, 1e9), size=(0.0, 0.0, 0.0), obb=None)
    graph.put(away)
    added, removed = refresh_object(graph, obj.id, thresholds)
    removed += [e for e in graph.edges if obj.id in (e.subject, e.object)]
    graph.remove(obj.id)
    graph.__dict__.pop(_INDEX_ATTR, None)
    return added, removed


# ----------------------------------------------------------------------------- queries
def _boxes_of(graph: SceneGraph, ids: Sequence[str]) -> tuple[BoxArray, np.ndarray]:
    """Boxes of the objects and their footprint corners (oriented where the object has an obb)."""
    objs = [graph.get(i) for i in ids]
    b = graph.box_array([o.id for o in objs])
    corners = aabb_corners(b)
    for k, o in enumerate(objs):
        if o.obb is not None:
            corners[k] = oriented_corners(np.asarray(o.obb.center[:2]), np.asarray(o.obb.size[:2]),
                                          np.asarray([o.obb.yaw]))[0]
    return b, corners


def facing_viewpoint(obj: SceneObject, distance: float = 1.0) -> Viewpoint | None:
    """The viewpoint of someone standing ``distance`` in front of ``obj`` and looking at it
    ("looking at the front of the desk"), or None when the object has no known front."""
    if obj.front is None:
        return None
    f = np.array([obj.front[0], obj.front[1], 0.0])
    n = float(np.linalg.norm(f))
    if n < 1e-9:
        return None
    f /= n
    c = np.asarray(obj.obb.center if obj.obb is not None else obj.center, dtype=float)
    pos = c + f * distance
    return Viewpoint((float(pos[0]), float(pos[1]), float(c[2])), (float(-f[0]), float(-f[1]), 0.0))


def view_relation(
    graph: SceneGraph,
    subject_ids: Sequence[str],
    anchor_id: str,
    relation: Relation,
    viewpoint: Viewpoint,
    thresholds: RelationThresholds | None = None,
) -> list[str]:
    """The subjects that are LEFT_OF / RIGHT_OF / IN_FRONT_OF / BEHIND the anchor as seen from
    ``viewpoint`` (in front = between the anchor and the viewer)."""
    if relation not in VIEW_DEPENDENT:
        raise SceneError(f"{relation.value} is not viewpoint-dependent; use one of "
                         + ", ".join(sorted(r.value for r in VIEW_DEPENDENT)))
    th = thresholds or RelationThresholds()
    subjects = [graph.get(s).id for s in subject_ids if graph.get(s).id != str(anchor_id)]
    if not subjects:
        return []
    b, corners = _boxes_of(graph, [*subjects, graph.get(anchor_id).id])
    i = np.arange(len(subjects))
    masks = view_relations(b, i, np.full(len(i), len(subjects)), viewpoint, th, corners)
    return [s for s, m in zip(subjects, masks[relation], strict=True) if m]


def clock_direction(graph: SceneGraph, ids: Sequence[str], viewpoint: Viewpoint) -> dict[str, int]:
    """Clock hour of each object's centre seen from ``viewpoint`` (12 = straight ahead, 3 = right)."""
    objs = [graph.get(i) for i in ids]
    if not objs:
        return {}
    hours = clock_directions(np.array([o.center for o in objs], dtype=float), viewpoint)
    return {o.id: int(h) for o, h in zip(objs, hours, strict=True)}


def _extreme(graph: SceneGraph, anchor_id: str, candidate_ids: Sequence[str], largest: bool,
             thresholds: RelationThresholds | None) -> str | None:
    th = thresholds or RelationThresholds()
    anchor = graph.get(anchor_id).id
    cands = list(dict.fromkeys(graph.get(c).id for c in candidate_ids if graph.get(c).id != anchor))
    if not cands:
        return None
    b = graph.box_array([*cands, anchor])
    d = object_distance(b, np.arange(len(cands)), np.full(len(cands), len(cands)))
    k = extreme(d, th.epsilon, largest=largest)
    return cands[k] if k >= 0 else None


def closest(graph: SceneGraph, anchor_id: str, candidate_ids: Sequence[str],
            thresholds: RelationThresholds | None = None) -> str | None:
    """The candidate closest to the anchor, or None when the runner-up is within ``epsilon``."""
    return _extreme(graph, anchor_id, candidate_ids, False, thresholds)


def farthest(graph: SceneGraph, anchor_id: str, candidate_ids: Sequence[str],
             thresholds: RelationThresholds | None = None) -> str | None:
    """The candidate farthest from the anchor, or None when the runner-up is within ``epsilon``."""
    return _extreme(graph, anchor_id, candidate_ids, True, thresholds)


def between(graph: SceneGraph, candidate_ids: Sequence[str], anchor_a: str, anchor_b: str,
            thresholds: RelationThresholds | None = None) -> list[str]:
    """The candidates lying between the two anchors (Sr3D's convex-hull rule)."""
    th = thresholds or RelationThresholds()
    a, b_id = graph.get(anchor_a).id, graph.get(anchor_b).id
    if a == b_id:
        raise SceneError(f"between needs two different anchors, got {a!r} twice")
    cands = [c for c in dict.fromkeys(graph.get(c).id for c in candidate_ids) if c not in (a, b_id)]
    if not cands:
        return []
    boxes = graph.box_array([*cands, a, b_id])
    n = len(cands)
    m = between_mask(boxes, np.arange(n), np.full(n, n), np.full(n, n + 1), th)
    return [c for c, ok in zip(cands, m, strict=True) if ok]


def within_reach(graph: SceneGraph, point_or_id: str | Sequence[float], ids: Sequence[str] | None = None,
                 thresholds: RelationThresholds | None = None) -> list[str]:
    """Objects (all ordinary ones by default) whose box comes within ``reach`` of a point or of an
    object's box."""
    th = thresholds or RelationThresholds()
    pool = ids if ids is not None else [o.id for o in graph if o.kind not in STRUCTURE_KINDS]
    cand = [graph.get(i).id for i in pool]
    if isinstance(point_or_id, str):
        anchor = graph.get(point_or_id).id
        cand = [c for c in cand if c != anchor]
        if not cand:
            return []
        b = graph.box_array([*cand, anchor])
        gap = box_gap(b, np.arange(len(cand)), np.full(len(cand), len(cand)))
        return [c for c, g in zip(cand, gap, strict=True) if g <= th.reach]
    point = np.asarray(point_or_id, dtype=float)
    if point.shape != (3,) or not np.all(np.isfinite(point)):
        raise SceneError(f"within_reach needs an object id or a point x,y,z, got {point_or_id!r}")
    if not cand:
        return []
    m = within_reach_of_point(graph.box_array(cand), np.arange(len(cand)), point, th)
    return [c for c, ok in zip(cand, m, strict=True) if ok]


def far(graph: SceneGraph, anchor_id: str, ids: Sequence[str] | None = None,
        thresholds: RelationThresholds | None = None) -> list[str]:
    """Objects (all ordinary ones by default) far from the anchor (never stored: FAR is dense)."""
    th = thresholds or RelationThresholds()
    anchor = graph.get(anchor_id).id
    pool = ids if ids is not None else [o.id for o in graph if o.kind not in STRUCTURE_KINDS]
    cand = [c for c in (graph.get(i).id for i in pool) if c != anchor]
    if not cand:
        return []
    b = graph.box_array([*cand, anchor])
    m = far_mask(b, np.arange(len(cand)), np.full(len(cand), len(cand)), th)
    return [c for c, ok in zip(cand, m, strict=True) if ok]


def is_stored_relation(relation: Relation) -> bool:
    """Whether the graph stores this relation (not viewpoint-dependent, comparative or FAR)."""
    return relation not in VIEW_DEPENDENT and relation not in COMPARATIVE and relation not in (
        Relation.FAR, Relation.WITHIN_REACH)
