"""Imports are ready to ask: a Hydra-style graph without relations gets ours (the agent then answers
"what is on the X" from them), colours get colour names, and bad input (boxes that are no boxes,
relations naming missing objects) is one line, exit 2, the store untouched."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import spark_dsg as dsg

from synergai.agent.session import AgentSession
from synergai.cli.main import main
from synergai.llm import ScriptedModel
from synergai.scene.formats import FORMATS, READ_FORMATS, WRITE_FORMATS, export_scene, import_scene
from synergai.scene.model import Relation, SceneError, SceneGraph
from synergai.scene.sparkdsg import from_spark_dsg
from synergai.scene.store import SceneStore
from synergai.scene.vocabulary import COLOR_RGB

#: (symbol, label, centre, dimensions, colour) of a small kitchen as Hydra writes it: no relations.
KITCHEN = [
    ("O0", 0, (1.0, 1.0, 0.9), (0.8, 0.7, 1.8), (230, 230, 230)),   # refrigerator
    ("O1", 1, (1.0, 1.0, 1.9), (0.4, 0.3, 0.2), (150, 100, 50)),    # a box on top of it
    ("O2", 2, (3.0, 1.0, 0.4), (1.2, 0.8, 0.8), (140, 90, 40)),     # table
    ("O3", 3, (3.1, 1.0, 0.85), (0.1, 0.1, 0.1), (200, 30, 30)),    # cup on the table
]
LABELS = {0: "refrigerator", 1: "box", 2: "table", 3: "cup"}


def hydra_kitchen(boxes: dict[str, dsg.BoundingBox] | None = None) -> dsg.DynamicSceneGraph:
    """Objects with labelspace, boxes (dimensions, centre), positions and colours, under one room."""
    g = dsg.DynamicSceneGraph()
    g.set_labelspace(dsg.Labelspace(LABELS), 2)
    g.set_labelspace(dsg.Labelspace({0: "kitchen"}), 4)
    room = dsg.RoomNodeAttributes()
    room.position = np.array([2.0, 1.0, 0.0])
    room.semantic_label = 0
    room.bounding_box = dsg.BoundingBox(np.array([4.0, 2.0, 0.0]), np.array([2.0, 1.0, 0.0]))
    g.add_node(4, dsg.NodeSymbol("R", 0), room)
    for k, (_sym, label, centre, dims, colour) in enumerate(KITCHEN):
        attrs = dsg.ObjectNodeAttributes()
        attrs.position = np.asarray(centre, dtype=float)
        attrs.bounding_box = (boxes or {}).get(f"O{k}") or dsg.BoundingBox(np.asarray(dims, dtype=float),
                                                                          np.asarray(centre, dtype=float))
        attrs.semantic_label = label
        attrs.color = np.asarray(colour, dtype=np.uint8)
        g.add_node(2, dsg.NodeSymbol("O", k), attrs)
        g.insert_edge(dsg.NodeSymbol("R", 0), dsg.NodeSymbol("O", k))
    return g


def _plan(*steps: tuple[str, dict]) -> str:
    return json.dumps({"plan": [{"action": a, "action_input": i} for a, i in steps]})


def _typed(short: object) -> str:
    return json.dumps({"action": "final_answer", "action_input": {"short_answer": short}})


def test_a_hydra_graph_without_relations_is_answered_from_computed_relations(tmp_path: Path,
                                                                             capsys) -> None:
    path = tmp_path / "kitchen.sparkdsg"
    hydra_kitchen().save(str(path))
    db = tmp_path / "s.sqlite3"
    assert main(["scene", "import", str(path), "--format", "spark-dsg", "--db", str(db)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("imported kitchen: 5 objects, ")  # the four and a floor under them
    assert any(line.startswith("the file brought no relations: computed ") for line in out)
    with SceneStore(db) as store:
        graph = store.load("kitchen")
        ids = {o.category: o.id for o in graph}
        assert graph.has_edge(ids["box"], Relation.SUPPORTED_BY, ids["refrigerator"])
        assert graph.has_edge(ids["cup"], Relation.SUPPORTED_BY, ids["table"])
        assert graph.get(ids["cup"]).attributes == ("red",)  # the node's colour, named
        imported = [o for o in graph if o.provenance == "spark-dsg"]
        assert len(imported) == 4 and all(o.attributes[0] in COLOR_RGB for o in imported)
        llm = ScriptedModel([_plan(("query_for_relations", {"item_id_list": ["refrigerator"],
                                                            "relation": "on"})), _typed("box")])
        result = AgentSession(store, "kitchen", llm).ask("What is on the refrigerator?")
    assert result.short_answer == "box" and result.objects == [ids["box"]]
    assert "box" in result.answer and "refrigerator" in result.answer, result.answer


def test_no_relations_keeps_the_file_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "kitchen.json"
    hydra_kitchen().save(str(path))
    kept = import_scene(path, "spark-dsg", relations=False)
    assert kept.graph.edges == [] and len(kept.graph) == 4 and kept.computed_relations is None
    computed = import_scene(path, "spark-dsg")
    assert computed.computed_relations == len(computed.graph.edges) > 0


def _refused(argv: list[str], db: Path, capsys, *words: str) -> None:
    with SceneStore(db) as store:  # the store exists, holding a scene, and is closed
        if not store.has_scene("kept"):
            store.register(hydra_scene(), {"builder": "test"})
    before = db.read_bytes()
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err
    assert db.read_bytes() == before


def hydra_scene() -> SceneGraph:
    """The kitchen as a stored scene ("kept"), what a refused import must leave as it was."""
    return from_spark_dsg(hydra_kitchen(), "kept").graph


def _box(lo: tuple[float, ...], hi: tuple[float, ...]) -> dsg.BoundingBox:
    return dsg.BoundingBox(np.array(lo, dtype=float), np.array(hi, dtype=float))


@pytest.mark.parametrize(("node", "position", "box", "words"), [
    # spark_dsg.BoundingBox takes (dimensions, centre); given (min, max) of the refrigerator, which stands
    # on the floor (min z = 0), the "box" is flat at the fridge's top: its position is outside
    ("O0", None, _box((0.6, 0.65, 0.0), (1.4, 1.35, 1.8)), ("position (1, 1, 0.9) lies outside",
                                                            "BoundingBox(min, max)")),
    # the same fridge at negative x: (min, max) gives a negative "dimension"
    ("O0", (-1.0, 1.0, 0.9), _box((-1.4, 0.65, 0.0), (-0.6, 1.35, 1.8)), ("negative dimension",
                                                                           "BoundingBox(min, max)")),
    ("O1", None, _box((0.4, -0.3, 0.2), (1.0, 1.0, 1.9)), ("negative dimension",)),
    ("O1", None, _box((0.4, 0.3, 0.2), (5.0, 1.0, 1.9)), ("lies outside",)),
])
def test_a_spark_dsg_box_that_is_no_box_is_refused(tmp_path: Path, capsys, node, position, box,
                                                   words) -> None:
    g = hydra_kitchen({node: box})
    if position is not None:
        g.get_node(dsg.NodeSymbol("O", int(node[1:]))).attributes.position = np.array(position)
    path = tmp_path / "bad.sparkdsg"
    g.save(str(path))
    _refused(["scene", "import", str(path), "--format", "spark-dsg", "--db", str(tmp_path / "s.db")],
             tmp_path / "s.db", capsys, f"Spark-DSG node {node}", *words)


def test_relations_naming_missing_objects_are_refused(tmp_path: Path, capsys) -> None:
    db = tmp_path / "s.db"
    objects = [{"id": 1, "label": "table", "position": [0, 0, 0.4], "size": [1, 1, 0.8]},
               {"id": 3, "label": "cup", "position": [0, 0, 0.85], "size": [0.1, 0.1, 0.1]}]
    sv = tmp_path / "sv.json"
    sv.write_text(json.dumps({"scan_id": "sv", "objects": objects, "relationships": [[3, 7, "on"]]}))
    _refused(["scene", "import", str(sv), "--format", "sceneverse", "--db", str(db)], db, capsys,
             "no object 7")
    cg = tmp_path / "cg.json"
    node = {"id": 1, "object_tag": "table", "bbox_center": [0, 0, 0.4], "bbox_extent": [1, 1, 0.8]}
    ghost = {**node, "id": 9}
    cg.write_text(json.dumps({"scene_graph": [node], "object_relations": [
        {"object1": ghost, "object2": node, "object_relation": "a on b"}]}))
    _refused(["scene", "import", str(cg), "--format", "conceptgraphs", "--db", str(db)], db, capsys, "9")
    nxf = tmp_path / "nx.json"
    doc = json.loads(export_scene(import_scene(_ok(tmp_path), "sceneverse").graph, "networkx") or "{}")
    doc["edges"].append({"source": "3", "target": "42", "key": "supported_by", "relation": "supported_by"})
    nxf.write_text(json.dumps(doc))
    _refused(["scene", "import", str(nxf), "--format", "networkx", "--db", str(db)], db, capsys,
             "names no object: target '42'")
    own = tmp_path / "own.json"
    doc = json.loads(export_scene(import_scene(_ok(tmp_path), "sceneverse").graph) or "{}")
    doc["edges"].append({"subject": "3", "relation": "supported_by", "object": "42"})
    own.write_text(json.dumps(doc))
    _refused(["scene", "import", str(own), "--db", str(db)], db, capsys, "unknown object id '42'")


def _ok(tmp_path: Path) -> Path:
    """A valid SceneVerse file: a table and a cup with a colour and no attributes."""
    path = tmp_path / "ok.json"
    path.write_text(json.dumps({"scan_id": "ok", "objects": [
        {"id": 1, "label": "table", "position": [0, 0, 0.4], "size": [1, 1, 0.8]},
        {"id": 3, "label": "cup", "position": [0, 0, 0.85], "size": [0.1, 0.1, 0.1],
         "color": [20, 40, 200]}]}))
    return path


def test_a_colour_without_a_name_gets_one_and_given_attributes_are_kept(tmp_path: Path) -> None:
    graph = import_scene(_ok(tmp_path), "sceneverse").graph
    assert graph.get("3").attributes == ("blue",) and graph.get("1").attributes == ()
    path = tmp_path / "named.json"
    data = json.loads(path.with_name("ok.json").read_text())
    data["objects"][1]["attributes"] = ["ceramic"]
    path.write_text(json.dumps(data))
    assert import_scene(path, "sceneverse").graph.get("3").attributes == ("ceramic",)


def test_every_format_is_registered_once_and_round_trips(tmp_path: Path) -> None:
    graph = import_scene(_ok(tmp_path), "sceneverse").graph
    assert set(READ_FORMATS) == set(WRITE_FORMATS) == set(FORMATS)
    for name in FORMATS:
        path = tmp_path / f"g-{name}.json"
        export_scene(graph, name, path)
        back = import_scene(path, name, "back", relations=False).graph
        assert {o.id: o.category for o in back} == {o.id: o.category for o in graph}, name
    with pytest.raises(SceneError, match="needs an output file"):
        export_scene(graph, "spark-dsg")
    with pytest.raises(SceneError, match="unknown scene-graph format 'ply'"):
        import_scene(tmp_path / "x.ply", "ply")
