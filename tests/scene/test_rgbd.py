"""Posed RGB-D fusion on frames rendered (by ray casting) from known boxes on a floor."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from synergai.geometry.mesh import TriMesh
from synergai.geometry.raycast import RayPicker
from synergai.scene.builders.rgbd import (
    RGBDFrame,
    VoxelGrid,
    backproject,
    fuse_frames,
    objects_from_rgbd,
    voxel_downsample,
)
from synergai.scene.model import ObjectKind, SceneError

# the world: a floor (top at z = 0), a red box and a blue bin standing on it
BOX_MIN, BOX_MAX = np.array([0.0, -0.1, 0.0]), np.array([0.6, 0.3, 0.5])
BIN_MIN, BIN_MAX = np.array([-0.9, 0.4, 0.0]), np.array([-0.6, 0.7, 0.4])
COLORS = {"floor": (128, 128, 128), "box": (190, 40, 40), "bin": (50, 90, 180)}
W, H, F = 128, 96, 100.0
K = np.array([[F, 0, (W - 1) / 2], [0, F, (H - 1) / 2], [0, 0, 1]])


def _mesh(lo, hi) -> TriMesh:
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return TriMesh.from_trimesh(trimesh.creation.box(extents=hi - lo).apply_translation((lo + hi) / 2))


@pytest.fixture(scope="module")
def picker() -> RayPicker:
    return RayPicker({
        "floor": _mesh([-3, -3, -0.02], [3, 3, 0]),
        "box": _mesh(BOX_MIN, BOX_MAX),
        "bin": _mesh(BIN_MIN, BIN_MAX),
    })


def look_at(eye, target) -> np.ndarray:
    """Camera-to-world pose (OpenCV axes: x right, y down, z forward) looking from eye at target."""
    f = np.asarray(target, float) - eye
    f /= np.linalg.norm(f)
    r = np.cross(f, [0, 0, 1.0])
    r /= np.linalg.norm(r)
    pose = np.eye(4)
    pose[:3, :3] = np.stack([r, np.cross(f, r), f], axis=1)
    pose[:3, 3] = eye
    return pose


def render(picker: RayPicker, pose: np.ndarray, ids: dict[str, int]) -> RGBDFrame:
    """Depth, colour and instance images of the world seen from ``pose`` (ids: name -> mask id)."""
    v, u = np.mgrid[0:H, 0:W]
    d_cam = np.stack([(u - K[0, 2]) / F, (v - K[1, 2]) / F, np.ones_like(u, float)], axis=-1).reshape(-1, 3)
    dirs = d_cam @ pose[:3, :3].T
    hits = picker.pick_many(np.tile(pose[:3, 3], (len(dirs), 1)), dirs)
    depth, color, inst = np.zeros(H * W), np.zeros((H * W, 3), np.uint8), np.zeros(H * W, np.int64)
    norms = np.linalg.norm(d_cam, axis=1)
    for k, h in enumerate(hits):
        if h is not None:
            depth[k] = h.distance / norms[k]  # z-depth, not range
            color[k] = COLORS[h.object_id]
            inst[k] = ids[h.object_id]
    return RGBDFrame(depth.reshape(H, W), color.reshape(H, W, 3), inst.reshape(H, W), K, pose,
                     labels={i: name for name, i in ids.items()})


EYES = [(2.0, -1.6, 1.4), (-1.8, -1.8, 1.5), (-1.6, 2.0, 1.3), (2.0, 1.8, 1.6)]


@pytest.fixture(scope="module")
def local_frames(picker) -> list[RGBDFrame]:
    """Four views around the objects; every frame numbers its instances its own way."""
    frames = []
    for n, eye in enumerate(EYES):
        ids = {"floor": 1 + 10 * n, "box": 5 + n, "bin": 40 - n}
        frames.append(render(picker, look_at(np.array(eye), [-0.1, 0.3, 0.25]), ids))
    return frames


@pytest.fixture(scope="module")
def global_frames(picker) -> list[RGBDFrame]:
    ids = {"floor": 1, "box": 2, "bin": 3}
    return [render(picker, look_at(np.array(eye), [-0.1, 0.3, 0.25]), ids) for eye in EYES]


def _check_objects(objs) -> None:
    by_cat = {o.category: o for o in objs}
    assert sorted(by_cat) == ["bin", "box", "floor"] and len(objs) == 3
    for name, lo, hi in (("box", BOX_MIN, BOX_MAX), ("bin", BIN_MIN, BIN_MAX)):
        o = by_cat[name]
        np.testing.assert_allclose(o.min_corner, lo, atol=0.02)
        np.testing.assert_allclose(o.max_corner, hi, atol=0.02)
        assert o.color == COLORS[name] and o.provenance == "rgbd"
    assert by_cat["box"].attributes == ("red",) and by_cat["bin"].attributes == ("blue",)
    floor = by_cat["floor"]
    assert floor.kind is ObjectKind.FLOOR and abs(floor.max_corner[2]) < 0.02 and floor.size[2] < 0.03


def test_frame_local_ids_are_merged_by_overlap(local_frames) -> None:
    objs = objects_from_rgbd(local_frames, voxel=0.01, merge="overlap")
    _check_objects(objs)
    assert sorted(o.id for o in objs) == ["1", "2", "3"]  # fused ids are new and dense


def test_scene_wide_ids_are_kept(global_frames) -> None:
    objs = objects_from_rgbd(global_frames, voxel=0.01, merge="ids")
    _check_objects(objs)
    assert {o.id: o.category for o in objs} == {"1": "floor", "2": "box", "3": "bin"}


def test_local_ids_taken_as_scene_wide_ids_split_objects(local_frames) -> None:
    # the same frames with merge="ids": every view's ids become separate objects (4 per real object)
    objs = objects_from_rgbd(local_frames, voxel=0.01, merge="ids")
    assert len(objs) == 12 and sorted({o.category for o in objs}) == ["bin", "box", "floor"]


def test_conflicting_labels_for_one_scene_wide_id(global_frames) -> None:
    f = global_frames[1]
    relabelled = RGBDFrame(f.depth, f.color, f.instance, f.intrinsics, f.cam_to_world,
                           {1: "floor", 2: "crate", 3: "bin"})
    with pytest.raises(SceneError, match="frame 1: instance 2 is 'crate' here but 'box' before"):
        fuse_frames([global_frames[0], relabelled], merge="ids")


def test_backproject_single_pixel_exactly() -> None:
    depth = np.zeros((4, 6))
    depth[1, 4] = 2.0  # row 1, column 4
    k = np.array([[50.0, 0, 2.5], [0, 40.0, 1.5], [0, 0, 1]])
    pose = np.eye(4)
    pose[:3, 3] = [1, 2, 3]
    pose[:3, :3] = [[0, 0, 1], [-1, 0, 0], [0, -1, 0]]  # camera looks along +x, its x points to -y
    f = RGBDFrame(depth, np.full((4, 6, 3), 7, np.uint8), np.full((4, 6), 9), k, pose)
    xyz, rgb, inst = backproject(f)
    cam = np.array([(4 - 2.5) * 2.0 / 50.0, (1 - 1.5) * 2.0 / 40.0, 2.0])
    np.testing.assert_allclose(xyz, [pose[:3, :3] @ cam + [1, 2, 3]])
    assert rgb.tolist() == [[7, 7, 7]] and inst.tolist() == [9]
    depth[0, 0], depth[2, 2], depth[3, 3] = np.nan, 0.05, 50.0  # invalid, too near, too far
    assert len(backproject(RGBDFrame(depth, f.color, f.instance, k, pose))[0]) == 1


def test_voxel_downsample_means_and_majority() -> None:
    xyz = np.array([[0.01, 0.01, 0.01], [0.03, 0.01, 0.01], [0.02, 0.02, 0.02], [0.5, 0.5, 0.5]])
    rgb = np.array([[0, 0, 0], [30, 30, 30], [60, 60, 60], [9, 9, 9]])
    inst = np.array([4, 2, 4, 7])
    p, c, i = voxel_downsample(xyz, rgb, inst, voxel=0.1)
    assert len(p) == 2
    k = int(np.argmin(p[:, 0]))
    np.testing.assert_allclose(p[k], [0.02, 0.04 / 3, 0.04 / 3])
    assert c[k].tolist() == [30, 30, 30] and i[k] == 4 and i[1 - k] == 7


def test_bad_frames_and_options_raise() -> None:
    d = np.ones((4, 6))
    col, inst = np.zeros((4, 6, 3), np.uint8), np.zeros((4, 6), int)
    with pytest.raises(SceneError, match="colour image"):
        RGBDFrame(d, col[:3], inst, K, np.eye(4))
    with pytest.raises(SceneError, match="instance mask"):
        RGBDFrame(d, col, inst.astype(float), K, np.eye(4))
    with pytest.raises(SceneError, match="intrinsics"):
        RGBDFrame(d, col, inst, np.eye(2), np.eye(4))
    skewed = np.eye(4)
    skewed[0, 1] = 0.5
    with pytest.raises(SceneError, match="orthonormal"):
        RGBDFrame(d, col, inst, K, skewed)
    frame = RGBDFrame(d, col, np.full((4, 6), 3), K, np.eye(4))
    with pytest.raises(SceneError, match="no label for instance id 3"):
        fuse_frames([frame])
    assert fuse_frames([frame], {3: "thing"}).labels == {3: "thing"}
    with pytest.raises(SceneError, match="merge mode"):
        fuse_frames([frame], {3: "thing"}, merge="magic")  # type: ignore[arg-type]
    with pytest.raises(SceneError, match="no frames"):
        fuse_frames([])


def test_voxel_grid_in_batches_equals_all_points_at_once() -> None:
    rng = np.random.default_rng(7)
    xyz = rng.uniform(-0.5, 0.5, size=(5000, 3))
    rgb = rng.integers(0, 256, size=(5000, 3))
    inst = rng.integers(0, 4, size=5000)  # few ids on few points a voxel: many ties
    whole = voxel_downsample(xyz, rgb, inst, voxel=0.1)
    grid = VoxelGrid(0.1, batch=333)
    for lo in range(0, 5000, 250):
        grid.add(xyz[lo : lo + 250], rgb[lo : lo + 250], inst[lo : lo + 250])
    batched = grid.result()
    np.testing.assert_allclose(batched[0], whole[0], atol=1e-12)
    assert np.array_equal(batched[1], whole[1]) and np.array_equal(batched[2], whole[2])
    # against a plain loop over voxels: mean position, and the most frequent id (ties: the larger)
    keys = np.floor(xyz / 0.1).astype(int)
    for k, (p, i) in enumerate(zip(batched[0], batched[2], strict=True)):
        sel = np.all(keys == np.floor(p / 0.1).astype(int), axis=1)
        np.testing.assert_allclose(p, xyz[sel].mean(axis=0), atol=1e-12)
        ids, counts = np.unique(inst[sel], return_counts=True)
        assert i == ids[counts == counts.max()].max(), k
    assert len(grid) == len(whole[0]) and len(VoxelGrid(0.1)) == 0
