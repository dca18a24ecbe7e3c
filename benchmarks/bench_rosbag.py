"""Frames per second of `synergai scene build --from rosbag` on bags of the real scene0000_00 scan.

    python benchmarks/bench_rosbag.py [--frames 30] [--width 320] [--height 240] [--fill] [--json]

The real point cloud (``../shared/data/geometry``, 40,684 points) is instance-labelled the way
tests/cli/real_frames.py does it (floor, ceiling, 1 m cells), rendered into ``--frames`` posed views
turning around the room (z-buffered splatting; the sparse scan leaves most pixels empty, ``--fill``
gives every empty pixel its nearest rendered one, as dense as a real depth camera), and written with
rosbags' own writers as a ROS 1 ``.bag`` (pose topic), a ROS 2 sqlite3 bag (``/tf``) and a ROS 2 MCAP
bag (pose topic). Each bag is then built by the real command, in-process, into a fresh store; "read"
is the bag part alone (open, decode, synchronise: ``read_bag_frames``), "build" the whole command
(read, RGB-D fusion at 2 cm, objects, relations, store). Frames / s = frames / seconds. No model.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from synergai.cli.main import main as cli
from synergai.geometry.projection import look_at, splat_points
from synergai.scene.builders.rgbd import RGBDFrame
from synergai.scene.builders.rosbag import BagTopics, read_bag_frames
from synergai.scene.builders.rosbag_writer import BAG_TOPICS, BagFormat, PoseSource, write_rgbd_bag

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SCENE = "scene0000_00"
BAGS: list[tuple[str, BagFormat, PoseSource]] = [
    ("scan.bag", "ros1", "topic"), ("scan_db3", "sqlite3", "tf"), ("scan_mcap", "mcap", "topic")]


def labelled_cloud() -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[int, str]]:
    """Aligned points, colours, instance ids and labels (floor, ceiling, 1 m cells in between)."""
    table = np.fromfile(DATA / "geometry" / f"{SCENE}_points_xyzrgb_float32.bin", "<f4").reshape(-1, 6)
    m = np.array(json.loads((DATA / "scannet" / "axis_alignment_matrices.json").read_text())[SCENE])
    m = m.reshape(4, 4)
    xyz = table[:, :3].astype(np.float64) @ m[:3, :3].T + m[:3, 3]
    cell = 100 + (np.floor(xyz[:, 0]).astype(int) + 10) * 100 + np.floor(xyz[:, 1]).astype(int) + 10
    inst = np.where(xyz[:, 2] < 0.05, 1, np.where(xyz[:, 2] > 2.2, 2, cell))
    labels = {int(i): "box" for i in np.unique(inst)} | {1: "floor", 2: "ceiling"}
    return xyz, table[:, 3:].astype(np.uint8), inst, labels


def render(n: int, h: int, w: int, fill: bool) -> tuple[list[RGBDFrame], dict[int, str]]:
    xyz, rgb, inst, labels = labelled_cloud()
    k = np.array([[w / 2, 0, w / 2], [0, w / 2, h / 2], [0, 0, 1.0]])
    eye = np.array([*xyz.mean(axis=0)[:2], 1.4])
    frames = []
    for angle in np.arange(n) * 2 * np.pi / n:
        pose = look_at(eye, np.array([np.cos(angle), np.sin(angle), -0.5]))
        depth, index = splat_points(xyz, pose, k, (h, w))
        seen = index >= 0
        if fill:
            from scipy.ndimage import distance_transform_edt

            rows, cols = distance_transform_edt(~seen, return_distances=False, return_indices=True)
            depth, index, seen = depth[rows, cols], index[rows, cols], np.ones_like(seen)
        color, ids = np.zeros((h, w, 3), np.uint8), np.zeros((h, w), np.int64)
        color[seen], ids[seen] = rgb[index[seen]], inst[index[seen]]
        frames.append(RGBDFrame(depth, color, ids, k, pose, labels))
    return frames, labels


def run(args: argparse.Namespace) -> list[dict]:
    frames, labels = render(args.frames, args.height, args.width, args.fill)
    valid = np.mean([np.count_nonzero(f.depth) for f in frames])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "labels.json").write_text(json.dumps({str(k): v for k, v in labels.items()}))
        for name, fmt, pose in BAGS:
            bag = write_rgbd_bag(root / name, frames, fmt=fmt, pose=pose)
            size = sum(p.stat().st_size for p in ([bag] if bag.is_file() else bag.iterdir()))
            where = ["--pose-topic", BAG_TOPICS["pose"]] if pose == "topic" else ["--tf-frame",
                                                                                 BAG_TOPICS["tf_frame"]]
            topics = BagTopics(BAG_TOPICS["depth"], BAG_TOPICS["color"], BAG_TOPICS["camera_info"],
                               BAG_TOPICS["instance"], pose=BAG_TOPICS["pose"] if pose == "topic" else None,
                               tf_frame=None if pose == "topic" else BAG_TOPICS["tf_frame"])
            t0 = time.perf_counter()
            got = read_bag_frames(bag, topics, labels)  # decoded, all held
            t_read = time.perf_counter() - t0
            argv = ["scene", "build", "--from", "rosbag", str(bag), "--depth-topic", BAG_TOPICS["depth"],
                    "--color-topic", BAG_TOPICS["color"], "--camera-info-topic", BAG_TOPICS["camera_info"],
                    "--instance-topic", BAG_TOPICS["instance"], *where, "--labels", str(root / "labels.json"),
                    "--db", str(root / f"{name}.db"), "--json"]
            out = io.StringIO()
            t0 = time.perf_counter()
            with contextlib.redirect_stdout(out):
                code = cli(argv)
            t_build = time.perf_counter() - t0
            if code != 0:
                raise SystemExit(f"{name}: scene build exited {code}")
            summary = json.loads(out.getvalue())
            rows.append({"bag": f"{name} ({fmt}, pose {pose})", "mb": size / 1e6, "frames": len(got),
                         "objects": summary["objects"], "valid_px": valid, "read_s": t_read,
                         "build_s": t_build,
                         "read_fps": len(got) / t_read, "build_fps": summary["frames"] / t_build})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--width", type=int, default=320)
    ap.add_argument("--height", type=int, default=240)
    ap.add_argument("--fill", action="store_true", help="fill empty pixels: dense depth images")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = run(args)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{args.frames} frames of {args.width}x{args.height} from the real {SCENE} scan, "
          f"{rows[0]['valid_px']:.0f} valid depth pixels a frame")
    head = f"{'bag':<34} {'MB':>6} {'frames':>6} {'objects':>7} {'read fps':>9}"
    print(f"{head} {'build fps':>9} {'build s':>8}")
    for r in rows:
        print(f"{r['bag']:<34} {r['mb']:>6.1f} {r['frames']:>6} {r['objects']:>7} {r['read_fps']:>9.1f} "
              f"{r['build_fps']:>9.1f} {r['build_s']:>8.2f}")


if __name__ == "__main__":
    main()
