"""The real scene0000_00 scan (../shared/data/geometry), instance-labelled, and RGB-D frames rendered from it.

Instance labels are made without clustering (floor slab, ceiling slab, 1 m cells in between), so every
builder's boxes can be checked against plain numpy on the same points.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from synergai.geometry.projection import look_at, splat_points
from synergai.scene.builders.rgbd import RGBDFrame

SCENE = "scene0000_00"


def labelled_cloud(shared_data: Path) -> dict:
    """The real points (raw frame), their alignment, and instance ids / labels made in the aligned frame."""
    path = shared_data / "geometry" / "scene0000_00_points_xyzrgb_float32.bin"
    table = np.fromfile(path, dtype="<f4").reshape(-1, 6).astype(np.float64)
    matrix = np.array(
        json.loads((shared_data / "scannet" / "axis_alignment_matrices.json").read_text())[SCENE], dtype=float
    ).reshape(4, 4)
    aligned = table[:, :3] @ matrix[:3, :3].T + matrix[:3, 3]
    inst = np.zeros(len(table), dtype=np.int64)
    floor, upper = aligned[:, 2] < 0.05, aligned[:, 2] > 2.2
    mid = ~floor & ~upper
    inst[mid] = (
        100 + (np.floor(aligned[mid, 0]).astype(int) + 10) * 100 + np.floor(aligned[mid, 1]).astype(int) + 10
    )
    inst[floor], inst[upper] = 1, 2
    labels = {int(i): "box" for i in np.unique(inst)} | {1: "floor", 2: "ceiling"}
    return {
        "path": path,
        "xyz": table[:, :3],
        "rgb": table[:, 3:],
        "aligned": aligned,
        "matrix": matrix,
        "inst": inst,
        "labels": labels,
        "alignments": shared_data / "scannet" / "axis_alignment_matrices.json",
    }


def expected_boxes(cloud: dict, min_points: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Instance id -> (min corner, max corner) of its aligned points, for instances with enough points."""
    out = {}
    for i in np.unique(cloud["inst"]):
        pts = cloud["aligned"][cloud["inst"] == i]
        if len(pts) >= min_points:
            out[str(int(i))] = (pts.min(axis=0), pts.max(axis=0))
    return out


def orbit_frames(
    cloud: dict, n: int = 8, size: tuple[int, int] = (120, 160), f: float = 80.0
) -> list[RGBDFrame]:
    """``n`` views (height, width ``size``) from the scan's centre at 1.4 m, turning around, looking down."""
    h, w = size
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    xyz = cloud["aligned"]
    centre = xyz.mean(axis=0)
    eye = np.array([centre[0], centre[1], 1.4])
    frames = []
    for angle in np.arange(n) * 2 * np.pi / n:
        pose = look_at(eye, np.array([np.cos(angle), np.sin(angle), -0.5]))
        depth, index = splat_points(xyz, pose, k, (h, w))
        seen = index >= 0
        color = np.zeros((h, w, 3), np.uint8)
        inst = np.zeros((h, w), np.int64)
        color[seen] = cloud["rgb"][index[seen]].astype(np.uint8)
        inst[seen] = cloud["inst"][index[seen]]
        frames.append(RGBDFrame(np.round(depth * 1000) / 1000, color, inst, k, pose, cloud["labels"]))
    return frames
