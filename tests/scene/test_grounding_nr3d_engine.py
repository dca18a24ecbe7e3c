"""The engine reading people's own words (Nr3D) on real ScanNet scenes: recorded-style expressions, no
model; each picks the target among its same-category distractors, or reports the tie."""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from synergai.scene.attributes import color_distance, color_name
from synergai.scene.build import build_graph
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.grounding import ObjectRef, ground
from synergai.scene.grounding.layout import graded, tightest
from synergai.scene.grounding.vocabulary import kindred_categories
from synergai.scene.model import SceneGraph
from synergai.scene.relations.thresholds import RelationThresholds


@cache
def _graph(data: Path, scene_id: str) -> SceneGraph:
    objects = load_objects_file(data / "scannet" / "objects_gt.json")
    return build_graph(scene_id, objects.objects(scene_id), scene_type=objects.scene_type(scene_id))


def _ref(**fields: Any) -> ObjectRef:
    return ObjectRef.model_validate(fields)


def test_the_closest_is_read_with_a_readers_margin_not_a_writers(shared_data: Path) -> None:
    """ "The window that is closest to the desk": one window touches a desk, the other is 0.2 m off. The
    Sr3D margin for saying "closest" (0.2 m) ties them; reading it, the nearer one is meant."""
    graph = _graph(shared_data, "scene0222_00")
    said = _ref(category="window", relations=[{"relation": "closest to", "anchors": [{"category": "desk"}]}])
    g = ground(graph, said)
    assert g.unique and g.top is not None and g.top.id == "29"
    writers = dataclasses.replace(RelationThresholds(), closest_tie=RelationThresholds().epsilon)
    loose = ground(graph, said, thresholds=writers)  # the gaps tie; only the centres part them now
    assert loose.candidates[1].id == "28" and "(closest; its centre" in loose.candidates[1].reason


def test_above_without_the_stored_edge_means_directly_above(shared_data: Path) -> None:
    """ "The sign above the sink": no sign clears the sink by the above gap (the graph stores no edge),
    and two signs touch it. The one over its centre is meant, not a tie of the two nearest boxes."""
    graph = _graph(shared_data, "scene0328_00")
    said = _ref(category="sign", relations=[{"relation": "above", "anchors": [{"category": "sink"}]}])
    g = ground(graph, said)
    assert g.unique and g.top is not None and g.top.id == "27"
    assert "off the vertical of sink" in g.top.reason
    below = _ref(category="sign", relations=[{"relation": "below", "anchors": [{"category": "sink"}]}])
    top = ground(graph, below).top
    assert top is not None and "not below it" in top.reason  # the side counts: every sign hangs higher


def test_graded_measures_in_metres_weigh_alike_when_they_disagree(shared_data: Path) -> None:
    """ "The keyboard on the right-hand side closest to the window": one keyboard is nearest the window,
    another is the rightmost of the row. Each measure ranked on its own span made each the other's
    equal (a tie); on the room's one scale the keyboard 0.6 m from the window, 2.1 m left of the
    rightmost, beats the rightmost one 3.0 m from it."""
    graph = _graph(shared_data, "scene0644_00")
    said = _ref(category="keyboard", order="right",
                relations=[{"relation": "closest to", "anchors": [{"category": "window"}]}])
    g = ground(graph, said)
    assert g.unique and g.top is not None and g.top.id == "40"
    alone = ground(graph, _ref(category="keyboard", order="right"))
    assert alone.top is not None and alone.top.id != "40"  # the order alone picks another one


def test_graded_scores_fall_over_the_larger_of_span_and_scale() -> None:
    keys = {"a": 0.0, "b": 1.0, "c": 2.0}
    assert graded(keys) == pytest.approx({"a": 1.0, "b": 0.45, "c": 0.0})
    assert graded(keys, scale=10.0) == pytest.approx({"a": 1.0, "b": 0.81, "c": 0.72})


def test_an_anchor_of_the_targets_own_kind_means_another_one(shared_data: Path) -> None:
    """ "The trash can next to the (other) trash can": three stand together, one apart. The anchor ties
    over all four, so the three of the group tie (reported), the lone one is out; no other category
    steps in for a pool emptied by its own anchors."""
    graph = _graph(shared_data, "scene0412_00")
    for relation in ("next to", "closest to"):
        said = _ref(category="trash can", relations=[{"relation": relation,
                                                      "anchors": [{"category": "trash can"}]}])
        g = ground(graph, said)
        assert sorted(g.tied_ids()) == ["13", "14", "15"], relation
        assert {c.id for c in g.candidates} == {"5", "13", "14", "15"}


def test_a_direction_no_candidate_holds_ranks_by_the_line_from_the_anchor(shared_data: Path) -> None:
    """ "The window with a trash can right in front of it" read as "the window behind the trash can":
    no window lies in the trash can's strict sector, so all tied; the one nearest the line from the
    trash can away from the viewer is meant."""
    graph = _graph(shared_data, "scene0169_00")
    said = _ref(category="window", relations=[{"relation": "behind", "anchors": [{"category": "trash can"}]}])
    g = ground(graph, said)
    assert g.unique and g.top is not None and g.top.id == "14"
    assert "off the line behind trash can" in g.top.reason


