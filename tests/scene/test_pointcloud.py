"""Objects from instance-labelled point clouds: a real ScanNet cloud and small synthetic ones."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from synergai.geometry.mesh import read_points_bin
from synergai.scene.attributes import color_name
from synergai.scene.builders.pointcloud import kind_for_label, object_from_points, objects_from_points
from synergai.scene.model import ObjectKind, SceneError


@pytest.fixture(scope="module")
def scene0000(shared_data: Path) -> tuple[np.ndarray, np.ndarray]:
    """scene0000_00's real points, axis-aligned (z up, floor near 0)."""
    xyz, rgb = read_points_bin(shared_data / "geometry" / "scene0000_00_points_xyzrgb_float32.bin")
    m = np.array(json.loads((shared_data / "scannet" / "axis_alignment_matrices.json").read_text())
                 ["scene0000_00"], dtype=float).reshape(4, 4)
    return xyz @ m[:3, :3].T + m[:3, 3], rgb


def _slabs_and_cells(xyz: np.ndarray) -> tuple[np.ndarray, dict[int, str]]:
    """Instance labels made without clustering: floor slab, ceiling slab, 1 m xy cells in between."""
    inst = np.zeros(len(xyz), dtype=np.int64)
    floor, upper = xyz[:, 2] < 0.05, xyz[:, 2] > 2.2
    cx = np.floor(xyz[:, 0]).astype(int) + 10
    cy = np.floor(xyz[:, 1]).astype(int) + 10
    inst[~floor & ~upper] = 100 + cx[~floor & ~upper] * 100 + cy[~floor & ~upper]
    inst[floor], inst[upper] = 1, 2
    labels = {int(i): f"cell {i}" for i in np.unique(inst)}
    labels[1], labels[2] = "floor", "ceiling"
    return inst, labels


def test_real_scannet_cloud_floor_and_cells(scene0000) -> None:
    xyz, rgb = scene0000
    inst, labels = _slabs_and_cells(xyz)
    objs = objects_from_points(xyz, rgb, inst, labels, min_points=20, provenance="test")
    ids, counts = np.unique(inst, return_counts=True)
    assert [o.id for o in objs] == [str(i) for i, n in zip(ids, counts, strict=True) if n >= 20]
    by_id = {o.id: o for o in objs}
    floor = by_id["1"]
    assert floor.kind is ObjectKind.FLOOR and by_id["2"].kind is ObjectKind.CEILING
    assert floor.size[2] < 0.15 and -0.1 < floor.min_corner[2] < 0.0
    assert floor.size[0] > 5.0 and floor.size[1] > 5.0  # the whole room's floor
    for o in objs:
        assert o.provenance == "test" and o.attributes == (color_name(o.color),)
        if int(o.id) >= 100:  # every cell object stays within its own 1 m cell
            cx, cy = (int(o.id) - 100) // 100 - 10, (int(o.id) - 100) % 100 - 10
            assert cx - 1e-9 <= o.min_corner[0] and o.max_corner[0] <= cx + 1 + 1e-9
            assert cy - 1e-9 <= o.min_corner[1] and o.max_corner[1] <= cy + 1 + 1e-9
            assert o.min_corner[2] >= 0.05 - 1e-9 and o.max_corner[2] <= 2.2 + 1e-9
    # colour is the mean of that instance's points
    sel = inst == int(objs[5].id)
    np.testing.assert_allclose(objs[5].color, rgb[sel].mean(axis=0), atol=0.5)
    # every kept point lies in its instance's box
    for o in objs:
        p = xyz[inst == int(o.id)]
        assert np.all(p >= o.min_corner - 1e-9) and np.all(p <= o.max_corner + 1e-9)


def test_trimmed_boxes_are_inside_and_keep_most_points(scene0000) -> None:
    xyz, rgb = scene0000
    inst, labels = _slabs_and_cells(xyz)
    exact = {o.id: o for o in objects_from_points(xyz, rgb, inst, labels, min_points=50)}
    trimmed = objects_from_points(xyz, rgb, inst, labels, min_points=50, trim=2.0)
    shrunk = 0
    for o in trimmed:
        e = exact[o.id]
        assert np.all(o.min_corner >= e.min_corner - 1e-9) and np.all(o.max_corner <= e.max_corner + 1e-9)
        shrunk += bool(np.prod(o.size) < np.prod(e.size))
        p = xyz[inst == int(o.id)]
        inside = np.all((p >= o.min_corner - 1e-9) & (p <= o.max_corner + 1e-9), axis=1).mean()
        assert inside >= 1.0 - 6 * (0.02 + 1.0 / len(p))  # at most ~2 % cut per side and axis
    assert shrunk == len(trimmed)


