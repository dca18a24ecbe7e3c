"""Triangle meshes as plain arrays, PLY reading, and raw point-cloud files.

:class:`TriMesh` is the project's own small mesh value (vertices, faces, optional per-vertex
colours); trimesh does the file formats and heavy lifting. Vertex order is always preserved
(``process=False``), because ScanNet's per-vertex segment labels index vertices by position.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from synergai.geometry.errors import GeometryError

if TYPE_CHECKING:  # trimesh is imported only where it is used: it takes ~1 s to import
    import trimesh


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class TriMesh:
    """An immutable triangle mesh: vertices (V, 3) float64, faces (F, 3) int64, colours (V, 3) uint8 or None.

    Colours may be RGB or RGBA (alpha is dropped); float colours all within 0..1 are scaled to 0..255.
    """

    vertices: np.ndarray
    faces: np.ndarray
    vertex_colors: np.ndarray | None = None

    def __post_init__(self) -> None:
        v = np.array(self.vertices, dtype=np.float64)
        if v.ndim != 2 or v.shape[1] != 3:
            raise GeometryError(f"mesh vertices must have shape (V, 3), got {v.shape}")
        if not np.all(np.isfinite(v)):
            raise GeometryError("mesh vertices contain NaN or infinite values")
        f = np.array(self.faces)
        if f.size == 0:
            f = np.zeros((0, 3), dtype=np.int64)
        if f.ndim != 2 or f.shape[1] != 3:
            raise GeometryError(f"mesh faces must have shape (F, 3), got {f.shape}")
        if not np.issubdtype(f.dtype, np.integer):
            raise GeometryError(f"mesh faces must be integer indices, got {f.dtype}")
        f = f.astype(np.int64)
        if f.size and (f.min() < 0 or f.max() >= len(v)):
            raise GeometryError(f"mesh face index out of range 0..{len(v) - 1}")
        c = self.vertex_colors
        if c is not None:
            c = np.asarray(c)
            if c.ndim != 2 or c.shape[0] != len(v) or c.shape[1] not in (3, 4):
                raise GeometryError(f"vertex colours must have shape ({len(v)}, 3), got {c.shape}")
            if np.issubdtype(c.dtype, np.floating) and c.size and c.max() <= 1.0:
                c = np.round(c * 255.0)
            c = np.clip(c[:, :3], 0, 255).astype(np.uint8)
            c = _frozen(c)
        object.__setattr__(self, "vertices", _frozen(v))
        object.__setattr__(self, "faces", _frozen(f))
        object.__setattr__(self, "vertex_colors", c)

    @property
    def n_vertices(self) -> int:
        return int(self.vertices.shape[0])

    @property
    def n_faces(self) -> int:
        return int(self.faces.shape[0])

    def bounds(self) -> np.ndarray:
        """(2, 3) array ``[min_corner, max_corner]`` of the vertices."""
        if self.n_vertices == 0:
            raise GeometryError("an empty mesh has no bounds")
        return np.stack([self.vertices.min(axis=0), self.vertices.max(axis=0)])

    def transformed(self, matrix: np.ndarray) -> TriMesh:
        """This mesh with its vertices mapped by a 4x4 homogeneous transform."""
        m = np.asarray(matrix, dtype=np.float64)
        if m.shape != (4, 4):
            raise GeometryError(f"transform must be 4x4, got {m.shape}")
        v = self.vertices @ m[:3, :3].T + m[:3, 3]
        return TriMesh(v, self.faces, self.vertex_colors)

    def submesh(self, vertex_mask: np.ndarray) -> TriMesh:
        """The faces whose three vertices are all selected, re-indexed onto the selected vertices."""
        mask = np.asarray(vertex_mask, dtype=bool)
        if mask.shape != (self.n_vertices,):
            raise GeometryError(f"vertex mask must have shape ({self.n_vertices},), got {mask.shape}")
        new_index = np.cumsum(mask) - 1
        keep = mask[self.faces].all(axis=1) if self.n_faces else np.zeros(0, dtype=bool)
        colors = self.vertex_colors[mask] if self.vertex_colors is not None else None
        return TriMesh(self.vertices[mask], new_index[self.faces[keep]], colors)

    def to_trimesh(self) -> trimesh.Trimesh:
        """A ``trimesh.Trimesh`` with the same vertex order (no merging or cleaning)."""
        import trimesh

        colors = None
        if self.vertex_colors is not None:
            colors = np.concatenate(
                [self.vertex_colors, np.full((self.n_vertices, 1), 255, np.uint8)], axis=1
            )
        return trimesh.Trimesh(
            vertices=np.array(self.vertices), faces=np.array(self.faces), vertex_colors=colors, process=False
        )

    @classmethod
    def from_trimesh(cls, mesh: trimesh.Trimesh) -> TriMesh:
        """Arrays of a ``trimesh.Trimesh``; colours only when the mesh has per-vertex colours."""
        colors = None
        visual = getattr(mesh, "visual", None)
        if visual is not None and getattr(visual, "kind", None) == "vertex":
            colors = np.asarray(visual.vertex_colors)[:, :3]
        return cls(np.asarray(mesh.vertices), np.asarray(mesh.faces), colors)

    @classmethod
    def merge(cls, meshes: Iterable[TriMesh]) -> TriMesh:
        """One mesh holding all the given meshes (colours kept only when every mesh has them)."""
        parts = list(meshes)
        if not parts:
            return cls(np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64))
        offsets = np.cumsum([0] + [m.n_vertices for m in parts[:-1]])
        v = np.concatenate([m.vertices for m in parts])
        f = np.concatenate([m.faces + off for m, off in zip(parts, offsets, strict=True)])
        colors = None
        if all(m.vertex_colors is not None for m in parts):
            colors = np.concatenate([m.vertex_colors for m in parts])
        return cls(v, f, colors)


def read_ply(path: str | Path) -> TriMesh:
    """Read a PLY mesh (ASCII or binary) keeping vertex order; point-only files give zero faces.

    Raises :class:`GeometryError` for a missing, truncated or malformed file.
    """
    import trimesh

    p = Path(path)
    if not p.is_file():
        raise GeometryError(f"{p}: no such PLY file")
    try:
        loaded = trimesh.load(str(p), file_type="ply", process=False)
    except Exception as exc:  # trimesh raises many types for bad bytes
        raise GeometryError(f"{p}: malformed PLY ({type(exc).__name__}: {exc})".splitlines()[0]) from None
    try:
        if isinstance(loaded, trimesh.Trimesh):
            return TriMesh.from_trimesh(loaded)
        if isinstance(loaded, trimesh.PointCloud):
            colors = loaded.colors if len(loaded.colors) else None
            return TriMesh(np.asarray(loaded.vertices), np.zeros((0, 3), np.int64), colors)
    except GeometryError as exc:
        raise GeometryError(f"{p}: {exc}") from None
    raise GeometryError(f"{p}: PLY holds no mesh or point cloud ({type(loaded).__name__})")


def read_points_bin(path: str | Path, columns: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Read a raw float32 point file of ``columns`` values per point (x, y, z, r, g, b, ...).

    Returns ``(xyz float64 (N, 3), rgb uint8 (N, 3))``; colours given in 0..1 are scaled to 0..255.
    """
    p = Path(path)
    if columns < 6:
        raise GeometryError(f"{p}: need at least 6 columns (x y z r g b), got {columns}")
    if not p.is_file():
        raise GeometryError(f"{p}: no such point file")
    raw = np.fromfile(p, dtype="<f4")
    if raw.size == 0 or raw.size % columns:
        raise GeometryError(f"{p}: {raw.size} float32 values is not a multiple of {columns} columns")
    pts = raw.reshape(-1, columns).astype(np.float64)
    if not np.all(np.isfinite(pts[:, :6])):
        raise GeometryError(f"{p}: point file contains NaN or infinite values")
    rgb = pts[:, 3:6]
    if rgb.max() <= 1.0:
        rgb = rgb * 255.0
    return pts[:, :3], np.clip(np.round(rgb), 0, 255).astype(np.uint8)
