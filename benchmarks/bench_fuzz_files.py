"""Hostile-file fuzz: corrupted binary Spark-DSG files and corrupted ROS bags through `scene import` and
`scene build --from rosbag`; counts tracebacks, exit codes, errors longer than one line and peak memory.

    python benchmarks/bench_fuzz_files.py [--sparkdsg 300] [--bags 100] [--seed 0] [--json]

Spark-DSG: the house scene (rooms, 53 objects) written in binary by ``save_spark_dsg``, then per file one
of: 1-4 random bytes changed; one array length (the 4 bytes after a ``0xdd`` marker) set to a random
32-bit number (the reader trusts it); cut at a random point; a random run of bytes deleted or inserted.
Bags: 10 posed RGB-D frames (64x48) as a ROS 1 ``.bag`` with PNG ``CompressedImage`` messages, a ROS 2
``.db3`` and an ``.mcap``, then per bag one of: random bytes changed; 2000 bytes overwritten in the middle
(a torn page); cut at a random point; the colour image replaced by a PNG whose header states
20000x20000 grey or 12000x12000 colour pixels; a camera at 1e300 m; focal lengths of 1e-308 pixels.

Each file runs in this process through ``synergai.cli.main.main`` (the Spark-DSG reader itself runs in
its child process under a memory limit); an exception out of ``main`` or "Traceback" on stderr counts as
a traceback. Peak memory: this process's max RSS and the largest child's (``getrusage``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import re
import resource
import shutil
import struct
import sys
import tempfile
import time
import traceback
import zlib
from collections import Counter
from pathlib import Path

import numpy as np

from synergai.cli.main import main
from synergai.scene.builders import rosbag_writer
from synergai.scene.builders.rgbd import RGBDFrame
from synergai.scene.builders.rosbag_writer import BAG_TOPICS, write_rgbd_bag
from synergai.scene.catalog import SceneCatalog
from synergai.scene.sparkdsg import save_spark_dsg
from synergai.scene.store import SceneStore

KEYS = ("depth", "color", "camera_info", "instance", "pose")
TOPIC_ARGS = [a for key in KEYS for a in (f"--{key.replace('_', '-')}-topic", BAG_TOPICS[key])]


def run(argv: list[str]) -> dict[str, object]:
    """One command in this process: exit code, whether it printed a traceback, error lines."""
    out, err = io.StringIO(), io.StringIO()
    traced = False
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except BaseException:  # what the fuzz counts
            traceback.print_exc()
            code, traced = -1, True
    text = err.getvalue()
    return {"code": code, "traceback": traced or "Traceback" in text,
            "multiline": code == 2 and len(text.strip().splitlines()) != 1}


def sparkdsg_cases(data: bytes, n: int, rng: random.Random) -> list[bytes]:
    arrays = [m.start() for m in re.finditer(b"\xdd", data)]
    out = []
    for k in range(n):
        b = bytearray(data)
        kind = k % 4
        if kind == 0:
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(len(b))] = rng.randrange(256)
        elif kind == 1:
            at = rng.choice(arrays)
            b[at + 1:at + 5] = struct.pack("<I", rng.choice([rng.randrange(1 << 32), (1 << 31) - 1,
                                                              rng.randrange(1 << 20, 1 << 28)]))
        elif kind == 2:
            del b[rng.randrange(1, len(b)):]
        else:
            at = rng.randrange(len(b))
            if rng.random() < 0.5:
                del b[at:at + rng.randint(1, 64)]
            else:
                b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        out.append(bytes(b))
    return out


def png_header(width: int, height: int, color_type: int) -> bytes:
    """A PNG whose header states width x height pixels and which holds almost none."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(64))) \
        + chunk(b"IEND", b"")


def frames(fx: float = 40.0) -> list[RGBDFrame]:
    h, w = 48, 64
    instance = np.ones((h, w), np.int64)
    instance[:, 32:] = 2
    color = (np.random.default_rng(0).random((h, w, 3)) * 255).astype(np.uint8)
    k = np.array([[fx, 0, w / 2], [0, fx, h / 2], [0, 0, 1.0]])
    return [RGBDFrame(np.full((h, w), 1.5), color, instance, k, np.eye(4))] * 10


class _Numbers:
    """A frame's numbers as a corrupt bag holds them (RGBDFrame would refuse them)."""

    def __init__(self, frame: RGBDFrame, k: np.ndarray) -> None:
        self.depth, self.color, self.instance = frame.depth, frame.color, frame.instance
        self.intrinsics, self.cam_to_world = k, frame.cam_to_world


