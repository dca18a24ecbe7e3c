"""LLM-TPC scene APIs on the hand-made room, in-process and inside the sandbox."""

from __future__ import annotations

import dataclasses

import pytest
from agent_scripting import room

from synergai.agent.program.api import SceneAPI
from synergai.agent.program.loop import API_FACTORY
from synergai.agent.program.sandbox import run_program
from synergai.geometry.frames import Viewpoint
from synergai.scene.serialization import graph_to_dict

# Standing at the room's south edge, looking north (+y) at the table.
NORTH = Viewpoint((2.0, 0.0, 1.2), (0.0, 1.0, 0.0))
# The same spot rotated by 180 degrees: standing north of the table, looking south.
SOUTH = Viewpoint((2.0, 3.5, 1.2), (0.0, -1.0, 0.0))


def api(viewpoint=NORTH) -> SceneAPI:
    return SceneAPI(room(), viewpoint)


def cats(objs) -> list[str]:
    return sorted(o.category for o in objs)


def test_scene_and_filter():
    a = api()
    assert len(a.scene()) == 8
    assert cats(a.filter(a.scene(), "chairs")) == ["chair", "chair"]
    assert cats(a.filter(a.scene(), "television")) == ["tv"]
    with pytest.raises(TypeError, match="object_set must be a set of ObjectAttribute"):
        a.filter("everything", "chair")


def test_relate_vertical_and_support():
    a = api()
    table = next(iter(a.filter(a.scene(), "table")))
    cup = next(iter(a.filter(a.scene(), "cup")))
    assert cats(a.relate(a.scene(), table, "on")) == ["cup"]
    assert cats(a.relate(a.scene(), table, "on top of")) == ["cup"]
    assert cats(a.relate(a.scene(), cup, "under")) == ["table"]
    assert cats(a.relate(a.scene(), cup, "underneath")) == ["table"]  # synonyms of legal values
    assert a.query_attribute(cup, "size") == a.query_attribute(cup, "lwh")
    left = {o.id for o in a.relate_agent(a.scene(), "left")}
    assert left and {o.id for o in a.relate_agent(a.scene(), "to my left")} == left
    assert cats(a.relate(a.scene(), cup, "supporting")) == ["table"]
    wall = next(iter(a.filter(a.scene(), "wall")))
    assert cats(a.relate(a.scene(), wall, "hanging on")) == ["tv"]
    with pytest.raises(ValueError, match=r"relation must be one of \['on', 'under'"):
        a.relate(a.scene(), table, "diagonal")


@pytest.mark.parametrize("said", ["on", "on top of", "above", "next to"])
def test_a_relation_between_objects_asked_of_the_agent_names_relate(said: str) -> None:
    a = api()
    with pytest.raises(ValueError, match=r"holds between two objects.*relate\(object_set=\.\.\., "
                                         r"reference_object=<one object>, relation="):
        a.relate_agent(a.scene(), said)
    with pytest.raises(ValueError, match="holds between two objects"):
        a.filter(a.scene(), "cup", relation=said)  # filter's relation is relate_agent's
    with pytest.raises(ValueError, match=r"relation must be one of \['left'"):
        a.relate_agent(a.scene(), "sitting")  # neither function's: the legal values only


def test_relate_to_a_set_of_references_is_relate_to_any_of_them():
    a = api()
    chairs = a.filter(a.scene(), "chair")
    left, right = (a.relate(a.scene(), c, "left") for c in chairs)
    assert a.relate(a.scene(), chairs, "left") == (left | right) - chairs  # the references left out
    assert a.relate(a.scene(), list(chairs), "near") == {next(iter(a.filter(a.scene(), "table")))}
    assert a.relate(a.scene(), set(), "near") == set()
    assert a.relate(a.scene(), [chairs], "left") == (left | right) - chairs  # a list of sets: their union
    with pytest.raises(TypeError, match="every element of object_set"):
        a.relate(a.scene(), [chairs, "chair"], "near")


