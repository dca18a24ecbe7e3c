"""Comparative relations: closest / farthest with the epsilon rule, and between."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import Delaunay

from synergai.geometry.boxes import BoxArray
from synergai.scene.build import between, build_graph, closest, farthest
from synergai.scene.model import SceneError, SceneObject
from synergai.scene.relations import RelationThresholds
from synergai.scene.relations.allocentric import aabb_corners
from synergai.scene.relations.comparative import _in_hull_of_two_boxes, between_mask, extreme

TH = RelationThresholds()


def obj(oid: str, center, size=(0.4, 0.4, 0.4)) -> SceneObject:
    return SceneObject(id=oid, category="box", center=center, size=size)


def test_extreme_epsilon_rule() -> None:
    assert extreme(np.array([1.0, 1.5, 3.0]), 0.2) == 0
    assert extreme(np.array([1.0, 1.1, 3.0]), 0.2) == -1  # runner-up within epsilon: not clear-cut
    assert extreme(np.array([1.0, 1.1, 3.0]), 0.05) == 0
    assert extreme(np.array([1.0, 2.7, 3.0]), 0.2, largest=True) == 2
    assert extreme(np.array([1.0, 2.9, 3.0]), 0.2, largest=True) == -1
    assert extreme(np.array([4.0]), 0.2) == 0
    assert extreme(np.array([]), 0.2) == -1


def test_closest_and_farthest_on_a_graph() -> None:
    g = build_graph("s", [obj("anchor", (0.0, 0.0, 0.2)), obj("a", (1.0, 0.0, 0.2)),
                          obj("b", (1.1, 0.5, 0.2)), obj("c", (4.0, 0.0, 0.2))])
    assert closest(g, "anchor", ["a", "b"]) is None  # 0.6 m vs 0.7 m: too close to call
    assert closest(g, "anchor", ["a", "c"]) == "a"
    assert closest(g, "anchor", ["a", "b"], RelationThresholds(epsilon=0.05)) == "a"
    assert farthest(g, "anchor", ["a", "b", "c"]) == "c"
    assert closest(g, "anchor", ["anchor"]) is None
    assert closest(g, "anchor", ["b"]) == "b"


def test_touching_candidates_are_ranked_by_centre_distance() -> None:
    g = build_graph("s", [obj("table", (0.0, 0.0, 0.4), (2.0, 1.0, 0.8)),
                          obj("near_chair", (0.0, -0.6, 0.4), (0.4, 0.4, 0.8)),
                          obj("end_chair", (1.2, 0.0, 0.4), (0.4, 0.4, 0.8))])
    # both touch the table; with a tiny epsilon the one whose centre is closer wins
    assert closest(g, "table", ["near_chair", "end_chair"], RelationThresholds(epsilon=0.001)) == "near_chair"


def test_between_needs_the_hull_and_no_anchor_overlap() -> None:
    g = build_graph("s", [
        obj("sofa", (0.0, 0.0, 0.4), (1.0, 1.0, 0.8)), obj("tv", (4.0, 0.0, 0.4), (1.0, 1.0, 0.8)),
        obj("mid", (2.0, 0.1, 0.3)), obj("off", (2.0, 2.0, 0.3)), obj("edge", (2.0, 0.45, 0.3)),
        obj("on_sofa", (0.3, 0.0, 0.3)),
    ])
    assert between(g, ["mid", "off", "edge", "on_sofa"], "sofa", "tv") == ["mid", "edge"]
    strict = RelationThresholds(between_occupancy=0.9)
    assert between(g, ["mid", "edge"], "sofa", "tv", strict) == ["mid"]  # only 5/8 of "edge" is inside
    with pytest.raises(SceneError):
        between(g, ["mid"], "sofa", "sofa")


def test_hull_of_two_rectangles_matches_a_triangulation() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        lo = rng.uniform(-3, 3, size=(2, 2))
        hi = lo + rng.uniform(0.1, 2.0, size=(2, 2))
        pts = rng.uniform(-4, 6, size=(1, 400, 2))
        got = _in_hull_of_two_boxes(pts, lo[:1], hi[:1], lo[1:], hi[1:])[0]
        b = BoxArray(np.c_[lo, [0, 0]], np.c_[hi, [1, 1]])
        hull = Delaunay(aabb_corners(b).reshape(-1, 2))
        want = hull.find_simplex(pts[0]) >= 0
        assert (got == want).mean() > 0.995  # only points on the boundary may differ


def test_between_mask_is_vectorised_over_triples() -> None:
    centers = np.array([[0, 0, 0], [4, 0, 0], [2, 0, 0], [2, 3, 0]])
    b = BoxArray.from_center_size(centers, np.ones((4, 3)) * 0.8)
    got = between_mask(b, np.array([2, 3, 2]), np.array([0, 0, 1]), np.array([1, 1, 0]), TH)
    assert got.tolist() == [True, False, True]
