"""Versioned JSON of scene graphs: exact round trips and strict, field-naming validation."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from synergai.scene.model import Edge, ObjectKind, OrientedBox, Relation, SceneError, SceneGraph, SceneObject
from synergai.scene.serialization import (
    FORMAT,
    VERSION,
    dumps,
    edge_from_dict,
    edge_to_dict,
    graph_from_dict,
    graph_to_dict,
    loads,
    object_from_dict,
    object_to_dict,
)


def _graph() -> SceneGraph:
    objs = [
        SceneObject("0", "floor", (0.0, 0.0, 0.0), (6.0, 5.0, 0.02), kind=ObjectKind.FLOOR),
        SceneObject("w1", "wall", (3.0, 0.0, 1.25), (0.1, 5.0, 2.5), kind=ObjectKind.WALL, confidence=0.5),
        SceneObject(
            "12", "office chair", (0.1 + 0.2, -1.0 / 3.0, 0.45), (0.6, 0.6, 0.9),
            color=(200, 10, 0), attributes=("red", "wooden"), confidence=0.123456789012345678,
            provenance="scannet", front=(0.0, 1.0, 0.0),
            obb=OrientedBox((0.3, -0.3333, 0.45), (0.55, 0.62, 0.9), 0.7853981633974483),
        ),
        SceneObject("7", "table", (1.0, 1.0, 0.375), (1.2, 0.8, 0.75), provenance="user"),
        SceneObject("9", "cup", (1.1, 0.9, 0.8), (0.08, 0.08, 0.1), attributes=("white",)),
    ]
    edges = [
        Edge("7", Relation.SUPPORTED_BY, "0"),
        Edge("9", Relation.SUPPORTED_BY, "7", provenance="user"),
        Edge("12", Relation.NEAR, "7"),
    ]
    return SceneGraph("scene0011_00", objs, edges, scene_type="office",
                      levels={"0": 0, "w1": 0, "12": 0, "7": 0, "9": 1})


def test_round_trip_is_exact() -> None:
    g = _graph()
    back = loads(dumps(g))
    assert back == g
    assert back.scene_type == "office"
    assert [o.id for o in back] == ["0", "w1", "12", "7", "9"]  # insertion order kept
    assert [e.provenance for e in back.edges] == ["perception", "user", "perception"]
    chair = back.get("12")
    assert chair == g.get("12")
    assert chair.center[0] == 0.1 + 0.2 and chair.center[1] == -1.0 / 3.0  # bit-exact floats
    assert chair.confidence == 0.123456789012345678
    assert isinstance(chair.center, tuple) and isinstance(chair.attributes, tuple)
    assert isinstance(chair.color, tuple) and isinstance(chair.front, tuple)
    assert isinstance(chair.obb, OrientedBox) and isinstance(chair.obb.center, tuple)
    assert back.get("w1").kind is ObjectKind.WALL
    assert all(type(e.relation) is Relation for e in back.edges)
    assert back.levels == {"0": 0, "w1": 0, "12": 0, "7": 0, "9": 1}
    assert dumps(back) == dumps(g)  # stable text


def test_document_shape_and_indent() -> None:
    g = _graph()
    d = graph_to_dict(g)
    head = (d["format"], d["version"], d["scene"], d["scene_type"])
    assert head == (FORMAT, VERSION, "scene0011_00", "office")
    assert d["edges"][1] == {"subject": "9", "relation": "supported_by", "object": "7", "provenance": "user"}
    assert json.loads(dumps(g, indent=2)) == d
    assert "\n" in dumps(g, indent=2) and "\n" not in dumps(g)


def test_optional_fields_default_and_null_scene_type() -> None:
    data = {"format": FORMAT, "version": 1, "scene": "s", "objects": [
        {"id": "a", "category": "box", "center": [0, 0, 1], "size": [1, 1, 1]}], "edges": []}
    g = graph_from_dict(data)
    a = g.get("a")
    assert a == SceneObject("a", "box", (0.0, 0.0, 1.0), (1.0, 1.0, 1.0))
    assert g.scene_type is None and g.levels == {}
    assert loads(dumps(g)) == g


def test_object_and_edge_helpers_round_trip() -> None:
    g = _graph()
    for o in g:
        assert object_from_dict(object_to_dict(o)) == o
    for e in g.edges:
        back = edge_from_dict(edge_to_dict(e))
        assert back == e and back.provenance == e.provenance


def _doc() -> dict[str, Any]:
    return graph_to_dict(_graph())


def _set(path: str, value: Any) -> dict[str, Any]:
    d = copy.deepcopy(_doc())
    node: Any = d
    keys = path.split("/")
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last = keys[-1]
    if value is _DELETE:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return d


_DELETE = object()

MALFORMED = [
    ("format", "synergai.other", "graph.format"),
    ("version", 3, "graph.version"),
    ("version", "1", "graph.version"),
    ("version", True, "graph.version"),
    ("objects", _DELETE, "graph.objects: missing"),
    ("objects", {}, "graph.objects: expected a list"),
    ("scene", "", "graph.scene"),
    ("scene_type", 3, "graph.scene_type"),
    ("objects/2/category", _DELETE, "objects[2].category: missing"),
    ("objects/2/id", 12, "objects[2].id"),
    ("objects/2/center", [1.0, 2.0], "objects[2].center"),
    ("objects/2/center", [1.0, "2", 3.0], "objects[2].center"),
    ("objects/2/center", [1.0, True, 3.0], "objects[2].center"),
    ("objects/2/size", [1.0, -1.0, 1.0], "objects[2]: object 12: negative size"),
    ("objects/2/color", [300, 0, 0], "objects[2].color"),
    ("objects/2/color", [1.5, 0, 0], "objects[2].color"),
    ("objects/2/attributes", "red", "objects[2].attributes"),
    ("objects/2/attributes", ["red", 3], "objects[2].attributes"),
    ("objects/2/confidence", float("nan"), "objects[2].confidence"),
    ("objects/2/kind", "table", "objects[2].kind: unknown kind"),
    ("objects/2/colour", [1, 2, 3], "objects[2]: unknown field(s) colour"),
    ("objects/2/obb/yaw", _DELETE, "objects[2].obb.yaw: missing"),
    ("objects/2/front", [0, 1], "objects[2].front"),
    ("objects/3/id", "12", "objects[3].id: duplicate object id '12'"),
    ("edges/0/relation", "on_top", "edges[0].relation: unknown relation 'on_top'"),
    ("edges/0/relation", "left_of", "edges[0].relation: left_of"),
    ("edges/0/object", "99", "edges[0].object: unknown object id '99'"),
    ("edges/1/subject", _DELETE, "edges[1].subject: missing"),
    ("edges/1", {"subject": "7", "relation": "supported_by", "object": "0"}, "edges[1]: duplicate edge"),
    ("edges/2", "12 near 7", "edges[2]: expected an object"),
    ("levels/9", -1, "graph.levels.9"),
    ("levels/99", 0, "graph.levels.99: unknown object id"),
    ("levels", [], "graph.levels: expected an object"),
]


@pytest.mark.parametrize(("path", "value", "message"), MALFORMED, ids=[m[2] for m in MALFORMED])
def test_malformed_documents_raise_scene_error_naming_the_field(path: str, value: Any, message: str) -> None:
    data = _set(path, value)
    with pytest.raises(SceneError) as info:
        graph_from_dict(data)
    text = str(info.value)
    assert message in text
    assert "\n" not in text
    if not (isinstance(value, float) and value != value):  # NaN cannot be written as strict JSON
        with pytest.raises(SceneError):
            loads(json.dumps(data))


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "graph: invalid JSON"),
    ("[1, 2]", "graph: expected an object, got list"),
    ('{"format": "synergai.scene_graph"}', "graph.version: missing"),
    ("[" * 100000 + "]" * 100000, "graph: JSON nested too deeply"),
    ('{"x": ' + "7" * 5000 + "}", "graph: unusable JSON"),
    ('{"format": "synergai.scene_graph", "version": 1, "scene": "s", "edges": [], "objects": [{"id": "a", '
     '"category": "box", "center": [0, 0, 1' + "0" * 400 + '], "size": [1, 1, 1]}]}', "finite number"),
])
def test_bad_text(text: str, message: str) -> None:
    with pytest.raises(SceneError, match=message.replace("[", r"\[").replace(".", r"\.")):
        loads(text)


def test_unwritable_values_raise_scene_error() -> None:
    g = SceneGraph("s", [SceneObject("a", "box", (0, 0, 0), (1, 1, 1), confidence=float("inf"))])
    with pytest.raises(SceneError, match="confidence"):
        dumps(g)



@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_boxes_and_fronts_are_refused_when_built(bad: float) -> None:
    with pytest.raises(SceneError, match="front"):
        SceneObject("a", "box", (0, 0, 0), (1, 1, 1), front=(0.0, bad, 0.0))
    with pytest.raises(SceneError, match="oriented box"):
        OrientedBox((0.0, 0.0, 0.0), (1.0, bad, 1.0), 0.0)
    with pytest.raises(SceneError, match="oriented box"):
        OrientedBox((0.0, 0.0, 0.0), (1.0, 1.0, 1.0), bad)
    with pytest.raises(SceneError, match="non-finite"):
        SceneObject("a", "box", (0, bad, 0), (1, 1, 1))
