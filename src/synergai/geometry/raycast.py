"""Ray picking: which object does a ray (a click through the camera) hit first?

:class:`RayPicker` merges per-object meshes into one scene. With embree (``embreex``) it uses
trimesh's embree intersector; otherwise a vectorised numpy Moller-Trumbore test that first culls
objects by their bounding boxes (slab test) and visits them nearest-first, stopping as soon as the
next box starts beyond the best hit. :func:`pick_boxes` picks among bare boxes (scenes without meshes).
Triangles are two-sided; hits closer than ``1e-9`` to the origin are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from synergai.geometry.boxes import BoxArray
from synergai.geometry.errors import GeometryError
from synergai.geometry.mesh import TriMesh

Backend = Literal["auto", "embree", "numpy"]
Vector = Sequence[float] | np.ndarray
_EPS = 1e-9


@dataclass(frozen=True)
class PickHit:
    """The first object a ray hits: its id, the distance along the unit ray, and the hit point."""

    object_id: str
    distance: float
    point: tuple[float, float, float]


def embree_available() -> bool:
    """Whether trimesh can use embree (the ``embreex`` package) on this machine."""
    try:
        from trimesh.ray import ray_pyembree  # noqa: F401
    except Exception:
        return False
    import trimesh.ray

    return bool(getattr(trimesh.ray, "has_embree", False))


def _ray(origin: Vector, direction: Vector) -> tuple[np.ndarray, np.ndarray]:
    o = np.asarray(origin, dtype=np.float64).reshape(-1)
    d = np.asarray(direction, dtype=np.float64).reshape(-1)
    if o.shape != (3,) or d.shape != (3,):
        raise GeometryError("ray origin and direction need 3 numbers each")
    if not (np.all(np.isfinite(o)) and np.all(np.isfinite(d))):
        raise GeometryError("ray origin and direction must be finite")
    n = np.linalg.norm(d)
    if n < 1e-12:
        raise GeometryError("ray direction must not be zero")
    return o, d / n


def _slab(mins: np.ndarray, maxs: np.ndarray, o: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Entry and exit distances of a ray through N boxes (tnear > tfar means a miss)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (mins - o) / d
        t2 = (maxs - o) / d
    lo = np.minimum(t1, t2)
    hi = np.maximum(t1, t2)
    parallel = d == 0.0
    if parallel.any():
        inside = (o >= mins) & (o <= maxs)
        lo = np.where(parallel, np.where(inside, -np.inf, np.inf), lo)
        hi = np.where(parallel, np.where(inside, np.inf, -np.inf), hi)
    return lo.max(axis=1), hi.min(axis=1)


def pick_boxes(boxes: BoxArray, ids: Sequence[str], origin: Vector, direction: Vector) -> PickHit | None:
    """The box whose surface the ray enters first (boxes that contain the origin are seen through)."""
    if len(ids) != len(boxes):
        raise GeometryError(f"pick_boxes: {len(ids)} ids for {len(boxes)} boxes")
    o, d = _ray(origin, direction)
    if len(boxes) == 0:
        return None
    tnear, tfar = _slab(boxes.mins, boxes.maxs, o, d)
    ok = (tnear <= tfar) & (tnear > _EPS)
    if not ok.any():
        return None
    k = int(np.flatnonzero(ok)[np.argmin(tnear[ok])])
    t = float(tnear[k])
    p = o + t * d
    return PickHit(str(ids[k]), t, (float(p[0]), float(p[1]), float(p[2])))


class RayPicker:
    """First-hit picking over a set of object meshes (``backend``: "auto", "embree" or "numpy")."""

    def __init__(self, meshes: Mapping[str, TriMesh], backend: Backend = "auto") -> None:
        if backend not in ("auto", "embree", "numpy"):
            raise GeometryError(f"unknown ray backend {backend!r}; use auto, embree or numpy")
        has_embree = backend != "numpy" and embree_available()
        if backend == "embree" and not has_embree:
            raise GeometryError("embree backend requested but embreex is not installed")
        self.backend: Literal["embree", "numpy"] = "embree" if backend != "numpy" and has_embree else "numpy"
        items = [(str(k), m) for k, m in meshes.items() if m.n_faces > 0]
        self.ids: list[str] = [k for k, _ in items]
        counts = np.array([m.n_faces for _, m in items], dtype=np.int64)
        self._starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        merged = TriMesh.merge(m for _, m in items)
        self._owner = np.repeat(np.arange(len(items)), counts)
        pad = 1e-7  # keeps rays that graze a box face from being culled by rounding
        self._mins = np.array([m.bounds()[0] for _, m in items]).reshape(-1, 3) - pad
        self._maxs = np.array([m.bounds()[1] for _, m in items]).reshape(-1, 3) + pad
        self.n_faces = merged.n_faces
        tri = merged.vertices[merged.faces] if merged.n_faces else np.zeros((0, 3, 3))
        self._v0 = tri[:, 0]
        self._e1 = tri[:, 1] - tri[:, 0]
        self._e2 = tri[:, 2] - tri[:, 0]
        self._embree = None
        if self.backend == "embree" and merged.n_faces:
            from trimesh.ray.ray_pyembree import RayMeshIntersector

            self._embree = RayMeshIntersector(merged.to_trimesh())

    # ----- public API
    def pick(self, origin: Vector, direction: Vector) -> PickHit | None:
        """The first object the ray from ``origin`` along ``direction`` hits, or None."""
        o, d = _ray(origin, direction)
        if self.n_faces == 0:
            return None
        if self._embree is not None:
            return self._pick_embree(o[None], d[None])[0]
        return self._pick_numpy(o, d)

    def pick_many(self, origins: np.ndarray, directions: np.ndarray) -> list[PickHit | None]:
        """:meth:`pick` for N rays at once (one embree call; a loop for numpy)."""
        os_ = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
        ds = np.asarray(directions, dtype=np.float64).reshape(-1, 3)
        if os_.shape != ds.shape:
            raise GeometryError(f"{len(os_)} ray origins for {len(ds)} directions")
        rays = [_ray(o, d) for o, d in zip(os_, ds, strict=True)]
        if self.n_faces == 0 or not rays:
            return [None] * len(rays)
        if self._embree is not None:
            return self._pick_embree(np.array([r[0] for r in rays]), np.array([r[1] for r in rays]))
        return [self._pick_numpy(o, d) for o, d in rays]

    # ----- backends
    def _hit(self, k: int, t: float, o: np.ndarray, d: np.ndarray) -> PickHit:
        p = o + t * d
        return PickHit(self.ids[k], float(t), (float(p[0]), float(p[1]), float(p[2])))

    def _pick_embree(self, o: np.ndarray, d: np.ndarray) -> list[PickHit | None]:
        assert self._embree is not None
        locs, ray_idx, tri_idx = self._embree.intersects_location(o, d, multiple_hits=False)
        out: list[PickHit | None] = [None] * len(o)
        for loc, r, f in zip(locs, ray_idx, tri_idx, strict=True):
            t = float(np.dot(loc - o[r], d[r]))
            if t > _EPS:
                out[int(r)] = self._hit(int(self._owner[f]), t, o[r], d[r])
        return out

    def _moller_trumbore(self, lo: int, hi: int, o: np.ndarray, d: np.ndarray) -> tuple[float, int]:
        """Nearest hit distance and face index among faces lo..hi-1 (inf, -1 when none)."""
        e1, e2 = self._e1[lo:hi], self._e2[lo:hi]
        pvec = np.cross(d, e2)
        det = np.einsum("ij,ij->i", e1, pvec)
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / det
            tvec = o - self._v0[lo:hi]
            u = np.einsum("ij,ij->i", tvec, pvec) * inv
            qvec = np.cross(tvec, e1)
            v = (qvec @ d) * inv
            t = np.einsum("ij,ij->i", e2, qvec) * inv
            hit = (np.abs(det) > 1e-15) & (u >= 0.0) & (v >= 0.0) & (u + v <= 1.0) & (t > _EPS)
        if not hit.any():
            return np.inf, -1
        idx = np.flatnonzero(hit)
        j = int(idx[np.argmin(t[idx])])
        return float(t[j]), lo + j

    def _pick_numpy(self, o: np.ndarray, d: np.ndarray) -> PickHit | None:
        tnear, tfar = _slab(self._mins, self._maxs, o, d)
        cand = np.flatnonzero((tnear <= tfar) & (tfar > _EPS))
        if cand.size == 0:
            return None
        entry = np.maximum(tnear[cand], 0.0)
        best_t, best_obj = np.inf, -1
        for k, t0 in zip(cand[np.argsort(entry, kind="stable")], np.sort(entry, kind="stable"), strict=True):
            if t0 > best_t:
                break
            t, _ = self._moller_trumbore(int(self._starts[k]), int(self._starts[k + 1]), o, d)
            if t < best_t:
                best_t, best_obj = t, int(k)
        return None if best_obj < 0 else self._hit(best_obj, best_t, o, d)
