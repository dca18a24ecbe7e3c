"""Extreme numbers in a bag (a pose at 1e300 m, a focal length of 1e-308 pixels) and a NaN voxel size:
one line, exit 2, and no numpy warning before it; NaN fails every "must be positive" check (issue 42)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from synergai.cli.main import main
from synergai.scene.builders.rgbd import RGBDFrame, VoxelGrid, objects_from_rgbd, voxel_keys
from synergai.scene.builders.rosbag_writer import BAG_TOPICS
from synergai.scene.model import SceneError
from synergai.scene.store import SceneStore

TOPICS = ["--depth-topic", BAG_TOPICS["depth"], "--color-topic", BAG_TOPICS["color"], "--camera-info-topic",
          BAG_TOPICS["camera_info"], "--instance-topic", BAG_TOPICS["instance"], "--pose-topic",
          BAG_TOPICS["pose"]]


def _frame(fx: float = 20.0) -> RGBDFrame:
    h, w = 16, 20
    instance = np.ones((h, w), np.int64)
    instance[:, 10:] = 2
    k = np.array([[fx, 0.0, w / 2], [0.0, fx, h / 2], [0.0, 0.0, 1.0]])
    return RGBDFrame(np.full((h, w), 1.5), np.full((h, w, 3), 120, np.uint8), instance, k, np.eye(4))


class _RawFrame:
    """A frame's numbers as a file holds them (RGBDFrame would refuse them)."""

    def __init__(self, frame: RGBDFrame, k: np.ndarray | None = None, pose: np.ndarray | None = None):
        self.depth, self.color, self.instance = frame.depth, frame.color, frame.instance
        self.intrinsics = frame.intrinsics if k is None else k
        self.cam_to_world = frame.cam_to_world if pose is None else pose


def _bag(path: Path, fx: float = 20.0, position: float = 0.0) -> Path:
    from synergai.scene.builders import rosbag_writer

    frame = _frame()
    k = frame.intrinsics.copy()
    k[0, 0] = k[1, 1] = fx
    pose = np.eye(4)
    pose[0, 3] = position
    raw = _RawFrame(frame, k, pose)
    return rosbag_writer.write_rgbd_bag(path, [raw, raw], fmt="ros1")  # type: ignore[list-item]


@pytest.mark.parametrize(("fx", "position", "voxel", "message"), [
    (20.0, 1e300, "0.02", "more than 1e+06 m from the origin"),
    (1e-308, 0.0, "0.02", "focal lengths 1e-308, 1e-308"),
    (20.0, 0.0, "nan", "voxel sizes must be positive numbers of metres, got nan"),
    (20.0, 0.0, "inf", "voxel sizes must be positive numbers of metres, got inf"),
])
def test_extreme_numbers_are_one_line_exit_2_without_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fx: float, position: float, voxel: str, message: str
) -> None:
    bag = _bag(tmp_path / "x.bag", fx, position)
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"1": "box", "2": "chair"}))
    db = tmp_path / "s.db"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main(["scene", "build", "--from", "rosbag", str(bag), *TOPICS, "--labels", str(labels),
                     "--min-points", "5", "--voxel", voxel, "--db", str(db), "--scene-id", "x"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and message in err, err
    assert [str(w.message) for w in caught] == []
    with SceneStore(db) as store:
        assert store.scenes() == []


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 0.0, -1.0])
def test_nan_fails_the_positive_checks(bad: float) -> None:
    with pytest.raises(SceneError, match="positive"):
        VoxelGrid(bad)
    with pytest.raises(SceneError, match="positive"):
        objects_from_rgbd([_frame()], {1: "box", 2: "chair"}, voxel=bad)


def test_far_or_nan_points_are_refused_before_the_cast() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for xyz in ([[1e300, 0.0, 0.0]], [[np.nan, 0.0, 0.0]], [[np.inf, 0.0, 0.0]]):
            with pytest.raises(SceneError, match="too far from the origin"):
                voxel_keys(np.array(xyz), 0.02)
