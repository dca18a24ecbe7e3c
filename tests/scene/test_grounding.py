"""The grounding engine: each relation family, attributes, superlatives, recursion, ties, viewpoint,
missing categories, and the scene vocabulary."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import ValidationError

from synergai.geometry.frames import Viewpoint
from synergai.scene.grounding import ObjectRef, ground, map_word_to, scene_vocabulary
from synergai.scene.model import Edge, ObjectKind, Relation, SceneGraph, SceneObject
from synergai.scene.vocabulary import color_agreement


def _room(table_front: tuple[float, float, float] | None = None) -> SceneGraph:
    objs = [
        SceneObject("0", "floor", (2.0, 2.0, -0.05), (6.0, 6.0, 0.1), kind=ObjectKind.FLOOR),
        SceneObject("1", "wall", (2.0, 4.55, 1.4), (6.0, 0.1, 2.8), kind=ObjectKind.WALL),
        SceneObject("2", "table", (2.0, 1.5, 0.375), (1.2, 0.8, 0.75), attributes=("brown", "wooden"),
                    front=table_front),
        SceneObject("3", "cup", (2.1, 1.5, 0.8), (0.08, 0.08, 0.1), color=(190, 40, 40)),
        SceneObject("8", "cup", (1.8, 1.5, 0.82), (0.12, 0.12, 0.14), color=(235, 235, 235)),
        SceneObject("4", "chair", (1.0, 1.5, 0.45), (0.5, 0.5, 0.9), attributes=("black",)),
        SceneObject("5", "chair", (3.0, 1.5, 0.5), (0.6, 0.6, 1.0), attributes=("black",)),
        SceneObject("6", "tv", (2.0, 4.45, 1.5), (1.0, 0.08, 0.6), attributes=("black",)),
        SceneObject("7", "lamp", (3.6, 3.6, 0.6), (0.3, 0.3, 1.2), attributes=("white",)),
        SceneObject("9", "window", (0.5, 4.45, 1.5), (0.8, 0.08, 1.0)),
        SceneObject("15", "table", (0.6, 3.6, 0.375), (0.6, 0.6, 0.75)),
        SceneObject("16", "cup", (0.6, 3.6, 0.8), (0.08, 0.08, 0.1)),
        SceneObject("11", "bed", (-0.5, 2.5, 0.3), (1.0, 1.0, 0.6)),
        SceneObject("12", "sofa", (4.5, 2.5, 0.4), (1.0, 1.0, 0.8)),
        SceneObject("13", "stool", (2.0, 2.5, 0.25), (0.3, 0.3, 0.5)),
        SceneObject("14", "stool", (2.0, -0.8, 0.25), (0.3, 0.3, 0.5)),
    ]
    edges = [
        Edge("2", Relation.SUPPORTED_BY, "0"), Edge("3", Relation.SUPPORTED_BY, "2"),
        Edge("8", Relation.SUPPORTED_BY, "2"), Edge("4", Relation.SUPPORTED_BY, "0"),
        Edge("5", Relation.SUPPORTED_BY, "0"), Edge("7", Relation.SUPPORTED_BY, "0"),
        Edge("6", Relation.MOUNTED_ON, "1"), Edge("9", Relation.EMBEDDED_IN, "1"),
        Edge("15", Relation.SUPPORTED_BY, "0"), Edge("16", Relation.SUPPORTED_BY, "15"),
        Edge("15", Relation.NEXT_TO, "9"), Edge("4", Relation.NEAR, "2"), Edge("5", Relation.NEAR, "2"),
        Edge("6", Relation.ABOVE, "13"),
    ]
    return SceneGraph("room", objs, edges, scene_type="Living room")


def ref(data: dict) -> ObjectRef:
    return ObjectRef.model_validate(data)


def one(category: str, relation: str, *anchors: str) -> ObjectRef:
    return ref({"category": category, "relations": [{"relation": relation,
                                                     "anchors": [{"category": a} for a in anchors]}]})


def test_no_relation_lists_every_object_of_the_category_as_a_tie() -> None:
    g = ground(_room(), ObjectRef(category="chair"))
    assert {c.id for c in g.candidates} == {"4", "5"}
    assert g.tied == 2 and not g.unique
    assert "2 candidates tie" in g.message()


def test_on_is_any_holding_relation_and_leaves_a_tie_when_two_cups_share_the_table() -> None:
    g = ground(_room(), one("cup", "on", "table"))
    # "table" names both tables; cups 3, 8 (table 2) and 16 (table 15) are all on a table
    assert set(g.tied_ids()) == {"3", "8", "16"}
    g = ground(_room(), one("window", "embedded in", "wall"))
    assert g.top.id == "9" and g.unique
    g = ground(_room(), one("tv", "hanging on", "wall"))  # stored as mounted on: a neighbour, half score
    assert g.top.id == "6" and g.top.score == pytest.approx(0.5)
    assert "stored: mounted on" in g.top.reason


def test_any_object_on_the_table_lists_everything_it_holds_as_a_tie() -> None:
    g = ground(_room(), one("object", "on", "table"))
    assert set(g.tied_ids()) == {"3", "8", "16"}  # every cup on either table; no floor, no wall
    assert all(c.id not in ("0", "1") for c in g.candidates)
    assert ground(_room(), one("things", "on", "table")).tied == 3


def test_supporting_reads_the_edge_backwards() -> None:
    g = ground(_room(), one("table", "supporting", "cup"))
    assert set(g.tied_ids()) == {"2", "15"}  # both hold a cup
    g = ground(_room(), ref({"category": "table", "relations": [
        {"relation": "supporting", "anchors": [{"category": "cup", "attributes": ["white"]}]}]}))
    assert g.top.id == "2" and g.unique


def test_above_and_below_use_the_stored_edge_and_its_inverse() -> None:
    assert ground(_room(), one("tv", "above", "stool")).top.id == "6"
    g = ground(_room(), one("stool", "below", "tv"))
    assert g.top.id == "13" and g.unique
    assert ground(_room(), one("stool", "under", "tv")).top.id == "13"


def test_near_family_is_symmetric() -> None:
    g = ground(_room(), one("chair", "near", "table"))
    assert g.tied == 2  # both chairs near table 2
    g = ground(_room(), one("table", "next to", "window"))
    assert g.top.id == "15" and g.unique and g.top.score == 1.0
    g = ground(_room(), one("window", "beside", "table"))  # edge stored the other way round
    assert g.top.id == "9"


def test_closest_and_farthest_rank_with_distances_in_the_reason() -> None:
    g = ground(_room(), one("chair", "closest to", "lamp"))
    assert g.top.id == "5" and g.unique
    assert "closest" in g.top.reason and " m from lamp 7" in g.top.reason
    assert g.candidates[1].score < g.top.score
    g = ground(_room(), one("chair", "farthest from", "lamp"))
    assert g.top.id == "4" and g.unique


def test_a_degree_that_picks_one_keeps_every_object_that_fits_in_full() -> None:
    room = _room()  # both chairs stored near table 2; chair 4 moved away, so chair 5 is the nearer
    moved = SceneGraph("room", [dataclasses.replace(o, center=(0.5, 1.5, 0.45)) if o.id == "4" else o
                                for o in room], list(room.edges))
    g = ground(moved, one("chair", "near", "table"))
    assert g.tied_ids() == ["5"] and set(g.fitting) == {"4", "5"}  # "how many chairs are near" takes both
    # words that single one out ("closest", "leftmost") leave nothing to count beyond the pick
    assert ground(moved, one("chair", "closest to", "table")).fitting == ()
    near = one("chair", "near", "table").model_copy(update={"order": "leftmost"})
    assert ground(moved, near).fitting == ()
    assert ground(moved, one("chair", "on", "bed")).fitting == ()  # fits no chair in full


def test_closest_within_epsilon_is_a_tie_not_a_guess() -> None:
    g = ground(_room(), ref({"category": "chair", "relations": [
        {"relation": "closest to", "anchors": [{"category": "stool", "relations": [
            {"relation": "below", "anchors": [{"category": "tv"}]}]}]}]}))
    # stool 13 at x=2.0; chairs at x=1.0 and x=3.0: gaps 0.60 m and 0.55 m, within epsilon (0.2 m)
    assert g.tied == 2


def test_between_two_anchors() -> None:
    g = ground(_room(), one("stool", "between", "bed", "sofa"))
    assert g.top.id == "13" and g.unique
    assert "between bed 11 and sofa 12" in g.top.reason
    with pytest.raises(ValidationError):
        one("stool", "between", "bed")


def test_viewpoint_left_and_right_and_the_flip_when_seen_from_the_other_side() -> None:
    south = Viewpoint((2.0, -3.0, 1.5), (0.0, 1.0, 0.0))  # looking north: left is -x
    north = Viewpoint((2.0, 6.0, 1.5), (0.0, -1.0, 0.0))
    left = one("chair", "left of", "table")
    assert ground(_room(), left, south).top.id == "4"
    assert ground(_room(), left, north).top.id == "5"
    assert ground(_room(), one("chair", "right of", "table"), south).top.id == "5"
    assert ground(_room(), one("stool", "in front of", "table"), south).top.id == "14"
    assert ground(_room(), one("stool", "behind", "table"), south).top.id == "13"


def test_without_viewpoint_the_anchors_own_front_is_used_else_the_view_from_the_rooms_centre() -> None:
    left = one("chair", "left of", "table")
    # no front: a person at the room's centre (2, 2) looks south at the table, so left is +x
    g = ground(_room(), left)
    assert g.top.id == "5" and g.unique and "room's centre" in g.top.reason
    # table facing south: someone looking at its front looks north, so left is -x
    g = ground(_room(table_front=(0.0, -1.0, 0.0)), left)
    assert g.top.id == "4" and g.unique and "facing its front" in g.top.reason


def test_recursion_the_cup_on_the_table_next_to_the_window() -> None:
    g = ground(_room(), ref({"category": "cup", "relations": [{"relation": "on", "anchors": [
        {"category": "table", "relations": [
            {"relation": "next to", "anchors": [{"category": "window"}]}]}]}]}))
    assert g.top.id == "16" and g.unique
    assert "on table 15" in g.top.reason


def test_colour_words_match_with_the_vocabularys_agreement() -> None:
    assert ground(_room(), ObjectRef(category="cup", attributes=["white"])).top.id == "8"
    g = ground(_room(), ObjectRef(category="cup", attributes=["red"]))
    assert g.top.id == "3" and g.unique
    assert color_agreement("grey", "dark gray") == 0.75
    assert color_agreement("white", "light gray") == 0.5
    assert color_agreement("red", "blue") == 0.0


def test_size_words_and_superlatives() -> None:
    assert ground(_room(), ObjectRef(category="cup", attributes=["small"])).tied_ids() == ["3", "16"]
    assert ground(_room(), ObjectRef(category="cup", attributes=["big"])).top.id == "8"
    assert ground(_room(), ObjectRef(category="chair", superlative="tallest")).top.id == "5"
    g = ground(_room(), ObjectRef(category="cup", superlative="smallest"))
    assert g.tied == 2  # cups 3 and 16 have the same size: the tie is reported
    g = ground(_room(), ref({"category": "cup", "superlative": "largest",
                             "relations": [{"relation": "on", "anchors": [{"category": "table"}]}]}))
    assert g.top.id == "8" and g.unique


def test_material_words_count_only_where_recorded() -> None:
    g = ground(_room(), ObjectRef(category="table", attributes=["wooden"]))
    assert g.top.id == "2" and g.unique
    g = ground(_room(), ObjectRef(category="chair", attributes=["leather"]))  # nobody records it
    assert g.tied == 2 and g.top.score == 1.0


def test_missing_category_names_the_closest_categories_and_never_edits() -> None:
    graph = _room()
    before = (len(graph), sorted(e.key() for e in graph.edges))
    g = ground(graph, ObjectRef(category="piano"))
    assert g.candidates == () and g.tied == 0
    assert g.missing == "there is no piano in this room"
    assert len(g.closest_categories) == 3
    assert g.message().startswith("there is no piano in this room; the closest categories are ")
    g = ground(graph, one("cup", "on", "desk chair cushion"))
    assert g.missing == "there is no desk chair cushion in this room"
    assert (len(graph), sorted(e.key() for e in graph.edges)) == before


def test_everyday_words_map_to_the_scenes_categories() -> None:
    cats = ["sofa", "trash can", "tv", "office chair", "kitchen cabinet", "kitchen cabinets", "whiteboard",
            "board"]
    assert map_word_to("couch", cats) == ["sofa"]
    assert map_word_to("bin", cats) == ["trash can"]
    assert map_word_to("telly", cats) == ["tv"]
    assert map_word_to("chair", cats) == ["office chair"]
    assert map_word_to("sofas", cats) == ["sofa"]
    assert map_word_to("kitchen cabinets", cats) == ["kitchen cabinets"]  # the exact label wins
    assert map_word_to("whiteboard", cats) == ["whiteboard"]
    assert map_word_to("ofice chair", cats) == ["office chair"]
    assert map_word_to("piano", cats) == []
    home = ["door", "sink", "toilet", "kitchen counter", "shower curtain", "bathtub"]
    # reading a sentence, a part of the home names what makes it (most first); an expression's anchor
    # is resolved as written ("there is no bathroom in this room")
    assert map_word_to("bathroom", home, areas=True) == ["toilet", "bathtub", "sink"]
    assert map_word_to("bathroom", home) == []
    assert map_word_to("entrance", home, areas=True) == ["door"]
    assert map_word_to("shower", home, areas=True) == ["shower curtain", "bathtub"]
    assert map_word_to("kitchen counter", home, areas=True) == ["kitchen counter"]  # a label says it
    assert map_word_to("kitchen", ["chair", "table"], areas=True) == []
    assert ground(_room(), ObjectRef(category="couch")).top.id == "12"


def test_a_compound_is_named_with_or_without_its_space() -> None:
    seats = ["armchair", "office chair", "bookshelf", "table"]
    assert map_word_to("arm chair", seats) == ["armchair"]  # not the other chair, whose head is "chair"
    assert map_word_to("book shelf", seats) == ["bookshelf"]
    assert map_word_to("chair", seats) == ["office chair"]
    # a word that ends a one-word compound does not name it: "pack my cello" means no backpack
    assert map_word_to("pack", ["backpack", "instrument case"]) == []


def test_scene_vocabulary_holds_what_the_scene_holds() -> None:
    v = scene_vocabulary(_room())
    assert "sofa" in v.categories and "couch" not in v.categories
    assert list(v.categories) == sorted(set(v.categories))
    assert {"red", "white", "black", "small", "large"} <= set(v.attributes)
    assert "light gray" in v.attributes  # a name a person accepts for the white cup
    assert "purple" not in v.attributes
    assert "between" in v.relations and "closest to" in v.relations
    assert v.map_word("couch") == ["sofa"]


def test_expressions_are_validated() -> None:
    with pytest.raises(ValidationError):
        ref({"category": "cup",
             "relations": [{"relation": "levitating over", "anchors": [{"category": "x"}]}]})
    with pytest.raises(ValidationError):
        ref({"category": "cup", "superlative": "reddest"})
    with pytest.raises(ValidationError):
        ref({"category": "cup", "colour": "red"})
    deep: dict = {"category": "a"}
    for _ in range(6):
        deep = {"category": "a", "relations": [{"relation": "on", "anchors": [deep]}]}
    with pytest.raises(ValidationError):
        ref(deep)
    assert one("cup", "next_to", "table").relations[0].relation == "next to"


def test_a_tie_on_a_relation_that_holds_by_degree_goes_to_the_nearest_or_farthest() -> None:
    near = ground(_room(), one("stool", "near", "tv"))  # neither stool is stored near the tv
    assert near.top is not None and near.top.id == "13" and near.tied == 1 and "closest" in near.top.reason
    far = ground(_room(), one("stool", "far from", "tv"))  # both are far from it
    assert far.top is not None and far.top.id == "14" and far.tied == 1 and "farthest" in far.top.reason
    chairs = ground(_room(), one("chair", "near", "table"))  # 0.10 and 0.15 m: within epsilon, still a tie
    assert chairs.tied == 2


def test_a_target_that_names_only_its_own_anchor_is_read_as_any_object() -> None:
    g = ground(_room(), one("tv", "below", "tv"))  # one tv: what is below it
    assert not g.missing and g.top is not None and g.top.id == "13" and g.tied == 1


def test_order_position_alone_negation_on_the_hand_made_room() -> None:
    room = _room()
    # from the room's centre (2, 2) looking at the chairs (2, 1.5): looking south, so left is +x
    assert ground(room, ref({"category": "chair", "order": "left"})).top.id == "5"
    # with one's back to the stool 14 (2, -0.8), looking north: left is -x
    back = {"category": "stool", "relations": [{"relation": "far from", "anchors": [{"category": "tv"}]}]}
    assert ground(room, ref({"category": "chair", "order": "left", "back_to": back})).top.id == "4"
    # a viewpoint on an object the room lacks leaves the default view, never an error
    g = ground(room, ref({"category": "chair", "order": "left", "facing": {"category": "piano"}}))
    assert g.top.id == "5" and not g.missing
    assert ground(room, ref({"category": "stool", "position": "center"})).top.id == "13"
    assert ground(room, ref({"category": "cup", "alone": True})).top.id == "16"  # the others share a table
    assert ground(room, ref({"category": "stool", "position": "not center"})).top.id == "14"
    near = {"relation": "near", "anchors": [{"category": "table"}]}
    g = ground(room, ref({"category": "chair", "relations": [{**near, "negated": True}]}))
    assert g.tied == 2 and g.top.score == 0.0  # both chairs are near a table: "not near" fits none
