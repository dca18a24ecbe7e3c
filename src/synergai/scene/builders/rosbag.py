"""Posed RGB-D frames with instance masks out of a ROS bag (ROS 1 ``.bag``, ROS 2 ``.db3`` / ``.mcap`` or a
ROS 2 bag directory), read with the pure-Python ``rosbags`` package: no ROS installation.

Topics: depth, colour and instance masks (optional: without them every mask is background and the build
segments the fused scan, :mod:`synergai.scene.builders.segment`) are ``sensor_msgs/Image`` or
``CompressedImage``; intrinsics
come from a ``sensor_msgs/CameraInfo``; the camera's pose from a pose topic (``geometry_msgs/PoseStamped``,
``PoseWithCovarianceStamped``, ``TransformStamped`` or ``nav_msgs/Odometry``) or from ``/tf`` and
``/tf_static`` (the named frame's pose in the root of its tree). The pose is the camera's optical
frame in the world (x right, y down, z forward: ROS's ``*_optical_frame``, OpenCV's camera).

Synchronisation: every depth image is a candidate frame, stamped by its header (the bag's record time
when the header stamp is zero). It takes the colour image and instance mask nearest in time, and the
pose interpolated between the samples on either side (or the nearest one), each within ``tolerance``
seconds; a depth image lacking any of them is skipped (counted). The frames
then go through the RGB-D fusion of :mod:`synergai.scene.builders.rgbd`.

The bag is read twice: first for every message's stamp (poses, transforms and intrinsics are kept),
then, as the frames are consumed, for the images of the kept frames only, each dropped once used.
"""

from __future__ import annotations

import sqlite3
import struct
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from synergai.scene.builders import ros_messages as rm
from synergai.scene.builders.rgbd import RGBDFrame
from synergai.scene.builders.ros_tf import TransformTree
from synergai.scene.model import SceneError

IMAGE = "sensor_msgs/msg/Image"
IMAGES = (IMAGE, "sensor_msgs/msg/CompressedImage")
CAMERA_INFO = "sensor_msgs/msg/CameraInfo"
TF = "tf2_msgs/msg/TFMessage"
POSE_TYPES = ("geometry_msgs/msg/PoseStamped", "geometry_msgs/msg/PoseWithCovarianceStamped",
              "geometry_msgs/msg/TransformStamped", "nav_msgs/msg/Odometry")


@dataclass(frozen=True)
class BagTopics:
    """The topics to read; exactly one of ``pose`` (a topic) and ``tf_frame`` (a frame name) is set.
    Without ``instance`` every frame's mask is all background (the scan is segmented afterwards)."""

    depth: str
    color: str
    camera_info: str
    instance: str | None = None
    pose: str | None = None
    tf_frame: str | None = None

    def __post_init__(self) -> None:
        if (self.pose is None) == (self.tf_frame is None):
            raise SceneError("give exactly one of --pose-topic T and --tf-frame F")
        named = [t for t in (self.depth, self.color, self.camera_info, self.instance, self.pose) if t]
        if len(set(named)) < len(named):
            raise SceneError(f"the depth, colour, camera info, instance and pose topics must differ: {named}")


@dataclass
class BagFrames:
    """The synchronised frames (decoded as they are iterated, while the bag is open) and what was dropped."""

    frames: Iterator[RGBDFrame]
    count: int
    depth_images: int
    skipped: dict[str, int] = field(default_factory=dict)


@dataclass
class _Stream:
    """Stamped items of one topic (a pose, or an image's number on its topic)."""

    stamps: list[int] = field(default_factory=list)
    items: list[Any] = field(default_factory=list)

    def add(self, stamp: int, item: Any) -> None:
        self.stamps.append(stamp)
        self.items.append(item)

    def sorted(self) -> _Stream:
        order = np.argsort(np.asarray(self.stamps, dtype=np.int64), kind="stable")
        return _Stream([self.stamps[i] for i in order], [self.items[i] for i in order])


