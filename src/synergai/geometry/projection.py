"""Pinhole projection of points into an image with a z-buffer (the nearest point wins each pixel).

Camera axes follow OpenCV (and ROS's ``*_optical_frame``): x right, y down, z forward; pixel ``(u, v)``
(column, row) has its centre at integer coordinates.
"""

from __future__ import annotations

import numpy as np


def look_at(
    eye: np.ndarray, forward: np.ndarray, up: tuple[float, float, float] = (0.0, 0.0, 1.0)
) -> np.ndarray:
    """Camera-to-world 4x4 pose of a camera at ``eye`` looking along ``forward`` (OpenCV axes, z-up world)."""
    f = np.asarray(forward, dtype=np.float64)
    f = f / np.linalg.norm(f)
    right = np.cross(f, np.asarray(up, dtype=np.float64))
    if np.linalg.norm(right) < 1e-9:
        raise ValueError("look_at: the viewing direction is parallel to up")
    right /= np.linalg.norm(right)
    pose = np.eye(4)
    pose[:3, :3] = np.stack([right, np.cross(f, right), f], axis=1)
    pose[:3, 3] = eye
    return pose


def splat_points(
    xyz: np.ndarray, cam_to_world: np.ndarray, intrinsics: np.ndarray, size: tuple[int, int],
    *, near: float = 0.1,
) -> tuple[np.ndarray, np.ndarray]:
    """Z-depth image (metres, 0 = empty) and, per pixel, the index of the point seen there (-1 = none).

    ``size`` is ``(height, width)``. Each point lands on its nearest pixel; points nearer than ``near``
    are dropped.
    """
    h, w = size
    pose = np.asarray(cam_to_world, dtype=np.float64)
    k = np.asarray(intrinsics, dtype=np.float64)
    cam = (np.asarray(xyz, dtype=np.float64) - pose[:3, 3]) @ pose[:3, :3]
    ahead = np.flatnonzero(cam[:, 2] > near)
    z = cam[ahead, 2]
    u = np.round(k[0, 0] * cam[ahead, 0] / z + k[0, 1] * cam[ahead, 1] / z + k[0, 2]).astype(np.int64)
    v = np.round(k[1, 1] * cam[ahead, 1] / z + k[1, 2]).astype(np.int64)
    inside = (u >= 0) & (u < w) & (v >= 0) & (v < h)
    idx, u, v, z = ahead[inside], u[inside], v[inside], z[inside]
    order = np.argsort(-z, kind="stable")  # farthest first: the nearest point is written last and wins
    depth = np.zeros((h, w), dtype=np.float64)
    index = np.full((h, w), -1, dtype=np.int64)
    depth[v[order], u[order]] = z[order]
    index[v[order], u[order]] = idx[order]
    return depth, index
