"""Vertical proximity: support, inside, embedded, hanging, above / below, on hand-made boxes."""

from __future__ import annotations

import numpy as np
import pytest

from synergai.geometry.boxes import BoxArray
from synergai.scene.build import build_graph
from synergai.scene.model import ObjectKind, Relation, SceneError, SceneObject
from synergai.scene.relations import RelationThresholds
from synergai.scene.relations.vertical import (
    choose_support,
    ground_level,
    hanging_contact,
    on_floor,
    vertical_relations,
)

TH = RelationThresholds()


def boxes(*center_size: tuple[tuple[float, float, float], tuple[float, float, float]]) -> BoxArray:
    centers = np.array([c for c, _ in center_size])
    return BoxArray.from_center_size(centers, np.array([s for _, s in center_size]))


def obj(oid: str, cat: str, center, size, **kw) -> SceneObject:
    return SceneObject(id=oid, category=cat, center=center, size=size, **kw)


TABLE = ((0.0, 0.0, 0.375), (1.2, 0.8, 0.75))
CUP = ((0.2, 0.1, 0.8), (0.08, 0.08, 0.1))
LAMP = ((0.0, 0.0, 1.8), (0.4, 0.4, 0.3))


def rel(b: BoxArray, i: int, j: int) -> dict[Relation, bool]:
    out = vertical_relations(b, np.array([i]), np.array([j]), TH)
    return {k: bool(v[0]) for k, v in out.items()}


def test_cup_on_table_is_supported_not_above() -> None:
    b = boxes(CUP, TABLE)
    r = rel(b, 0, 1)
    assert r[Relation.SUPPORTED_BY] and not r[Relation.ABOVE]
    assert not r[Relation.INSIDE] and not r[Relation.HANGING_ON]
    back = rel(b, 1, 0)
    assert back[Relation.SUPPORTS] and not back[Relation.SUPPORTED_BY]


def test_cup_a_little_sunk_into_a_noisy_table_box_still_rests_on_it() -> None:
    sunk = ((0.2, 0.1, 0.77), (0.08, 0.08, 0.1))  # bottom 3 cm below the table top
    assert rel(boxes(sunk, TABLE), 0, 1)[Relation.SUPPORTED_BY]


def test_cup_too_far_above_table_is_above_not_on() -> None:
    floating = ((0.2, 0.1, 1.05), (0.08, 0.08, 0.1))  # 25 cm gap
    r = rel(boxes(floating, TABLE), 0, 1)
    assert r[Relation.ABOVE] and not r[Relation.SUPPORTED_BY]


def test_lamp_above_table_and_table_below_lamp() -> None:
    r = rel(boxes(LAMP, TABLE), 0, 1)
    assert r[Relation.ABOVE] and not r[Relation.BELOW] and not r[Relation.SUPPORTED_BY]
    assert rel(boxes(LAMP, TABLE), 1, 0)[Relation.BELOW]


def test_no_above_without_footprint_overlap() -> None:
    aside = ((3.0, 0.0, 1.8), (0.4, 0.4, 0.3))
    assert not rel(boxes(aside, TABLE), 0, 1)[Relation.ABOVE]


def test_big_thing_does_not_rest_on_a_small_one() -> None:
    board = ((0.0, 0.0, 0.81), (1.5, 1.0, 0.02))  # footprint 1.5 m2 on a 0.0064 m2 cup top
    assert not rel(boxes(board, ((0.0, 0.0, 0.75), (0.08, 0.08, 0.1))), 0, 1)[Relation.SUPPORTED_BY]


def test_chair_beside_a_low_footrest_is_not_on_it() -> None:
    chair = ((0.0, 0.0, 0.45), (0.5, 0.5, 0.9))
    footrest = ((0.2, 0.0, 0.05), (0.5, 0.5, 0.1))  # overlapping, top 0.1 m above the chair bottom
    assert not rel(boxes(chair, footrest), 0, 1)[Relation.SUPPORTED_BY]


def test_book_in_bookshelf_is_inside() -> None:
    shelf = ((0.0, 0.0, 0.9), (0.9, 0.35, 1.8))
    book = ((0.1, 0.0, 1.0), (0.2, 0.25, 0.25))
    r = rel(boxes(book, shelf), 0, 1)
    assert r[Relation.INSIDE] and not r[Relation.SUPPORTED_BY] and not r[Relation.EMBEDDED_IN]


def test_sink_set_into_counter_is_embedded() -> None:
    counter = ((0.0, 0.0, 0.45), (2.0, 0.6, 0.9))
    sink = ((0.0, 0.0, 0.8), (0.5, 0.4, 0.25))  # 0.2 of its 0.25 m height below the top
    r = rel(boxes(sink, counter), 0, 1)
    assert r[Relation.EMBEDDED_IN] and not r[Relation.INSIDE] and not r[Relation.SUPPORTED_BY]


