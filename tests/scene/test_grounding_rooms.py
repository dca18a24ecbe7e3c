"""Rooms as anchors in grounding: "the cup in the kitchen" among other rooms' cups, "the chair in the
office closest to the door" in the house, and scenes without rooms unchanged."""

from __future__ import annotations

import pytest

from synergai.scene.build import build_graph
from synergai.scene.catalog import SceneCatalog
from synergai.scene.grounding import ObjectRef, ground
from synergai.scene.grounding.rooms import rooms_named
from synergai.scene.model import Room, SceneObject
from synergai.scene.store import SceneStore


def _furnished(prefix: str, x0: float) -> list[SceneObject]:
    """A kitchen's worth of things: a table with a red cup and a blue cup on it, two chairs, a fridge."""
    return [
        SceneObject(f"{prefix}_table", "table", (x0 + 2.0, 2.0, 0.375), (1.2, 0.8, 0.75)),
        SceneObject(f"{prefix}_cup_red", "cup", (x0 + 1.8, 2.0, 0.8), (0.08, 0.08, 0.1),
                    color=(190, 40, 40)),
        SceneObject(f"{prefix}_cup_blue", "cup", (x0 + 2.2, 2.0, 0.8), (0.08, 0.08, 0.1),
                    color=(50, 90, 180)),
        SceneObject(f"{prefix}_chair_1", "chair", (x0 + 2.0, 1.2, 0.45), (0.45, 0.45, 0.9)),
        SceneObject(f"{prefix}_chair_2", "chair", (x0 + 2.0, 2.8, 0.45), (0.45, 0.45, 0.9)),
        SceneObject(f"{prefix}_fridge", "refrigerator", (x0 + 3.5, 3.5, 0.9), (0.7, 0.7, 1.8)),
    ]


@pytest.fixture(scope="module")
def three_rooms():
    """A kitchen between two rooms holding the same things (two kitchens' worth of distractors)."""
    rooms = [Room(rid, cat, cat, ((x0, 0.0), (x0 + 4.0, 0.0), (x0 + 4.0, 4.0), (x0, 4.0)))
             for rid, cat, x0 in (("r1", "dining room", 0.0), ("r2", "kitchen", 4.0), ("r3", "office", 8.0))]
    objects = [*_furnished("dining", 0.0), *_furnished("kitchen", 4.0), *_furnished("office", 8.0)]
    return build_graph("three", objects, rooms=rooms)


def _ref(category, room, *, relation="inside", **extra):
    return ObjectRef.model_validate({"category": category, **extra,
                                     "relations": [{"relation": relation, "anchors": [{"category": room}]},
                                                   *extra.pop("relations", [])]})


@pytest.mark.parametrize(("category", "room", "attributes", "expected"), [
    ("refrigerator", "kitchen", [], "kitchen_fridge"),
    ("fridge", "the kitchen", [], "kitchen_fridge"),
    ("cup", "kitchen", ["red"], "kitchen_cup_red"),
    ("cup", "office", ["blue"], "office_cup_blue"),
    ("table", "dining room", [], "dining_table"),
])
def test_the_x_in_the_room_among_other_rooms_of_the_same_things(three_rooms, category, room, attributes,
                                                                 expected):
    g = ground(three_rooms, _ref(category, room, attributes=attributes))
    assert g.unique and g.top is not None and g.top.id == expected
    room = three_rooms.get(expected).room
    assert room is not None and f"in the {three_rooms.room(room).name}" in g.top.reason
    others = [c for c in g.candidates[1:] if c.score == g.top.score]
    assert others == []


def test_a_room_constraint_without_more_leaves_the_rooms_objects_tied(three_rooms):
    g = ground(three_rooms, _ref("cup", "kitchen"))
    assert sorted(g.tied_ids()) == ["kitchen_cup_blue", "kitchen_cup_red"]
    assert "not in the kitchen (in the office)" in {c.reason.split(": ", 1)[1] for c in g.candidates}
    anything = ground(three_rooms, _ref("object", "office"))
    assert sorted(anything.tied_ids()) == sorted(o.id for o in three_rooms if o.id.startswith("office_"))


def test_rooms_are_named_in_a_persons_words(three_rooms):
    assert [r.id for r in rooms_named(three_rooms, "kitchens")] == ["r2"]
    assert [r.id for r in rooms_named(three_rooms, "the Dining Room")] == ["r1"]
    assert rooms_named(three_rooms, "garage") == []


def test_the_chair_in_the_office_closest_to_the_door(tmp_path):
    house = SceneCatalog(SceneStore(tmp_path / "s.db")).open("house")
    ref = ObjectRef.model_validate({"category": "chair", "relations": [
        {"relation": "inside", "anchors": [{"category": "office"}]},
        {"relation": "closest to", "anchors": [{"category": "door"}]}]})
    g = ground(house, ref)
    assert g.unique and g.top is not None and g.top.id == "chair_5"
    # without the room, the chair closest to any door is another room's
    g = ground(house, ObjectRef.model_validate({"category": "chair", "relations": [
        {"relation": "closest to", "anchors": [{"category": "door"}]}]}))
    assert g.top is not None and house.get(g.top.id).room != "office"


def test_inside_an_object_is_still_an_object_relation(three_rooms):
    """A word that names an object category is an object anchor even in a scene with rooms, and a
    room word in a scene without rooms is an object word the scene lacks."""
    g = ground(three_rooms, _ref("cup", "table", relation="on"))
    assert len(g.tied_ids()) == 6
    plain = build_graph("plain", _furnished("k", 0.0))
    g = ground(plain, _ref("cup", "kitchen"))
    assert g.missing == "there is no kitchen in this room"


def test_a_room_position_is_measured_in_the_candidate_s_own_room(three_rooms):
    """"The chair in the corner": in a house, the corner of the chair's room, not of the whole house."""
    from synergai.scene.grounding.layout import RoomExtent, position_keys

    objects = [o for o in three_rooms if o.id != "kitchen_chair_1"]
    cornered = SceneObject("kitchen_chair_1", "chair", (4.3, 3.7, 0.45), (0.45, 0.45, 0.9))
    rooms = list(three_rooms.rooms)
    g = build_graph("three-corner", [*objects, cornered], rooms=rooms)
    chairs = [o.id for o in g if o.category == "chair"]
    whole = RoomExtent.of(g)
    keys = position_keys(g, whole, chairs, "corner")
    assert min(keys, key=keys.__getitem__) == "kitchen_chair_1" and keys["kitchen_chair_1"] < 0.2
    from dataclasses import replace

    flat = build_graph("three-flat", [replace(o, room=None) for o in (*objects, cornered)])  # the house's
    flat_keys = position_keys(flat, RoomExtent.of(flat), chairs, "corner")
    assert flat_keys["kitchen_chair_1"] > 3.0
    centre = position_keys(g, whole, chairs, "center")
    assert centre["office_chair_1"] == pytest.approx(centre["dining_chair_1"])  # same place in its room
