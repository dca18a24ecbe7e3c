"""Graph building speed: all ScanNet scenes of objects_gt.json, and synthetic apartments.

    python benchmarks/bench_graph_speed.py [--data DIR] [--sizes 100 1000 10000] [--json]

Synthetic scenes (fixed seed) are rooms on a grid, each with a floor, four walls, furniture
standing on the floor, small things on the furniture and pictures on the walls. For each size
the table gives the full relation graph time and the median time of ``refresh_object`` after
moving a random object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from synergai.scene.build import build_graph, refresh_object
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.model import ObjectKind, SceneObject

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

#: (category, size x, y, z, can carry small things)
_FURNITURE = (
    ("table", (1.2, 0.8, 0.75), True), ("desk", (1.4, 0.7, 0.75), True),
    ("bed", (2.0, 1.6, 0.55), True), ("bookshelf", (0.9, 0.35, 1.8), False),
    ("cabinet", (1.0, 0.5, 0.9), True), ("couch", (2.0, 0.9, 0.85), True),
    ("chair", (0.5, 0.5, 0.9), False), ("nightstand", (0.5, 0.45, 0.6), True),
    ("dresser", (1.2, 0.5, 1.0), True), ("armchair", (0.8, 0.8, 0.9), False),
)
_SMALL = (("cup", (0.08, 0.08, 0.1)), ("book", (0.2, 0.15, 0.04)), ("laptop", (0.35, 0.25, 0.03)),
          ("lamp", (0.25, 0.25, 0.5)), ("plant", (0.2, 0.2, 0.35)), ("bowl", (0.18, 0.18, 0.08)),
          ("bottle", (0.08, 0.08, 0.28)), ("box", (0.3, 0.25, 0.2)))
_ROOM = (5.5, 4.5, 2.6)


def _obj(oid: int, cat: str, center: tuple[float, ...], size: tuple[float, ...],
         kind: ObjectKind = ObjectKind.OBJECT) -> SceneObject:
    return SceneObject(id=str(oid), category=cat, center=tuple(float(c) for c in center),
                       size=tuple(float(s) for s in size), kind=kind, provenance="synthetic")


def _room(rng: np.random.Generator, ox: float, oy: float, start: int, budget: int) -> list[SceneObject]:
    """One furnished room with its origin at (ox, oy)."""
    w, d, h = _ROOM
    out = [_obj(start, "floor", (ox + w / 2, oy + d / 2, -0.05), (w, d, 0.1), ObjectKind.FLOOR)]
    walls = (((ox + w / 2, oy, h / 2), (w, 0.1, h)), ((ox + w / 2, oy + d, h / 2), (w, 0.1, h)),
             ((ox, oy + d / 2, h / 2), (0.1, d, h)), ((ox + w, oy + d / 2, h / 2), (0.1, d, h)))
    for k, (c, s) in enumerate(walls):
        out.append(_obj(start + 1 + k, "wall", c, s, ObjectKind.WALL))
    nid = start + 5
    occupied: list[tuple[float, float, float, float]] = []
    tops: list[tuple[float, float, float, float, float]] = []
    for _ in range(40):
        if len(out) >= budget:
            break
        cat, size, carries = _FURNITURE[int(rng.integers(len(_FURNITURE)))]
        sx, sy, sz = size
        x = float(rng.uniform(ox + 0.1 + sx / 2, ox + w - 0.1 - sx / 2))
        y = float(rng.uniform(oy + 0.1 + sy / 2, oy + d - 0.1 - sy / 2))
        box = (x - sx / 2, y - sy / 2, x + sx / 2, y + sy / 2)
        if any(box[0] < b[2] + 0.05 and b[0] < box[2] + 0.05 and box[1] < b[3] + 0.05 and b[1] < box[3] + 0.05
               for b in occupied):
            continue
        occupied.append(box)
        out.append(_obj(nid, cat, (x, y, sz / 2), size))
        nid += 1
        if carries:
            tops.append((*box, sz))
    while len(out) < budget and tops:
        x0, y0, x1, y1, z = tops[int(rng.integers(len(tops)))]
        if rng.random() < 0.15:  # a picture on a wall
            wx = float(rng.uniform(ox + 0.5, ox + w - 0.5))
            out.append(_obj(nid, "picture", (wx, oy + 0.08, 1.6), (0.6, 0.04, 0.45)))
        else:
            cat, (sx, sy, sz) = _SMALL[int(rng.integers(len(_SMALL)))]
            x = float(rng.uniform(x0 + sx / 2, max(x0 + sx / 2, x1 - sx / 2)))
            y = float(rng.uniform(y0 + sy / 2, max(y0 + sy / 2, y1 - sy / 2)))
            out.append(_obj(nid, cat, (x, y, z + sz / 2), (sx, sy, sz)))
        nid += 1
    return out


def synthetic_scene(n_objects: int, seed: int = 0) -> list[SceneObject]:
    """About ``n_objects`` objects in furnished rooms on a grid (deterministic for a seed)."""
    rng = np.random.default_rng(seed)
    objects: list[SceneObject] = []
    k = 0
    while len(objects) < n_objects:
        gx, gy = k % 20, k // 20
        budget = min(50, n_objects - len(objects))
        objects += _room(rng, gx * (_ROOM[0] + 0.5), gy * (_ROOM[1] + 0.5), len(objects), budget)
        k += 1
    return objects[:n_objects]


def bench_scannet(data: Path) -> dict[str, float]:
    """Load objects_gt.json and build every scene's graph (wall clock and CPU time)."""
    t0, c0 = time.perf_counter(), time.process_time()
    f = load_objects_file(data / "scannet" / "objects_gt.json")
    t1 = time.perf_counter()
    edges = sum(len(build_graph(s, f.objects(s), scene_type=f.scene_type(s)).edges) for s in f.scene_ids)
    t2, c2 = time.perf_counter(), time.process_time()
    return {"scenes": len(f), "objects": f.object_count(), "edges": edges, "load_s": t1 - t0,
            "build_s": t2 - t1, "total_s": t2 - t0, "total_cpu_s": c2 - c0}


