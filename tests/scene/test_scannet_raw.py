"""Raw ScanNet builder on small scans written in exactly ScanNet's file formats."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import trimesh

from synergai.scene.attributes import color_name
from synergai.scene.builders.scannet_raw import load_scannet_scene, read_axis_alignment, scan_files
from synergai.scene.model import ObjectKind, SceneError

SID = "scene0999_00"
# axis alignment: rotate 30 degrees about z and shift, like ScanNet's matrices
_C, _S = np.cos(np.pi / 6), np.sin(np.pi / 6)
ALIGN = np.array([[_C, _S, 0, -2.5], [-_S, _C, 0, 1.25], [0, 0, 1, -0.06], [0, 0, 0, 1]])
# object id -> (label, aligned centre, size, colour); "clutter" is in the mesh but not annotated
OBJECTS = {
    0: ("floor", (0.0, 0.0, -0.01), (4.0, 3.0, 0.02), (128, 128, 128)),
    3: ("table", (0.5, 0.2, 0.375), (1.2, 0.8, 0.75), (120, 80, 50)),
    7: ("chair", (0.5, 1.0, 0.45), (0.45, 0.45, 0.9), (190, 40, 40)),
}
CLUTTER = ((-1.5, -1.0, 0.2), (0.3, 0.3, 0.4), (30, 40, 95))


def _ply_bytes(v: np.ndarray, rgb: np.ndarray, f: np.ndarray) -> bytes:
    head = (
        "ply\nformat binary_little_endian 1.0\n"
        f"element vertex {len(v)}\nproperty float x\nproperty float y\nproperty float z\n"
        "property uchar red\nproperty uchar green\nproperty uchar blue\nproperty uchar alpha\n"
        f"element face {len(f)}\nproperty list uchar int vertex_indices\nend_header\n"
    ).encode()
    vd = np.zeros(len(v), dtype=[("p", "<f4", (3,)), ("c", "u1", (4,))])
    vd["p"], vd["c"][:, :3], vd["c"][:, 3] = v, rgb, 255
    fd = np.zeros(len(f), dtype=[("n", "u1"), ("i", "<i4", (3,))])
    fd["n"], fd["i"] = 3, f
    return head + vd.tobytes() + fd.tobytes()


def write_scan(root: Path, *, shuffle: bool = True) -> Path:
    """A scan directory ``root/SID`` with the four ScanNet files; returns it."""
    d = root / SID
    d.mkdir(parents=True)
    verts, cols, faces, seg = [], [], [], []
    groups = []
    n = 0
    items = [*[(oid, *spec) for oid, spec in OBJECTS.items()], (None, "clutter", *CLUTTER)]
    for oid, label, center, size, color in items:
        box = trimesh.creation.box(extents=size).apply_translation(center)
        k = len(box.vertices)
        verts.append(np.asarray(box.vertices))
        cols.append(np.tile(color, (k, 1)))
        faces.append(np.asarray(box.faces) + n)
        base = 1000 + 10 * (oid if oid is not None else 99)
        s = np.where(np.arange(k) % 2 == 0, base, base + 1)  # two over-segments per object
        seg.append(s)
        if oid is not None:
            groups.append({"id": oid, "objectId": oid, "segments": [base, base + 1], "label": label})
        n += k
    v, c, f, s = np.concatenate(verts), np.concatenate(cols), np.concatenate(faces), np.concatenate(seg)
    if shuffle:  # interleave vertices of different objects, as a real mesh does
        perm = np.random.default_rng(0).permutation(len(v))
        inv = np.argsort(perm)
        v, c, s, f = v[perm], c[perm], s[perm], inv[f]
    raw = (v - ALIGN[:3, 3]) @ np.linalg.inv(ALIGN[:3, :3]).T  # vertices in the raw scan frame
    files = scan_files(d, SID)
    files["mesh"].write_bytes(_ply_bytes(raw, c, f))
    files["segments"].write_text(json.dumps({
        "params": {"kThresh": "0.0001", "segMinVerts": "20", "minPoints": "750", "maxPoints": "5000",
                   "thinThresh": "0.05", "flatThresh": "0.001", "minLength": "0.02", "maxLength": "1"},
        "sceneId": SID, "segIndices": s.tolist()}))
    files["aggregation"].write_text(json.dumps({
        "sceneId": f"scannet.{SID}", "appId": "Annotator.v1", "segGroups": groups,
        "segmentsFile": f"scannet.{SID}_vh_clean_2.0.010000.segs.json"}))
    files["meta"].write_text(
        "axisAlignment = " + " ".join(f"{x:.9f}" for x in ALIGN.ravel()) + "\ncolorHeight = 968\n"
        "colorWidth = 1296\nsceneType = Living room / Lounge\n")
    return d


def test_objects_boxes_colours_and_kinds(tmp_path: Path) -> None:
    scene = load_scannet_scene(write_scan(tmp_path))
    assert scene.scene_id == SID
    assert [o.id for o in scene.objects] == ["0", "3", "7"]
    np.testing.assert_allclose(scene.axis_alignment, ALIGN, atol=1e-9)
    for o in scene.objects:
        label, center, size, color = OBJECTS[int(o.id)]
        assert o.category == label and o.provenance == "scannet-raw"
        np.testing.assert_allclose(o.center, center, atol=1e-5)
        np.testing.assert_allclose(o.size, size, atol=1e-5)
        assert o.color == color and o.attributes == (color_name(color),)
    kinds = {o.category: o.kind for o in scene.objects}
    assert kinds == {"floor": ObjectKind.FLOOR, "table": ObjectKind.OBJECT, "chair": ObjectKind.OBJECT}


def test_object_meshes_and_scene_mesh(tmp_path: Path) -> None:
    scene = load_scannet_scene(write_scan(tmp_path))
    assert scene.scene_mesh.n_vertices == 32 and scene.scene_mesh.n_faces == 48  # clutter included
    np.testing.assert_allclose(scene.scene_mesh.bounds()[0], [-2.0, -1.5, -0.02], atol=1e-5)
    assert set(scene.meshes) == {"0", "3", "7"}
    for o in scene.objects:
        m = scene.meshes[o.id]
        assert m.n_faces == 12 and m.n_vertices == 8  # only faces fully inside the object
        np.testing.assert_allclose(m.bounds(), [o.min_corner, o.max_corner], atol=1e-5)
        assert m.vertex_colors is not None and (m.vertex_colors == OBJECTS[int(o.id)][3]).all()


def test_unaligned_loading_keeps_the_raw_frame(tmp_path: Path) -> None:
    d = write_scan(tmp_path)
    raw = load_scannet_scene(d, align=False)
    table = next(o for o in raw.objects if o.category == "table")
    # the raw-frame box of a rotated table is larger than the aligned one
    assert table.size[0] > 1.25 and table.size[1] > 0.85
    files = scan_files(d, SID)
    files["meta"].unlink()
    assert np.array_equal(read_axis_alignment(files["meta"]), np.eye(4))
    same = load_scannet_scene(d)  # no .txt: identity, i.e. the raw frame
    assert same.objects[1].size == pytest.approx(table.size)


def test_shuffled_vertex_order_is_respected(tmp_path: Path) -> None:
    a = load_scannet_scene(write_scan(tmp_path / "a", shuffle=True))
    b = load_scannet_scene(write_scan(tmp_path / "b", shuffle=False))
    for oa, ob in zip(a.objects, b.objects, strict=True):
        np.testing.assert_allclose(oa.center, ob.center, atol=1e-6)
        np.testing.assert_allclose(oa.size, ob.size, atol=1e-6)


def _edit_json(path: Path, fn) -> None:
    data = json.loads(path.read_text())
    fn(data)
    path.write_text(json.dumps(data))


def test_segment_count_mismatch_names_the_segs_file(tmp_path: Path) -> None:
    d = write_scan(tmp_path)
    _edit_json(scan_files(d, SID)["segments"], lambda j: j["segIndices"].pop())
    with pytest.raises(SceneError, match=r"segs\.json: 31 segment ids for 32 mesh vertices"):
        load_scannet_scene(d)


def test_unknown_segment_ids_name_the_aggregation_file(tmp_path: Path) -> None:
    d = write_scan(tmp_path)
    _edit_json(scan_files(d, SID)["aggregation"], lambda j: j["segGroups"][1]["segments"].append(424242))
    with pytest.raises(SceneError, match=r"aggregation\.json: object 3 has unknown segment ids \[424242\]"):
        load_scannet_scene(d)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda j: j.pop("segGroups"), "missing 'segGroups'"),
        (lambda j: j["segGroups"][0].pop("label"), "object 0 has no label"),
        (lambda j: j["segGroups"][2].update(segments=[]), "object 7 needs a non-empty list"),
        (lambda j: j["segGroups"][2].update(objectId=3), "duplicate objectId 3"),
        (lambda j: j["segGroups"][2].pop("objectId") and j["segGroups"][2].pop("id"), "no integer objectId"),
    ],
)
def test_malformed_aggregation(tmp_path: Path, edit, message: str) -> None:
    d = write_scan(tmp_path)
    _edit_json(scan_files(d, SID)["aggregation"], edit)
    with pytest.raises(SceneError, match=message):
        load_scannet_scene(d)


def test_missing_broken_and_bad_files(tmp_path: Path) -> None:
    d = write_scan(tmp_path)
    files = scan_files(d, SID)
    files["meta"].write_text("axisAlignment = 1 0 0 0 1\n")
    with pytest.raises(SceneError, match=r"scene0999_00\.txt: axisAlignment needs 16"):
        load_scannet_scene(d)
    files["meta"].unlink()
    files["segments"].write_text("{not json")
    with pytest.raises(SceneError, match=r"segs\.json: invalid JSON"):
        load_scannet_scene(d)
    files["segments"].unlink()
    with pytest.raises(SceneError, match=r"segs\.json: file not found"):
        load_scannet_scene(d)
    data = files["mesh"].read_bytes()
    files["mesh"].write_bytes(data[:-40])
    with pytest.raises(SceneError, match=r"_vh_clean_2\.ply: malformed PLY"):
        load_scannet_scene(d)
    files["mesh"].unlink()
    with pytest.raises(SceneError, match="no such PLY"):
        load_scannet_scene(d)
