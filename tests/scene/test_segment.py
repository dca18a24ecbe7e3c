"""Class-agnostic segmentation of scans without instance masks (scene.builders.segment), on a room sampled
from known boxes and on the real scene0000_00 scan."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from synergai.scene.builders.segment import (
    SegmentParams,
    objects_from_segmentation,
    segment_cloud,
    segment_objects,
)
from synergai.scene.model import ObjectKind, SceneError
from synergai.scene.vocabulary import UNNAMED

RED, BLUE, GREY, WHITE = (200, 30, 30), (40, 60, 200), (128, 128, 128), (230, 230, 230)


def _face(lo, hi, axis, step, rng):
    """Points on the box face perpendicular to ``axis`` at ``lo[axis]`` (a grid with a little noise)."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    other = [a for a in range(3) if a != axis]
    g = np.meshgrid(*(np.arange(lo[a], hi[a] + 1e-9, step) for a in other), indexing="ij")
    pts = np.zeros((g[0].size, 3))
    pts[:, other[0]], pts[:, other[1]], pts[:, axis] = g[0].ravel(), g[1].ravel(), lo[axis]
    return pts + rng.normal(0, 0.002, pts.shape)


def _box_surface(lo, hi, step, rng):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    parts = []
    for axis in range(3):
        for v in (lo[axis], hi[axis]):
            a, b = lo.copy(), hi.copy()
            a[axis] = b[axis] = v
            parts.append(_face(a, b, axis, step, rng))
    return np.concatenate(parts)


BOX = ((1.0, 1.0, 0.0), (1.6, 1.5, 0.7))  # a red box on the floor
BIN = ((3.0, 2.5, 0.0), (3.35, 2.85, 0.45))  # a blue bin on the floor


@pytest.fixture(scope="module")
def room() -> tuple[np.ndarray, np.ndarray]:
    """A 4 x 4 m room, 2.6 m high (floor, ceiling, four walls) with a red box and a blue bin."""
    rng = np.random.default_rng(3)
    parts = [
        (_face((0, 0, 0), (4, 4, 0), 2, 0.04, rng), GREY),
        (_face((0, 0, 2.6), (4, 4, 2.6), 2, 0.04, rng), WHITE),
        (_face((0, 0, 0), (0, 4, 2.6), 0, 0.04, rng), WHITE),
        (_face((4, 0, 0), (4, 4, 2.6), 0, 0.04, rng), WHITE),
        (_face((0, 0, 0), (4, 0, 2.6), 1, 0.04, rng), WHITE),
        (_face((0, 4, 0), (4, 4, 2.6), 1, 0.04, rng), WHITE),
        (_box_surface(*BOX, 0.03, rng), RED),
        (_box_surface(*BIN, 0.03, rng), BLUE),
    ]
    xyz = np.concatenate([p for p, _ in parts])
    rgb = np.concatenate([np.tile(c, (len(p), 1)) for p, c in parts]).astype(float)
    return xyz, rgb


def test_a_room_gives_floor_ceiling_walls_and_two_unnamed_objects(room) -> None:
    objects = segment_objects(*room)
    by = {k: [o for o in objects if o.category == k] for k in ("floor", "ceiling", "wall", UNNAMED)}
    assert len(by["floor"]) == 1 and len(by["ceiling"]) == 1 and len(by["wall"]) == 4
    assert by["floor"][0].kind is ObjectKind.FLOOR and by["ceiling"][0].kind is ObjectKind.CEILING
    assert all(w.kind is ObjectKind.WALL and w.size[2] > 2.4 for w in by["wall"])
    assert abs(by["floor"][0].center[2]) < 0.05 and abs(by["ceiling"][0].center[2] - 2.6) < 0.05
    assert len(by[UNNAMED]) == 2 and len(objects) == 8
    for truth, colour in ((BOX, "red"), (BIN, "blue")):
        lo, hi = np.asarray(truth[0]), np.asarray(truth[1])
        match = [o for o in by[UNNAMED] if np.linalg.norm(np.asarray(o.center)[:2] - (lo + hi)[:2] / 2) < 0.1]
        assert len(match) == 1, truth
        got = match[0]
        # the bottom face lies in the floor plane and goes to the floor; the rest is the object
        assert np.allclose(got.min_corner[:2], lo[:2], atol=0.04)
        assert np.allclose(got.max_corner, hi, atol=0.04)
        assert got.attributes == (colour,) and got.kind is ObjectKind.OBJECT
    ids = [o.id for o in objects]
    assert len(set(ids)) == len(ids)


