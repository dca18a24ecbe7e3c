"""Spark-DSG in and out: our round trip (real ScanNet scenes, the house, both encodings), a graph laid
out the way Hydra lays them out, and every bad input (one line, exit 2, the store untouched)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import spark_dsg as dsg

from synergai.scene.build import build_graph
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.catalog import SceneCatalog
from synergai.scene.sparkdsg import from_spark_dsg, load_spark_dsg, save_spark_dsg, to_spark_dsg
from synergai.scene.store import SceneStore


def run(*args: str) -> subprocess.CompletedProcess:
    """``python -m synergai ARGS`` in a child (for exit codes and stderr; else the ``cli`` fixture)."""
    return subprocess.run([sys.executable, "-m", "synergai", *args], capture_output=True, text=True)


def _object(graph, symbol, label, center, size, parent=None, color=(200, 30, 30)):
    attrs = dsg.ObjectNodeAttributes()
    attrs.position = np.asarray(center, dtype=float)
    attrs.bounding_box = dsg.BoundingBox(np.asarray(size, dtype=float), np.asarray(center, dtype=float))
    attrs.semantic_label = label
    attrs.color = np.asarray(color, dtype=np.uint8)
    graph.add_node(2, symbol, attrs)
    if parent is not None:
        graph.insert_edge(parent, symbol)


#: Hydra's layers (spark_dsg ``DsgLayers::nameToLayerId``): objects and agents share layer 2 (agents in
#: partitions), places are layer 3 and its partition 1 the 2D "mesh places", rooms 4, buildings 5.
HYDRA_LAYERS = {"OBJECTS": (2, 0), "AGENTS": (2, 0), "PLACES": (3, 0), "MESH_PLACES": (3, 1), "ROOMS": (4, 0),
                "BUILDINGS": (5, 0)}


def hydra_style_graph() -> dsg.DynamicSceneGraph:
    """Two rooms as Hydra builds them: objects (layer 2) under places (layer 3) under rooms (layer 4)
    under a building (layer 5), 2D places in layer 3's partition 1, an agent trajectory in layer 2's
    partition 1, labelspaces for objects and rooms, place-place edges, and a mesh. No synergai metadata
    anywhere."""
    keys = sorted({key for key in HYDRA_LAYERS.values()})
    g = dsg.DynamicSceneGraph([dsg.LayerKey(*k) for k in keys],
                              {name: dsg.LayerKey(*k) for name, k in HYDRA_LAYERS.items()})
    g.set_labelspace(dsg.Labelspace({0: "chair", 1: "table", 2: "refrigerator", 3: "bed"}), 2)
    g.set_labelspace(dsg.Labelspace({0: "kitchen", 1: "bedroom"}), 4)
    building = dsg.SemanticNodeAttributes()
    building.position = np.array([4.0, 2.0, 0.0])
    g.add_node(5, dsg.NodeSymbol("B", 0), building)
    for k, (label, center, dims) in enumerate([(0, (2.0, 2.0, 0.0), (4.0, 4.0, 0.0)),
                                              (1, (6.0, 2.0, 0.0), (4.0, 4.0, 0.0))]):
        room = dsg.RoomNodeAttributes()
        room.position = np.asarray(center, dtype=float)
        room.semantic_label = label
        room.bounding_box = dsg.BoundingBox(np.asarray(dims, dtype=float), np.asarray(center, dtype=float))
        g.add_node(4, dsg.NodeSymbol("R", k), room)
        g.insert_edge(dsg.NodeSymbol("B", 0), dsg.NodeSymbol("R", k))
    for k, xy in enumerate([(1.0, 1.0), (3.0, 3.0), (5.0, 1.0), (7.0, 3.0)]):
        place = dsg.PlaceNodeAttributes()
        place.position = np.array([xy[0], xy[1], 1.0])
        place.distance = 0.5
        g.add_node(3, dsg.NodeSymbol("p", k), place)
        g.insert_edge(dsg.NodeSymbol("R", 0 if xy[0] < 4 else 1), dsg.NodeSymbol("p", k))
        if k:
            g.insert_edge(dsg.NodeSymbol("p", k - 1), dsg.NodeSymbol("p", k))
    p = [dsg.NodeSymbol("p", k) for k in range(4)]
    _object(g, dsg.NodeSymbol("O", 0), 1, (1.0, 1.2, 0.4), (1.2, 0.8, 0.8), p[0])
    _object(g, dsg.NodeSymbol("O", 1), 0, (1.0, 0.5, 0.45), (0.5, 0.5, 0.9), p[0])
    _object(g, dsg.NodeSymbol("O", 2), 2, (3.2, 3.4, 0.9), (0.7, 0.7, 1.8), p[1])
    _object(g, dsg.NodeSymbol("O", 3), 3, (6.5, 2.5, 0.3), (2.0, 1.6, 0.6), p[3])
    _object(g, dsg.NodeSymbol("O", 4), 0, (5.2, 1.0, 0.45), (0.5, 0.5, 0.9))  # no place above it
    for k in range(2):
        surface = dsg.Place2dNodeAttributes()
        surface.position = np.array([2.0 + 4.0 * k, 2.0, 0.0])
        g.add_node(3, dsg.NodeSymbol("Q", k), surface, 1)
    for k in range(3):
        agent = dsg.AgentNodeAttributes()
        agent.position = np.array([1.0 + k, 2.0, 1.2])
        g.add_node(2, dsg.NodeSymbol("a", k), agent, 1)
    mesh = dsg.Mesh()
    mesh.set_vertices(np.random.default_rng(0).random((6, 8)))
    mesh.set_faces(np.array([[0, 1, 2], [2, 3, 4], [4, 5, 6]]).T)
    g.mesh = mesh
    return g


@pytest.fixture(scope="module")
def scannet(shared_data):
    return load_objects_file(shared_data / "scannet" / "objects_gt.json")


@pytest.mark.parametrize("suffix", [".json", ".sparkdsg"])
def test_real_scannet_scenes_round_trip_through_both_encodings(scannet, tmp_path, suffix):
    for scene_id in scannet.scene_ids[:3]:
        graph = build_graph(scene_id, scannet.objects(scene_id), scene_type=scannet.scene_type(scene_id))
        path = tmp_path / f"{scene_id}{suffix}"
        save_spark_dsg(graph, path)
        back = load_spark_dsg(path)
        assert back.graph == graph and back.left_out == ""
        assert sorted(e.key() for e in back.graph.edges) == sorted(e.key() for e in graph.edges)
        assert back.graph.scene_type == graph.scene_type


def test_the_house_round_trips_with_its_rooms_and_spark_dsg_sees_them_natively(tmp_path):
    house = SceneCatalog(SceneStore(tmp_path / "s.db")).open("house")
    out = to_spark_dsg(house)
    rooms = out.get_layer(4)
    assert rooms.num_nodes() == 5
    kitchen = next(n for n in rooms.nodes if n.attributes.name == "kitchen")
    labels = out.get_labelspace(2)
    children = {labels.get_category(out.get_node(c).attributes.semantic_label) for c in kitchen.children()}
    assert "refrigerator" in children and "sofa" not in children
    fridge = next(n for n in out.get_layer(2).nodes if n.attributes.name == "fridge")
    assert fridge.attributes.bounding_box.dimensions == pytest.approx([0.7, 0.7, 1.8])
    assert list(fridge.attributes.color) == list(house.get("fridge").color)
    assert from_spark_dsg(out).graph == house


def test_a_hydra_style_graph_imports_its_objects_and_rooms(tmp_path):
    path = tmp_path / "hydra.sparkdsg"
    hydra_style_graph().save(str(path), include_mesh=True)
    result = load_spark_dsg(path)
    g = result.graph
    assert g.scene_id == "hydra"
    assert sorted(o.category for o in g) == ["bed", "chair", "chair", "refrigerator", "table"]
    assert {r.id: r.category for r in g.rooms} == {"R0": "kitchen", "R1": "bedroom"}
    assert g.room("R0").footprint == ((0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (0.0, 4.0))
    room_of = {o.id: o.room for o in g}
    assert room_of == {"O0": "R0", "O1": "R0", "O2": "R0", "O3": "R1", "O4": "R1"}  # O4: by footprint
    fridge = g.get("O2")
    assert fridge.center == pytest.approx((3.2, 3.4, 0.9)) and fridge.size == pytest.approx((0.7, 0.7, 1.8))
    assert fridge.color == (200, 30, 30) and g.edges == []
    assert "PLACES (4 nodes)" in result.left_out and "BUILDINGS (1 nodes)" in result.left_out
    assert "MESH_PLACES (2 nodes)" in result.left_out
    assert "AGENTS (3 nodes)" in result.left_out and "mesh (8 vertices)" in result.left_out
    # the relation engine can then build relations over the imported boxes
    rebuilt = build_graph(g.scene_id, g.objects, rooms=g.rooms)
    assert rebuilt.get("O3").room == "R1"


def test_a_rotated_box_gives_its_axis_aligned_bounds_and_the_oriented_box():
    g = dsg.DynamicSceneGraph()
    attrs = dsg.ObjectNodeAttributes()
    attrs.position = np.array([1.0, 2.0, 0.5])
    turn = np.pi / 6
    rot = np.array([[np.cos(turn), -np.sin(turn), 0.0], [np.sin(turn), np.cos(turn), 0.0], [0.0, 0.0, 1.0]])
    attrs.bounding_box = dsg.BoundingBox(dsg.BoundingBoxType.OBB, np.array([2.0, 1.0, 1.0]),
                                         np.array([1.0, 2.0, 0.5]), rot)
    g.add_node(2, dsg.NodeSymbol("O", 0), attrs)
    obj = from_spark_dsg(g).graph.get("O0")
    half = (2.0 * np.cos(turn) + 1.0 * np.sin(turn), 2.0 * np.sin(turn) + 1.0 * np.cos(turn))
    assert obj.size == pytest.approx((half[0], half[1], 1.0), abs=1e-5)
    assert obj.obb is not None and obj.obb.yaw == pytest.approx(turn, abs=1e-6)
    assert obj.obb.size == pytest.approx((2.0, 1.0, 1.0)) and obj.center == pytest.approx((1.0, 2.0, 0.5))


def test_cli_import_of_a_hydra_graph_and_export_round_trip(tmp_path, cli):
    db = str(tmp_path / "s.db")
    hydra_style_graph().save(str(tmp_path / "office.json"), include_mesh=True)
    r = cli("scene", "import", str(tmp_path / "office.json"), "--format", "spark-dsg", "--db", db)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    # the file brings no relations: ours are computed (and a floor under everything), and it says so
    assert lines[0] == "imported office: 6 objects, 7 relations, 2 rooms"
    assert lines[1].startswith("left out: ") and len(lines) == 3
    assert lines[2].startswith("the file brought no relations: computed 7 from the boxes")
    r = cli("scene", "import", str(tmp_path / "office.json"), "--format", "spark-dsg", "--db", db,
            "--scene-id", "as-is", "--no-relations")
    assert r.stdout.strip().splitlines()[0] == "imported as-is: 5 objects, 0 relations, 2 rooms"
    r = cli("scene", "show", "--scene", "office", "--db", db, "--json")
    rooms = json.loads(r.stdout)["rooms"]
    assert rooms[1] == {"id": "R1", "name": "bedroom", "category": "bedroom", "object_ids": ["O3", "O4"]}
    r = cli("scene", "export", "--scene", "house", "--db", db, "--format", "spark-dsg",
            "--out", str(tmp_path / "house.sparkdsg"))
    assert r.returncode == 0, r.stderr
    r = cli("scene", "import", str(tmp_path / "house.sparkdsg"), "--format", "spark-dsg", "--db", db,
            "--scene-id", "house2", "--json")
    with SceneStore(tmp_path / "s.db") as store:
        a, b = store.load("house"), store.load("house2")
    assert json.loads(r.stdout) == {"scene": "house2", "objects": len(a), "relations": len(a.edges),
                                    "rooms": 5, "computed_relations": None, "notes": []}
    assert b.objects == a.objects and b.rooms == a.rooms and set(b.edges) == set(a.edges)


def _legacy_binary(path):
    """A binary Spark-DSG file whose header says 1.0.0, an encoding spark-dsg 1.1 refuses."""
    dsg.DynamicSceneGraph().save(str(path))
    data = path.read_bytes()
    at = data.index(b"main") + 4
    assert data[at:at + 6] == b"\xcc\x01\xcc\x01\xcc\x03"  # the header's version, as written
    path.write_bytes(data[:at] + b"\xcc\x01\xcc\x00\xcc\x00" + data[at + 6:])


@pytest.mark.parametrize(("name", "make", "message"), [
    ("plain.json", lambda p: p.write_text('{"objects": []}'), "not a Spark-DSG graph"),
    ("text.sparkdsg", lambda p: p.write_text("hello"), "not a Spark-DSG graph"),
    ("empty.sparkdsg", lambda p: p.write_bytes(b""), "not a Spark-DSG graph"),
    ("old.sparkdsg", _legacy_binary, "unsupported legacy version of Spark DSG (1.0.0)"),
    ("missing.sparkdsg", None, "no such file"),
])
def test_bad_spark_dsg_input_is_one_line_exit_2_and_the_store_is_untouched(tmp_path, name, make, message):
    db = tmp_path / "s.db"
    with SceneStore(db) as store:  # the store as `scene show` leaves it (closed: the file is complete)
        SceneCatalog(store).open("demo")
    before = db.read_bytes()
    path = tmp_path / name
    if make is not None:
        make(path)
    r = run("scene", "import", str(path), "--format", "spark-dsg", "--db", str(db))
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert message in r.stderr
    assert db.read_bytes() == before


def test_export_without_out_is_refused(tmp_path, cli):
    r = cli("scene", "export", "--format", "spark-dsg", "--db", str(tmp_path / "s.db"))
    assert r.returncode == 2 and "needs --out" in r.stderr


def test_an_unlabelled_room_without_a_box_is_named_by_its_id_and_outlines_its_objects():
    g = dsg.DynamicSceneGraph()
    room = dsg.RoomNodeAttributes()
    room.position = np.array([1.0, 1.0, 0.0])
    g.add_node(4, dsg.NodeSymbol("R", 3), room)
    place = dsg.PlaceNodeAttributes()
    place.position = np.array([1.0, 1.0, 1.0])
    g.add_node(3, dsg.NodeSymbol("p", 0), place)
    g.insert_edge(dsg.NodeSymbol("R", 3), dsg.NodeSymbol("p", 0))
    _object(g, dsg.NodeSymbol("O", 0), 0, (0.5, 0.5, 0.4), (1.0, 1.0, 0.8), dsg.NodeSymbol("p", 0))
    _object(g, dsg.NodeSymbol("O", 1), 0, (2.0, 1.5, 0.4), (1.0, 1.0, 0.8), dsg.NodeSymbol("p", 0))
    result = from_spark_dsg(g)
    r = result.graph.room("R3")
    assert (r.name, r.category) == ("R3", "room")
    assert r.footprint == ((0.0, 0.0), (2.5, 0.0), (2.5, 2.0), (0.0, 2.0))
    assert [o.category for o in result.graph] == ["object", "object"]  # no labelspace, no name
    assert {o.room for o in result.graph} == {"R3"}
