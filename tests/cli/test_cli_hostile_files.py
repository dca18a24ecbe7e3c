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