def test_relate_agent_turns_with_the_agent():
    north, south = api(NORTH), api(SOUTH)
    chairs_n = north.filter(north.scene(), "chair")
    chairs_s = south.filter(south.scene(), "chair")
    left_n = {o.id for o in north.relate_agent(chairs_n, "left")}
    left_s = {o.id for o in south.relate_agent(chairs_s, "left")}
    assert left_n == {"4"} and left_s == {"5"}
    assert {o.id for o in north.relate_agent(north.scene(), "front")} >= {"2", "3", "6"}
    assert north.relate_agent(north.scene(), "closest") == {north.objects["2"]} or \
        len(north.relate_agent(north.scene(), "closest")) == 1


def test_query_relation_agent_and_clock():
    a = api(NORTH)
    chair_left = a.objects["4"]
    rel = a.query_relation_agent(chair_left)
    assert "left" in rel and "front" in rel and any(r.endswith("o'clock") for r in rel)
    assert a.query_relation_agent(chair_left, ["left", "right"]) == ["left"]
    assert a.query_relation_agent(chair_left, ["forward", "backward"]) == ["front"]  # LLM-TPC's words
    assert api(SOUTH).query_relation_agent(api(SOUTH).objects["4"], ["left", "right"]) == ["right"]
    with pytest.raises(ValueError, match="candidate_relations must be one of"):
        a.query_relation_agent(chair_left, ["upside"])


def test_query_relation_between_objects_from_the_agents_view():
    a = api(NORTH)
    assert a.query_relation(a.objects["4"], a.objects["2"], ["left", "right"]) == ["left"]
    b = api(SOUTH)
    assert b.query_relation(b.objects["4"], b.objects["2"], ["left", "right"]) == ["right"]


def test_query_attribute_and_state():
    a = api()
    cup = a.objects["3"]
    assert a.query_attribute(cup, "lwh") == [0.08, 0.08, 0.1]
    assert a.query_attribute(cup, "distance") == pytest.approx(2.0, abs=0.01)
    assert a.query_attribute(cup, "color") == "red"
    assert a.query_attribute(cup, "color", ["blue", "red"]) == "red"
    # candidates the graph's (corrected) name does not contain: the one nearest that name, not the dark
    # captured RGB (a white cabinet captured dark gray is still nearer "white" than "black" here)
    g = room()
    g.put(dataclasses.replace(g.get("3"), color=(60, 60, 60), attributes=("white",)))
    assert SceneAPI(g, NORTH).query_attribute(SceneAPI(g, NORTH).objects["3"], "color",
                                              ["black", "beige"]) == "beige"
    assert a.query_attribute(a.objects["2"], "material", ["metal", "wood"]) == "wood"
    assert a.query_attribute(cup, "shape", ["round", "square"]) == "unknown"  # its box reads rectangular
    # no shape word stored: the box's shape (the table's top is 1.2 x 0.8 m)
    table = next(iter(a.filter(a.scene(), "table")))
    assert a.query_attribute(table, "shape") == "rectangular"
    assert a.query_attribute(table, "shape", ["round", "square", "rectangular"]) == "rectangular"
    with pytest.raises(ValueError, match=r"attribute_type must be one of \['lwh', 'distance'"):
        a.query_attribute(cup, "weight")
    with pytest.raises(ValueError, match=r"got 'state'; a state .* query_state\(object=\.\.\., "):
        a.query_attribute(cup, "state")
    assert a.query_state(cup, ["clean", "dirty"]) == "unknown"
    with pytest.raises(TypeError, match="must be an ObjectAttribute"):
        a.query_attribute("cup", "color")


