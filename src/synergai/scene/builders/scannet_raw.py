"""Objects and meshes from a raw ScanNet scan directory.

Reads, for scene ``<s>`` in ``scan_dir`` (ScanNet v2 layout ``scans/<s>/``):

- ``<s>_vh_clean_2.ply``: the low-resolution mesh, vertices with red/green/blue(/alpha);
- ``<s>_vh_clean_2.0.010000.segs.json``: ``segIndices``, one over-segment id per mesh vertex;
- ``<s>.aggregation.json``: ``segGroups`` (``objectId``, ``label``, ``segments``), the annotated objects;
- ``<s>.txt`` (optional): the line ``axisAlignment = m00 m01 ... m33`` (row-major 4x4); identity if absent.

Each object is the set of vertices of its segments, axis-aligned; its box is their min/max box and its
colour their mean colour. Its mesh is the faces whose three vertices all belong to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from synergai.geometry.errors import GeometryError
from synergai.geometry.mesh import TriMesh, read_ply
from synergai.scene.builders.pointcloud import object_from_points
from synergai.scene.model import SceneError, SceneObject

PROVENANCE = "scannet-raw"


@dataclass(frozen=True, eq=False)
class RawScene:
    """A scan's annotated objects, one mesh per object, and the whole (aligned) scene mesh."""

    scene_id: str
    objects: list[SceneObject]
    meshes: dict[str, TriMesh]
    scene_mesh: TriMesh
    axis_alignment: np.ndarray = field(default_factory=lambda: np.eye(4))


def scan_files(scan_dir: str | Path, scene_id: str) -> dict[str, Path]:
    """The paths ScanNet uses for one scene: keys ``mesh``, ``segments``, ``aggregation``, ``meta``."""
    d = Path(scan_dir)
    return {
        "mesh": d / f"{scene_id}_vh_clean_2.ply",
        "segments": d / f"{scene_id}_vh_clean_2.0.010000.segs.json",
        "aggregation": d / f"{scene_id}.aggregation.json",
        "meta": d / f"{scene_id}.txt",
    }


def read_axis_alignment(path: str | Path) -> np.ndarray:
    """The 4x4 ``axisAlignment`` of a ScanNet ``<scene>.txt`` (identity when the file or line is absent)."""
    p = Path(path)
    if not p.is_file():
        return np.eye(4)
    for line in p.read_text(errors="replace").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "axisAlignment":
            try:
                nums = [float(t) for t in value.split()]
            except ValueError:
                raise SceneError(f"{p}: axisAlignment has a non-numeric value") from None
            if len(nums) != 16 or not np.all(np.isfinite(nums)):
                raise SceneError(f"{p}: axisAlignment needs 16 finite numbers, got {len(nums)}")
            return np.array(nums, dtype=np.float64).reshape(4, 4)
    return np.eye(4)


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise SceneError(f"{path}: file not found")
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SceneError(f"{path}: invalid JSON ({exc})".splitlines()[0]) from None


def _segment_ids(path: Path, n_vertices: int) -> np.ndarray:
    data = _read_json(path)
    seg = data.get("segIndices") if isinstance(data, dict) else None
    if not isinstance(seg, list):
        raise SceneError(f"{path}: missing 'segIndices' list")
    try:
        arr = np.asarray(seg, dtype=np.int64)
    except (TypeError, ValueError):
        raise SceneError(f"{path}: 'segIndices' must be integers") from None
    if arr.ndim != 1 or len(arr) != n_vertices:
        raise SceneError(f"{path}: {arr.size} segment ids for {n_vertices} mesh vertices")
    return arr


def _groups(path: Path) -> list[tuple[str, str, list[int]]]:
    data = _read_json(path)
    groups = data.get("segGroups") if isinstance(data, dict) else None
    if not isinstance(groups, list):
        raise SceneError(f"{path}: missing 'segGroups' list")
    out: list[tuple[str, str, list[int]]] = []
    seen: set[str] = set()
    for k, g in enumerate(groups):
        if not isinstance(g, dict):
            raise SceneError(f"{path}: segGroups[{k}] is not an object")
        oid = g.get("objectId", g.get("id"))
        label, segs = g.get("label"), g.get("segments")
        if not isinstance(oid, int) or isinstance(oid, bool):
            raise SceneError(f"{path}: segGroups[{k}] has no integer objectId")
        if not isinstance(label, str) or not label.strip():
            raise SceneError(f"{path}: object {oid} has no label")
        if not isinstance(segs, list) or not segs or not all(isinstance(s, int) for s in segs):
            raise SceneError(f"{path}: object {oid} needs a non-empty list of integer segments")
        if str(oid) in seen:
            raise SceneError(f"{path}: duplicate objectId {oid}")
        seen.add(str(oid))
        out.append((str(oid), label.strip(), segs))
    return out


def load_scannet_scene(scan_dir: str | Path, scene_id: str | None = None, *, align: bool = True) -> RawScene:
    """Objects (id = ``str(objectId)``, category = label, provenance "scannet-raw") and meshes of one scan.

    ``scene_id`` defaults to the directory name. With ``align`` the scan's axis alignment is applied to
    every vertex (z up, walls along the axes), as ScanNet's benchmark boxes are.
    Missing or inconsistent files raise :class:`SceneError` naming the file.
    """
    d = Path(scan_dir)
    sid = scene_id or d.name
    files = scan_files(d, sid)
    try:
        mesh = read_ply(files["mesh"])
    except GeometryError as exc:
        raise SceneError(str(exc)) from None
    matrix = read_axis_alignment(files["meta"]) if align else np.eye(4)
    mesh = mesh.transformed(matrix)
    seg = _segment_ids(files["segments"], mesh.n_vertices)
    groups = _groups(files["aggregation"])
    uniq, inverse = np.unique(seg, return_inverse=True)
    known = set(uniq.tolist())
    objects: list[SceneObject] = []
    meshes: dict[str, TriMesh] = {}
    for oid, label, segs in groups:
        unknown = sorted(set(segs) - known)
        if unknown:
            raise SceneError(f"{files['aggregation']}: object {oid} has unknown segment ids {unknown[:5]}")
        vmask = np.isin(uniq, segs)[inverse]
        colors = mesh.vertex_colors[vmask] if mesh.vertex_colors is not None else None
        objects.append(object_from_points(oid, label, mesh.vertices[vmask], colors, provenance=PROVENANCE))
        meshes[oid] = mesh.submesh(vmask)
    return RawScene(sid, objects, meshes, mesh, matrix)