def _bag_errors() -> tuple[type[BaseException], ...]:
    from rosbags.highlevel import AnyReaderError
    from rosbags.rosbag1 import ReaderError as Reader1Error
    from rosbags.rosbag2 import ReaderError as Reader2Error

    errors: tuple[type[BaseException], ...] = (
        AnyReaderError, Reader1Error, Reader2Error, OSError, ValueError, KeyError, IndexError, struct.error,
        sqlite3.Error, EOFError)
    try:  # rosbags reads ROS 2 .db3 files through apsw (a torn file: apsw.CorruptError)
        import apsw
    except ImportError:
        return errors
    return (*errors, apsw.Error)


def _topic_list(topics: Mapping[str, Any]) -> str:
    return ", ".join(f"{name} ({info.msgtype})" for name, info in sorted(topics.items())) or "none"


def _check_topic(reader: Any, path: Path, name: str, flag: str, types: tuple[str, ...]) -> None:
    topics = reader.topics
    if name not in topics:
        raise SceneError(f"{path}: no topic {name!r} ({flag}); the bag has: {_topic_list(topics)}")
    msgtype = topics[name].msgtype
    if msgtype not in reader.typestore.types:
        raise SceneError(f"{path}: topic {name} ({flag}) is {msgtype}, a message type rosbags cannot decode "
                         "(the bag has no definition of it and it is not a standard ROS type)")
    if msgtype not in types:
        raise SceneError(f"{path}: topic {name} ({flag}) is {msgtype}, expected {' or '.join(types)}")


def _last_name(topic: str) -> str:
    """``tf`` of ``/robot1/tf``."""
    return topic.rstrip("/").rsplit("/", 1)[-1]


def _stamp(msg: Any, record_ns: int) -> int:
    stamp = rm.stamp_ns(msg)
    return stamp if stamp > 0 else record_ns


def read_bag_frames(
    path: Path, topics: BagTopics, labels: Mapping[int, str], *, tolerance: float = 0.05, every: int = 1
) -> list[RGBDFrame]:
    """All the posed RGB-D frames of the bag at once (see :func:`open_bag_frames`)."""
    with open_bag_frames(path, topics, labels, tolerance=tolerance, every=every) as bag:
        return list(bag.frames)


