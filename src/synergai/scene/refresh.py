"""Keep a built graph fresh: recompute the stored edges of one object after it moved, was added or
was removed (its holder, what it holds, its neighbours, and the levels that follow)."""


from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import numpy as np

from synergai.scene.building import (
    dependents,
    pair_edges,
    pair_facts,
    partners,
    structure_kind,
    support_of,
)
from synergai.scene.model import (
    Edge,
    ObjectKind,
    Relation,
    SceneGraph,
)
from synergai.scene.relation_index import (
    KIND_FLOOR,
    KIND_OBJECT,
    RelationIndex,
    Triples,
    index_of,
)
from synergai.scene.relations.thresholds import RelationThresholds


# ----------------------------------------------------------------------------- refresh
def _level_from(graph: SceneGraph, idx: RelationIndex, row: int, sup: tuple[Relation, int] | None) -> int:
    if idx.kind[row] != KIND_OBJECT or sup is None:
        return 0
    holder = sup[1]
    if idx.kind[holder] == KIND_FLOOR:
        return 0
    if idx.kind[holder] != KIND_OBJECT:
        return 1
    return graph.levels.get(idx.objs[holder].id, 0) + 1


def _edges_of_row(idx: RelationIndex, row: int, th: RelationThresholds,
                  memo: dict[int, np.ndarray] | None = None) -> Triples:
    """Stored non-holder edges between ``row`` and its partners (before the level filter)."""
    if idx.kind[row] != KIND_OBJECT:
        return []
    part = partners(idx, row, th, memo)
    return pair_edges(pair_facts(idx.boxes, np.full(len(part), row), part, th), idx.holder_row)


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
    idx = index_of(graph, th)
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
    affected = {x} | idx.held.get(x, set()) | dependents(idx, x, th, memo)
    support_new = support_of(idx, affected, th, memo)
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
    pairs = [(r, h) for r, h in rehung if x not in (r, h) and idx.kind[h] == KIND_OBJECT]
    if pairs:  # a pair that gained or lost a holder link may gain or lose ABOVE / NEAR ...
        p = np.array([r for r, _ in pairs], dtype=np.intp)
        q = np.array([h for _, h in pairs], dtype=np.intp)
        fresh = pair_edges(pair_facts(idx.boxes, p, q, th), idx.holder_row)
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
    graph.relation_index = None
    return added, removed