def test_hanging_contact_needs_touching_and_a_holder_reaching_above() -> None:
    wall = ((0.0, -0.05, 1.3), (4.0, 0.1, 2.6))
    picture = ((0.0, 0.02, 1.5), (0.6, 0.04, 0.4))
    away = ((0.0, 0.6, 1.5), (0.6, 0.04, 0.4))
    low_wall = ((0.0, -0.05, 0.4), (4.0, 0.1, 0.8))
    b = boxes(picture, wall, away, low_wall)
    got = hanging_contact(b, np.array([0, 2, 0]), np.array([1, 1, 3]), TH)
    assert got.tolist() == [True, False, False]


def test_ground_level_of_a_thick_noisy_floor_box() -> None:
    b = boxes(((0.0, 0.0, 0.19), (5.0, 5.0, 1.04)), ((0.0, 0.0, 0.0), (4.0, 4.0, 0.02)))
    g = ground_level(b, np.array([0, 1]), TH)
    assert np.allclose(g, [-0.33 + TH.floor_band, 0.01])
    chair = boxes(((1.0, 1.0, 0.44), (0.5, 0.5, 0.9)), ((0.0, 0.0, 0.19), (5.0, 5.0, 1.04)),
                  ((1.0, 1.0, 1.5), (0.5, 0.5, 0.4)))
    ground = ground_level(chair, np.array([1, 1]), TH)
    assert on_floor(chair, np.array([0, 2]), np.array([1, 1]), ground, TH).tolist() == [True, False]


def test_choose_support_priority_then_score_then_holder() -> None:
    subject = np.array([0, 0, 0, 1, 1])
    priority = np.array([1.0, 0.0, 0.0, 3.0, 3.0])
    score = np.array([9.0, 0.5, 0.7, 0.0, 0.0])
    holder = np.array([5, 6, 7, 9, 8])
    best = choose_support(subject, priority, score, holder)
    assert sorted(holder[best].tolist()) == [7, 8]


# ----- through the graph builder (verification and wording included)
def test_graph_cup_on_table_on_floor_and_lamp_above() -> None:
    g = build_graph("s", [
        obj("floor", "floor", (0.0, 0.0, -0.05), (6.0, 6.0, 0.1)),
        obj("t", "table", *TABLE),
        obj("c", "cup", *CUP),
        obj("l", "lamp", *LAMP),
    ])
    assert g.has_edge("c", Relation.SUPPORTED_BY, "t")
    assert g.has_edge("t", Relation.SUPPORTED_BY, "floor")
    assert g.has_edge("l", Relation.ABOVE, "t")
    assert (Relation.BELOW, "l") in g.relations_of("t")  # "the table is under the lamp"
    assert (Relation.SUPPORTS, "c") in g.relations_of("t")
    assert not g.has_edge("c", Relation.ABOVE, "t")  # the touching relation wins
    assert g.levels == {"floor": 0, "t": 0, "c": 1, "l": 0}


def test_graph_wording_of_things_on_walls() -> None:
    wall = obj("w", "wall", (0.0, -0.05, 1.3), (6.0, 0.1, 2.6))
    g = build_graph("s", [
        wall,
        obj("tv", "TV", (-2.0, 0.05, 1.5), (1.0, 0.08, 0.6)),
        obj("p", "pictures", (0.0, 0.03, 1.6), (0.6, 0.04, 0.4)),
        obj("sw", "light switch", (1.5, 0.01, 1.2), (0.08, 0.02, 0.12)),
        obj("win", "window", (2.5, 0.0, 1.5), (1.0, 0.1, 1.2)),
    ])
    assert g.get("w").kind is ObjectKind.WALL
    assert g.has_edge("tv", Relation.MOUNTED_ON, "w")
    assert g.has_edge("p", Relation.HANGING_ON, "w")
    assert g.has_edge("sw", Relation.AFFIXED_ON, "w")
    assert g.has_edge("win", Relation.EMBEDDED_IN, "w")
    assert g.level("tv") == 1


def test_graph_book_inside_bookshelf() -> None:
    g = build_graph("s", [
        obj("bs", "bookshelf", (0.0, 0.0, 0.9), (0.9, 0.35, 1.8)),
        obj("b", "book", (0.1, 0.0, 1.0), (0.2, 0.25, 0.25)),
    ])
    assert g.has_edge("b", Relation.INSIDE, "bs")
    assert g.level("b") == 1


def test_graph_picture_touching_a_desk_top_still_hangs_on_its_wall() -> None:
    g = build_graph("s", [
        obj("w", "wall", (0.0, -0.05, 1.3), (6.0, 0.1, 2.6)),
        obj("d", "desk", (0.0, 0.4, 0.4), (1.2, 0.8, 0.8)),
        obj("p", "picture", (0.0, 0.03, 1.27), (0.6, 0.04, 0.8)),  # bottom 0.07 m over the desk top
    ])
    assert g.has_edge("p", Relation.HANGING_ON, "w")
    assert g.has_edge("p", Relation.ABOVE, "d")


def test_thresholds_reject_bad_values() -> None:
    bads = ({"touch": -0.1}, {"near_gap": float("nan")}, {"sector_angle": 95.0}, {"footprint_samples": 0})
    for bad in bads:
        with pytest.raises(SceneError):
            RelationThresholds(**bad)
    d = RelationThresholds(touch=0.1).as_dict()
    assert d["touch"] == 0.1 and d["sector_angle"] == TH.sector_angle and len(d) > 20
