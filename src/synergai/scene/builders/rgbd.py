"""Posed RGB-D fusion into an instance-labelled point cloud, then objects.

Each :class:`RGBDFrame` holds a depth image (metres), a colour image, an instance mask, the 3x3
intrinsics and the 4x4 camera-to-world pose. Camera axes follow OpenCV: x right, y down, z forward;
pixel ``(u, v)`` (column, row) has its centre at integer coordinates.

Instance ids across frames are merged in one of two ways:

- ``merge="ids"``: the masks already use scene-wide ids (ground truth, a tracker); labels must agree.
- ``merge="overlap"``: ids are per frame (a detector run per image). A frame's instance joins the
  fused instance of the same label whose voxels it overlaps most, if that overlap is at least
  ``min_overlap`` of the smaller voxel set; otherwise it starts a new instance (ids 1, 2, ...).
  Overlap is counted on a coarser grid (``match_voxel``, 5 cm) than the output one: two views sample
  a surface at different points, so fine voxels of the same surface rarely coincide.

The fused cloud is voxel down-sampled (mean position and colour per voxel, majority instance; frames
are added to a :class:`VoxelGrid` one by one, so memory holds the voxels, not every frame's points) and
handed to :func:`synergai.scene.builders.pointcloud.objects_from_points`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from synergai.scene.builders.pointcloud import objects_from_points
from synergai.scene.model import SceneError, SceneObject

Merge = Literal["ids", "overlap"]
_BIAS = 1 << 20  # voxel indices are packed in 21 bits each: +-1M voxels per axis
#: Bounds of a camera a frame may have (beyond them the numbers are corrupt, not a camera): focal lengths
#: and principal point in pixels, the camera's distance from the origin in metres.
MIN_FOCAL_PX = 1.0
MAX_PIXELS_AWAY = 1e7
MAX_POSITION_M = 1e6


@dataclass(frozen=True, eq=False)
class RGBDFrame:
    """One posed RGB-D observation; instance 0 is background; ``labels`` maps this frame's ids to names."""

    depth: np.ndarray
    color: np.ndarray
    instance: np.ndarray
    intrinsics: np.ndarray
    cam_to_world: np.ndarray
    labels: Mapping[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        d = np.asarray(self.depth, dtype=np.float64)
        if d.ndim != 2:
            raise SceneError(f"depth must be an (H, W) image, got {d.shape}")
        h, w = d.shape
        c, m = np.asarray(self.color), np.asarray(self.instance)
        if c.shape != (h, w, 3):
            raise SceneError(f"colour image must be ({h}, {w}, 3), got {c.shape}")
        if m.shape != (h, w) or not np.issubdtype(m.dtype, np.integer):
            raise SceneError(f"instance mask must be an integer ({h}, {w}) image, got {m.dtype} {m.shape}")
        k, t = np.asarray(self.intrinsics, dtype=np.float64), np.asarray(self.cam_to_world, dtype=np.float64)
        if k.shape != (3, 3) or k[0, 0] <= 0 or k[1, 1] <= 0:
            raise SceneError("intrinsics must be a 3x3 matrix with positive focal lengths")
        focal, centre = k[[0, 1], [0, 1]], k[:2, 2]
        if not (np.all((focal >= MIN_FOCAL_PX) & (focal <= MAX_PIXELS_AWAY))
                and np.all(np.abs(centre) <= MAX_PIXELS_AWAY) and np.all(np.isfinite(k))):
            raise SceneError(f"intrinsics: focal lengths {focal[0]:g}, {focal[1]:g} and principal point "
                             f"{centre[0]:g}, {centre[1]:g} are not a camera's (focal lengths "
                             f"{MIN_FOCAL_PX:g} to {MAX_PIXELS_AWAY:g} pixels, a finite matrix)")
        if t.shape != (4, 4) or not np.all(np.isfinite(t)):
            raise SceneError("camera-to-world pose must be a finite 4x4 matrix")
        if np.abs(t[:3, 3]).max() > MAX_POSITION_M:
            at = ", ".join(f"{v:g}" for v in t[:3, 3])
            raise SceneError(f"camera-to-world pose: the camera is at {at}, more than {MAX_POSITION_M:g} m "
                             "from the origin")
        r = t[:3, :3]
        if np.abs(r).max() > 1 + 1e-5 or not np.allclose(r @ r.T, np.eye(3), atol=1e-5):
            raise SceneError("camera-to-world rotation must be orthonormal")
        object.__setattr__(self, "depth", d)
        object.__setattr__(self, "intrinsics", k)
        object.__setattr__(self, "cam_to_world", t)


@dataclass(frozen=True, eq=False)
class FusedCloud:
    """Down-sampled fused points with scene-wide instance ids and their labels."""

    xyz: np.ndarray
    rgb: np.ndarray
    instance: np.ndarray
    labels: dict[int, str]


def backproject(
    frame: RGBDFrame, *, depth_range: tuple[float, float] = (0.1, 10.0), stride: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World points (N, 3), colours (N, 3) uint8 and instance ids (N,) of the frame's valid depth pixels."""
    if stride < 1:
        raise SceneError(f"stride must be at least 1, got {stride}")
    d = frame.depth[::stride, ::stride]
    v, u = np.mgrid[0 : frame.depth.shape[0] : stride, 0 : frame.depth.shape[1] : stride]
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(d) & (d >= depth_range[0]) & (d <= depth_range[1])
    z = d[ok]
    k = frame.intrinsics
    x = (u[ok] - k[0, 2] - k[0, 1] * (v[ok] - k[1, 2]) / k[1, 1]) * z / k[0, 0]
    y = (v[ok] - k[1, 2]) * z / k[1, 1]
    cam = np.stack([x, y, z], axis=1)
    pose = frame.cam_to_world
    xyz = cam @ pose[:3, :3].T + pose[:3, 3]
    rgb = np.asarray(frame.color)[::stride, ::stride][ok].astype(np.uint8)
    inst = np.asarray(frame.instance)[::stride, ::stride][ok].astype(np.int64)
    return xyz, rgb, inst


def voxel_keys(xyz: np.ndarray, voxel: float) -> np.ndarray:
    """One int64 key per point naming its voxel of edge ``voxel`` metres."""
    with np.errstate(over="ignore", invalid="ignore"):  # checked below, before the cast
        scaled = np.floor(np.asarray(xyz, dtype=np.float64) / voxel)
    if scaled.size and not np.all((scaled >= -_BIAS) & (scaled < _BIAS)):  # NaN fails too
        raise SceneError(f"points too far from the origin for voxel size {voxel}")
    idx = scaled.astype(np.int64) + _BIAS
    return (idx[:, 0] << 42) | (idx[:, 1] << 21) | idx[:, 2]


@dataclass(eq=False)
class VoxelGrid:
    """Points added in batches, reduced to one point per occupied voxel of edge ``voxel`` metres: the mean
    position, the mean colour and the instance most of its points have (ties: the larger id).

    Sums and counts are kept per voxel and per (voxel, instance), so the result is that of all the points
    at once, while memory holds the voxels and at most ``batch`` pending points.
    """

    voxel: float
    batch: int = 2_000_000
    _pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(init=False, repr=False)
    _n_pending: int = field(init=False, repr=False)
    _keys: np.ndarray = field(init=False, repr=False)  # sorted voxel keys
    _sums: np.ndarray = field(init=False, repr=False)  # per voxel: x y z r g b count
    _pairs: np.ndarray = field(init=False, repr=False)  # rows: voxel key, instance, count

    def __post_init__(self) -> None:
        if not 0 < self.voxel < math.inf:  # NaN fails too
            raise SceneError(f"voxel size must be a positive number of metres, got {self.voxel}")
        self._pending, self._n_pending = [], 0
        self._keys, self._sums = np.zeros(0, np.int64), np.zeros((0, 7))
        self._pairs = np.zeros((0, 3), np.int64)

    def add(self, xyz: np.ndarray, rgb: np.ndarray, instance: np.ndarray) -> None:
        """Add points (N, 3), their colours (N, 3) and instance ids (N,)."""
        if len(xyz):
            self._pending.append((np.asarray(xyz, np.float64), np.asarray(rgb, np.float64),
                                  np.asarray(instance, np.int64)))
            self._n_pending += len(xyz)
        if self._n_pending >= self.batch:
            self._reduce()

    def _reduce(self) -> None:
        if not self._pending:
            return
        xyz = np.concatenate([p[0] for p in self._pending])
        rgb = np.concatenate([p[1] for p in self._pending])
        inst = np.concatenate([p[2] for p in self._pending])
        self._pending, self._n_pending = [], 0
        keys = np.concatenate([self._keys, voxel_keys(xyz, self.voxel)])
        rows = np.concatenate([self._sums, np.column_stack([xyz, rgb, np.ones(len(xyz))])])
        self._keys, inv = np.unique(keys, return_inverse=True)
        self._sums = np.stack([np.bincount(inv, rows[:, a], len(self._keys)) for a in range(7)], axis=1)
        new_pairs = np.column_stack([keys[len(keys) - len(xyz):], inst, np.ones(len(xyz), np.int64)])
        pairs = np.concatenate([self._pairs, new_pairs])
        order = np.lexsort((pairs[:, 1], pairs[:, 0]))
        pairs = pairs[order]
        start = np.r_[True, np.any(pairs[1:, :2] != pairs[:-1, :2], axis=1)]
        counts = np.add.reduceat(pairs[:, 2], np.flatnonzero(start))
        self._pairs = np.column_stack([pairs[start, 0], pairs[start, 1], counts])

    def __len__(self) -> int:
        self._reduce()
        return len(self._keys)

    def result(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Points (V, 3), colours (V, 3) uint8 and majority instance ids (V,), one per voxel in key order."""
        self._reduce()
        n = self._sums[:, 6:7]
        if len(self._keys) == 0:
            return np.zeros((0, 3)), np.zeros((0, 3), np.uint8), np.zeros(0, np.int64)
        p = self._pairs[np.lexsort((self._pairs[:, 1], self._pairs[:, 2], self._pairs[:, 0]))]
        last = np.r_[p[1:, 0] != p[:-1, 0], True]  # per voxel, the most frequent (then largest) instance
        return (self._sums[:, :3] / n, np.clip(np.round(self._sums[:, 3:6] / n), 0, 255).astype(np.uint8),
                p[last, 1])


def voxel_downsample(
    xyz: np.ndarray, rgb: np.ndarray, instance: np.ndarray, voxel: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One point per occupied voxel: mean position, mean colour, and the instance most of its points have."""
    grid = VoxelGrid(voxel, batch=max(len(xyz), 1))
    grid.add(xyz, rgb, instance)
    return grid.result()


def _label_of(frame_no: int, frame: RGBDFrame, iid: int, labels: Mapping[int, str] | None) -> str:
    if iid in frame.labels:
        return frame.labels[iid]
    if labels is not None and iid in labels:
        return labels[iid]
    raise SceneError(f"frame {frame_no}: no label for instance id {iid}")


def fuse_frames(
    frames: Iterable[RGBDFrame],
    labels: Mapping[int, str] | None = None,
    *,
    voxel: float = 0.02,
    merge: Merge = "ids",
    min_overlap: float = 0.2,
    match_voxel: float = 0.05,
    depth_range: tuple[float, float] = (0.1, 10.0),
    background: int = 0,
) -> FusedCloud:
    """Back-project every frame, merge instance ids across frames (see module doc), voxel down-sample."""
    if merge not in ("ids", "overlap"):
        raise SceneError(f"unknown merge mode {merge!r}; use 'ids' or 'overlap'")
    if not (0 < voxel < math.inf and 0 < match_voxel < math.inf):  # NaN fails too
        raise SceneError(f"voxel sizes must be positive numbers of metres, got {voxel} and {match_voxel}")
    fused_labels: dict[int, str] = {}
    fused_voxels: dict[int, np.ndarray] = {}
    grid = VoxelGrid(voxel)
    n_frames = 0
    for n, frame in enumerate(frames):
        xyz, rgb, inst = backproject(frame, depth_range=depth_range)
        out = np.full(len(inst), background, dtype=np.int64)
        keys = voxel_keys(xyz, match_voxel) if merge == "overlap" else None
        for iid in np.unique(inst):
            iid = int(iid)
            if iid == background:
                continue
            sel = inst == iid
            label = _label_of(n, frame, iid, labels)
            if merge == "ids":
                before = fused_labels.setdefault(iid, label)
                if before != label:
                    raise SceneError(f"frame {n}: instance {iid} is {label!r} here but {before!r} before")
                out[sel] = iid
                continue
            assert keys is not None
            mine = np.unique(keys[sel])
            best, best_score = None, min_overlap
            for gid, theirs in fused_voxels.items():
                if fused_labels[gid] != label:
                    continue
                common = np.intersect1d(mine, theirs, assume_unique=True).size
                score = common / min(mine.size, theirs.size)
                if score >= best_score:
                    best, best_score = gid, score
            gid = best if best is not None else len(fused_labels) + 1
            fused_labels[gid] = label
            fused_voxels[gid] = np.union1d(fused_voxels.get(gid, np.zeros(0, np.int64)), mine)
            out[sel] = gid
        grid.add(xyz, rgb, out)
        n_frames += 1
    if not n_frames:
        raise SceneError("no frames to fuse")
    xyz, rgb, inst = grid.result()
    return FusedCloud(xyz, rgb, inst, fused_labels)


def objects_from_rgbd(
    frames: Iterable[RGBDFrame],
    labels: Mapping[int, str] | None = None,
    *,
    voxel: float = 0.02,
    merge: Merge = "ids",
    min_overlap: float = 0.2,
    min_points: int = 20,
    trim: float = 0.0,
    provenance: str = "rgbd",
) -> list[SceneObject]:
    """Objects from posed RGB-D frames: :func:`fuse_frames` then ``objects_from_points``."""
    cloud = fuse_frames(frames, labels, voxel=voxel, merge=merge, min_overlap=min_overlap)
    return objects_from_points(cloud.xyz, cloud.rgb, cloud.instance, cloud.labels, ignore=(0,),
                               min_points=min_points, trim=trim, provenance=provenance)
