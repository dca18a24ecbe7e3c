"""Horizontal proximity: near, higher / lower than, far, within reach."""

from __future__ import annotations

import numpy as np
import pytest

from synergai.geometry.boxes import BoxArray
from synergai.scene.build import build_graph, far, within_reach
from synergai.scene.model import Relation, SceneError, SceneObject
from synergai.scene.relations import RelationThresholds
from synergai.scene.relations.horizontal import far as far_mask
from synergai.scene.relations.horizontal import horizontal_relations, within_reach_of_point

TH = RelationThresholds()


def boxes(*cs: tuple[tuple[float, float, float], tuple[float, float, float]]) -> BoxArray:
    return BoxArray.from_center_size(np.array([c for c, _ in cs]), np.array([s for _, s in cs]))


def obj(oid: str, cat: str, center, size) -> SceneObject:
    return SceneObject(id=oid, category=cat, center=center, size=size)


FRIDGE = ((0.0, 0.0, 0.9), (0.7, 0.7, 1.8))
COUNTER = ((0.85, 0.0, 0.45), (0.9, 0.6, 0.9))  # touching the fridge's side
STOOL = ((3.0, 0.0, 0.35), (0.4, 0.4, 0.7))  # 1.75 m from the counter


def test_near_and_higher_than_between_neighbours() -> None:
    b = boxes(FRIDGE, COUNTER, STOOL)
    r = horizontal_relations(b, np.array([0, 1, 0]), np.array([1, 0, 2]), TH)
    assert r[Relation.NEAR].tolist() == [True, True, False]
    assert r[Relation.HIGHER_THAN].tolist() == [True, False, False]  # not near the stool: no comparison
    assert r[Relation.LOWER_THAN].tolist() == [False, True, False]


def test_no_height_comparison_for_stacked_boxes() -> None:
    cup = ((0.0, 0.0, 0.95), (0.1, 0.1, 0.1))
    r = horizontal_relations(boxes(cup, FRIDGE), np.array([0]), np.array([1]), TH)
    assert r[Relation.NEAR][0] and not r[Relation.HIGHER_THAN][0]


def test_far_scales_with_object_size_and_has_a_floor() -> None:
    small_a, small_b = ((0.0, 0.0, 0.05), (0.1, 0.1, 0.1)), ((1.5, 0.0, 0.05), (0.1, 0.1, 0.1))
    small_c = ((2.5, 0.0, 0.05), (0.1, 0.1, 0.1))
    bed_a, bed_b = ((0.0, 5.0, 0.3), (2.0, 2.0, 0.6)), ((4.0, 5.0, 0.3), (2.0, 2.0, 0.6))
    b = boxes(small_a, small_b, small_c, bed_a, bed_b)
    got = far_mask(b, np.array([0, 0, 3]), np.array([1, 2, 4]), TH)
    # 1.5 m < far_min_distance; 2.5 m > 2 m; beds 4 m apart < 1.5 x (1.41 + 1.41)
    assert got.tolist() == [False, True, False]


def test_within_reach_of_a_point() -> None:
    b = boxes(FRIDGE, STOOL)
    got = within_reach_of_point(b, np.array([0, 1]), np.array([1.2, 0.0, 1.0]), TH)
    assert got.tolist() == [True, False]  # 0.85 m from the fridge's side, 1.6 m from the stool


def test_graph_stores_one_direction_and_queries_far_and_reach() -> None:
    g = build_graph("s", [obj("f", "refrigerator", *FRIDGE), obj("c", "kitchen counter", *COUNTER),
                          obj("s", "stool", *STOOL)])
    assert g.has_edge("f", Relation.HIGHER_THAN, "c")
    assert not any(e.relation is Relation.LOWER_THAN for e in g.edges)
    assert (Relation.LOWER_THAN, "f") in g.relations_of("c")
    assert not any(e.relation is Relation.FAR for e in g.edges)
    assert far(g, "f") == ["s"]  # 3 m apart
    assert far(g, "c", ["f"]) == []
    assert within_reach(g, "c", ["f", "s"]) == ["f"]  # the stool is 1.5 m from the counter
    assert within_reach(g, (1.2, 0.0, 1.0), ["f", "s"]) == ["f"]
    with pytest.raises(SceneError):
        within_reach(g, (1.0, 2.0))  # type: ignore[arg-type]