def test_apis_run_inside_the_sandbox():
    code = (
        "chairs = filter(object_set=scene(), category='chair')\n"
        "left = relate_agent(object_set=chairs, relation='left')\n"
        "print(len(chairs), [o.id for o in left])\n"
    )
    args = {"graph": graph_to_dict(room()), "viewpoint": {"position": list(NORTH.position),
                                                          "forward": list(NORTH.forward)}}
    result = run_program(code, api_factory=API_FACTORY, api_args=args)
    assert result.ok, result.error
    assert result.stdout.strip() == "2 ['4']"
    bad = run_program("relate(scene(), 5, 'on')", api_factory=API_FACTORY, api_args=args)
    assert not bad.ok and bad.error.startswith("TypeError: reference_object must be an ObjectAttribute")


def test_object_sets_are_ordered_nearest_first_and_index_in_that_order():
    a = api(NORTH)  # at (2, 0): the table (2, 2) is nearer than either chair (1, 2) / (3, 2), ties by id
    objs = a.filter(a.scene(), "table") | a.filter(a.scene(), "chair")
    assert [o.id for o in objs] == ["2", "4", "5"] and objs[0].id == "2" and objs[-1].id == "5"
    assert type(objs).__name__ == "ObjectSet" and repr(objs).startswith("{table (id: 2), chair (id: 4)")
    assert [o.id for o in objs[1:]] == ["4", "5"]
    with pytest.raises(IndexError, match="the set holds 3 objects"):
        objs[3]
    assert objs.pop().id == "2" and [o.id for o in objs] == ["4", "5"]  # pop takes the nearest too
    far = api(SOUTH)  # at (2, 3.5): the lamp (3.6, 3.6) comes before the chairs
    assert next(iter(far.filter(far.scene(), "lamp") | far.filter(far.scene(), "chair"))).category == "lamp"


def test_object_set_mistakes_get_errors_that_say_what_to_do():
    a = SceneAPI(room(), NORTH, ordered_sets=False)
    chairs = a.filter(a.scene(), "chair")
    assert isinstance(chairs, set) and repr(a.filter(a.scene(), "lamp")) == "{lamp (id: 7)}"
    assert repr(a.filter(a.scene(), "piano")) == "set()"
    with pytest.raises(TypeError, match=r"cannot be indexed: loop over it .*next\(iter\(objects\)\)"):
        chairs[0]
    cup = next(iter(a.filter(a.scene(), "cup")))
    with pytest.raises(TypeError, match="reference_object must be one object, got a set of 2 objects: loop"):
        a.query_relation(cup, chairs)


def test_programs_print_sets_in_the_same_order_on_every_run():
    code = ("print({o.category for o in scene()})\nprint(scene())\n"
            "print(isinstance(next(iter(scene())), ObjectAttribute))")
    args = {"graph": graph_to_dict(room()), "viewpoint": None}
    outputs = {run_program(code, api_factory=API_FACTORY, api_args=args).stdout for _ in range(4)}
    assert len(outputs) == 1 and next(iter(outputs)).strip().endswith("True")


def test_clock_directions_relate_objects_within_an_hour_of_them():
    a = api(NORTH)
    everything = a.scene()
    hours = {o.id: int(a.query_relation_agent(o, ["o'clock"])[0].split()[0]) for o in everything}
    assert hours["4"] == 11 and hours["5"] == 1  # the chairs: left and right ahead
    for said in ("1 o'clock", "one o'clock", "at my 1 oclock"):
        got = {o.id for o in a.relate_agent(everything, said)}
        assert got == {i for i, h in hours.items() if min((h - 1) % 12, (1 - h) % 12) <= 1}, said
        assert "5" in got and "4" not in got
    assert {o.id for o in a.relate_agent(everything, "11 o'clock")} >= {"4"}
    assert "5" not in {o.id for o in a.relate_agent(everything, "11 o'clock")}
    oid, hour = next(iter(hours.items()))
    near = f"{hour % 12 + 1} o'clock"  # an hour away: still that direction
    far = f"{(hour + 5) % 12 + 1} o'clock"
    assert a.query_relation_agent(a.objects[oid], [near, far]) == [near]
    with pytest.raises(ValueError, match="relation must be one of"):
        a.relate_agent(everything, "13 o'clock")
