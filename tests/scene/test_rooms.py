"""Rooms in the scene model: footprints, membership, serialization (version 2, version 1 still read),
persistence in the store and the built-in house."""

from __future__ import annotations

import json
import math

import pytest

from synergai.scene.build import build_graph
from synergai.scene.builders.house import HOUSE_SCENE_ID, furniture_boxes, house_objects, house_rooms
from synergai.scene.catalog import SceneCatalog
from synergai.scene.edits import rename_object
from synergai.scene.model import Relation, Room, SceneError, SceneGraph, SceneObject
from synergai.scene.rooms import assign_rooms, room_members
from synergai.scene.serialization import FORMAT, dumps, graph_from_dict, graph_to_dict, loads
from synergai.scene.store import SceneStore

SQUARE = ((0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (0.0, 4.0))


def _two_rooms() -> SceneGraph:
    rooms = [Room("k", "kitchen", "kitchen", SQUARE),
             Room("b", "bedroom", "Anna's bedroom", ((4.0, 0.0), (8.0, 0.0), (8.0, 4.0), (4.0, 4.0)))]
    objs = [SceneObject("1", "table", (2.0, 2.0, 0.4), (1.0, 1.0, 0.8)),
            SceneObject("2", "bed", (6.0, 2.0, 0.3), (2.0, 1.6, 0.6)),
            SceneObject("3", "cup", (2.0, 2.0, 0.85), (0.1, 0.1, 0.1)),
            SceneObject("4", "lamp", (9.0, 2.0, 0.5), (0.3, 0.3, 1.0))]  # outside every room
    return build_graph("two", objs, rooms=rooms)


@pytest.mark.parametrize(("footprint", "message"), [
    (((0, 0), (1, 0)), "at least 3"),
    (((0, 0), (1, 1), (2, 2)), "not a polygon"),  # collinear: no area
    (((0, 0), (2, 2), (2, 0), (0, 2)), "not a polygon"),  # a bow tie crosses itself
    (((0, 0), (1, 0), (math.nan, 1)), "vertex 2"),
    (((0, 0), (1, 0, 0), (1, 1)), "vertex 1"),
    ("kitchen", "not a polygon"),
])
def test_a_footprint_that_is_not_a_polygon_is_a_one_line_error(footprint, message):
    with pytest.raises(SceneError) as info:
        Room("r", "kitchen", "kitchen", footprint)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_objects_go_to_the_room_holding_their_centre():
    g = _two_rooms()
    assert [g.get(i).room for i in ("1", "2", "3", "4")] == ["k", "b", "k", None]
    assert room_members(g) == {"k": ["1", "3"], "b": ["2"]}
    assert [o.id for o in g.room_objects("b")] == ["2"]
    assert g.room("b").name == "Anna's bedroom" and g.room("k").area == pytest.approx(16.0)
    with pytest.raises(SceneError, match="unknown room 'x'"):
        g.room("x")
    with pytest.raises(SceneError, match="unknown room"):
        g.put(g.get("1").with_changes(room="x"))
    assert assign_rooms(g.objects, [])[0].room is None


def test_rooms_round_trip_and_version_1_documents_still_load():
    g = _two_rooms()
    again = loads(dumps(g))
    assert again == g and again.rooms == g.rooms and again.get("3").room == "k"
    doc = graph_to_dict(g)
    assert doc["version"] == 2 and doc["rooms"][1] == {
        "id": "b", "category": "bedroom", "name": "Anna's bedroom",
        "footprint": [[4.0, 0.0], [8.0, 0.0], [8.0, 4.0], [4.0, 4.0]]}
    old = {"format": FORMAT, "version": 1, "scene": "s", "edges": [],
           "objects": [{"id": "a", "category": "cup", "center": [0, 0, 0], "size": [1, 1, 1]}]}
    assert graph_from_dict(old).rooms == [] and graph_from_dict(old).get("a").room is None


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["objects"][0].update(room="nowhere"), "objects[0].room: unknown room id 'nowhere'"),
    (lambda d: d["rooms"][0].update(footprint=[[0, 0], [1, 1]]),
     "rooms[0]: room k: footprint is not a polygon"),
    (lambda d: d["rooms"].append(dict(d["rooms"][0])), "rooms[2].id: duplicate room id 'k'"),
    (lambda d: d["rooms"][0].update(floor=1), "rooms[0]: unknown field(s) floor"),
])
def test_bad_rooms_in_a_document_name_the_field(change, message):
    doc = graph_to_dict(_two_rooms())
    change(doc)
    with pytest.raises(SceneError) as info:
        graph_from_dict(doc)
    assert message in str(info.value)


def test_the_store_keeps_rooms_through_edits_undo_and_reset(tmp_path):
    g = _two_rooms()
    with SceneStore(tmp_path / "s.db") as store:
        store.register(g, {"builder": "test"})
        assert store.load("two").rooms == g.rooms and store.load("two").get("2").room == "b"
        store.apply("two", rename_object(store.load("two"), "2", "double bed"))
    with SceneStore(tmp_path / "s.db") as store:  # a new process reads the rows again
        now = store.load("two")
        assert now.get("2").category == "double bed" and now.get("2").room == "b"
        assert now.rooms == g.rooms and store.verify("two")
        store.undo("two")
        assert store.load("two") == store.base("two")
        store.reset("two")
        assert store.load("two").rooms == g.rooms


