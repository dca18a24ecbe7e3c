"""An object's relations are found through the graph's adjacency index: the same facts, in the same
order, as a scan of every edge, at the cost of the object's own edges (a big scene's turn is not
quadratic before its first model call)."""

from __future__ import annotations

import random
import time

from synergai.scene.model import INVERSE, SUPPORT_RELATIONS, Edge, Relation, SceneGraph, SceneObject


def _scanned(graph: SceneGraph, oid: str) -> list[tuple[Relation, str]]:
    """What ``relations_of`` must return, read by scanning every edge."""
    out: list[tuple[Relation, str]] = []
    for e in graph.edges:
        if e.subject == oid:
            out.append((e.relation, e.object))
        elif e.object == oid:
            inv = INVERSE.get(e.relation)
            if inv is not None:
                out.append((inv, e.subject))
            elif e.relation in SUPPORT_RELATIONS:
                out.append((Relation.SUPPORTS, e.subject))
    return out


def _chain(n: int) -> SceneGraph:
    """``n`` boxes in a row, each on the one before and near its neighbours."""
    objs = [SceneObject(str(k), "box", (float(k), 0.0, 0.1), (0.2, 0.2, 0.2)) for k in range(n)]
    edges = [Edge(str(k), Relation.SUPPORTED_BY, str(k - 1)) for k in range(1, n)]
    edges += [Edge(str(k), Relation.NEAR, str(k + 1)) for k in range(n - 1)]
    edges += [Edge(str(k), Relation.HIGHER_THAN, str(k + 2)) for k in range(n - 2)]
    return SceneGraph("chain", objs, edges)


def test_relations_follow_edits_exactly_as_a_scan_reads_them() -> None:
    rng = random.Random(7)
    graph = _chain(40)
    graph.relations_of("3")  # the index is built here and must follow every change below
    relations = (Relation.NEAR, Relation.SUPPORTED_BY, Relation.HIGHER_THAN, Relation.BESIDE)
    for step in range(300):
        ids = graph.ids
        action = rng.random()
        if action < 0.45:
            a, b = rng.sample(ids, 2)
            graph.add_edge(Edge(a, rng.choice(relations), b))
        elif action < 0.8 and graph.edges:
            e = rng.choice(graph.edges)
            graph.remove_edge(e.subject, e.relation, e.object)
        elif action < 0.9 and len(ids) > 5:
            graph.remove(rng.choice(ids))
        else:
            graph.put(SceneObject(f"n{step}", "box", (0.0, 1.0, 0.1), (0.2, 0.2, 0.2)))
        copy = graph.copy()
        for oid in rng.sample(graph.ids, 5):
            assert graph.relations_of(oid) == _scanned(graph, oid)
            assert copy.relations_of(oid) == _scanned(graph, oid)
            near = [o for r, o in _scanned(graph, oid) if r is Relation.NEAR]
            assert graph.related(oid, Relation.NEAR) == near


def test_every_objects_relations_of_a_big_scene_cost_its_own_edges() -> None:
    graph = _chain(30_000)  # ~90k edges: a scan per object would read 2.7e9 edges (minutes)
    start = time.perf_counter()
    total = sum(len(graph.relations_of(o.id)) for o in graph)
    assert total == 2 * len(graph.edges)  # every edge read once from each side
    assert time.perf_counter() - start < 10.0  # ~0.2 s through the index, on a busy machine too