def bomb_bag(path: Path, width: int, height: int, color_type: int) -> Path:
    """A ROS 1 bag of PNG images whose colour images state width x height pixels."""
    original = rosbag_writer._Messages.compressed

    def compressed(self: rosbag_writer._Messages, stamp: int, frame: str, pixels: np.ndarray, fmt: str,
                   prefix: bytes = b"") -> object:
        msg = original(self, stamp, frame, pixels, fmt, prefix)
        if fmt.startswith("rgb8"):
            msg.data = np.frombuffer(png_header(width, height, color_type), dtype=np.uint8)
        return msg

    rosbag_writer._Messages.compressed = compressed  # type: ignore[method-assign]
    try:
        return write_rgbd_bag(path, frames(), fmt="ros1", compressed=True)
    finally:
        rosbag_writer._Messages.compressed = original  # type: ignore[method-assign]


def bag_file(bag: Path) -> Path:
    """The file holding a bag's records (the bag itself, or the storage file in its directory)."""
    return bag if bag.is_file() else next(p for p in bag.iterdir() if p.suffix in (".db3", ".mcap"))


def make_bag(k: int, rng: random.Random, bases: dict[str, Path], work: Path) -> Path:
    kind = k % 6
    if kind == 3:
        return bomb_bag(work / f"bomb{k}.bag", *rng.choice([(20000, 20000, 0), (12000, 12000, 2)]))
    if kind == 4:
        pose = np.eye(4)
        pose[0, 3] = 1e300
        return write_rgbd_bag(work / f"far{k}.bag", frames(), fmt="ros1", poses=[pose] * 10)
    if kind == 5:
        k_bad = frames()[0].intrinsics.copy()
        k_bad[0, 0] = k_bad[1, 1] = 1e-308
        raw = [_Numbers(f, k_bad) for f in frames()]
        return write_rgbd_bag(work / f"fx{k}.bag", raw, fmt="ros1")  # type: ignore[arg-type]
    base = bases[rng.choice(list(bases))]
    bag = work / f"bag{k}{base.suffix}"
    if base.is_dir():
        shutil.copytree(base, bag)
    else:
        shutil.copy(base, bag)
    target = bag_file(bag)
    b = bytearray(target.read_bytes())
    if kind == 0:
        for _ in range(rng.randint(1, 16)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif kind == 1:
        at = rng.randrange(len(b) // 4, 3 * len(b) // 4)
        b[at:at + 2000] = bytes(rng.randrange(256) for _ in range(2000))
    else:
        del b[rng.randrange(1, len(b)):]
    target.write_bytes(bytes(b))
    return bag


def bench(n_dsg: int, n_bags: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    rows: dict[str, list[dict[str, object]]] = {"sparkdsg": [], "bags": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        house = work / "house.sparkdsg"
        save_spark_dsg(SceneCatalog(SceneStore(work / "a.db")).open("house"), house)
        db = str(work / "s.db")
        for k, data in enumerate(sparkdsg_cases(house.read_bytes(), n_dsg, rng)):
            path = work / f"f{k}.sparkdsg"
            path.write_bytes(data)
            rows["sparkdsg"].append(run(["scene", "import", str(path), "--format", "spark-dsg", "--db", db,
                                         "--scene-id", f"d{k}"]))
            path.unlink()
        labels = work / "labels.json"
        labels.write_text('{"1": "box", "2": "chair"}')
        bases = {"ros1": write_rgbd_bag(work / "base.bag", frames(), fmt="ros1", compressed=True),
                 "db3": write_rgbd_bag(work / "base_db3", frames(), fmt="sqlite3"),
                 "mcap": write_rgbd_bag(work / "base_mcap", frames(), fmt="mcap")}
        for k in range(n_bags):
            bag = make_bag(k, rng, bases, work)
            rows["bags"].append(run(["scene", "build", "--from", "rosbag", str(bag), *TOPIC_ARGS, "--labels",
                                     str(labels), "--min-points", "5", "--db", db, "--scene-id", f"b{k}"]))
            shutil.rmtree(bag) if bag.is_dir() else bag.unlink()
    summary = {}
    for name, results in rows.items():
        summary[name] = {"files": len(results), "tracebacks": sum(bool(r["traceback"]) for r in results),
                         "multi-line errors": sum(bool(r["multiline"]) for r in results),
                         "exit codes": dict(Counter(str(r["code"]) for r in results))}
    summary["max RSS MB"] = {
        "this process": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "largest child": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)}
    return summary


def main_bench(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sparkdsg", type=int, default=300)
    ap.add_argument("--bags", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    summary = bench(args.sparkdsg, args.bags, args.seed)
    summary["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"{'files':<10}{'n':>5}{'tracebacks':>12}{'multi-line':>12}  exit codes")
    for name in ("sparkdsg", "bags"):
        s: dict = summary[name]  # type: ignore[assignment]
        print(f"{name:<10}{s['files']:>5}{s['tracebacks']:>12}{s['multi-line errors']:>12}  "
              f"{s['exit codes']}")
    rss: dict = summary["max RSS MB"]  # type: ignore[assignment]
    print(f"max RSS: this process {rss['this process']} MB, largest child {rss['largest child']} MB; "
          f"{summary['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main_bench())