def test_the_house_has_rooms_and_the_robot_teams_furniture(tmp_path):
    from synergai.robots.team.flat import house_furniture

    for f in house_furniture():
        center, size = furniture_boxes()[f.name]
        assert center == pytest.approx(f.position) and size == pytest.approx(f.size), f.name
    catalog = SceneCatalog(SceneStore(tmp_path / "s.db"))
    assert HOUSE_SCENE_ID in catalog.scene_ids()
    house = catalog.open(HOUSE_SCENE_ID)
    assert {r.category for r in house.rooms} == {"kitchen", "dining room", "office", "living room",
                                                 "bathroom"}
    assert house.get("fridge").room == "kitchen" and house.get("tub").room == "bathroom"
    assert all(o.room is not None for o in house), "every object of the house is in a room"
    assert house.has_edge("ham", Relation.INSIDE, "drawer") and house.has_edge("apple", Relation.SUPPORTED_BY,
                                                                                "table_0")
    assert len(house_objects()) == len(house) and len(house_rooms()) == 5


def test_scene_show_lists_rooms(tmp_path, capsys):
    from synergai.cli.main import main

    assert main(["scene", "show", "--scene", "house", "--db", str(tmp_path / "s.db"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert all(set(r) == {"id", "name", "category", "object_ids"} for r in data["rooms"])
    kitchen = next(r for r in data["rooms"] if r["id"] == "kitchen")
    assert "fridge" in kitchen["object_ids"] and "sofa" not in kitchen["object_ids"]
    assert main(["scene", "show", "--scene", "house", "--db", str(tmp_path / "s.db")]) == 0
    out = capsys.readouterr().out
    assert "5 rooms" in out and "living room (id living_room, 46.0 m²): 12 objects" in out
    assert main(["scene", "show", "--db", str(tmp_path / "s.db"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rooms"] == []  # the demo apartment: no room layer yet


def test_networkx_round_trip_keeps_rooms(tmp_path):
    from synergai.scene.export import from_networkx, to_networkx

    house = SceneCatalog(SceneStore(tmp_path / "s.db")).open("house")
    back = from_networkx(to_networkx(house))
    assert back == house and back.rooms == house.rooms


def test_importing_a_room_that_is_not_a_polygon_is_one_line_exit_2_and_the_store_is_untouched(tmp_path):
    import subprocess
    import sys

    db = tmp_path / "s.db"
    doc = graph_to_dict(_two_rooms())
    doc["scene"] = "bad"
    doc["rooms"][1]["footprint"] = [[0, 0], [2, 2], [2, 0], [0, 2]]  # crosses itself
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with SceneStore(db) as store:  # the store as `scene show` leaves it (closed: the file is complete)
        SceneCatalog(store).open("demo")
    before = db.read_bytes()
    r = subprocess.run([sys.executable, "-m", "synergai", "scene", "import", str(path), "--db", str(db)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert "rooms[1]: room b: footprint is not a polygon (self-intersection" in r.stderr
    assert db.read_bytes() == before


def test_an_object_moved_into_another_room_is_in_that_room(tmp_path):
    from synergai.scene.edits import move_object

    g = _two_rooms()
    with SceneStore(tmp_path / "s.db") as store:
        store.register(g, {"builder": "test"})
        store.apply("two", move_object(store.load("two"), "1", (6.0, 3.0, 0.4)))
        assert store.load("two").get("1").room == "b" and store.verify("two")
        store.undo("two")
        assert store.load("two").get("1").room == "k"


def test_an_added_object_is_put_in_the_room_holding_it(tmp_path):
    from synergai.scene.edits import add_object

    with SceneStore(tmp_path / "s.db") as store:
        store.register(_two_rooms(), {"builder": "test"})
        rug = SceneObject("9", "rug", (6.0, 1.0, 0.01), (1.0, 1.0, 0.02))
        store.apply("two", add_object(store.load("two"), rug))
        assert store.load("two").get("9").room == "b" and store.verify("two")


def test_importing_our_json_without_per_object_rooms_puts_objects_in_rooms_by_footprint(tmp_path, capsys):
    from synergai.cli.main import main

    original = _two_rooms()
    expected = room_members(original)
    assert expected["k"] == ["1", "3"] and "2" in expected["b"]
    expected["b"].remove("2")
    expected["k"].append("2")
    doc = graph_to_dict(original)
    for o in doc["objects"]:
        o.pop("room", None)  # a file written by another tool: rooms, but objects that name none
        if o["id"] == "2":
            o["room"] = "k"  # an object that names its room keeps it (the bed, in the bedroom's footprint)
    path = tmp_path / "two.json"
    path.write_text(json.dumps(doc))
    db = str(tmp_path / "s.db")
    assert main(["scene", "import", str(path), "--db", db]) == 0
    capsys.readouterr()
    assert main(["scene", "show", "--scene", "two", "--db", db, "--json"]) == 0
    rooms = {r["id"]: r["object_ids"] for r in json.loads(capsys.readouterr().out)["rooms"]}
    assert {k: sorted(v) for k, v in rooms.items()} == {k: sorted(v) for k, v in expected.items()}
    with SceneStore(db) as store:
        assert store.load("two").get("4").room is None and store.verify("two")