@contextmanager
def open_bag_frames(
    path: Path,
    topics: BagTopics,
    labels: Mapping[int, str],
    *,
    tolerance: float = 0.05,
    every: int = 1,
) -> Iterator[BagFrames]:
    """The bag's synchronised frames (see the module doc), decoded one by one as they are iterated inside
    the ``with`` block; bad input raises a one-line SceneError."""
    try:
        from rosbags.highlevel import AnyReader
        from rosbags.typesys import Stores, get_typestore
    except ImportError:
        raise SceneError("reading ROS bags needs the rosbags package: pip install 'synergai[ros]'") from None
    if not 0 <= tolerance < 1e6 or every < 1:
        raise SceneError(f"--sync-tolerance must be >= 0 and --every >= 1, got {tolerance} and {every}")
    if not path.exists():
        raise SceneError(f"{path}: file not found")
    # bags written without message definitions (ROS 2 before Iron) are read with a distribution's types
    default = get_typestore(Stores.ROS1_NOETIC if path.suffix == ".bag" else Stores.ROS2_HUMBLE)
    errors = _bag_errors()
    try:
        reader = AnyReader([path], default_typestore=default)
        reader.open()
    except errors as exc:
        raise SceneError(f"{path}: not a readable ROS bag ({_first_line(exc)})") from None
    try:
        yield _read(reader, path, topics, labels, int(tolerance * 1e9), every)
    finally:
        reader.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _read(
    reader: Any, path: Path, topics: BagTopics, labels: Mapping[int, str], tol: int, every: int
) -> BagFrames:
    available = reader.topics
    roles: dict[str, tuple[str, tuple[str, ...]]] = {
        topics.depth: ("--depth-topic", IMAGES),
        topics.color: ("--color-topic", IMAGES),
        topics.camera_info: ("--camera-info-topic", (CAMERA_INFO,)),
    }
    if topics.instance is not None:
        roles[topics.instance] = ("--instance-topic", IMAGES)
    if topics.pose is not None:
        roles[topics.pose] = ("--pose-topic", POSE_TYPES)
    for name, (flag, types) in roles.items():
        _check_topic(reader, path, name, flag, types)
    tf_topics = []
    if topics.tf_frame is not None:
        tf_topics = [t for t, info in available.items()
                     if _last_name(t) in ("tf", "tf_static") and info.msgtype == TF]
        if not tf_topics:
            raise SceneError(f"{path}: --tf-frame needs /tf or /tf_static ({TF}); the bag has: "
                             f"{_topic_list(available)}")

    # pass 1: every message's stamp; poses, transforms and intrinsics kept; images only numbered
    images = {t: _Stream() for t in _image_topics(topics)}
    poses = _Stream()
    tree = TransformTree()
    k: np.ndarray | None = None
    k_size = (0, 0)
    decoders: dict[str, Callable[[Any, int], None]] = {
        name: _numbering(stream) for name, stream in images.items()
    }
    if topics.pose is not None:
        pose_topic = topics.pose
        decoders[pose_topic] = lambda m, t: poses.add(_stamp(m, t), rm.message_pose(m, f"topic {pose_topic}"))
    for name in tf_topics:
        static = _last_name(name) == "tf_static"

        def add_tf(m: Any, t: int, static: bool = static, name: str = name) -> None:
            for tr in m.transforms:
                tree.add(str(tr.header.frame_id), str(tr.child_frame_id), _stamp(tr, t),
                         rm.message_pose(tr, f"topic {name}, {tr.child_frame_id}"), static=static)

        decoders[name] = add_tf

    for conn, msg, record_ns in _messages(reader, path, set(decoders) | {topics.camera_info}):
        if conn.topic == topics.camera_info:
            if k is None:
                k, k_size = _in(path, rm.intrinsics, msg), (int(msg.height), int(msg.width))
            continue
        _in(path, decoders[conn.topic], msg, record_ns)
    if k is None:
        raise SceneError(f"{path}: topic {topics.camera_info} has no messages")
    if not images[topics.depth].stamps:
        raise SceneError(f"{path}: topic {topics.depth} has no messages")
    tree.sort()
    depth, color = images[topics.depth].sorted(), images[topics.color].sorted()
    instance = images[topics.instance].sorted() if topics.instance is not None else None
    picked, skipped = _synchronise(topics, depth, color, instance, poses.sorted(), tree, tol, every)
    if not picked:
        masks = ", instance mask" if instance is not None else ""
        raise SceneError(f"{path}: no depth image has colour{masks} and pose within the sync "
                         f"tolerance ({tol / 1e9:g} s); missing: "
                         + ", ".join(f"{v} without {kind}" for kind, v in skipped.items() if v))

    # pass 2 (lazy, as the frames are consumed): decode only the kept frames' images, each dropped once
    # the last frame using it is out
    frames = _decoded_frames(reader, path, topics, picked, k, k_size, labels)
    return BagFrames(frames, len(picked), len(depth.stamps), {kind: v for kind, v in skipped.items() if v})


def _decoded_frames(
    reader: Any, path: Path, topics: BagTopics, picked: list[tuple[Any, ...]],
    k: np.ndarray, k_size: tuple[int, int], labels: Mapping[int, str],
) -> Iterator[RGBDFrame]:
    """The picked frames in depth-stamp order, decoding their images in one more pass over the bag."""
    roles = _image_topics(topics)
    keys = [tuple(zip(roles, numbers, strict=False)) for *numbers, _ in picked]
    uses: Counter[tuple[str, int]] = Counter(key for frame in keys for key in frame)
    decode: dict[str, Callable[[Any], np.ndarray]] = {topics.depth: rm.depth_metres,
                                                      topics.color: rm.color_rgb}
    if topics.instance is not None:
        decode[topics.instance] = rm.instance_ids
    pixels: dict[tuple[str, int], np.ndarray] = {}
    seen = dict.fromkeys(roles, 0)
    ready = 0
    for conn, msg, _ in _messages(reader, path, set(roles)):
        n = seen[conn.topic]
        seen[conn.topic] += 1
        if (conn.topic, n) in uses:
            pixels[conn.topic, n] = _in(path, decode[conn.topic], msg)
        while ready < len(picked) and all(key in pixels for key in keys[ready]):
            d, color, *masks = (pixels[key] for key in keys[ready])
            mask = masks[0] if masks else np.zeros(d.shape, dtype=np.int64)
            pose = picked[ready][-1]
            for key in keys[ready]:
                uses[key] -= 1
                if uses[key] == 0:
                    del pixels[key]
            ready += 1
            if k_size != (0, 0) and k_size != d.shape:
                raise SceneError(f"{path}: camera info is for {k_size[1]}x{k_size[0]} images but the depth "
                                 f"is {d.shape[1]}x{d.shape[0]}: give the depth camera's info topic")
            if mask.shape != d.shape:
                raise SceneError(f"{path}: instance masks are {mask.shape[1]}x{mask.shape[0]} but the depth "
                                 f"is {d.shape[1]}x{d.shape[0]}: masks must be aligned to the depth image")
            yield RGBDFrame(d, _resized(color, d.shape), mask, k, pose, dict(labels))