def test_the_same_cloud_gives_the_same_segments(room) -> None:
    a, b = segment_cloud(*room), segment_cloud(*room)
    assert np.array_equal(a.segment, b.segment) and a.names == b.names


def test_a_larger_min_points_drops_small_clusters(room) -> None:
    seg = segment_cloud(*room, SegmentParams(min_points=3000))  # the box and the bin have fewer
    assert seg.unnamed == [] and "floor" in seg.names.values()


@pytest.mark.parametrize(("xyz", "message"), [
    (np.array([[1.0, 2.0, 3.0]]), "the cloud has 1 point: nothing to segment"),
    (np.tile([1.0, 2.0, 3.0], (500, 1)), "all 500 points of the cloud are at one place"),
    (np.column_stack([np.linspace(0, 1, 50), np.zeros(50), np.zeros(50)]), "lie on one line"),
    (np.array([[0, 0, 0], [1, 0, 0], [0, 1, np.nan], [1, 1, 1.0]]), "NaN or infinite"),
    (np.zeros((0, 3)), "the cloud has 0 points"),
    (np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1e12, 1, 1.0]]), "are its units metres?"),
])
def test_a_cloud_nothing_can_be_segmented_in_is_one_line(xyz, message) -> None:
    with pytest.raises(SceneError) as err:
        segment_cloud(xyz, np.full(xyz.shape, 100.0))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_without_open3d_the_error_names_the_extra(room, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "open3d", None)  # import open3d now raises ImportError
    with pytest.raises(SceneError, match=r"needs Open3D: pip install 'synergai\[segment\]'"):
        segment_cloud(*room)


def test_open3d_missing_a_system_library_says_which_to_install(room, monkeypatch) -> None:
    """Open3D's wheel loads libusb on Linux: a machine without it gets the library to install."""
    import builtins

    real = builtins.__import__

    def broken(name: str, *args: object, **kwargs: object) -> object:
        if name == "open3d":
            raise ImportError("libusb-1.0.so.0: cannot open shared object file: No such file or directory")
        return real(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "open3d", raising=False)
    monkeypatch.setattr(builtins, "__import__", broken)
    with pytest.raises(SceneError, match=r"libusb-1.0.so.0.*install the system library it names") as err:
        segment_cloud(*room)
    assert "apt-get install libusb-1.0-0" in str(err.value) and "\n" not in str(err.value)


def test_the_real_scene0000_00_scan(shared_data: Path) -> None:
    table = np.fromfile(shared_data / "geometry" / "scene0000_00_points_xyzrgb_float32.bin", "<f4")
    table = table.reshape(-1, 6).astype(np.float64)
    m = np.array(json.loads((shared_data / "scannet" / "axis_alignment_matrices.json").read_text())
                 ["scene0000_00"]).reshape(4, 4)
    xyz = table[:, :3] @ m[:3, :3].T + m[:3, 3]
    seg = segment_cloud(xyz, table[:, 3:])
    objects = objects_from_segmentation(seg)
    names = [o.category for o in objects]
    assert names.count("floor") == 1 and names.count("wall") >= 4 and names.count(UNNAMED) >= 10
    floor = next(o for o in objects if o.category == "floor")
    assert abs(floor.min_corner[2]) < 0.1 and floor.size[0] > 5 and floor.size[1] > 5  # a 7 x 7 m room
    lo, hi = xyz.min(axis=0) - 0.02, xyz.max(axis=0) + 0.02
    for o in objects:
        assert np.all(o.min_corner >= lo) and np.all(o.max_corner <= hi), o.id
        if o.category == "wall":
            assert o.size[2] >= 1.2 and max(o.size[:2]) >= 0.8 and min(o.size[:2]) < 0.5
        if o.category == UNNAMED:
            assert o.attributes and o.min_corner[2] > floor.min_corner[2]
    # every down-sampled point is in at most one segment, and most are in one
    assert (seg.segment > 0).mean() > 0.9
