"""Every file reader validates types before use (issue 33): a hostile SceneVerse, ConceptGraphs or RGB-D
input ends in a one-line error with exit 2 and leaves the store byte for byte as it was; nothing is
silently coerced, and nothing is accepted that a later command cannot read."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from synergai.cli.main import main
from synergai.scene.model import ObjectKind, SceneGraph, SceneObject
from synergai.scene.store import SceneStore

SCENEVERSE: dict[str, Any] = {
    "scan_id": "sv", "scene_type": "Kitchen",
    "objects": [
        {"id": 1, "label": "table", "position": [1.0, 1.0, 0.4], "size": [1.0, 0.8, 0.8],
         "color": [120, 80, 40], "attributes": ["wooden"], "confidence": 0.9, "level": 1,
         "obb": {"center": [1.0, 1.0, 0.4], "size": [1.0, 0.8, 0.8], "yaw": 0.0}},
        {"id": 2, "label": "cup", "position": [1.0, 1.0, 0.85], "size": [0.1, 0.1, 0.1], "level": 2},
    ],
    "relationships": [[2, 1, "on"]],
}


def _variant(path: list[Any], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(SCENEVERSE)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


#: The issue's SceneVerse probes: (field path, hostile value, words the error names).
SCENEVERSE_PROBES = {
    "relationships a number": (["relationships"], 5, "relationships"),
    "color a number": (["objects", 0, "color"], 7, "color"),
    "attributes a number": (["objects", 0, "attributes"], 3, "attributes"),
    "attributes a string": (["objects", 0, "attributes"], "red", "attributes"),
    "level a list": (["objects", 0, "level"], [1], "level"),
    "confidence a list": (["objects", 0, "confidence"], [0.5], "confidence"),
    "obb.yaw a list": (["objects", 0, "obb", "yaw"], [0.0], "yaw"),
    "scene_type a number": (["scene_type"], 5, "scene_type"),
    "id null": (["objects", 0, "id"], None, "id"),
}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store that already holds a scene: it must stay byte for byte the same."""
    path = tmp_path / "s.sqlite3"
    floor = SceneObject("0", "floor", (2.0, 2.0, -0.05), (4.0, 4.0, 0.1), kind=ObjectKind.FLOOR)
    with SceneStore(path) as s:
        s.register(SceneGraph("kept", [floor], []), {"builder": "test"})
    return path


def _refused(argv: list[str], db: Path, capsys: pytest.CaptureFixture[str], words: str) -> None:
    before = db.read_bytes()
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (argv, out, err)
    assert len(err.strip().splitlines()) == 1 and words in err and "Traceback" not in err
    assert db.read_bytes() == before


@pytest.mark.parametrize("probe", sorted(SCENEVERSE_PROBES))
def test_a_sceneverse_file_with_a_wrong_type_is_refused(
    probe: str, db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, value, words = SCENEVERSE_PROBES[probe]
    f = tmp_path / "sv.json"
    f.write_text(json.dumps(_variant(path, value)), encoding="utf-8")
    _refused(["scene", "import", str(f), "--format", "sceneverse", "--db", str(db)], db, capsys, words)


def test_the_valid_sceneverse_file_imports_and_resets(db: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "sv.json"
    f.write_text(json.dumps(SCENEVERSE), encoding="utf-8")
    assert main(["scene", "import", str(f), "--format", "sceneverse", "--db", str(db)]) == 0
    assert main(["scene", "reset", "--scene", "sv", "--db", str(db)]) == 0
    with SceneStore(db) as s:
        assert s.load("sv").get("1").attributes == ("wooden",)


@pytest.mark.parametrize("top", ["5", "null", "true", '"text"'])
def test_a_conceptgraphs_file_whose_top_level_is_no_list_or_object_is_refused(
    top: str, db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "cg.json"
    f.write_text(top, encoding="utf-8")
    _refused(["scene", "import", str(f), "--format", "conceptgraphs", "--db", str(db)], db, capsys,
             "ConceptGraphs")


def _frames(tmp_path: Path, depth: np.ndarray) -> tuple[Path, Path]:
    import imageio.v3 as iio

    d = tmp_path / "frames"
    for sub in ("depth", "color", "pose", "instance", "intrinsic"):
        (d / sub).mkdir(parents=True)
    k = np.eye(4)
    k[0, 0] = k[1, 1] = 10.0
    (d / "intrinsic" / "intrinsic_depth.txt").write_text("\n".join(" ".join(map(str, r)) for r in k.tolist()))
    iio.imwrite(d / "depth" / "0.png", depth)
    iio.imwrite(d / "color" / "0.png", np.full((24, 32, 3), 120, np.uint8))
    iio.imwrite(d / "instance" / "0.png", np.ones((24, 32), np.uint16))
    (d / "pose" / "0.txt").write_text("\n".join(" ".join(map(str, r)) for r in np.eye(4).tolist()))
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"1": "box"}))
    return d, labels


def _build(d: Path, labels: Path, db: Path) -> list[str]:
    return ["scene", "build", "--from", "rgbd", str(d), "--labels", str(labels), "--scene-id", "frames",
            "--db", str(db)]