def _image_topics(topics: BagTopics) -> tuple[str, ...]:
    """Depth, colour and (when given) instance-mask topics, in that order."""
    return (topics.depth, topics.color) + ((topics.instance,) if topics.instance is not None else ())


def _numbering(stream: _Stream) -> Callable[[Any, int], None]:
    """Records a message's stamp and its number on its topic (the images are decoded later)."""
    return lambda msg, record_ns: stream.add(_stamp(msg, record_ns), len(stream.stamps))


def _messages(reader: Any, path: Path, topics: set[str]) -> Iterator[tuple[Any, Any, int]]:
    """(connection, decoded message, record time) of the topics' messages, in the bag's order."""
    connections = [c for c in reader.connections if c.topic in topics]
    records = reader.messages(connections=connections)
    while True:
        try:  # the bag's own records may be torn (a .db3 cut or overwritten part-way)
            conn, record_ns, raw = next(records)
        except StopIteration:
            return
        except _bag_errors() as exc:
            raise SceneError(f"{path}: not a readable ROS bag ({_first_line(exc)})") from None
        try:
            msg = reader.deserialize(raw, conn.msgtype)
        except _bag_errors() as exc:  # rosbags raises several kinds on data it cannot decode
            raise SceneError(f"{path}: topic {conn.topic}: message type {conn.msgtype} cannot be decoded "
                             f"({_first_line(exc)})") from None
        yield conn, msg, record_ns


def _in(path: Path, work: Callable[..., Any], *args: Any) -> Any:
    """``work(*args)``, its SceneError prefixed with the bag's path."""
    try:
        return work(*args)
    except SceneError as exc:
        raise SceneError(f"{path}: {exc}") from None


def _synchronise(
    topics: BagTopics, depth: _Stream, color: _Stream, instance: _Stream | None, poses: _Stream,
    tree: TransformTree, tol: int, every: int,
) -> tuple[list[tuple[Any, ...]], dict[str, int]]:
    """(depth, colour[, mask] message numbers, pose) of every kept depth image, and the skipped counts."""
    skipped = {"colour": 0, "instance": 0, "pose": 0}
    picked: list[tuple[Any, ...]] = []
    color_t, pose_t = (np.asarray(s.stamps, dtype=np.int64) for s in (color, poses))
    instance_t = np.asarray(instance.stamps if instance is not None else [], dtype=np.int64)
    for n in range(0, len(depth.stamps), every):
        stamp = depth.stamps[n]
        ci = rm.nearest(color_t, stamp, tol)
        ii = rm.nearest(instance_t, stamp, tol) if instance is not None else -1
        if topics.pose is not None:
            pose = rm.pose_at(pose_t, poses.items, stamp, tol)
        else:
            assert topics.tf_frame is not None
            pose = tree.pose(topics.tf_frame, stamp, tol)
        if ci is None or ii is None or pose is None:
            skipped["colour" if ci is None else "instance" if ii is None else "pose"] += 1
            continue
        masks = (instance.items[ii],) if instance is not None else ()
        picked.append((depth.items[n], color.items[ci], *masks, pose))
    return picked, skipped


def _resized(color: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    if color.shape[:2] == shape:
        return color
    from PIL import Image

    return np.asarray(Image.fromarray(color).resize((shape[1], shape[0]), Image.Resampling.BILINEAR))