def test_trim_ignores_outliers_on_a_synthetic_cloud() -> None:
    rng = np.random.default_rng(0)
    table = rng.uniform([0, 0, 0], [1.2, 0.8, 0.75], (2000, 3))
    cup = rng.uniform([0.5, 0.3, 0.75], [0.58, 0.38, 0.85], (300, 3))
    outliers = np.array([[4.0, 4.0, 2.0], [-3.0, 0.0, 0.0]])
    xyz = np.concatenate([table, outliers, cup, [[9, 9, 9]] * 50])
    inst = np.array([7] * 2002 + [8] * 300 + [0] * 50)
    rgb = np.concatenate([np.tile([120, 80, 50], (2002, 1)), np.tile([190, 40, 40], (300, 1)),
                          np.zeros((50, 3))]).astype(np.uint8)
    raw = objects_from_points(xyz, rgb, inst, {7: "table", 8: "cup"})
    assert [o.id for o in raw] == ["7", "8"]  # background 0 ignored
    assert raw[0].size[0] > 6.0  # the outliers blow up the exact box
    table_obj, cup_obj = objects_from_points(xyz, rgb, inst, {7: "table", 8: "cup"}, trim=1.0)
    np.testing.assert_allclose(table_obj.min_corner, [0, 0, 0], atol=0.03)
    np.testing.assert_allclose(table_obj.max_corner, [1.2, 0.8, 0.75], atol=0.03)
    assert table_obj.attributes == ("brown",) and cup_obj.attributes == ("red",)
    assert cup_obj.category == "cup" and cup_obj.color == (190, 40, 40)


def test_min_points_ignore_and_missing_labels() -> None:
    xyz = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2], [5, 5, 5]], float)
    rgb = np.zeros((4, 3), np.uint8)
    inst = np.array([3, 3, 3, 4])
    objs = objects_from_points(xyz, rgb, inst, {3: "box"}, min_points=2)
    assert [o.id for o in objs] == ["3"] and objs[0].size == (2.0, 2.0, 2.0)
    assert objects_from_points(xyz, rgb, inst, {}, ignore=(3, 4)) == []
    with pytest.raises(SceneError, match=r"no label for instance ids \[4\]"):
        objects_from_points(xyz, rgb, inst, {3: "box"}, min_points=1)


def test_bad_clouds_raise_scene_error() -> None:
    xyz, rgb, inst = np.zeros((5, 3)), np.zeros((5, 3), np.uint8), np.ones(5, int)
    with pytest.raises(SceneError, match="colours must have shape"):
        objects_from_points(xyz, rgb[:4], inst, {1: "a"})
    with pytest.raises(SceneError, match="instance labels must have shape"):
        objects_from_points(xyz, rgb, inst[:3], {1: "a"})
    with pytest.raises(SceneError, match="integers"):
        objects_from_points(xyz, rgb, inst.astype(float), {1: "a"})
    bad = xyz.copy()
    bad[2, 1] = np.nan
    with pytest.raises(SceneError, match="NaN"):
        objects_from_points(bad, rgb, inst, {1: "a"})
    with pytest.raises(SceneError, match=r"0\.\.255"):
        objects_from_points(xyz, rgb.astype(int) + 300, inst, {1: "a"})
    with pytest.raises(SceneError, match="trim"):
        objects_from_points(xyz, rgb, inst, {1: "a"}, trim=30)
    with pytest.raises(SceneError, match="non-empty"):
        object_from_points("x", "a", np.zeros((0, 3)))


def test_kind_for_label() -> None:
    assert kind_for_label("Floor") is ObjectKind.FLOOR and kind_for_label("walls") is ObjectKind.WALL
    assert kind_for_label("wall hanging") is ObjectKind.OBJECT
    assert kind_for_label("ceiling") is ObjectKind.CEILING