def test_an_rgbd_folder_with_a_truncated_depth_png_is_refused(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    noise = np.random.default_rng(0).integers(1000, 2000, (24, 32)).astype(np.uint16)
    d, labels = _frames(tmp_path, noise)
    png = (d / "depth" / "0.png").read_bytes()
    for cut in (20, 40, len(png) // 2, len(png) - 40):
        (d / "depth" / "0.png").write_bytes(png[:cut])
        _refused(_build(d, labels, db), db, capsys, "frame 0")


def test_an_rgbd_folder_with_an_8_bit_rgb_depth_image_is_refused(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d, labels = _frames(tmp_path, np.full((24, 32, 3), 200, np.uint8))
    _refused(_build(d, labels, db), db, capsys, "depth image must be one channel")


# ----- issue 42, item 6: binary Spark-DSG, image bombs, torn bags


def png_header(width: int, height: int, color_type: int = 2) -> bytes:
    """A PNG whose header states ``width`` x ``height`` pixels (RGB by default) and holds almost none."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(64)))
            + chunk(b"IEND", b""))


@pytest.mark.parametrize(("width", "height", "color_type"), [(20000, 20000, 0), (12000, 12000, 2)])
def test_an_image_bomb_in_a_bag_is_one_line_before_any_pixel_is_allocated(
    width: int, height: int, color_type: int
) -> None:
    import tracemalloc
    from types import SimpleNamespace

    from synergai.scene.builders import ros_messages as rm
    from synergai.scene.model import SceneError

    msg = SimpleNamespace(format="rgb8; png compressed rgb8", data=np.frombuffer(
        png_header(width, height, color_type), dtype=np.uint8))
    tracemalloc.start()
    try:
        with pytest.raises(SceneError, match="more than the 50,000,000 pixels") as err:
            rm.color_rgb(msg)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "\n" not in str(err.value) and peak < 16 << 20


def test_an_image_bomb_in_an_rgbd_folder_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = tmp_path / "frames"
    for sub in ("depth", "instance", "color", "pose", "intrinsic"):
        (d / sub).mkdir(parents=True)
    (d / "depth" / "0.png").write_bytes(png_header(30000, 30000, 0))
    (d / "instance" / "0.png").write_bytes(png_header(8, 8, 0))
    (d / "color" / "0.png").write_bytes(png_header(8, 8))
    (d / "pose" / "0.txt").write_text("1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n")
    (d / "intrinsic" / "intrinsic_depth.txt").write_text("500 0 4 0\n0 500 4 0\n0 0 1 0\n0 0 0 1\n")
    labels = tmp_path / "labels.json"
    labels.write_text('{"1": "box"}')
    code = main(["scene", "build", "--from", "rgbd", str(d), "--labels", str(labels), "--db",
                 str(tmp_path / "s.db"), "--scene-id", "bomb"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "more than the 50,000,000 pixels" in err, err


def test_a_torn_db3_bag_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """2000 bytes overwritten in the middle of a ROS 2 .db3, six times: each ends in one line (a torn
    page read while iterating raised apsw.CorruptError with a traceback) or builds from what is left."""
    import random
    import shutil

    from synergai.scene.builders.rgbd import RGBDFrame
    from synergai.scene.builders.rosbag_writer import BAG_TOPICS, write_rgbd_bag

    h, w = 48, 64
    instance = np.ones((h, w), np.int64)
    instance[:, 32:] = 2
    color = (np.random.default_rng(0).random((h, w, 3)) * 255).astype(np.uint8)
    frame = RGBDFrame(np.full((h, w), 1.5), color, instance,
                      np.array([[40.0, 0, w / 2], [0, 40.0, h / 2], [0, 0, 1.0]]), np.eye(4))
    good = write_rgbd_bag(tmp_path / "bag", [frame] * 30, fmt="sqlite3")
    data = next(good.glob("*.db3")).read_bytes()
    labels = tmp_path / "labels.json"
    labels.write_text('{"1": "box", "2": "chair"}')
    keys = ("depth", "color", "camera_info", "instance", "pose")
    argv = [a for key in keys for a in (f"--{key.replace('_', '-')}-topic", BAG_TOPICS[key])]
    rng = random.Random(0)
    torn_while_reading = 0
    for n in range(6):
        bag = shutil.copytree(good, tmp_path / f"torn{n}")
        torn = bytearray(data)
        at = rng.randrange(8192, len(torn) - 8192)
        for i in range(at, at + 2000):
            torn[i] = rng.randrange(256)
        next(bag.glob("*.db3")).write_bytes(bytes(torn))
        code = main(["scene", "build", "--from", "rosbag", str(bag), *argv, "--labels", str(labels),
                     "--min-points", "5", "--db", str(tmp_path / "s.db"), "--scene-id", f"torn{n}"])
        err = capsys.readouterr().err
        assert code == 0 or (code == 2 and len(err.strip().splitlines()) == 1), err
        torn_while_reading += "not a readable ROS bag (database disk image is malformed)" in err
    assert torn_while_reading >= 1


def test_a_corrupt_binary_spark_dsg_that_would_allocate_gigabytes_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Array lengths in a binary Spark-DSG set to 2**31 - 1: the package's reader asks for gigabytes
    (std::bad_alloc under a 1 GB limit, an OOM kill without one). It runs in a child under a memory
    limit; the command ends in one line and this process never allocates what the file asks."""
    import re
    import resource

    from synergai.scene.catalog import SceneCatalog
    from synergai.scene.sparkdsg import save_spark_dsg

    good = tmp_path / "house.sparkdsg"
    save_spark_dsg(SceneCatalog(SceneStore(tmp_path / "a.db")).open("house"), good)
    data = good.read_bytes()
    arrays = [m.start() for m in re.finditer(b"\xdd", data)]  # an array marker, then its length (LE)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for k in (2, 7, 17):
        bad = tmp_path / f"bad{k}.sparkdsg"
        out = bytearray(data)
        out[arrays[k] + 1:arrays[k] + 5] = b"\xff\xff\xff\x7f"
        bad.write_bytes(bytes(out))
        code = main(["scene", "import", str(bad), "--format", "spark-dsg", "--db", str(tmp_path / "s.db")])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and "not a Spark-DSG graph" in err, err
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # KiB
    with SceneStore(tmp_path / "s.db") as store:
        assert store.scenes() == []
