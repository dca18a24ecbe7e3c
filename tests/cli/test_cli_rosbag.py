"""`scene build --from rosbag`: bags of the three formats written with rosbags' own writers from the real
scene0000_00 frames (tests/cli/real_frames.py), and every bad input (one line, exit 2, store unchanged)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from real_frames import expected_boxes, labelled_cloud, orbit_frames

from synergai.cli.main import main
from synergai.scene.builders.rgbd import objects_from_rgbd
from synergai.scene.builders.rosbag_writer import BAG_TOPICS, write_rgbd_bag
from synergai.scene.store import SceneStore

TOPICS = ["--depth-topic", BAG_TOPICS["depth"], "--color-topic", BAG_TOPICS["color"],
          "--camera-info-topic", BAG_TOPICS["camera_info"], "--instance-topic", BAG_TOPICS["instance"]]
POSE = ["--pose-topic", BAG_TOPICS["pose"]]
TF = ["--tf-frame", BAG_TOPICS["tf_frame"]]


@pytest.fixture(scope="module")
def cloud(shared_data: Path) -> dict:
    return labelled_cloud(shared_data)


@pytest.fixture(scope="module")
def frames(cloud):
    """Six small views of the real scan (80 x 60 pixels)."""
    return orbit_frames(cloud, n=6, size=(60, 80), f=40.0)


def labels_file(tmp_path: Path, labels: dict[int, str]) -> Path:
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({str(k): v for k, v in labels.items()}))
    return path


def build(bag: Path, tmp_path: Path, labels: Path, *extra: str, db: Path | None = None) -> int:
    return main(["scene", "build", "--from", "rosbag", str(bag), *extra, "--labels", str(labels),
                 "--min-points", "5", "--db", str(db or tmp_path / "s.db"), "--json"])


def shown(db: Path, scene: str, capsys) -> list[dict]:
    capsys.readouterr()
    assert main(["scene", "show", "--db", str(db), "--scene", scene, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["objects"]


@pytest.mark.parametrize(
    ("fmt", "name", "pose", "depth_encoding", "open_as", "compressed"),
    [
        ("ros1", "scan.bag", "topic", "16UC1", "file", False),
        ("sqlite3", "scan_db3", "tf", "32FC1", "storage", False),  # the .db3 file inside the bag directory
        ("mcap", "scan_mcap", "topic", "16UC1", "directory", False),
        ("mcap", "scan_mcap_tf", "tf", "16UC1", "storage", False),  # the .mcap file itself
        ("ros1", "compressed.bag", "tf", "16UC1", "file", True),  # CompressedImage PNG, compressedDepth
    ],
)
def test_bag_of_each_format_builds_boxes_inside_the_true_ones(
    fmt, name, pose, depth_encoding, open_as, compressed, cloud, frames, tmp_path, capsys
):
    bag = write_rgbd_bag(tmp_path / name, frames, fmt=fmt, pose=pose, depth_encoding=depth_encoding,
                         compressed=compressed)
    if open_as == "storage":
        (bag,) = [p for p in bag.iterdir() if p.suffix in (".db3", ".mcap")]
    db = tmp_path / "s.db"
    labels = labels_file(tmp_path, cloud["labels"])
    assert build(bag, tmp_path, labels, *TOPICS, *(POSE if pose == "topic" else TF), "--scene-id", "bag") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["frames"] == summary["depth_images"] == len(frames) and summary["skipped"] == {}
    objects = shown(db, "bag", capsys)
    expected = expected_boxes(cloud, 1)
    boxes = boxes_of(objects)
    labels = {o["id"]: o["label"] for o in objects}
    assert len(objects) >= 8 and labels.get("1") == "floor" and set(labels) <= set(expected)
    for oid, (lo, hi) in boxes.items():  # seen parts of a real object: inside its true box
        assert np.all(lo >= expected[oid][0] - 0.05) and np.all(hi <= expected[oid][1] + 0.05), oid
    true_lo, true_hi = expected["1"]
    assert np.prod((boxes["1"][1] - boxes["1"][0])[:2]) > 0.3 * np.prod((true_hi - true_lo)[:2])
    assert_same_as_direct_fusion(boxes, frames, cloud["labels"])


def boxes_of(objects: list[dict]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {o["id"]: (np.array(o["center"]) - np.array(o["size"]) / 2,
                      np.array(o["center"]) + np.array(o["size"]) / 2) for o in objects}


def assert_same_as_direct_fusion(boxes: dict, frames: list, labels: dict[int, str]) -> None:
    """The bag path fed the RGB-D fusion exactly what the frames hold (images and poses)."""
    direct = {o.id: o for o in objects_from_rgbd(frames, labels, min_points=5)}
    assert set(direct) == set(boxes)
    for oid, o in direct.items():
        np.testing.assert_allclose(boxes[oid][0], o.min_corner, atol=1e-6)
        np.testing.assert_allclose(boxes[oid][1], o.max_corner, atol=1e-6)


def test_frames_are_matched_by_time_within_the_tolerance(cloud, frames, tmp_path, capsys):
    labels = labels_file(tmp_path, cloud["labels"])
    bag = write_rgbd_bag(tmp_path / "lagging.bag", frames, fmt="ros1", lag_ns={"color": 30_000_000})
    assert build(bag, tmp_path, labels, *TOPICS, *POSE, "--every", "2") == 0  # colour 30 ms late: in 50 ms
    assert json.loads(capsys.readouterr().out)["frames"] == 3
    assert build(bag, tmp_path, labels, *TOPICS, *POSE, "--sync-tolerance", "0.01", "--replace") == 2
    err = capsys.readouterr().err
    assert "no depth image has colour, instance mask and pose within the sync tolerance (0.01 s)" in err
    assert "missing: 6 without colour" in err and len(err.strip().splitlines()) == 1
    late = write_rgbd_bag(tmp_path / "late.bag", frames, fmt="ros1", pose="tf", lag_ns={"tf": 60_000_000},
                          period_ns=150_000_000)  # each pose 60 ms after its image (90 ms before the next)
    assert build(late, tmp_path, labels, *TOPICS, *TF, "--sync-tolerance", "0.07", "--replace") == 0
    assert json.loads(capsys.readouterr().out)["frames"] == len(frames)
    assert_same_as_direct_fusion(boxes_of(shown(tmp_path / "s.db", "late", capsys)), frames, cloud["labels"])
    assert build(late, tmp_path, labels, *TOPICS, *TF, "--replace") == 2
    assert f"missing: {len(frames)} without pose" in capsys.readouterr().err


def _undecodable_bag(path: Path) -> Path:
    """A ROS 2 bag as recorded before Iron (no message definitions); its depth topic is a custom type."""
    from rosbags.rosbag2 import Writer
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore

    store = get_typestore(Stores.ROS2_HUMBLE)
    store.register(get_types_from_msg("uint16[] mm\n", "acme_msgs/msg/DepthFrame"))
    with Writer(path, version=9) as w:
        for topic, msgtype in [(BAG_TOPICS["depth"], "acme_msgs/msg/DepthFrame"),
                               (BAG_TOPICS["color"], "sensor_msgs/msg/Image")]:
            w.add_connection(topic, msgtype, typestore=store)
    db = sqlite3.connect(path / f"{path.name}.db3")
    with db:
        db.execute("DELETE FROM message_definitions")
    db.close()
    return path


def _corrupt_image_bag(path: Path) -> Path:
    """Every topic present, but the one depth message is three bytes that are no sensor_msgs/Image."""
    from rosbags.rosbag1 import Writer
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.ROS1_NOETIC)
    with Writer(path) as w:
        conns = {key: w.add_connection(BAG_TOPICS[key], msgtype, typestore=store) for key, msgtype in [
            ("depth", "sensor_msgs/msg/Image"), ("color", "sensor_msgs/msg/Image"),
            ("instance", "sensor_msgs/msg/Image"), ("camera_info", "sensor_msgs/msg/CameraInfo"),
            ("pose", "geometry_msgs/msg/PoseStamped")]}
        w.write(conns["depth"], 1, b"\x01\x00\x00")
    return path


def test_bad_input_is_one_line_exit_2_and_leaves_the_store(cloud, frames, tmp_path, capsys):
    db = tmp_path / "s.db"
    labels = labels_file(tmp_path, cloud["labels"])
    good = write_rgbd_bag(tmp_path / "good.bag", frames[:2], fmt="ros1")
    assert build(good, tmp_path, labels, *TOPICS, *POSE, "--scene-id", "kept") == 0
    capsys.readouterr()

    def stored() -> list:
        with SceneStore(db) as store:
            return [(i.id, i.n_objects, i.n_active_edits, i.updated_at) for i in store.scenes()]

    before = stored()
    nan_pose = frames[0].cam_to_world.copy()
    nan_pose[1, 3] = np.nan
    nan_bag = write_rgbd_bag(tmp_path / "nan_pose", frames[:2], fmt="mcap",
                             poses=[frames[0].cam_to_world, nan_pose])
    nan_tf = write_rgbd_bag(tmp_path / "nan_tf.bag", frames[:2], fmt="ros1", pose="tf", poses=[nan_pose] * 2)
    (tmp_path / "few").mkdir()
    few_labels = labels_file(tmp_path / "few", {1: "floor"})
    not_a_bag = tmp_path / "notes.bag"
    not_a_bag.write_text("not a bag\n")
    no_instances = [a for a in TOPICS if a not in ("--instance-topic", BAG_TOPICS["instance"])]
    swap = {BAG_TOPICS["depth"]: BAG_TOPICS["camera_info"], BAG_TOPICS["camera_info"]: BAG_TOPICS["depth"]}
    swapped = [swap.get(a, a) for a in TOPICS]
    tf_bag = write_rgbd_bag(tmp_path / "tf.bag", frames[:1], fmt="ros1", pose="tf")
    cases = [
        (good, no_instances + POSE, labels, "--labels names instance ids and no --instance-topic gives them"),
        (good, [], labels, "needs --depth-topic T"),
        (good, ["--instance-topic", BAG_TOPICS["instance"], *POSE], labels, "needs --depth-topic T"),
        (good, TOPICS, labels, "needs the camera pose: --pose-topic T or --tf-frame F"),
        (good, [*TOPICS, "--tf-frame", "camera_optical_frame"], labels, "needs /tf or /tf_static"),
        (good, [*TOPICS, *POSE, *TF], labels, "exactly one of --pose-topic"),
        (good, [*TOPICS, "--pose-topic", "/robot/odom"], labels, "no topic '/robot/odom' (--pose-topic); "
         "the bag has: /camera/color/image_raw (sensor_msgs/msg/Image), /camera/depth/camera_info "
         "(sensor_msgs/msg/CameraInfo), "),
        (good, swapped + POSE, labels,
         "(--depth-topic) is sensor_msgs/msg/CameraInfo, expected sensor_msgs/msg/Image"),
        (_undecodable_bag(tmp_path / "humble"), TOPICS + POSE, labels,
         "is acme_msgs/msg/DepthFrame, a message type rosbags cannot decode"),
        (_corrupt_image_bag(tmp_path / "corrupt.bag"), TOPICS + POSE, labels,
         "topic /camera/depth/image_rect_raw: message type sensor_msgs/msg/Image cannot be decoded"),
        (nan_bag, TOPICS + POSE, labels, "topic /camera/pose: the pose is not finite"),
        (nan_tf, TOPICS + TF, labels, "base_link: the pose is not finite"),
        (tf_bag, [*TOPICS, "--tf-frame", "lidar"], labels,
         "no transform has child frame 'lidar'; frames in the bag: base_link, camera_optical_frame, world"),
        (not_a_bag, TOPICS + POSE, labels, "not a readable ROS bag"),
        (tmp_path / "missing.bag", TOPICS + POSE, labels, "file not found"),
        (good, TOPICS + POSE, tmp_path / "no_labels.json", "cannot read labels file"),
        (good, TOPICS + POSE, few_labels, "no label for instance id"),
        (good, [*TOPICS, *POSE, "--sync-tolerance", "nan"], labels, "--sync-tolerance must be >= 0"),
        (good, [*TOPICS, *POSE, "--every", "0"], labels, "--every >= 1"),
    ]
    for bag, argv, labels_path, message in cases:
        assert build(bag, tmp_path, labels_path, *argv) == 2, (bag, argv)
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and message in err, (bag, message, err)
    assert stored() == before


def test_frames_are_decoded_one_by_one_in_stamp_order(frames, tmp_path):
    from synergai.scene.builders.rosbag import BagTopics, open_bag_frames

    bag = write_rgbd_bag(tmp_path / "scan", frames, fmt="mcap", pose="tf", lag_ns={"instance": 20_000_000})
    topics = BagTopics(BAG_TOPICS["depth"], BAG_TOPICS["color"], BAG_TOPICS["camera_info"],
                       BAG_TOPICS["instance"], tf_frame=BAG_TOPICS["tf_frame"])
    with open_bag_frames(bag, topics, {}, every=2) as got:
        assert (got.count, got.depth_images, got.skipped) == (3, 6, {})
        first = next(got.frames)  # the bag is read lazily: one frame now, the rest on demand
        rest = list(got.frames)
    for frame, want in zip([first, *rest], frames[::2], strict=True):
        np.testing.assert_allclose(frame.depth, want.depth, atol=5e-4)  # 16UC1: millimetres
        np.testing.assert_allclose(frame.cam_to_world, want.cam_to_world, atol=1e-9)  # through /tf
        assert np.array_equal(frame.color, want.color) and np.array_equal(frame.instance, want.instance)
