"""Round trips through networkx, SceneVerse-style and ConceptGraphs-style shapes."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from synergai.scene.builders.demo import demo_scene
from synergai.scene.export import (
    from_conceptgraphs,
    from_networkx,
    from_sceneverse,
    sceneverse_relation,
    to_conceptgraphs,
    to_networkx,
    to_sceneverse,
)
from synergai.scene.hierarchy import compute_levels
from synergai.scene.model import Edge, ObjectKind, OrientedBox, Relation, SceneError, SceneGraph, SceneObject


@pytest.fixture(scope="module")
def graph() -> SceneGraph:
    """The demo apartment with its intended support facts, a few symmetric ones, levels, and odd ids."""
    d = demo_scene()
    g = SceneGraph("demo", d.objects, d.intended, scene_type=d.scene_type)
    g.put(SceneObject("mug-7", "mug", (5.5, 2.0, 0.5), (0.08, 0.08, 0.1), (190, 40, 40), ("red",),
                      confidence=0.62, provenance="3dvista", front=(0.0, -1.0, 0.0),
                      obb=OrientedBox((5.5, 2.0, 0.5), (0.08, 0.08, 0.1), 0.3)))
    g.add_edge(Edge("mug-7", Relation.SUPPORTED_BY, d.keys["coffee_table"]))
    g.add_edge(Edge(d.keys["cup_red"], Relation.NEAR, d.keys["cup_blue"]))
    g.add_edge(Edge(d.keys["tv"], Relation.ABOVE, d.keys["tv_stand"]))
    g.add_edge(Edge(d.keys["armchair_green"], Relation.NEAR, d.keys["coffee_table"]))
    g.levels = compute_levels(g)
    return g


def test_networkx_round_trip_is_lossless(graph) -> None:
    g = to_networkx(graph)
    assert isinstance(g, nx.DiGraph) and g.graph["scene_id"] == "demo"
    assert g.number_of_nodes() == len(graph) and g.number_of_edges() == len(graph.edges)
    cup = graph.objects[22]
    node = g.nodes[cup.id]
    assert node["category"] == cup.category and node["center"] == cup.center and node["kind"] == "object"
    assert node["level"] == graph.levels[cup.id]
    e = graph.edges[0]
    assert g.edges[e.subject, e.object, e.relation.value]["relation"] == e.relation.value
    back = from_networkx(g)
    assert back == graph  # ids, objects (all fields), edge keys and levels
    assert back.scene_type == "Apartment" and back.get("mug-7").obb == graph.get("mug-7").obb


def test_networkx_keeps_two_relations_between_one_pair() -> None:
    g = SceneGraph("s", [SceneObject("a", "cup", (0, 0, 1), (0.1, 0.1, 0.1)),
                         SceneObject("b", "table", (0, 0, 0.5), (1, 1, 0.9))])
    g.add_edge(Edge("a", Relation.SUPPORTED_BY, "b"))
    g.add_edge(Edge("a", Relation.NEAR, "b"))
    back = from_networkx(to_networkx(g))
    assert {e.key() for e in back.edges} == {("a", "supported_by", "b"), ("a", "near", "b")}


def test_hand_made_networkx_graph() -> None:
    g = nx.DiGraph()
    g.add_node(1, category="table", center=[0, 0, 0.4], size=[1, 1, 0.8], kind="object")
    g.add_node(2, category="cup", center=[0, 0, 0.85], size=[0.1, 0.1, 0.1])
    g.add_node(0, category="floor", center=[0, 0, -0.01], size=[5, 5, 0.02], kind="floor")
    g.add_edge(2, 1, relation="on top of")
    sg = from_networkx(g, scene_id="hand")
    assert sg.scene_id == "hand" and sg.get("0").kind is ObjectKind.FLOOR
    assert sg.has_edge("2", Relation.SUPPORTED_BY, "1")
    g.add_edge(2, 0, relation="to the left of")
    with pytest.raises(SceneError, match="viewpoint"):
        from_networkx(g, scene_id="hand")
    g.remove_edge(2, 0)
    with pytest.raises(SceneError, match="no scene_id"):
        from_networkx(g)
    g.add_node(3, center=[0, 0, 0], size=[1, 1, 1])
    with pytest.raises(SceneError, match="object 3: missing 'category'"):
        from_networkx(g, scene_id="hand")
    g.nodes[3].update(category="box", kind="attic")
    with pytest.raises(SceneError, match="unknown kind"):
        from_networkx(g, scene_id="hand")


def test_sceneverse_round_trip_through_json(graph) -> None:
    data = to_sceneverse(graph)
    assert data["scan_id"] == "demo" and len(data["objects"]) == len(graph)
    # SceneVerse uses integer ids; non-numeric ids stay strings
    assert data["objects"][0]["id"] == 0 and any(o["id"] == "mug-7" for o in data["objects"])
    cup_id = int(graph.by_category("cup")[0].id)
    assert [cup_id, 17, "on"] in data["relationships"]  # "subject words object"
    back = from_sceneverse(json.loads(json.dumps(data)))
    assert back.ids == graph.ids
    assert [o.category for o in back] == [o.category for o in graph]
    assert {e.key() for e in back.edges} == {e.key() for e in graph.edges}
    # everything but the oriented box (not in SceneVerse's object format) comes back: fields and levels
    no_obb = SceneGraph(graph.scene_id, [o.with_changes(obb=None) for o in graph], graph.edges,
                        scene_type=graph.scene_type, levels=graph.levels)
    assert back == no_obb


def test_sceneverse_vocabulary_and_direction() -> None:
    objs = [{"id": 1, "label": "table", "position": [0, 0, 0.4], "size": [1, 1, 0.8]},
            {"id": 3, "label": "cup", "position": [0, 0, 0.85], "size": [0.1, 0.1, 0.1]},
            {"id": 4, "label": "chair", "position": [1, 0, 0.45], "size": [0.5, 0.5, 0.9]},
            {"id": 5, "label": "picture", "position": [0, -1, 1.5], "size": [0.6, 0.02, 0.4]}]
    rels = [[1, 3, "support"], [3, 1, "on the top of"],  # one fact, written both ways by SceneVerse
            [5, -2, "hanging on"],  # -2 is SceneVerse's wall node, not an object here
            [4, 1, "to the left of"],  # view-dependent: not stored
            [4, 5, "10 o‘clock direction far from"], [4, 1, "close to"], [1, 4, "close to"],
            [5, 4, "higher than"], [1, 4, "lower than"]]
    g = from_sceneverse({"scan": "scene0000_00", "objects_info": objs, "relationships": rels})
    keys = {e.key() for e in g.edges}
    assert keys == {("3", "supported_by", "1"), ("4", "far", "5"), ("4", "near", "1"),
                    ("5", "higher_than", "4"), ("4", "higher_than", "1")}
    assert g.scene_id == "scene0000_00"
    with pytest.raises(SceneError, match="cannot be stored"):
        from_sceneverse({"scan_id": "s", "objects": objs, "relationships": rels}, strict=True)
    with pytest.raises(SceneError, match="unknown relation"):
        from_sceneverse({"scan_id": "s", "objects": objs, "relationships": [[1, 3, "frobnicates"]]})
    assert sceneverse_relation("behind") is None and sceneverse_relation("placed within the area of") \
        is Relation.INSIDE


def test_sceneverse_malformed() -> None:
    with pytest.raises(SceneError, match="no 'objects' list"):
        from_sceneverse({"scan_id": "s"})
    with pytest.raises(SceneError, match="no scan_id"):
        from_sceneverse({"objects": []})
    with pytest.raises(SceneError, match="relationship 0 must be"):
        from_sceneverse({"scan_id": "s", "objects": [], "relationships": [[1, 2]]})
    with pytest.raises(SceneError, match="without an id"):
        from_sceneverse({"scan_id": "s", "objects": [{"label": "cup"}]})


def test_conceptgraphs_export_and_import(graph) -> None:
    data = json.loads(json.dumps(to_conceptgraphs(graph)))
    nodes, rels = data["scene_graph"], data["object_relations"]
    assert len(nodes) == len(graph)
    cup = graph.by_category("cup")[0]
    node = next(n for n in nodes if n["id"] == int(cup.id))
    assert node["object_tag"] == "cup" and node["bbox_center"] == list(cup.center)
    assert node["bbox_extent"] == list(cup.size) and node["caption"] == "red ceramic cylindrical cup"
    assert {r["object_relation"] for r in rels} == {"a on b", "a in b"}
    on_in = {e.key() for e in graph.edges if e.relation in (Relation.SUPPORTED_BY, Relation.INSIDE)}
    assert len(rels) == len(on_in)
    back = from_conceptgraphs(data, "demo")
    assert back.ids == graph.ids and [o.category for o in back] == [o.category for o in graph]
    assert {e.key() for e in back.edges} == on_in
    for o in graph:
        assert back.get(o.id).center == o.center and back.get(o.id).size == o.size
    # scene_graph.json alone (a list) gives the objects without relations
    assert len(from_conceptgraphs(nodes, "demo").edges) == 0


def test_conceptgraphs_relation_words() -> None:
    nodes = [{"id": 0, "object_tag": "shelf", "bbox_center": [0, 0, 1], "bbox_extent": [1, 0.4, 2]},
             {"id": 1, "object_tag": "book", "bbox_center": [0, 0, 1], "bbox_extent": [0.2, 0.2, 0.3]},
             {"id": 2, "object_tag": "vase", "bbox_center": [0, 0, 2.1], "bbox_extent": [0.2, 0.2, 0.2]}]
    rel = [{"object1": {"id": 0}, "object2": {"id": 1}, "object_relation": "b in a"},
           {"object1": {"id": 0}, "object2": {"id": 2}, "object_relation": "b on a"},
           {"object1": {"id": 1}, "object2": {"id": 2}, "object_relation": "none of these"}]
    g = from_conceptgraphs({"scene_graph": nodes, "object_relations": rel}, "cg")
    assert {e.key() for e in g.edges} == {("1", "inside", "0"), ("2", "supported_by", "0")}
    with pytest.raises(SceneError, match=r"object1\.id"):
        from_conceptgraphs({"scene_graph": nodes, "object_relations": [{"object1": {}}]}, "cg")
    with pytest.raises(SceneError, match="list of objects"):
        from_conceptgraphs({"scene_graph": "nope"}, "cg")