def bench_synthetic(n: int, moves: int = 200, seed: int = 0) -> dict[str, float]:
    """Full graph time and median refresh time (wall clock and CPU) after moving random objects."""
    objs = synthetic_scene(n, seed)
    t0, c0 = time.perf_counter(), time.process_time()
    graph = build_graph(f"synthetic-{n}", objs)
    build_s, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    rng = np.random.default_rng(seed + 1)
    movable = [o.id for o in graph.objects if o.kind is ObjectKind.OBJECT]
    wall, cpu = [], []
    for _ in range(moves):
        o = graph.get(movable[int(rng.integers(len(movable)))])
        dx, dy = rng.uniform(-0.5, 0.5, size=2)
        graph.put(o.with_changes(center=(o.center[0] + dx, o.center[1] + dy, o.center[2])))
        t, c = time.perf_counter(), time.process_time()
        refresh_object(graph, o.id)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return {"objects": len(objs), "edges": len(graph.edges), "build_s": build_s, "build_cpu_s": build_cpu,
            "refresh_median_ms": 1000 * statistics.median(wall),
            "refresh_cpu_median_ms": 1000 * statistics.median(cpu),
            "refresh_p90_ms": 1000 * float(np.quantile(wall, 0.9))}


def calibration_ms() -> float:
    """Time of a fixed pure-Python loop (10^6 iterations), to compare machines and loads."""
    t = time.perf_counter()
    for _ in range(1_000_000):
        pass
    return 1000 * (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="shared data directory (default: %(default)s)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    ap.add_argument("--moves", type=int, default=200, help="refreshes timed per synthetic size")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()
    result = {"calibration_ms": calibration_ms(), "scannet": bench_scannet(args.data),
              "synthetic": {str(n): bench_synthetic(n, args.moves) for n in args.sizes}}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    s = result["scannet"]
    print(f"machine: 10^6 empty Python loop iterations take {result['calibration_ms']:.0f} ms")
    print(f"ScanNet objects_gt.json: {s['scenes']} scenes, {s['objects']} objects, {s['edges']} edges")
    print(f"  load {s['load_s']:.3f} s + build {s['build_s']:.3f} s = {s['total_s']:.3f} s"
          f" (cpu {s['total_cpu_s']:.3f} s)")
    print(f"{'objects':>8} {'edges':>8} {'full graph s':>13} {'(cpu s)':>8} {'refresh median ms':>18}"
          f" {'(cpu ms)':>9} {'refresh p90 ms':>15}")
    for r in result["synthetic"].values():
        print(f"{r['objects']:>8} {r['edges']:>8} {r['build_s']:>13.3f} {r['build_cpu_s']:>8.3f}"
              f" {r['refresh_median_ms']:>18.2f} {r['refresh_cpu_median_ms']:>9.2f}"
              f" {r['refresh_p90_ms']:>15.2f}")


if __name__ == "__main__":
    main()
