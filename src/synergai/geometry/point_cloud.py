"""Point-cloud operations through Open3D (the ``segment`` extra): voxel down-sampling, point spacing,
RANSAC plane fitting and DBSCAN clustering, on plain numpy arrays.

Open3D is imported when first needed (it takes ~2 s); without it every function raises one
:class:`GeometryError` line that names the extra to install.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from synergai.geometry.errors import GeometryError

#: What a user installs to get Open3D (the error message names it).
EXTRA = "pip install 'synergai[segment]'"
#: ... and what installs a system library it loads (on Linux it needs libusb even with no camera).
SYSTEM_LIBRARY = ("install the system library it names (Debian: apt-get install libusb-1.0-0, or make "
                  "segment-libs)")


def open3d() -> Any:
    """The ``open3d`` module, or a one-line GeometryError naming the extra that installs it."""
    try:
        import open3d as o3d
    except ModuleNotFoundError:
        raise GeometryError(f"segmenting a scan without instance masks needs Open3D: {EXTRA}") from None
    except (ImportError, OSError) as exc:  # installed but broken (a missing system library)
        fix = SYSTEM_LIBRARY if "shared object" in str(exc) else f"reinstall it: {EXTRA}"
        raise GeometryError(f"segmenting a scan without instance masks needs Open3D, which does not load "
                            f"({exc}); {fix}".splitlines()[0]) from None
    return o3d


def _run(work: Any, *args: Any) -> Any:
    """``work(*args)``; Open3D's RuntimeError (bad sizes, out of range) as one GeometryError line."""
    try:
        return work(*args)
    except RuntimeError as exc:
        text = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).split())
        said = re.search(r":\d+: (.+)$", text)  # after Open3D's "[Open3D Error] (function) file.cpp:379: "
        raise GeometryError(f"Open3D: {(said.group(1) if said else text)[:200]}") from None


def _cloud(xyz: np.ndarray) -> Any:
    o3d = open3d()
    return o3d.geometry.PointCloud(o3d.utility.Vector3dVector(np.ascontiguousarray(xyz, dtype=np.float64)))


def voxel_downsample(xyz: np.ndarray, rgb: np.ndarray, voxel: float) -> tuple[np.ndarray, np.ndarray]:
    """One point per occupied voxel of edge ``voxel`` metres: the mean position and mean colour (0..255)."""
    if not voxel > 0:
        raise GeometryError(f"voxel size must be positive, got {voxel}")
    o3d = open3d()
    cloud = _cloud(xyz)
    cloud.colors = o3d.utility.Vector3dVector(np.ascontiguousarray(rgb, dtype=np.float64) / 255.0)
    down = _run(cloud.voxel_down_sample, float(voxel))
    return np.asarray(down.points), np.asarray(down.colors) * 255.0


def point_spacing(xyz: np.ndarray) -> float:
    """The median distance from a point to its nearest neighbour (the cloud's sampling step, metres)."""
    if len(xyz) < 2:
        raise GeometryError("a point spacing needs at least two points")
    return float(np.median(np.asarray(_run(_cloud(xyz).compute_nearest_neighbor_distance))))


@dataclass(frozen=True)
class Plane:
    """A plane ``normal . p + offset = 0`` (unit normal, pointing up for a horizontal plane) and the
    indices of the points within the fitting distance of it."""

    normal: np.ndarray
    offset: float
    inliers: np.ndarray


def fit_plane(xyz: np.ndarray, distance: float, *, iterations: int = 500, sample: int = 20_000,
              seed: int = 0) -> Plane:
    """The plane with the most points within ``distance`` metres: Open3D's RANSAC on at most ``sample``
    of the points (seeded, and every iteration run: an early stop depends on which thread finds the best
    plane first, so the same cloud might give another plane), its inliers counted on all of them."""
    pts = np.asarray(xyz, dtype=np.float64)
    if len(pts) < 3:
        raise GeometryError(f"a plane needs at least three points, got {len(pts)}")
    o3d = open3d()
    o3d.utility.random.seed(int(seed))
    rng = np.random.default_rng(seed)
    subset = pts if len(pts) <= sample else pts[rng.choice(len(pts), sample, replace=False)]
    model, _ = _run(_cloud(subset).segment_plane, float(distance), 3, int(iterations), 1.0)
    normal, offset = np.asarray(model[:3], dtype=np.float64), float(model[3])
    scale = float(np.linalg.norm(normal))
    if scale == 0.0:
        raise GeometryError("the points fit no plane (degenerate cloud)")
    normal, offset = normal / scale, offset / scale
    if normal[2] < 0:  # one orientation per plane: z up, else the first non-zero axis positive
        normal, offset = -normal, -offset
    inliers = np.flatnonzero(np.abs(pts @ normal + offset) <= distance)
    return Plane(normal, offset, inliers)


def dbscan(xyz: np.ndarray, eps: float, min_points: int) -> np.ndarray:
    """Open3D's DBSCAN: a cluster number per point (0, 1, ...), -1 for noise."""
    if len(xyz) == 0:
        return np.zeros(0, dtype=np.int64)
    labels = _run(_cloud(xyz).cluster_dbscan, float(eps), int(min_points), False)
    return np.asarray(labels, dtype=np.int64)
