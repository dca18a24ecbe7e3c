"""The built-in demo apartment: size, determinism, rooms, honest contacts, coloured meshes."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from synergai.geometry.boxes import BoxArray, intersection_volume
from synergai.geometry.raycast import RayPicker
from synergai.scene.attributes import color_name
from synergai.scene.builders.demo import BOOKSHELF_BOARDS, DemoScene, demo_scene
from synergai.scene.model import STRUCTURE_KINDS, ObjectKind, Relation, SceneGraph, SceneObject


@pytest.fixture(scope="module")
def demo() -> DemoScene:
    return demo_scene()


def _obj(demo: DemoScene, oid: str) -> SceneObject:
    return next(o for o in demo.objects if o.id == oid)


def test_size_ids_and_identity(demo) -> None:
    assert demo.scene_id == "demo" and demo.scene_type == "Apartment"
    assert len(demo.objects) >= 40
    assert [o.id for o in demo.objects] == [str(k) for k in range(len(demo.objects))]
    g = SceneGraph(demo.scene_id, demo.objects, demo.intended, scene_type=demo.scene_type)
    assert len(g) == len(demo.objects) and len(g.edges) == len(demo.intended)


def test_deterministic_across_calls(demo) -> None:
    again = demo_scene()
    assert again.objects == demo.objects and again.intended == demo.intended
    assert again.room_of == demo.room_of and again.keys == demo.keys
    for oid, m in demo.meshes.items():
        np.testing.assert_array_equal(again.meshes[oid].vertices, m.vertices)
        np.testing.assert_array_equal(again.meshes[oid].faces, m.faces)
        np.testing.assert_array_equal(again.meshes[oid].vertex_colors, m.vertex_colors)


def test_three_rooms_with_floor_walls_and_furniture(demo) -> None:
    assert set(demo.rooms) == {"kitchen", "living room", "bedroom"}
    assert set(demo.room_of) == {o.id for o in demo.objects}
    for room, (lo, hi) in demo.rooms.items():
        members = [o for o in demo.objects if demo.room_of[o.id] == room]
        kinds = Counter(o.kind for o in members)
        assert kinds[ObjectKind.FLOOR] == 1 and kinds[ObjectKind.WALL] >= 3 and kinds[ObjectKind.OBJECT] >= 10
        for o in members:
            if o.kind is ObjectKind.OBJECT:  # furniture and things stand inside their room
                assert np.all(o.min_corner[:2] >= np.array(lo[:2]) - 1e-9), o
                assert np.all(o.max_corner[:2] <= np.array(hi[:2]) + 1e-9), o
                assert o.max_corner[2] <= hi[2]
    for o in demo.objects:
        if o.kind is ObjectKind.FLOOR:
            assert o.category == "floor" and o.max_corner[2] == pytest.approx(0.0)
        if o.kind is ObjectKind.WALL:
            assert o.category == "wall" and o.min_corner[2] == pytest.approx(0.0) and o.size[2] > 2.0
        if o.kind is ObjectKind.OBJECT:
            assert o.min_corner[2] >= -1e-9  # nothing below the floor


def test_attributes_colour_material_shape(demo) -> None:
    for o in demo.objects:
        assert o.color is not None and len(o.attributes) == 3
        assert o.attributes[0] == color_name(o.color)
        assert all(a and a == a.lower() for a in o.attributes)
        assert o.provenance == "demo"


def test_same_category_pairs_differ_for_disambiguation(demo) -> None:
    cats = Counter(o.category for o in demo.objects)
    for c in ("lamp", "armchair", "nightstand", "picture", "cup", "chair", "book", "pillow"):
        assert cats[c] >= 2, c
    for c in ("lamp", "armchair", "picture", "cup", "pillow"):
        colours = [o.attributes[0] for o in demo.objects if o.category == c]
        assert len(set(colours)) == len(colours), c
    assert {"laptop", "tv", "sofa", "bed", "bookshelf", "dining table", "coffee table"} <= set(cats)


def test_intended_support_contacts_hold(demo) -> None:
    on = [e for e in demo.intended if e.relation is Relation.SUPPORTED_BY]
    assert len(on) >= 30
    for e in on:
        a, b = _obj(demo, e.subject), _obj(demo, e.object)
        assert abs(a.min_corner[2] - b.max_corner[2]) < 0.01, (a.category, b.category)  # touches the top
        assert np.all(a.min_corner[:2] >= b.min_corner[:2] - 1e-9), (a.category, b.category)
        assert np.all(a.max_corner[:2] <= b.max_corner[:2] + 1e-9), (a.category, b.category)
    on_tables = Counter(_obj(demo, e.object).category for e in on)
    assert on_tables["dining table"] >= 5 and on_tables["coffee table"] >= 2 and on_tables["desk"] >= 2
    things = {_obj(demo, e.subject).category for e in on if _obj(demo, e.object).kind is ObjectKind.OBJECT}
    assert {"cup", "plate", "laptop", "lamp"} <= things


def test_books_inside_the_bookshelf_on_its_boards(demo) -> None:
    inside = [e for e in demo.intended if e.relation is Relation.INSIDE]
    assert len(inside) >= 3
    shelf = demo.by_key("bookshelf")
    board_tops = np.array(BOOKSHELF_BOARDS) + 0.02 + shelf.min_corner[2]
    for e in inside:
        book = _obj(demo, e.subject)
        assert book.category == "book" and e.object == shelf.id
        assert np.all(book.min_corner >= shelf.min_corner) and np.all(book.max_corner <= shelf.max_corner)
        assert np.min(np.abs(board_tops - book.min_corner[2])) < 1e-9  # standing on an inner board
        assert book.min_corner[2] > shelf.min_corner[2] + 0.1  # not on the floor


def test_wall_things_touch_the_wall_and_clear_the_floor(demo) -> None:
    on_wall = [e for e in demo.intended if e.relation in (Relation.MOUNTED_ON, Relation.HANGING_ON)]
    cats = {_obj(demo, e.subject).category: e.relation for e in on_wall}
    assert cats["tv"] is Relation.MOUNTED_ON and cats["picture"] is Relation.HANGING_ON
    for e in on_wall:
        a, w = _obj(demo, e.subject), _obj(demo, e.object)
        assert w.kind is ObjectKind.WALL
        b = BoxArray(np.array([a.min_corner, w.min_corner]), np.array([a.max_corner, w.max_corner]))
        gap = np.maximum(b.mins[0] - b.maxs[1], b.mins[1] - b.maxs[0])
        thin = int(np.argmin(w.size[:2]))  # the wall's normal axis
        assert -1e-9 <= gap[thin] < 0.01  # touches the wall plane (within 1 cm), not inside it
        other = 1 - thin
        assert a.min_corner[other] >= w.min_corner[other] and a.max_corner[other] <= w.max_corner[other]
        assert a.min_corner[2] > 0.5  # clear of the floor
    tv = demo.by_key("tv")
    stand = demo.by_key("tv_stand")
    assert tv.min_corner[2] - stand.max_corner[2] > 0.3  # mounted above the stand, not standing on it


def test_chairs_around_the_dining_table(demo) -> None:
    table = demo.by_key("dining_table")
    chairs = [o for o in demo.objects if o.category == "chair"]
    assert len(chairs) == 4
    sides = set()
    for c in chairs:
        b = BoxArray(np.array([c.min_corner, table.min_corner]), np.array([c.max_corner, table.max_corner]))
        gap = np.maximum(b.mins[0] - b.maxs[1], b.mins[1] - b.maxs[0])
        assert 0.0 < np.max(gap[:2]) < 0.3  # close to the table, not under it
        to_table = np.sign(np.array(table.center) - np.array(c.center))[1]
        assert c.front is not None and c.front[1] == to_table  # facing the table
        sides.add(to_table)
    assert sides == {-1.0, 1.0}


def test_no_interpenetration_except_containment(demo) -> None:
    objs = [o for o in demo.objects if o.kind not in STRUCTURE_KINDS]
    b = BoxArray(np.array([o.min_corner for o in objs]), np.array([o.max_corner for o in objs]))
    pairs = np.array(list(combinations(range(len(objs)), 2)))
    vol = intersection_volume(b, pairs[:, 0], pairs[:, 1])
    inside = {(e.subject, e.object) for e in demo.intended if e.relation is Relation.INSIDE}
    for (i, j), v in zip(pairs, vol, strict=True):
        if v > 1e-9:
            a, b_ = objs[i].id, objs[j].id
            assert (a, b_) in inside or (b_, a) in inside, (objs[i], objs[j])
    # nothing pokes into a wall
    walls = [o for o in demo.objects if o.kind is ObjectKind.WALL]
    wb = BoxArray(np.array([w.min_corner for w in walls]), np.array([w.max_corner for w in walls]))
    both = BoxArray(np.concatenate([b.mins, wb.mins]), np.concatenate([b.maxs, wb.maxs]))
    i, j = np.meshgrid(np.arange(len(objs)), np.arange(len(walls)) + len(objs))
    assert np.all(intersection_volume(both, i.ravel(), j.ravel()) < 1e-9)


def test_every_object_has_a_coloured_mesh_matching_its_box(demo) -> None:
    assert set(demo.meshes) == {o.id for o in demo.objects}
    n_multi = 0
    for o in demo.objects:
        m = demo.meshes[o.id]
        assert m.n_faces >= 12 and m.vertex_colors is not None
        np.testing.assert_allclose(m.bounds(), [o.min_corner, o.max_corner], atol=1e-9)
        colours = {tuple(c) for c in m.vertex_colors.tolist()}
        assert tuple(o.color) in colours
        n_multi += len(colours) > 1
    assert n_multi >= 15  # composed shapes carry several colours (legs, frames, screens...)
    table = demo.meshes[demo.keys["dining_table"]]
    assert table.n_faces == 5 * 12  # top + four legs
    assert demo.meshes[demo.keys["bookshelf"]].n_faces == 8 * 12  # back, two sides, five boards


def test_meshes_are_pickable(demo) -> None:
    picker = RayPicker(demo.meshes)
    cup = demo.by_key("cup_red")
    hit = picker.pick([cup.center[0], cup.center[1], 2.5], [0, 0, -1])
    assert hit is not None and hit.object_id == cup.id
    assert hit.point[2] == pytest.approx(cup.max_corner[2], abs=1e-6)
    # between the cups the ray reaches the dining table top
    hit = picker.pick([1.1, 2.4, 2.5], [0, 0, -1])
    assert hit is not None and hit.object_id == demo.keys["dining_table"]
    # looking from the sofa towards the TV
    tv, sofa = demo.by_key("tv"), demo.by_key("sofa")
    hit = picker.pick([sofa.center[0], sofa.center[1], 1.2], [0, 1, 0.05])
    assert hit is not None and hit.object_id == tv.id
    # between the legs of the dining table there is nothing but the floor
    hit = picker.pick([1.7, 2.05, 0.3], [0, 0, -1])
    assert hit is not None and _obj(demo, hit.object_id).kind is ObjectKind.FLOOR
