"""Places ("on the desk", "under the window"): what holds an object up first, then landmarks around
it (another category, not much smaller), the wall it hangs on last; floor and ceiling never."""

from __future__ import annotations

from synergai.scene.grounding.place import places
from synergai.scene.model import Edge, ObjectKind, Relation, SceneGraph, SceneObject


def _room(edges: list[Edge], *more: SceneObject) -> SceneGraph:
    objs = [
        SceneObject("0", "floor", (2.0, 2.0, -0.05), (6.0, 6.0, 0.1), kind=ObjectKind.FLOOR),
        SceneObject("1", "wall", (2.0, 4.55, 1.4), (6.0, 0.1, 2.8), kind=ObjectKind.WALL),
        SceneObject("2", "desk", (2.0, 0.0, 0.375), (1.2, 0.8, 0.75)),  # 0.6 m from the room's edge
        SceneObject("3", "shoes", (2.8, 1.5, 0.05), (0.3, 0.2, 0.1)),
        SceneObject("4", "chair", (1.0, 1.5, 0.45), (0.5, 0.5, 0.9)),
        SceneObject("5", "chair", (1.6, 1.0, 0.45), (0.5, 0.5, 0.9)),
        SceneObject("6", "mirror", (2.0, 4.45, 1.5), (0.8, 0.05, 0.8)),
        SceneObject("7", "sink", (2.0, 4.2, 0.85), (0.6, 0.5, 0.2)),
        SceneObject("8", "bed", (4.0, 1.5, 0.3), (2.0, 1.6, 0.6)),
        SceneObject("9", "cabinet", (3.4, 1.5, 0.4), (0.6, 0.6, 0.8)),
        *more,
    ]
    return SceneGraph("room", objs, edges)


def _said(graph: SceneGraph, oid: str) -> list[str]:
    return [p.words(graph) for p in places(graph, oid)]


def test_support_comes_first_and_the_floor_never_anchors() -> None:
    g = _room([Edge("2", Relation.SUPPORTED_BY, "0"), Edge("3", Relation.SUPPORTED_BY, "0"),
               Edge("9", Relation.SUPPORTED_BY, "0"), Edge("9", Relation.NEXT_TO, "2"),
               Edge("3", Relation.BELOW, "2")])
    assert _said(g, "3") == ["under the desk"]
    # the floor holds the desk up, but is never said; the small shoes under it come last
    assert _said(g, "2") == ["next to the cabinet", "above the shoes"]


def test_a_small_anchor_and_one_of_the_same_category_come_after_a_landmark() -> None:
    # the shoes are closer to the desk than the cabinet, but a person places a desk by the cabinet
    g = _room([Edge("2", Relation.NEXT_TO, "3"), Edge("2", Relation.NEAR, "9")])
    assert _said(g, "2") == ["near the cabinet", "next to the shoes"]
    # "next to the chair" says little about a chair: the desk it stands by first
    g = _room([Edge("4", Relation.NEXT_TO, "5"), Edge("4", Relation.NEAR, "2")])
    assert _said(g, "4") == ["near the desk", "next to the chair"]


def test_the_wall_a_thing_hangs_on_comes_after_what_is_around_it() -> None:
    g = _room([Edge("6", Relation.MOUNTED_ON, "1"), Edge("6", Relation.ABOVE, "7")])
    assert _said(g, "6") == ["above the sink", "on the wall"]
    g = _room([Edge("6", Relation.MOUNTED_ON, "1")])
    assert _said(g, "6") == ["on the wall"]  # with nothing else to say it by, the wall
    # a wall anchors only what hangs or is mounted on it
    g = _room([Edge("9", Relation.NEAR, "1")])
    assert _said(g, "9") == []


def test_between_two_landmarks_comes_before_either_alone() -> None:
    objs = [
        SceneObject("0", "floor", (2.0, 2.0, -0.05), (6.0, 6.0, 0.1), kind=ObjectKind.FLOOR),
        SceneObject("1", "bed", (1.0, 1.5, 0.3), (1.0, 2.0, 0.6)),
        SceneObject("2", "bed", (3.0, 1.5, 0.3), (1.0, 2.0, 0.6)),
        SceneObject("3", "nightstand", (2.0, 2.2, 0.3), (0.5, 0.4, 0.6)),
        SceneObject("4", "lamp", (2.0, 2.2, 0.8), (0.2, 0.2, 0.4)),
        SceneObject("5", "window", (2.0, 3.0, 1.2), (1.0, 0.1, 1.0)),
    ]
    edges = [Edge("3", Relation.SUPPORTED_BY, "0"), Edge("3", Relation.NEXT_TO, "1"),
             Edge("3", Relation.NEXT_TO, "2"), Edge("4", Relation.SUPPORTED_BY, "3"),
             Edge("4", Relation.NEAR, "5"), Edge("5", Relation.NEAR, "3")]
    g = SceneGraph("bedroom", objs, edges)
    assert _said(g, "3")[:2] == ["between the beds", "near the window"]  # each bed once, in the pair
    # what holds an object up stays first; two landmarks of different categories are never paired
    assert _said(g, "4") == ["on the nightstand", "near the window"]
    assert _said(g, "5") == ["near the nightstand", "near the lamp"]
    # outside the two beds' hull: next to one of them, not between
    g = SceneGraph("bedroom", [*objs[:3], SceneObject("3", "nightstand", (4.0, 2.2, 0.3), (0.5, 0.4, 0.6))],
                   [Edge("3", Relation.NEXT_TO, "2"), Edge("3", Relation.NEAR, "1")])
    assert _said(g, "3") == ["next to the bed", "near the bed"]


def test_what_lies_inside_a_bed_or_chair_box_is_on_it_and_inside_a_cabinet_in_it() -> None:
    # the shoes stand for a pillow inside the bed's box (its headboard reaches above it)
    g = _room([Edge("3", Relation.INSIDE, "8"), Edge("5", Relation.INSIDE, "9")])
    assert _said(g, "3") == ["on the bed"]
    assert _said(g, "5") == ["in the cabinet"]
    g = _room([Edge("3", Relation.INSIDE, "4")])
    assert _said(g, "3") == ["on the chair"]


def test_large_furniture_clear_of_the_walls_is_in_the_middle_of_the_room() -> None:
    table = SceneObject("10", "table", (2.0, 2.5, 0.4), (1.4, 0.9, 0.8))
    g = _room([Edge("10", Relation.SUPPORTED_BY, "0"), Edge("10", Relation.NEXT_TO, "5"),
               Edge("8", Relation.NEXT_TO, "9"), Edge("5", Relation.NEXT_TO, "10"),
               Edge("3", Relation.SUPPORTED_BY, "10")], table)
    assert _said(g, "10") == ["in the middle of the room", "next to the chair"]  # over 1 m from every wall
    assert places(g, "10")[0].anchors == ()  # the room is no object to show
    assert _said(g, "8") == ["next to the cabinet"]  # the bed's foot is at the room's edge (x = 5)
    assert _said(g, "5") == ["next to the table"]  # a chair is placed by what it stands at
    assert _said(g, "3") == ["on the table"]  # held up by furniture: placed by it
    g = _room([Edge("10", Relation.SUPPORTED_BY, "8")], table)  # on a bed, if it were: by the bed
    assert _said(g, "10") == ["on the bed"]


def test_people_say_above_before_next_to_and_next_to_for_beside() -> None:
    g = _room([Edge("6", Relation.BESIDE, "7"), Edge("6", Relation.ABOVE, "9")])
    assert _said(g, "6") == ["above the cabinet", "next to the sink"]
