"""Mask-less segmentation (`scene build` of a scan without instance ids) against ground truth, and its cost.

    python benchmarks/bench_maskless.py [--json]

Scans (all real, from ../shared/data; nothing is downloaded):

- ``scene0574_00``: the real ScanNet mesh ``geometry/scene0574_00_agent_frame.glb`` (56,928 coloured
  vertices, taken as points). Its ground truth is scene0574_00's 29 boxes in ``scannet/objects_gt.json``
  (ScanNet's axis-aligned frame). Frames: the glTF file is y-up, so (x, y, z) -> (x, -z, y) makes it z-up;
  then a turn about z and a translation are fitted by grid search (2 degree / 10 cm, then 0.25 degree /
  2 cm) to put the most vertices inside the ground-truth boxes (grown by 1 cm). The share of vertices
  inside after the fit is printed: the frames match to about a centimetre where it is near 1.
- ``scene0574_00 1M``: 1,000,000 points sampled on that mesh's surface (colour of the nearest vertex):
  the same room as a dense scanner would give it.
- ``scene0000_00``: the real 40,684-point cloud (``geometry/scene0000_00_points_xyzrgb_float32.bin``,
  axis-aligned by ``axis_alignment_matrices.json``); its objects are not in objects_gt.json, so no recall.
- ``scene0000_00 x25``: that cloud with each point repeated 25 times with 1 cm Gaussian jitter
  (1,017,100 points): memory and time at a million points.

Recall: the ground-truth boxes matched one-to-one to segment boxes (scipy's linear_sum_assignment on
3D box IoU) with IoU >= 0.25 and >= 0.5, over all ground-truth objects (floor, walls and ceiling
included: the segmentation names them). Time: ``segment_cloud`` + objects (Open3D imported before
timing). Peak memory: the maximum resident set of a fresh process that loads the cloud and segments it.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
GLB = DATA / "geometry" / "scene0574_00_agent_frame.glb"
BIN = DATA / "geometry" / "scene0000_00_points_xyzrgb_float32.bin"


def _turn(deg: float) -> np.ndarray:
    t = np.radians(deg)
    return np.array([[np.cos(t), -np.sin(t), 0.0], [np.sin(t), np.cos(t), 0.0], [0.0, 0.0, 1.0]])


def gt_boxes(scene: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    objects = json.loads((DATA / "scannet" / "objects_gt.json").read_text())["scenes"][scene]
    lo = np.array([np.subtract(o["center_position"], np.divide(o["size"], 2)) for o in objects])
    return [o["label"] for o in objects], lo, lo + np.array([o["size"] for o in objects])


def _inside(p: np.ndarray, lo: np.ndarray, hi: np.ndarray, grow: float) -> float:
    """The share of points inside at least one of the boxes grown by ``grow``."""
    hit = np.all((p[:, None] >= lo - grow) & (p[:, None] <= hi + grow), axis=2).any(axis=1)
    return float(hit.mean())


def fit_frame(zup: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[float, np.ndarray, float]:
    """(turn in degrees, translation, share of vertices inside the boxes) putting the mesh on the boxes:
    a grid of turns (2 degrees) and shifts (10 cm), then finer turns (0.25 degree) and shifts (2 cm)."""
    sub, coarse = zup[::10], zup[::40]
    best = (-1.0, 0.0, np.zeros(3))
    for deg in np.arange(0.0, 360.0, 2.0):
        p = coarse @ _turn(deg).T
        base = (lo.min(axis=0) + hi.max(axis=0)) / 2 - (p.min(axis=0) + p.max(axis=0)) / 2
        base[2] = lo.min(axis=0)[2] - p.min(axis=0)[2]
        for dx in np.arange(-0.3, 0.31, 0.1):
            for dy in np.arange(-0.3, 0.31, 0.1):
                t = base + np.array([dx, dy, 0.0])
                s = _inside(p + t, lo, hi, 0.03)
                if s > best[0]:
                    best = (s, deg, t)
    _, deg, t = best
    best = (-1.0, deg, t)
    for deg in np.arange(best[1] - 2, best[1] + 2.01, 0.25):  # finer turns at the coarse shift
        s = _inside(sub @ _turn(deg).T + t, lo, hi, 0.01)
        if s > best[0]:
            best = (s, deg, t)
    deg = best[1]
    p = sub @ _turn(deg).T
    for d in np.stack(np.meshgrid(*(np.arange(-0.1, 0.101, 0.02),) * 2, np.arange(-0.06, 0.061, 0.02)),
                      axis=-1).reshape(-1, 3):  # finer shifts at the best turn
        s = _inside(p + t + d, lo, hi, 0.01)
        if s > best[0]:
            best = (s, deg, t + d)
    _, deg, t = best
    return float(deg), np.asarray(t), _inside(zup @ _turn(deg).T + t, lo, hi, 0.01)


def scene0574(dense: int = 0) -> tuple[np.ndarray, np.ndarray, dict]:
    import trimesh

    mesh = trimesh.load(GLB, force="mesh", process=False)
    v = np.asarray(mesh.vertices)
    rgb = np.asarray(mesh.visual.vertex_colors)[:, :3].astype(float)
    zup = np.column_stack([v[:, 0], -v[:, 2], v[:, 1]])
    _, lo, hi = gt_boxes("scene0574_00")
    deg, t, share = fit_frame(zup, lo, hi)
    xyz = zup @ _turn(deg).T + t
    if dense:
        faces = np.asarray(mesh.faces)
        aligned = trimesh.Trimesh(xyz, faces, process=False)
        pts, face = trimesh.sample.sample_surface(aligned, dense, seed=0)
        corner = faces[face, np.argmin(np.linalg.norm(xyz[faces[face]] - pts[:, None], axis=2), axis=1)]
        xyz, rgb = np.asarray(pts), rgb[corner]
    return xyz, rgb, {"frame": f"glTF y-up -> z-up, turn {deg:.2f} deg, t = {np.round(t, 3).tolist()}",
                      "vertices_in_gt_boxes": round(share, 3)}


def scene0000(repeat: int = 1) -> tuple[np.ndarray, np.ndarray, dict]:
    table = np.fromfile(BIN, "<f4").reshape(-1, 6).astype(np.float64)
    m = np.array(json.loads((DATA / "scannet" / "axis_alignment_matrices.json").read_text())["scene0000_00"])
    xyz = table[:, :3] @ m.reshape(4, 4)[:3, :3].T + m.reshape(4, 4)[:3, 3]
    rgb = table[:, 3:]
    if repeat > 1:
        rng = np.random.default_rng(0)
        xyz = np.repeat(xyz, repeat, axis=0) + rng.normal(0.0, 0.01, (len(xyz) * repeat, 3))
        rgb = np.repeat(rgb, repeat, axis=0)
    return xyz, rgb, {}


def recall(gt_lo: np.ndarray, gt_hi: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> dict[str, int]:
    from scipy.optimize import linear_sum_assignment

    inter = np.prod(np.clip(np.minimum(gt_hi[:, None], hi[None]) - np.maximum(gt_lo[:, None], lo[None]), 0,
                            None), axis=2)
    union = np.prod(gt_hi - gt_lo, axis=1)[:, None] + np.prod(hi - lo, axis=1)[None] - inter
    iou = inter / np.maximum(union, 1e-12)
    rows, cols = linear_sum_assignment(-iou)
    matched = iou[rows, cols]
    return {"iou25": int((matched >= 0.25).sum()), "iou50": int((matched >= 0.5).sum())}


CASES = {
    "scene0574_00": lambda: scene0574(),
    "scene0574_00 1M": lambda: scene0574(dense=1_000_000),
    "scene0000_00": lambda: scene0000(),
    "scene0000_00 x25": lambda: scene0000(repeat=25),
}


def run_case(name: str) -> dict:
    """One case in this (fresh) process: load, segment, score."""
    from synergai.geometry.point_cloud import open3d
    from synergai.scene.builders.segment import objects_from_segmentation, segment_cloud
    from synergai.scene.vocabulary import UNNAMED

    open3d()
    xyz, rgb, info = CASES[name]()
    started = time.perf_counter()
    seg = segment_cloud(xyz, rgb)
    objects = objects_from_segmentation(seg)
    seconds = time.perf_counter() - started
    row = {"scan": name, "points": len(xyz), "voxels": len(seg.xyz), "segments": len(objects),
           "unnamed": sum(o.category == UNNAMED for o in objects),
           "structure": ", ".join(f"{sum(o.category == k for o in objects)} {k}"
                                  for k in ("floor", "wall", "ceiling")),
           "seconds": round(seconds, 1),
           "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
           **info}
    if name.startswith("scene0574_00"):
        _, lo, hi = gt_boxes("scene0574_00")
        row |= {"gt": len(lo), **recall(lo, hi, np.array([o.min_corner for o in objects]),
                                        np.array([o.max_corner for o in objects]))}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--only", choices=list(CASES), action="append", help="run only these scans")
    args = parser.parse_args()
    rows = []
    ctx = multiprocessing.get_context("spawn")
    for name in args.only or list(CASES):
        with ctx.Pool(1) as pool:  # a fresh process per case: its peak memory is its own
            rows.append(pool.apply(run_case, (name,)))
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'scan':18} {'points':>9} {'voxels':>7} {'segments':>8} {'unnamed':>7} {'recall@.25':>10} "
          f"{'recall@.5':>9} {'time s':>7} {'peak MB':>8}  structure")
    for r in rows:
        r25 = f"{r['iou25']}/{r['gt']}" if "gt" in r else "-"
        r50 = f"{r['iou50']}/{r['gt']}" if "gt" in r else "-"
        print(f"{r['scan']:18} {r['points']:>9,} {r['voxels']:>7,} {r['segments']:>8} {r['unnamed']:>7} "
              f"{r25:>10} {r50:>9} {r['seconds']:>7} {r['peak_mb']:>8}  {r['structure']}")
    for r in rows:
        if "frame" in r:
            print(f"{r['scan']}: {r['frame']}; {r['vertices_in_gt_boxes']:.1%} of the mesh's vertices lie in "
                  "ground-truth boxes (grown by 1 cm)")


if __name__ == "__main__":
    main()
