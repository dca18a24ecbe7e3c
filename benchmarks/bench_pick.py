"""Median ray-pick latency on a ~200k-face scene for the embree and numpy backends.

Usage: ``python benchmarks/bench_pick.py [--rays 300] [--subdivisions 5]``. The scene is a fixed
grid of icospheres (10 spheres x 20,480 faces = 204,800 faces); rays go from a camera towards
random points of the scene's bounding box (fixed seed), as clicks would. It is timed twice: as
10 objects (the numpy backend culls by object boxes) and merged into ONE object (no culling, the
numpy worst case). "batch" is the per-ray time of one ``pick_many`` call over all rays.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import trimesh

from synergai.geometry.mesh import TriMesh
from synergai.geometry.raycast import RayPicker, embree_available


def make_scene(subdivisions: int = 5, n: int = 10) -> dict[str, TriMesh]:
    """``n`` icospheres on a 5-wide grid, one object each."""
    out = {}
    for k in range(n):
        m = trimesh.creation.icosphere(subdivisions=subdivisions, radius=0.45)
        m.apply_translation([k % 5, k // 5, 0.5])
        out[str(k)] = TriMesh.from_trimesh(m)
    return out


def time_picks(picker: RayPicker, origins: np.ndarray, dirs: np.ndarray) -> tuple[float, int]:
    """Median milliseconds per single-ray pick, and the number of hits."""
    times, hits = [], 0
    for o, d in zip(origins, dirs, strict=True):
        t0 = time.perf_counter()
        h = picker.pick(o, d)
        times.append((time.perf_counter() - t0) * 1e3)
        hits += h is not None
    return statistics.median(times), hits


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rays", type=int, default=300)
    ap.add_argument("--subdivisions", type=int, default=5)
    args = ap.parse_args()
    scene = make_scene(args.subdivisions)
    n_faces = sum(m.n_faces for m in scene.values())
    rng = np.random.default_rng(0)
    origins = np.tile([2.0, -4.0, 3.0], (args.rays, 1))
    targets = rng.uniform([-0.5, -0.5, 0.0], [4.5, 1.5, 1.0], size=(args.rays, 3))
    dirs = targets - origins
    backends = (["embree"] if embree_available() else []) + ["numpy"]
    print(f"scene: {len(scene)} objects, {n_faces} faces, {args.rays} rays")
    head = f"{'layout':<10} {'backend':<8} {'build ms':>9} {'median ms/pick':>15} {'batch ms/ray':>13}"
    print(f"{head} {'hits':>6}")
    layouts = {"10 objects": scene, "1 object": {"all": TriMesh.merge(scene.values())}}
    for name, meshes in layouts.items():
        for b in backends:
            t0 = time.perf_counter()
            picker = RayPicker(meshes, backend=b)  # type: ignore[arg-type]
            build = (time.perf_counter() - t0) * 1e3
            med, hits = time_picks(picker, origins, dirs)
            t0 = time.perf_counter()
            picker.pick_many(origins, dirs)
            batch = (time.perf_counter() - t0) * 1e3 / len(origins)
            print(f"{name:<10} {b:<8} {build:>9.1f} {med:>15.3f} {batch:>13.3f} {hits:>6}")


if __name__ == "__main__":
    main()
