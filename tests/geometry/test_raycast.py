"""Ray picking on known geometry, backend agreement on random rays, and box picking."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from synergai.geometry.boxes import BoxArray
from synergai.geometry.errors import GeometryError
from synergai.geometry.mesh import TriMesh
from synergai.geometry.raycast import RayPicker, embree_available, pick_boxes

BACKENDS = ["numpy", "embree"]


def _box(center, size) -> TriMesh:
    return TriMesh.from_trimesh(trimesh.creation.box(extents=size).apply_translation(center))


@pytest.fixture()
def two_boxes() -> dict[str, TriMesh]:
    # "near" spans x in [1, 2], "far" spans x in [4, 6]; both centred on the x axis
    return {"near": _box([1.5, 0, 0], [1, 1, 1]), "far": _box([5, 0, 0], [2, 2, 2])}


def test_embree_is_installed_here() -> None:
    assert embree_available()
    assert RayPicker({"a": _box([0, 0, 0], [1, 1, 1])}).backend == "embree"


@pytest.mark.parametrize("backend", BACKENDS)
def test_ray_hits_the_nearer_of_two_boxes(two_boxes, backend) -> None:
    picker = RayPicker(two_boxes, backend=backend)
    hit = picker.pick([0, 0, 0], [1, 0, 0])
    assert hit is not None and hit.object_id == "near"
    assert hit.distance == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_allclose(hit.point, [1, 0, 0], atol=1e-5)
    # from the other side, the far box is first; direction need not be unit length
    hit = picker.pick([10, 0.2, 0.1], [-3, 0, 0])
    assert hit is not None and hit.object_id == "far"
    assert hit.distance == pytest.approx(4.0, abs=1e-5)
    # a ray passing above the near box (z = 0.8) but through the far one (z up to 1)
    hit = picker.pick([0, 0, 0.8], [1, 0, 0])
    assert hit is not None and hit.object_id == "far"
    assert hit.distance == pytest.approx(4.0, abs=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_misses_return_none(two_boxes, backend) -> None:
    picker = RayPicker(two_boxes, backend=backend)
    assert picker.pick([0, 0, 0], [-1, 0, 0]) is None  # pointing away
    assert picker.pick([0, 5, 0], [1, 0, 0]) is None  # passes beside both
    assert picker.pick([0, 0, 3], [0, 0, 1]) is None  # straight up
    assert RayPicker({}, backend=backend).pick([0, 0, 0], [1, 0, 0]) is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_origin_inside_a_mesh_hits_its_inner_wall(two_boxes, backend) -> None:
    hit = RayPicker(two_boxes, backend=backend).pick([5, 0, 0], [0, 0, -1])
    assert hit is not None and hit.object_id == "far" and hit.distance == pytest.approx(1.0, abs=1e-5)


def test_bad_input_raises() -> None:
    picker = RayPicker({"a": _box([0, 0, 0], [1, 1, 1])}, backend="numpy")
    with pytest.raises(GeometryError, match="zero"):
        picker.pick([0, 0, 0], [0, 0, 0])
    with pytest.raises(GeometryError, match="3 numbers"):
        picker.pick([0, 0], [1, 0, 0])
    with pytest.raises(GeometryError, match="finite"):
        picker.pick([0, 0, np.inf], [1, 0, 0])
    with pytest.raises(GeometryError, match="unknown ray backend"):
        RayPicker({}, backend="optix")  # type: ignore[arg-type]


def test_both_backends_agree_on_random_rays() -> None:
    rng = np.random.default_rng(3)
    meshes, centers = {}, rng.uniform(-3, 3, (16, 3))
    for k in range(12):
        meshes[f"b{k}"] = _box(centers[k], rng.uniform(0.2, 1.2, 3))
    for k in range(12, 16):
        s = trimesh.creation.icosphere(subdivisions=3, radius=rng.uniform(0.3, 0.7))
        meshes[f"s{k}"] = TriMesh.from_trimesh(s.apply_translation(centers[k]))
    # rays from outside towards (near) object centres, plus fully random rays
    origins = rng.uniform(-8, 8, (600, 3))
    dirs = centers[rng.integers(0, 16, 600)] + rng.uniform(-0.6, 0.6, (600, 3)) - origins
    dirs[400:] = rng.normal(size=(200, 3))
    a = RayPicker(meshes, backend="embree").pick_many(origins, dirs)
    b = RayPicker(meshes, backend="numpy").pick_many(origins, dirs)
    n_hits = sum(h is not None for h in a)
    assert n_hits > 200  # the test is about hits, not about misses
    for ha, hb in zip(a, b, strict=True):
        assert (ha is None) == (hb is None)
        if ha is not None and hb is not None:
            assert ha.object_id == hb.object_id
            assert ha.distance == pytest.approx(hb.distance, abs=1e-4)
            np.testing.assert_allclose(ha.point, hb.point, atol=1e-4)
    # single picks match the batched call
    picker = RayPicker(meshes, backend="numpy")
    for k in (0, 17, 401):
        assert picker.pick(origins[k], dirs[k]) == b[k]


def test_pick_boxes_slab_test() -> None:
    boxes = BoxArray.from_center_size(np.array([[1.5, 0, 0], [5, 0, 0], [0, 0, 0]]),
                                      np.array([[1, 1, 1], [2, 2, 2], [0.5, 0.5, 0.5]]))
    ids = ["near", "far", "around-origin"]
    hit = pick_boxes(boxes, ids, [0, 0, 0], [1, 0, 0])
    # the box containing the origin is seen through
    assert hit is not None and hit.object_id == "near" and hit.distance == pytest.approx(1.0)
    # axis-parallel ray in the plane of a face still hits (direction has zero components)
    hit = pick_boxes(boxes, ids, [0, 0.5, 0], [1, 0, 0])
    assert hit is not None and hit.object_id == "near"
    hit = pick_boxes(boxes, ids, [5, 5, 0], [0, -1, 0])
    assert hit is not None and hit.object_id == "far" and hit.point == pytest.approx((5, 1, 0))
    assert pick_boxes(boxes, ids, [0, 3, 0], [1, 0, 0]) is None
    assert pick_boxes(BoxArray(np.zeros((0, 3)), np.zeros((0, 3))), [], [0, 0, 0], [1, 0, 0]) is None
    with pytest.raises(GeometryError, match="ids"):
        pick_boxes(boxes, ids[:2], [0, 0, 0], [1, 0, 0])


def test_pick_boxes_agrees_with_mesh_picking_on_box_meshes() -> None:
    rng = np.random.default_rng(11)
    centers, sizes = rng.uniform(-3, 3, (10, 3)), rng.uniform(0.3, 1.0, (10, 3))
    boxes = BoxArray.from_center_size(centers, sizes)
    ids = [str(k) for k in range(10)]
    picker = RayPicker({i: _box(c, s) for i, c, s in zip(ids, centers, sizes, strict=True)}, backend="numpy")
    n = 0
    for _ in range(200):
        o = rng.uniform(-8, 8, 3)
        while np.any(np.all((o >= boxes.mins) & (o <= boxes.maxs), axis=1)):
            o = rng.uniform(-8, 8, 3)
        d = centers[rng.integers(0, 10)] + rng.uniform(-0.5, 0.5, 3) - o
        hb, hm = pick_boxes(boxes, ids, o, d), picker.pick(o, d)
        assert (hb is None) == (hm is None)
        if hb is not None and hm is not None:
            n += 1
            assert hb.object_id == hm.object_id and hb.distance == pytest.approx(hm.distance, abs=1e-6)
    assert n > 80
