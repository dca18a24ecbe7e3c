"""TriMesh value semantics, PLY reading (vertex order kept), and raw point files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trimesh

from synergai.geometry.errors import GeometryError
from synergai.geometry.mesh import TriMesh, read_ply, read_points_bin


def _binary_ply(v: np.ndarray, rgb: np.ndarray, f: np.ndarray) -> bytes:
    """A binary little-endian PLY laid out like ScanNet's ``_vh_clean_2.ply``."""
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


@pytest.fixture()
def random_mesh() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    v = rng.uniform(-2, 2, (60, 3)).astype(np.float32).astype(np.float64)
    rgb = rng.integers(0, 256, (60, 3)).astype(np.uint8)
    # duplicate vertices on purpose: processing would merge them and reorder the labels
    v[10] = v[11]
    f = rng.integers(0, 60, (90, 3))
    return v, rgb, f


def test_trimesh_validates_and_is_immutable() -> None:
    m = TriMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], [[255, 0, 0]] * 3)
    assert m.vertices.dtype == np.float64 and m.faces.dtype == np.int64
    assert m.vertex_colors is not None and m.vertex_colors.dtype == np.uint8
    with pytest.raises(ValueError):
        m.vertices[0, 0] = 5.0
    np.testing.assert_allclose(m.bounds(), [[0, 0, 0], [1, 1, 0]])
    with pytest.raises(GeometryError, match="out of range"):
        TriMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 3]])
    with pytest.raises(GeometryError, match=r"shape \(V, 3\)"):
        TriMesh([[0, 0], [1, 0]], [])
    with pytest.raises(GeometryError, match="NaN"):
        TriMesh([[0, 0, np.nan]], [])
    with pytest.raises(GeometryError, match="colours"):
        TriMesh([[0, 0, 0]], [], [[1, 2, 3], [4, 5, 6]])
    with pytest.raises(GeometryError, match="empty"):
        TriMesh(np.zeros((0, 3)), []).bounds()
    # float colours in 0..1 are scaled; alpha is dropped
    c = TriMesh([[0, 0, 0]], [], [[1.0, 0.5, 0.0, 1.0]]).vertex_colors
    assert c is not None and c.tolist() == [[255, 128, 0]]


def test_trimesh_round_trip_keeps_order_and_colours(random_mesh) -> None:
    v, rgb, f = random_mesh
    m = TriMesh(v, f, rgb)
    back = TriMesh.from_trimesh(m.to_trimesh())
    np.testing.assert_array_equal(back.vertices, v)
    np.testing.assert_array_equal(back.faces, f)
    np.testing.assert_array_equal(back.vertex_colors, rgb)
    # no colours stays no colours
    assert TriMesh.from_trimesh(trimesh.creation.box()).vertex_colors is None


def test_merge_offsets_faces_and_drops_partial_colours() -> None:
    a = TriMesh.from_trimesh(trimesh.creation.box())
    b = TriMesh.from_trimesh(trimesh.creation.box().apply_translation([3, 0, 0]))
    m = TriMesh.merge([a, b])
    assert m.n_vertices == a.n_vertices + b.n_vertices and m.n_faces == a.n_faces + b.n_faces
    np.testing.assert_allclose(m.vertices[m.faces[a.n_faces:]], b.vertices[b.faces])
    np.testing.assert_allclose(m.bounds(), [[-0.5, -0.5, -0.5], [3.5, 0.5, 0.5]])
    assert m.vertex_colors is None
    ca = TriMesh(a.vertices, a.faces, np.full((a.n_vertices, 3), 10))
    cb = TriMesh(b.vertices, b.faces, np.full((b.n_vertices, 3), 200))
    mc = TriMesh.merge([ca, cb])
    assert mc.vertex_colors is not None and mc.vertex_colors[-1].tolist() == [200, 200, 200]
    assert TriMesh.merge([]).n_faces == 0


