"""The graph builder: structure nodes, storage policy, levels, and incremental refresh."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from synergai.scene.build import (
    build_graph,
    prepare_objects,
    refresh_object,
    remove_object,
    structure_kind,
)
from synergai.scene.builders.objects_json import ObjectsFile, load_objects_file
from synergai.scene.model import (
    COMPARATIVE,
    SUPPORT_RELATIONS,
    VIEW_DEPENDENT,
    Edge,
    ObjectKind,
    Relation,
    SceneError,
    SceneGraph,
    SceneObject,
)
from synergai.scene.relations import RelationThresholds, horizontal_relations

V3 = tuple[float, float, float]


def obj(oid: str, cat: str, center: V3, size: V3) -> SceneObject:
    return SceneObject(id=oid, category=cat, center=center, size=size)


@pytest.fixture(scope="module")
def gt(shared_data: Path) -> ObjectsFile:
    return load_objects_file(shared_data / "scannet" / "objects_gt.json")


def keys(g: SceneGraph) -> set[tuple[str, str, str]]:
    return {e.key() for e in g.edges}


def test_structure_kinds_from_labels() -> None:
    assert structure_kind("Floor") is ObjectKind.FLOOR
    assert structure_kind("shower walls") is ObjectKind.WALL
    assert structure_kind("ceiling") is ObjectKind.CEILING
    assert structure_kind("floor lamp") is ObjectKind.OBJECT
    assert structure_kind("wall cabinet") is ObjectKind.OBJECT


def test_synthetic_floor_only_when_none_is_labelled() -> None:
    objs = prepare_objects([obj("floor", "chair", (0, 0, 0.45), (0.5, 0.5, 0.9)),
                            obj("2", "wall", (1, 0, 1), (0.1, 3, 2))])
    assert [o.kind for o in objs] == [ObjectKind.OBJECT, ObjectKind.WALL, ObjectKind.FLOOR]
    floor = objs[-1]
    assert floor.id == "floor_1" and floor.provenance == "synthetic-floor"  # "floor" was taken
    assert floor.max_corner[2] == pytest.approx(0.0) and floor.min_corner[0] < -0.25
    g = build_graph("s", objs[:2])
    assert g.has_edge("floor", Relation.SUPPORTED_BY, "floor_1")
    labelled = prepare_objects([obj("a", "floor", (0, 0, 0), (4, 4, 0.1)),
                                obj("b", "chair", (0, 0, 0.5), (0.5, 0.5, 0.9))])
    assert len(labelled) == 2


def test_bad_input() -> None:
    with pytest.raises(SceneError):
        build_graph("s", ["not an object"])  # type: ignore[list-item]
    with pytest.raises(SceneError):
        build_graph("s", [obj("a", "cup", (0, 0, 0), (1, 1, 1)), obj("a", "cup", (2, 0, 0), (1, 1, 1))])
    assert len(build_graph("empty", [])) == 0


def test_levels_and_the_adjacent_level_rule() -> None:
    table = obj("table", "table", (0, 0, 0.375), (1.2, 0.8, 0.75))
    book = obj("book", "book", (0.45, 0.2, 0.77), (0.25, 0.2, 0.04))
    cup = obj("cup", "cup", (0.45, 0.2, 0.84), (0.08, 0.08, 0.1))
    chair = obj("chair", "chair", (0.9, 0.2, 0.45), (0.5, 0.5, 0.9))  # 0.15 m from the table's side
    g = build_graph("s", [table, book, cup, chair])
    assert g.levels == {"table": 0, "book": 1, "cup": 2, "chair": 0, "floor": 0}
    assert g.has_edge("cup", Relation.SUPPORTED_BY, "book")
    assert g.has_edge("book", Relation.SUPPORTED_BY, "table")
    # the cup is geometrically near the chair, but two levels apart: no edge
    b = g.box_array(["cup", "chair"])
    assert horizontal_relations(b, np.array([0]), np.array([1]), RelationThresholds())[Relation.NEAR][0]
    assert not any({"cup", "chair"} == {e.subject, e.object} for e in g.edges)
    assert any({"book", "chair"} == {e.subject, e.object} for e in g.edges)


def test_real_scenes_follow_the_storage_policy(gt: ObjectsFile) -> None:
    stored_once = {Relation.NEAR, Relation.BESIDE, Relation.NEXT_TO}
    for sid in gt.scene_ids[:40]:
        g = build_graph(sid, gt.objects(sid), scene_type=gt.scene_type(sid))
        assert len(g) >= len(gt.objects(sid))
        holders: dict[str, int] = {}
        pairs: set[frozenset[str]] = set()
        for e in g.edges:
            assert e.relation not in VIEW_DEPENDENT | COMPARATIVE
            assert e.relation not in (Relation.SUPPORTS, Relation.BELOW, Relation.LOWER_THAN, Relation.FAR)
            assert abs(g.levels[e.subject] - g.levels[e.object]) <= 1, e
            if e.relation in SUPPORT_RELATIONS:
                holders[e.subject] = holders.get(e.subject, 0) + 1
                assert g.get(e.subject).kind is ObjectKind.OBJECT
            if e.relation in stored_once:
                assert frozenset((e.subject, e.object)) not in pairs, e
                pairs.add(frozenset((e.subject, e.object)))
        assert max(holders.values()) == 1  # one holder per object
        assert all(o.kind is not ObjectKind.OBJECT or o.id in g.levels for o in g)


def test_refresh_matches_a_rebuild_after_moves(gt: ObjectsFile) -> None:
    rng = random.Random(3)
    for sid in gt.scene_ids[:25]:
        g = build_graph(sid, gt.objects(sid))
        for _ in range(4):
            o = rng.choice(g.objects)
            dz = rng.choice([0.0, 0.0, 0.4, -0.3])
            g.put(o.with_changes(center=(o.center[0] + rng.uniform(-1, 1), o.center[1] + rng.uniform(-1, 1),
                                         o.center[2] + dz)))
            before = keys(g)
            added, removed = refresh_object(g, o.id)
            assert keys(g) == (before - {e.key() for e in removed}) | {e.key() for e in added}
            fresh = build_graph(sid, g.objects)
            assert keys(g) == keys(fresh), (sid, o.id)
            assert g.levels == fresh.levels


def test_refresh_of_an_added_object_and_removal() -> None:
    table = obj("table", "table", (0, 0, 0.375), (1.2, 0.8, 0.75))
    g = build_graph("s", [table, obj("chair", "chair", (1.0, 0, 0.45), (0.5, 0.5, 0.9))])
    g.put(obj("cup", "cup", (0.2, 0.1, 0.8), (0.08, 0.08, 0.1)))
    added, removed = refresh_object(g, "cup")
    assert g.has_edge("cup", Relation.SUPPORTED_BY, "table") and removed == []
    assert {e.key() for e in added} >= {("cup", "supported_by", "table")}
    assert g.level("cup") == 1
    g.put(obj("cup", "cup", (6.0, 6.0, 0.05), (0.08, 0.08, 0.1)))  # on the floor, beyond the first extent
    added, removed = refresh_object(g, "cup")
    assert ("cup", "supported_by", "table") in {e.key() for e in removed}
    assert g.has_edge("cup", Relation.SUPPORTED_BY, "floor") and g.level("cup") == 0
    g.put(obj("cup", "cup", (0.2, 0.1, 0.8), (0.08, 0.08, 0.1)))
    refresh_object(g, "cup")
    added, removed = remove_object(g, "table")  # the cup falls to the floor level, unsupported
    assert "table" not in g and g.level("cup") == 0
    assert not any("table" in (e.subject, e.object) for e in g.edges)
    assert keys(g) == keys(build_graph("s", g.objects))


def test_refresh_keeps_hand_made_edges_and_survives_a_lost_cache() -> None:
    g = build_graph("s", [obj("table", "table", (0, 0, 0.375), (1.2, 0.8, 0.75)),
                          obj("cup", "cup", (0.2, 0.1, 0.8), (0.08, 0.08, 0.1)),
                          obj("box", "box", (3, 0, 0.2), (0.4, 0.4, 0.4))])
    g.add_edge(Edge("cup", Relation.NEAR, "box", provenance="user"))
    g.put(g.get("cup").with_changes(center=(0.3, 0.1, 0.8)))
    refresh_object(g, "cup")
    assert g.has_edge("cup", Relation.NEAR, "box")
    g.remove_edge("cup", Relation.SUPPORTED_BY, "table")  # a user says the cup is not on the table
    g.put(g.get("table").with_changes(center=(0.02, 0.0, 0.375)))
    added, removed = refresh_object(g, "table")  # the table barely moved: that fact did not change
    assert not g.has_edge("cup", Relation.SUPPORTED_BY, "table") and added == removed == []
    copy = g.copy()  # no cached index: rebuilt from the stored edges
    copy.put(copy.get("cup").with_changes(center=(-0.3, 0.0, 0.8)))
    refresh_object(copy, "cup")
    assert copy.has_edge("cup", Relation.SUPPORTED_BY, "table")
    with pytest.raises(SceneError):
        refresh_object(g, "nope")


def test_all_scenes_build(gt: ObjectsFile) -> None:
    total = sum(len(build_graph(s, gt.objects(s)).edges) for s in gt.scene_ids)
    assert total > 5 * gt.object_count() / 2


def test_the_relation_index_is_an_explicit_attribute_not_copied_or_compared() -> None:
    from synergai.scene.build import RelationIndex

    g = build_graph("s", [obj("table", "table", (0, 0, 0.375), (1.2, 0.8, 0.75)),
                          obj("cup", "cup", (0.2, 0.1, 0.8), (0.08, 0.08, 0.1))])
    assert isinstance(g.relation_index, RelationIndex)
    assert not any(isinstance(v, RelationIndex) for k, v in vars(g).items() if k != "relation_index")
    c = g.copy()
    assert c.relation_index is None and c == g
    refresh_object(c, "cup")  # rebuilt on demand for a graph without one
    assert isinstance(c.relation_index, RelationIndex) and c.relation_index is not g.relation_index
    remove_object(g, "cup")
    assert g.relation_index is None


def test_built_graphs_never_store_far_or_within_reach(gt: ObjectsFile) -> None:
    for sid in gt.scene_ids[:10]:
        rels = {e.relation for e in build_graph(sid, gt.objects(sid)).edges}
        assert not rels & {Relation.FAR, Relation.WITHIN_REACH}
