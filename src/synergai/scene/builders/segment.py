"""Class-agnostic segmentation of a scan that has no instance masks: planes first, then the clusters that
stand on or against them.

The cloud must be z-up, in metres (ScanNet's scan frame, a ROS ``map`` / ``odom`` frame). Steps:

1. Voxel down-sampling (``voxel``, 2 cm): a million points become a few hundred thousand, one per voxel.
2. Planes, largest first (Open3D's RANSAC), each split into its connected pieces (DBSCAN). Geometry
   names some of them: the lowest wide horizontal piece and those level with it are the **floor**; wide
   horizontal pieces at least ``min_ceiling_height`` above it the **ceiling**; tall, long vertical pieces
   **walls**. Every other plane (a table top, a cabinet's side) goes back to the points of step 3.
3. The rest is clustered (DBSCAN, ``eps`` a few times the point spacing): each cluster of at least
   ``min_points`` points is one **unnamed** object (category :data:`UNNAMED`), with its box and colour.

Nothing here knows object classes: people name the segments (a click and "that is a chair"), or a vision
endpoint names them from their image crops (:mod:`synergai.scene.builders.crops`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from synergai.geometry import point_cloud
from synergai.geometry.errors import GeometryError
from synergai.scene.builders.pointcloud import objects_from_points
from synergai.scene.model import SceneError, SceneObject
from synergai.scene.vocabulary import UNNAMED

#: The one note a mask-less build prints: what the segments are and how people name them.
NAMING_NOTE = ('{n} segments are unnamed "{label}" objects: name one by clicking it in the GUI '
               '(synergai serve --scene {scene}) and saying "that is a chair", or: '
               'synergai ask "that is a chair" --scene {scene} --mark ID')


#: Widest cloud segmented, in metres (a building, not a city; larger ones are usually in millimetres).
MAX_EXTENT = 10_000.0


@dataclass(frozen=True)
class SegmentParams:
    """Thresholds of the segmentation (metres unless said otherwise)."""

    voxel: float = 0.02  # down-sampling voxel edge
    plane_distance: float = 0.03  # RANSAC inlier distance (at least 1.2x the point spacing is used)
    max_planes: int = 20  # planes tried, largest first
    min_plane_points: int = 200  # smaller planes end the search
    level_tolerance: float = 0.015  # |normal.z| of a horizontal plane >= 1 - this (about 10 degrees)
    upright_tolerance: float = 0.15  # |normal.z| of a vertical plane <= this (about 9 degrees)
    min_floor_area: float = 1.0  # square metres of the floor's widest piece
    floor_step: float = 0.1  # pieces this close to the floor's height are floor too
    min_ceiling_height: float = 1.8  # above the floor
    min_ceiling_area: float = 0.5
    min_wall_height: float = 1.2  # a wall piece's vertical extent
    min_wall_length: float = 0.8  # and its horizontal extent
    absorb: float = 2.0  # a wall takes the free points within this x the inlier distance of its plane
    plane_gap: float = 0.15  # parts of one plane this close are one piece ...
    wall_gap: float = 0.5  # ... of a vertical plane, this close (furniture hides parts of walls)
    wall_depth: float = 0.05  # a tall vertical piece with a larger one parallel behind it, farther than
    wall_behind: float = 1.0  # this and nearer than this, stands before a wall: it is no wall
    cluster_spacing: float = 2.5  # DBSCAN eps = this x the point spacing ...
    min_eps: float = 0.04  # ... but at least this
    min_points: int = 20  # smaller clusters are noise
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("voxel", "plane_distance", "min_eps", "cluster_spacing"):
            if not getattr(self, name) > 0:
                raise SceneError(f"segmentation: {name} must be positive, got {getattr(self, name)}")
        if self.min_points < 1:
            raise SceneError(f"min_points must be at least 1, got {self.min_points}")


@dataclass(frozen=True, eq=False)
class Segmentation:
    """The down-sampled cloud, a segment number per point (0 = none) and each segment's name."""

    xyz: np.ndarray
    rgb: np.ndarray
    segment: np.ndarray
    names: dict[int, str] = field(default_factory=dict)

    @property
    def unnamed(self) -> list[int]:
        """The segments geometry could not name."""
        return [s for s, name in self.names.items() if name == UNNAMED]