def test_submesh_keeps_faces_fully_inside_the_selection() -> None:
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [2, 2, 0]], float)
    m = TriMesh(v, [[0, 1, 2], [1, 3, 2], [3, 4, 2]], np.arange(15).reshape(5, 3))
    sub = m.submesh(np.array([True, True, True, True, False]))
    assert sub.n_vertices == 4 and sub.n_faces == 2
    np.testing.assert_allclose(sub.vertices[sub.faces], v[[[0, 1, 2], [1, 3, 2]]])
    assert sub.vertex_colors is not None and sub.vertex_colors[3].tolist() == [9, 10, 11]
    with pytest.raises(GeometryError, match="mask"):
        m.submesh(np.ones(3, bool))


def test_transformed_applies_homogeneous_matrix() -> None:
    m = TriMesh([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 1, 2]])
    rot_z90 = np.array([[0, -1, 0, 1], [1, 0, 0, 2], [0, 0, 1, 3], [0, 0, 0, 1]], float)
    np.testing.assert_allclose(m.transformed(rot_z90).vertices, [[1, 3, 3], [0, 2, 3], [1, 2, 4]])


def test_read_binary_scannet_style_ply_keeps_vertex_order(tmp_path: Path, random_mesh) -> None:
    v, rgb, f = random_mesh
    p = tmp_path / "scene_vh_clean_2.ply"
    p.write_bytes(_binary_ply(v, rgb, f))
    m = read_ply(p)
    assert (m.n_vertices, m.n_faces) == (60, 90)
    np.testing.assert_allclose(m.vertices, v, atol=1e-6)
    np.testing.assert_array_equal(m.vertex_colors, rgb)
    np.testing.assert_array_equal(m.faces, f)


def test_read_ascii_ply_written_by_trimesh(tmp_path: Path) -> None:
    box = trimesh.creation.box(extents=[1, 2, 3])
    p = tmp_path / "box.ply"
    p.write_bytes(trimesh.exchange.ply.export_ply(box, encoding="ascii"))
    m = read_ply(p)
    np.testing.assert_allclose(m.bounds(), [[-0.5, -1, -1.5], [0.5, 1, 1.5]])
    assert m.n_faces == 12


@pytest.mark.parametrize("cut", [-7, -500, 300, 40])
def test_truncated_ply_raises_geometry_error(tmp_path: Path, random_mesh, cut: int) -> None:
    data = _binary_ply(*random_mesh)
    p = tmp_path / "bad.ply"
    p.write_bytes(data[:cut])
    with pytest.raises(GeometryError, match=r"bad\.ply"):
        read_ply(p)


def test_malformed_ply_raises_geometry_error(tmp_path: Path, random_mesh) -> None:
    v, rgb, f = random_mesh
    p = tmp_path / "junk.ply"
    p.write_bytes(b"this is not a ply file at all")
    with pytest.raises(GeometryError, match=r"junk\.ply"):
        read_ply(p)
    bad = f.copy()
    bad[5, 2] = 999
    p.write_bytes(_binary_ply(v, rgb, bad))
    with pytest.raises(GeometryError, match="out of range"):
        read_ply(p)
    with pytest.raises(GeometryError, match="no such"):
        read_ply(tmp_path / "missing.ply")


def test_read_points_bin(tmp_path: Path, shared_data: Path) -> None:
    xyz, rgb = read_points_bin(shared_data / "geometry" / "scene0000_00_points_xyzrgb_float32.bin")
    assert xyz.shape == (40684, 3) and rgb.shape == (40684, 3) and rgb.dtype == np.uint8
    assert 0 < rgb.mean() < 255 and np.ptp(xyz, axis=0).min() > 2.0  # a room, metres
    p = tmp_path / "odd.bin"
    np.arange(7, dtype="<f4").tofile(p)
    with pytest.raises(GeometryError, match="multiple of 6"):
        read_points_bin(p)
    p2 = tmp_path / "unit.bin"
    np.array([[0, 0, 0, 1.0, 0.5, 0.0]], dtype="<f4").tofile(p2)
    assert read_points_bin(p2)[1].tolist() == [[255, 128, 0]]
