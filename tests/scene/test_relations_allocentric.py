"""Allocentric relations: next to / beside, and left / right / front / behind / clock for a viewpoint."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synergai.geometry.boxes import BoxArray
from synergai.geometry.frames import Viewpoint
from synergai.scene.build import build_graph, clock_direction, facing_viewpoint, view_relation
from synergai.scene.model import OrientedBox, Relation, SceneError, SceneObject
from synergai.scene.relations import RelationThresholds
from synergai.scene.relations.allocentric import oriented_corners, side_relations, view_relations

TH = RelationThresholds()


def obj(oid: str, cat: str, center, size, **kw) -> SceneObject:
    return SceneObject(id=oid, category=cat, center=center, size=size, **kw)


def scene(shift: tuple[float, float] = (0.0, 0.0)):
    """A desk with a lamp 1.5 m to its +x side and a chair 1.5 m to its -y side."""
    dx, dy = shift
    return build_graph("s", [
        obj("desk", "desk", (dx, dy, 0.4), (1.2, 0.6, 0.8)),
        obj("lamp", "lamp", (dx + 1.5, dy, 0.5), (0.3, 0.3, 1.0)),
        obj("chair", "chair", (dx, dy - 1.5, 0.45), (0.5, 0.5, 0.9)),
    ])


def sides(g, vp: Viewpoint) -> dict[str, list[str]]:
    rels = (Relation.LEFT_OF, Relation.RIGHT_OF, Relation.IN_FRONT_OF, Relation.BEHIND)
    return {r.value: view_relation(g, ["lamp", "chair"], "desk", r, vp) for r in rels}


def test_left_right_flip_when_the_viewer_turns_around() -> None:
    g = scene()
    south = Viewpoint((0.0, -4.0, 1.6), (0.0, 1.0, 0.0))  # looking along +y: +x is on the right
    north = Viewpoint((0.0, 4.0, 1.6), (0.0, -1.0, 0.0))
    assert sides(g, south) == {"left_of": [], "right_of": ["lamp"], "in_front_of": ["chair"], "behind": []}
    assert sides(g, north) == {"left_of": ["lamp"], "right_of": [], "in_front_of": [], "behind": ["chair"]}


def test_answers_depend_on_the_viewpoint_not_on_the_world_origin() -> None:
    vp = Viewpoint((0.0, -4.0, 1.6), (0.0, 1.0, 0.0))
    moved = scene((250.0, -75.0))
    vp_moved = Viewpoint((250.0, -79.0, 1.6), (0.0, 1.0, 0.0))
    assert sides(scene(), vp) == sides(moved, vp_moved)
    # a viewer standing elsewhere but facing the same way sees the same sides
    assert sides(scene(), Viewpoint((-3.0, -1.0, 1.0), (0.0, 1.0, 0.0))) == sides(scene(), vp)


def test_diagonal_objects_are_in_no_narrow_sector() -> None:
    b = BoxArray.from_center_size(np.array([[0, 0, 0.5], [2.0, 2.0, 0.5]]),
                                  np.array([[1, 1, 1], [0.3, 0.3, 1]]))
    vp = Viewpoint((0.0, -5.0, 1.0), (0.0, 1.0, 0.0))
    r = view_relations(b, np.array([1]), np.array([0]), vp, TH)
    assert not any(v[0] for v in r.values())
    wide = RelationThresholds(sector_angle=60.0)
    r = view_relations(b, np.array([1]), np.array([0]), vp, wide)
    assert r[Relation.RIGHT_OF][0] and r[Relation.BEHIND][0]


def test_oriented_anchor_footprint() -> None:
    corners = oriented_corners(np.array([[0.0, 0.0]]), np.array([[2.0, 1.0]]), np.array([math.pi / 2]))
    assert np.allclose(np.sort(corners[0, :, 0]), [-0.5, -0.5, 0.5, 0.5])
    assert np.allclose(np.sort(corners[0, :, 1]), [-1.0, -1.0, 1.0, 1.0])


def test_facing_viewpoint_uses_the_anchor_front() -> None:
    # a couch facing -y (towards the viewer's side); a lamp on its +x side
    couch = obj("couch", "couch", (0.0, 0.0, 0.4), (2.0, 0.9, 0.8), front=(0.0, -1.0, 0.0),
                obb=OrientedBox((0.0, 0.0, 0.4), (0.9, 2.0, 0.8), math.pi / 2))
    lamp = obj("lamp", "lamp", (1.4, 0.0, 0.6), (0.3, 0.3, 1.2))
    g = build_graph("s", [couch, lamp])
    vp = facing_viewpoint(g.get("couch"))
    assert vp is not None and np.allclose(vp.axes()[1][:2], [0.0, 1.0])
    # looking at the couch's front, its +x side is on the viewer's right
    assert view_relation(g, ["lamp"], "couch", Relation.RIGHT_OF, vp) == ["lamp"]
    assert facing_viewpoint(g.get("lamp")) is None


def test_clock_directions() -> None:
    g = build_graph("s", [obj(k, "box", c, (0.2, 0.2, 0.2)) for k, c in (
        ("ahead", (0.0, 3.0, 0.1)), ("right", (3.0, 0.0, 0.1)), ("behind", (0.0, -3.0, 0.1)),
        ("left", (-3.0, 0.0, 0.1)), ("one", (1.5, 2.6, 0.1)), ("ten", (-2.6, 1.5, 0.1)))])
    vp = Viewpoint((0.0, 0.0, 1.5), (0.0, 1.0, 0.0))
    hours = clock_direction(g, ["ahead", "right", "behind", "left", "one", "ten"], vp)
    assert hours == {"ahead": 12, "right": 3, "behind": 6, "left": 9, "one": 1, "ten": 10}
    turned = clock_direction(g, ["ahead", "right"], Viewpoint((0.0, 0.0, 1.5), (1.0, 0.0, 0.0)))
    assert turned == {"ahead": 9, "right": 12}


def test_next_to_and_beside_are_side_by_side_only() -> None:
    b = BoxArray.from_center_size(
        np.array([[0, 0, 0.4], [0.9, 0, 0.4], [1.3, 0, 0.4], [0, 0, 1.0]]),
        np.array([[0.8, 0.8, 0.8], [0.9, 0.8, 0.8], [0.3, 0.3, 0.8], [0.2, 0.2, 0.2]]),
    )
    r = side_relations(b, np.array([0, 0, 0]), np.array([1, 2, 3]), TH)
    assert r[Relation.NEXT_TO].tolist() == [True, False, False]  # touching / 0.75 m away / stacked
    assert r[Relation.BESIDE].tolist() == [False, False, False]
    r = side_relations(b, np.array([2]), np.array([0]), RelationThresholds(beside_gap=1.0))
    assert r[Relation.BESIDE].tolist() == [True]


def test_view_relation_refuses_stored_relations() -> None:
    with pytest.raises(SceneError):
        view_relation(scene(), ["lamp"], "desk", Relation.NEAR, Viewpoint((0, 0, 0), (0, 1, 0)))