def check_cloud(xyz: np.ndarray, rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points (N, 3) and colours (N, 3) 0..255 as float arrays, or a one-line SceneError for a cloud
    nothing can be segmented in: NaN, too few points, every point at one place, a flat line."""
    pts = np.asarray(xyz, dtype=np.float64)
    col = np.asarray(rgb, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[1] != 3:
        raise SceneError(f"points must have shape (N, 3), got {pts.shape}")
    if col.shape != pts.shape:
        raise SceneError(f"colours must have shape {pts.shape}, got {col.shape}")
    if not np.all(np.isfinite(pts)) or not np.all(np.isfinite(col)):
        raise SceneError("the cloud has NaN or infinite values")
    if len(pts) < 3:
        raise SceneError(f"the cloud has {len(pts)} point{'s' * (len(pts) != 1)}: nothing to segment")
    extent = pts.max(axis=0) - pts.min(axis=0)
    if np.all(extent < 1e-6):
        raise SceneError(f"all {len(pts)} points of the cloud are at one place: nothing to segment")
    if np.sort(extent)[1] < 1e-6:
        raise SceneError("the cloud's points lie on one line: nothing to segment")
    if extent.max() > MAX_EXTENT:
        raise SceneError(f"the cloud spans {extent.max():.3g} m, more than {MAX_EXTENT:g} m: are its units "
                         "metres?")
    return pts, col


def segment_cloud(xyz: np.ndarray, rgb: np.ndarray, params: SegmentParams | None = None) -> Segmentation:
    """Planes, then clusters (see the module doc) of a z-up cloud with colours 0..255."""
    p = params or SegmentParams()
    pts, col = check_cloud(xyz, rgb)
    try:
        pts, col = point_cloud.voxel_downsample(pts, col, p.voxel)
        if len(pts) < 3:
            raise SceneError(f"the cloud fills {len(pts)} voxel(s) of {p.voxel} m: nothing to segment")
        spacing = point_cloud.point_spacing(pts)
        eps = max(p.min_eps, p.cluster_spacing * spacing)
        segment = np.zeros(len(pts), dtype=np.int64)
        names: dict[int, str] = {}
        _structure(pts, segment, names, max(p.plane_distance, 1.2 * spacing), eps, p)
        _clusters(pts, segment, names, eps, p)
    except GeometryError as exc:
        raise SceneError(str(exc)) from None
    return Segmentation(pts, col, segment, names)


def _area(xy: np.ndarray) -> float:
    """Footprint of points in a plane, in square metres: the occupied 10 cm cells."""
    cells = np.unique(np.floor(xy / 0.1).astype(np.int64), axis=0)
    return 0.01 * len(cells)


@dataclass
class _Piece:
    """A connected piece of a plane: its points (indices into the cloud), its plane and what it might be."""

    index: np.ndarray
    plane: point_cloud.Plane
    kind: str  # "horizontal", "vertical" or "" (neither)
    height: float = 0.0  # mean z (horizontal pieces)
    area: float = 0.0


def _planes(pts: np.ndarray, distance: float, eps: float, p: SegmentParams) -> list[_Piece]:
    """Connected pieces of the largest planes, largest plane first. A vertical plane's pieces are joined
    across gaps up to ``wall_gap`` (furniture in front of a wall hides parts of it)."""
    pool = np.arange(len(pts))
    pieces: list[_Piece] = []
    for n in range(p.max_planes):
        if len(pool) < max(p.min_plane_points, 3):
            break
        plane = point_cloud.fit_plane(pts[pool], distance, seed=p.seed + n)
        if len(plane.inliers) < p.min_plane_points:
            break
        members = pool[plane.inliers]
        pool = np.setdiff1d(pool, members, assume_unique=True)
        nz = abs(float(plane.normal[2]))
        level, upright = nz >= 1 - p.level_tolerance, nz <= p.upright_tolerance
        kind = "horizontal" if level else "vertical" if upright else ""
        gap = p.wall_gap if kind == "vertical" else p.plane_gap
        parts = point_cloud.dbscan(pts[members], max(eps, gap), 3)
        for c in range(int(parts.max()) + 1 if len(parts) else 0):
            index = members[parts == c]
            if len(index) < p.min_points:
                continue
            piece = _Piece(index, plane, kind)
            if kind == "horizontal":
                piece.height, piece.area = float(pts[index, 2].mean()), _area(pts[index, :2])
            pieces.append(piece)
    return pieces


def _tall_and_long(pts: np.ndarray, q: _Piece, p: SegmentParams) -> bool:
    lo, hi = pts[q.index].min(axis=0), pts[q.index].max(axis=0)
    return bool(hi[2] - lo[2] >= p.min_wall_height and np.hypot(*(hi[:2] - lo[:2])) >= p.min_wall_length)


def _walls(pts: np.ndarray, pieces: list[_Piece], p: SegmentParams) -> list[_Piece]:
    """Tall, long vertical pieces with no larger such piece parallel behind them (seen from the scan's
    centre): the front of a wardrobe stands before a wall, a wall before nothing."""
    tall = [q for q in pieces if q.kind == "vertical" and _tall_and_long(pts, q, p)]
    centre = pts.mean(axis=0)
    walls = []
    for q in tall:
        n = q.plane.normal if centre @ q.plane.normal + q.plane.offset > 0 else -q.plane.normal
        mine = pts[q.index].mean(axis=0)
        lo, hi = pts[q.index].min(axis=0), pts[q.index].max(axis=0)
        hidden = False
        for r in tall:
            if r is q or len(r.index) <= len(q.index) or abs(r.plane.normal @ n) < 1 - p.level_tolerance:
                continue
            depth = float((mine - pts[r.index].mean(axis=0)) @ n)  # > 0: r is behind q
            rlo, rhi = pts[r.index].min(axis=0), pts[r.index].max(axis=0)
            overlap = np.all(np.minimum(hi[:2], rhi[:2]) - np.maximum(lo[:2], rlo[:2]) > -p.wall_depth)
            if p.wall_depth < depth < p.wall_behind and overlap:
                hidden = True
                break
        if not hidden:
            walls.append(q)
    return walls


def _structure(pts: np.ndarray, segment: np.ndarray, names: dict[int, str], distance: float, eps: float,
               p: SegmentParams) -> None:
    """Floor, ceiling and walls into ``segment`` / ``names``; other planes are left for the clusters."""
    pieces = _planes(pts, distance, eps, p)
    level = [q for q in pieces if q.kind == "horizontal"]
    floor_z = min((q.height for q in level if q.area >= p.min_floor_area), default=None)
    groups: list[tuple[str, list[_Piece]]] = []
    if floor_z is not None:
        groups.append(("floor", [q for q in level if abs(q.height - floor_z) <= p.floor_step]))
        top = max((q.height for q in level if q.area >= p.min_ceiling_area
                   and q.height - floor_z >= p.min_ceiling_height), default=None)
        if top is not None:
            groups.append(("ceiling", [q for q in level if abs(q.height - top) <= p.floor_step]))
    groups += [("wall", [q]) for q in _walls(pts, pieces, p)]
    for name, group in groups:
        if not group:
            continue
        sid = max(names, default=0) + 1
        names[sid] = name
        for q in group:
            segment[q.index] = sid
            if name == "wall":
                _absorb(pts, segment, sid, q, p.absorb * distance, eps)


def _absorb(pts: np.ndarray, segment: np.ndarray, sid: int, q: _Piece, distance: float, margin: float
            ) -> None:
    """Give structure ``sid`` the free points just off its plane piece (within ``distance`` of the plane,
    inside the piece's box grown by ``margin``): the scan's noise around a wall, not objects."""
    lo, hi = pts[q.index].min(axis=0) - margin, pts[q.index].max(axis=0) + margin
    free = np.flatnonzero((segment == 0) & np.all((pts >= lo) & (pts <= hi), axis=1))
    near = np.abs(pts[free] @ q.plane.normal + q.plane.offset) <= distance
    segment[free[near]] = sid


def _clusters(pts: np.ndarray, segment: np.ndarray, names: dict[int, str], eps: float, p: SegmentParams
              ) -> None:
    """Unnamed objects: the DBSCAN clusters of the points no structure took, largest first."""
    rest = np.flatnonzero(segment == 0)
    labels = point_cloud.dbscan(pts[rest], eps, 3)
    if not len(labels) or labels.max() < 0:
        return
    counts = np.bincount(labels[labels >= 0])
    next_id = max(names, default=0) + 1
    for c in np.argsort(-counts, kind="stable"):
        if counts[c] < p.min_points:
            break
        segment[rest[labels == c]] = next_id
        names[next_id] = UNNAMED
        next_id += 1


def objects_from_segmentation(seg: Segmentation, *, trim: float = 0.0, provenance: str = "segmentation"
                              ) -> list[SceneObject]:
    """One object per segment (id = the segment number): floor, ceiling and walls by name, the rest
    unnamed, each with its box and colour."""
    return objects_from_points(seg.xyz, np.clip(seg.rgb, 0, 255), seg.segment, seg.names, ignore=(0,),
                               min_points=1, trim=trim, provenance=provenance)


def segment_objects(xyz: np.ndarray, rgb: np.ndarray, params: SegmentParams | None = None, *,
                    trim: float = 0.0, provenance: str = "segmentation") -> list[SceneObject]:
    """:func:`segment_cloud` then :func:`objects_from_segmentation`."""
    return objects_from_segmentation(segment_cloud(xyz, rgb, params), trim=trim, provenance=provenance)