def test_a_colour_no_candidate_reads_ranks_them_by_their_colour(shared_data: Path) -> None:
    """ "Pick the blue trash can": both trash cans' colours read gray, so the names tie them; the one
    nearer blue is meant. Asked "gray", both read it: the colour does not separate them, the tie stays."""
    graph = _graph(shared_data, "scene0496_00")
    g = ground(graph, _ref(category="trash can", attributes=["blue"]))
    assert g.unique and g.top is not None and g.top.id == "18"
    assert g.top.reason.endswith("gray (asked blue); the colour nearest blue")  # words, no distance
    assert "a colour farther from blue" in g.candidates[1].reason
    assert ground(graph, _ref(category="trash can", attributes=["gray"])).tied == 2


def test_colour_distance_orders_two_grays_by_their_tint() -> None:
    assert color_distance((50, 90, 180), "blue") == 0.0  # the palette's blue
    bluish, neutral = (120, 128, 150), (128, 128, 128)
    assert color_name(bluish) == color_name(neutral) == "gray"
    assert color_distance(bluish, "blue") < color_distance(neutral, "blue")


def test_a_clause_said_of_the_floor_places_the_target(shared_data: Path) -> None:
    """ "The box on the floor under the TV": four boxes stand on the one floor, so "under the TV" tells
    them apart only as the box's own clause; said of the floor it picks the floor and leaves a tie."""
    graph = _graph(shared_data, "scene0426_00")
    said = _ref(category="box", relations=[{"relation": "on", "anchors": [
        {"category": "floor", "relations": [{"relation": "under", "anchors": [{"category": "tv"}]}]}]}])
    g = ground(graph, said)
    assert g.unique and g.top is not None and g.top.id == "25"
    assert "under tv" in g.top.reason or "vertical of tv" in g.top.reason
    plain = _ref(category="box", relations=[{"relation": "on", "anchors": [{"category": "floor"}]}])
    assert ground(graph, plain).tied == 4


def test_a_colour_copied_onto_the_target_from_its_anchor_is_the_anchors(shared_data: Path) -> None:
    """ "The whiteboard closest to the black door", parsed with "black" on the whiteboard too: the two
    whiteboards are ranked by the door, not by which one is darker (the far one, 2.9 m from the door)."""
    graph = _graph(shared_data, "scene0430_00")
    door = {"category": "door", "attributes": ["black"]}
    copied = _ref(category="whiteboard", attributes=["black"],
                  relations=[{"relation": "closest to", "anchors": [door]}])
    g = ground(graph, copied)
    assert g.unique and g.top is not None and g.top.id == "31"
    assert "black" not in g.top.reason.split(":", 1)[1].split("from door")[0]
    same_kind = _ref(category="whiteboard", attributes=["black"], relations=[
        {"relation": "next to", "anchors": [{"category": "whiteboard", "attributes": ["black"]}]}])
    top = ground(graph, same_kind).top
    assert top is not None and "black" in top.reason  # another of its own kind: the word is kept


def test_closest_among_equal_gaps_is_the_one_whose_centre_is_nearer(shared_data: Path) -> None:
    """ "The rail that is closest to the sink": two rails come within 0.3 m of the sink's box. The one
    whose centre is nearer the sink's is closest as people judge it; the other ranks just below it."""
    graph = _graph(shared_data, "scene0084_00")
    said = _ref(category="rail", relations=[{"relation": "closest to", "anchors": [{"category": "sink"}]}])
    g = ground(graph, said)
    assert g.unique and g.top is not None and g.top.id == "43"
    second = g.candidates[1]
    assert second.id == "44" and "centre" in second.reason and second.score < g.top.score


def test_an_order_among_a_said_number_is_taken_in_the_closest_standing_ones(shared_data: Path) -> None:
    """ "The far right photo in the group of 3": three pictures hang in a row on one wall, a fourth on the
    next wall within a metre of them (so the largest cluster is all four). The three standing closest
    together are the group; among all four another picture is the rightmost."""
    graph = _graph(shared_data, "scene0704_00")
    assert sorted(tightest(graph, ["25", "22", "10", "11"], 3)) == ["10", "11", "22"]
    g = ground(graph, _ref(category="picture", order="right", group_size=3))
    assert g.unique and g.top is not None and g.top.id == "22"
    four = ground(graph, _ref(category="picture", order="right"))
    assert four.top is not None and four.top.id == "25"


def test_an_order_among_one_labelled_object_is_taken_among_its_kindred_labels(shared_data: Path) -> None:
    """ "The bin on the right": the scan labels one object "bin" and three "storage bin". An order among
    one object says nothing; the group compared is the kind, kindred labels included. Without an order
    the word keeps its own label."""
    graph = _graph(shared_data, "scene0606_00")
    g = ground(graph, _ref(category="bin", order="right"))
    assert g.unique and g.top is not None and g.top.id == "30"
    assert {c.id for c in g.candidates} == {"3", "30", "31", "32"}
    plain = ground(graph, _ref(category="bin"))
    assert plain.unique and plain.top is not None and plain.top.id == "3"


def test_kindred_categories_share_their_words_in_the_singular() -> None:
    cats = ["bin", "storage bin", "cabinet", "kitchen cabinets", "toilet paper", "toilet paper rolls",
            "chair", "armchair"]
    assert kindred_categories("bin", cats) == ["bin", "storage bin"]
    assert kindred_categories("cabinets", cats) == ["cabinet", "kitchen cabinets"]
    assert kindred_categories("toilet paper rolls", cats) == ["toilet paper", "toilet paper rolls"]
    assert kindred_categories("chair", cats) == ["chair"]
