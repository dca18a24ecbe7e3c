"""Automatic verification: common-sense wording of support edges and sanity rules."""

from __future__ import annotations

import pytest

from synergai.scene.model import Edge, ObjectKind, Relation, SceneGraph, SceneObject
from synergai.scene.verification import (
    AFFIXED,
    EMBEDDED,
    HANGING,
    MOUNTED,
    category_in,
    normalize_category,
    verify_graph,
    verify_support,
)


def o(cat: str, kind: ObjectKind = ObjectKind.OBJECT, oid: str | None = None) -> SceneObject:
    return SceneObject(id=oid or cat, category=cat, center=(0.0, 0.0, 0.0), size=(1.0, 1.0, 1.0), kind=kind)


WALL = o("wall", ObjectKind.WALL)


@pytest.mark.parametrize(("raw", "norm"), [
    ("Kitchen Cabinets", "kitchen cabinet"), ("Television", "tv"), ("shelves", "shelf"),
    ("boxes", "box"), ("dishes", "dish"), ("clothes", "clothes"), ("shower walls", "shower wall"),
    ("nightstands", "night stand"), ("trash_cans", "trash can"), ("Photos", "picture"),
    ("night tables", "night stand"), ("Bedside table", "night stand"),
])
def test_normalize_category(raw: str, norm: str) -> None:
    assert normalize_category(raw) == norm


def test_category_matching_uses_ending_phrases() -> None:
    assert category_in("kitchen cabinets", {"cabinet"})
    assert category_in("TELEVISION", {"tv"})
    assert not category_in("tv stand", {"tv"})
    assert not category_in("light switch", {"light"})
    assert category_in("wall lamp", {"lamp"})


@pytest.mark.parametrize(("subject", "wording"), [
    ("tv", Relation.MOUNTED_ON), ("television", Relation.MOUNTED_ON), ("monitor", Relation.MOUNTED_ON),
    ("screen", Relation.MOUNTED_ON), ("speakers", Relation.MOUNTED_ON),
    ("kitchen cabinets", Relation.MOUNTED_ON),
    ("picture", Relation.HANGING_ON), ("painting", Relation.HANGING_ON), ("poster", Relation.HANGING_ON),
    ("mirror", Relation.HANGING_ON), ("clock", Relation.HANGING_ON), ("curtains", Relation.HANGING_ON),
    ("towel", Relation.HANGING_ON), ("coat", Relation.HANGING_ON), ("toilet paper", Relation.HANGING_ON),
    ("sign", Relation.AFFIXED_ON), ("sticker", Relation.AFFIXED_ON), ("light switch", Relation.AFFIXED_ON),
    ("paper", Relation.AFFIXED_ON), ("label", Relation.AFFIXED_ON),
    ("window", Relation.EMBEDDED_IN), ("door", Relation.EMBEDDED_IN), ("thing", Relation.HANGING_ON),
])
def test_wording_on_a_wall(subject: str, wording: Relation) -> None:
    for rel in (Relation.HANGING_ON, Relation.SUPPORTED_BY):  # nothing "rests on" a wall
        assert verify_support(o(subject), rel, WALL) is wording


def test_wall_like_categories_without_the_kind() -> None:
    assert verify_support(o("tv"), Relation.HANGING_ON, o("shower walls")) is Relation.MOUNTED_ON


def test_sanity_rules() -> None:
    floor, ceiling = o("floor", ObjectKind.FLOOR), o("ceiling", ObjectKind.CEILING)
    table = o("table")
    assert verify_support(floor, Relation.SUPPORTED_BY, table) is None  # the floor is on nothing
    assert verify_support(WALL, Relation.SUPPORTED_BY, floor) is None
    assert verify_support(o("cup"), Relation.SUPPORTED_BY, table) is Relation.SUPPORTED_BY
    assert verify_support(o("chair"), Relation.HANGING_ON, floor) is Relation.SUPPORTED_BY
    # nothing is on a ceiling
    assert verify_support(o("lamp"), Relation.SUPPORTED_BY, ceiling) is Relation.MOUNTED_ON
    assert verify_support(o("plant"), Relation.SUPPORTED_BY, ceiling) is Relation.HANGING_ON
    assert verify_support(o("bed"), Relation.SUPPORTED_BY, o("chair")) is None  # furniture: floor only
    assert verify_support(o("book"), Relation.SUPPORTED_BY, o("picture")) is None  # cannot carry it
    assert verify_support(o("book"), Relation.INSIDE, o("bookshelf")) is Relation.INSIDE
    assert verify_support(o("sticker"), Relation.HANGING_ON, o("refrigerator")) is Relation.AFFIXED_ON
    assert verify_support(o("towel"), Relation.HANGING_ON, o("rail")) is Relation.HANGING_ON
    assert verify_support(o("cup"), Relation.NEAR, table) is Relation.NEAR  # not a support relation


def test_wording_tables_do_not_overlap() -> None:
    tables = (MOUNTED, HANGING, AFFIXED, EMBEDDED)
    for k, a in enumerate(tables):
        for b in tables[k + 1:]:
            assert not a & b


def test_verify_graph_rewrites_and_drops() -> None:
    g = SceneGraph("s", [WALL, o("tv"), o("bed"), o("chair"), o("floor", ObjectKind.FLOOR)])
    g.add_edge(Edge("tv", Relation.HANGING_ON, "wall"))
    g.add_edge(Edge("bed", Relation.SUPPORTED_BY, "chair"))
    g.add_edge(Edge("chair", Relation.SUPPORTED_BY, "floor"))
    changes = verify_graph(g)
    assert {(old.relation, None if new is None else new.relation) for old, new in changes} == {
        (Relation.HANGING_ON, Relation.MOUNTED_ON), (Relation.SUPPORTED_BY, None)}
    assert g.has_edge("tv", Relation.MOUNTED_ON, "wall")
    assert not g.has_edge("bed", Relation.SUPPORTED_BY, "chair")
    assert g.has_edge("chair", Relation.SUPPORTED_BY, "floor")
