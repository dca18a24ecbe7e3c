"""Posed RGB-D frames written as a ROS bag with ``rosbags``' own writers (ROS 1 ``.bag``, ROS 2 sqlite3 or
MCAP): the input `scene build --from rosbag` reads, for tests, benchmarks and replaying frames in ROS tools.

Topics (``BAG_TOPICS``): depth ``16UC1`` in millimetres (or ``32FC1`` in metres), colour ``rgb8``,
instance ids ``mono16``, the depth camera's ``CameraInfo``, and the camera pose either as a
``PoseStamped`` in ``world`` or on ``/tf`` (world -> base_link, dynamic) with ``/tf_static``
(base_link -> camera_optical_frame, fixed).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from synergai.scene.builders.rgbd import RGBDFrame

BagFormat = Literal["ros1", "sqlite3", "mcap"]
PoseSource = Literal["topic", "tf"]
BAG_TOPICS = {"depth": "/camera/depth/image_rect_raw", "color": "/camera/color/image_raw",
              "camera_info": "/camera/depth/camera_info", "instance": "/camera/instance/image",
              "pose": "/camera/pose", "tf_frame": "camera_optical_frame"}
#: the fixed mount of the optical frame on the robot (what /tf_static carries)
CAMERA_MOUNT = np.array([[0.0, 0.0, 1.0, 0.1], [-1.0, 0.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.3], [0, 0, 0, 1]])
_TF_MSG = "geometry_msgs/TransformStamped[] transforms\n"


def _quat(r: np.ndarray) -> tuple[float, float, float, float]:
    """(x, y, z, w) of a rotation matrix."""
    from scipy.spatial.transform import Rotation

    x, y, z, w = Rotation.from_matrix(r).as_quat()
    return float(x), float(y), float(z), float(w)


class _Messages:
    """Message constructors of one typestore (ROS 1 headers have ``seq``; CameraInfo ``K`` vs ``k``)."""

    def __init__(self, ros1: bool) -> None:
        from rosbags.typesys import Stores, get_types_from_msg, get_typestore

        self.store = get_typestore(Stores.ROS1_NOETIC if ros1 else Stores.ROS2_HUMBLE)
        if "tf2_msgs/msg/TFMessage" not in self.store.types:
            self.store.register(get_types_from_msg(_TF_MSG, "tf2_msgs/msg/TFMessage"))
        self.ros1 = ros1
        self.t = self.store.types

    def header(self, stamp: int, frame: str) -> Any:
        sec, nanosec = divmod(stamp, 1_000_000_000)
        time = self.t["builtin_interfaces/msg/Time"](sec=sec, nanosec=nanosec)
        if self.ros1:
            return self.t["std_msgs/msg/Header"](seq=0, stamp=time, frame_id=frame)
        return self.t["std_msgs/msg/Header"](stamp=time, frame_id=frame)

    def image(self, stamp: int, frame: str, pixels: np.ndarray, encoding: str) -> Any:
        pixels = np.ascontiguousarray(pixels)
        h, w = pixels.shape[:2]
        data = pixels.view(np.uint8).reshape(-1)
        return self.t["sensor_msgs/msg/Image"](header=self.header(stamp, frame), height=h, width=w,
                                               encoding=encoding, is_bigendian=0, step=data.size // h,
                                               data=data)

    def camera_info(self, stamp: int, frame: str, k: np.ndarray, shape: tuple[int, int]) -> Any:
        p = np.zeros((3, 4))
        p[:3, :3] = k
        matrices = {"D": np.zeros(5), "K": k.ravel(), "R": np.eye(3).ravel(), "P": p.ravel()}
        if not self.ros1:
            matrices = {name.lower(): value for name, value in matrices.items()}
        roi = self.t["sensor_msgs/msg/RegionOfInterest"](x_offset=0, y_offset=0, height=0, width=0,
                                                         do_rectify=False)
        return self.t["sensor_msgs/msg/CameraInfo"](header=self.header(stamp, frame), height=shape[0],
                                                    width=shape[1], distortion_model="plumb_bob",
                                                    binning_x=0, binning_y=0, roi=roi, **matrices)

    def _pose_parts(self, m: np.ndarray) -> tuple[Any, Any]:
        nan = float("nan")
        x, y, z, w = _quat(m[:3, :3]) if np.all(np.isfinite(m[:3, :3])) else (nan, nan, nan, nan)
        return self.t["geometry_msgs/msg/Point"](x=m[0, 3], y=m[1, 3], z=m[2, 3]), \
            self.t["geometry_msgs/msg/Quaternion"](x=x, y=y, z=z, w=w)

    def pose_stamped(self, stamp: int, frame: str, m: np.ndarray) -> Any:
        position, orientation = self._pose_parts(m)
        pose = self.t["geometry_msgs/msg/Pose"](position=position, orientation=orientation)
        return self.t["geometry_msgs/msg/PoseStamped"](header=self.header(stamp, frame), pose=pose)

    def tf(self, stamp: int, parent: str, child: str, m: np.ndarray) -> Any:
        p, rotation = self._pose_parts(m)
        translation = self.t["geometry_msgs/msg/Vector3"](x=p.x, y=p.y, z=p.z)
        transform = self.t["geometry_msgs/msg/Transform"](translation=translation, rotation=rotation)
        stamped = self.t["geometry_msgs/msg/TransformStamped"](header=self.header(stamp, parent),
                                                               child_frame_id=child, transform=transform)
        return self.t["tf2_msgs/msg/TFMessage"](transforms=[stamped])

    def compressed(self, stamp: int, frame: str, pixels: np.ndarray, fmt: str, prefix: bytes = b"") -> Any:
        """A CompressedImage holding ``prefix`` and the pixels as PNG (lossless; 16-bit for uint16)."""
        from PIL import Image

        buffer = io.BytesIO()
        Image.fromarray(np.ascontiguousarray(pixels)).save(buffer, format="PNG")
        data = np.frombuffer(prefix + buffer.getvalue(), dtype=np.uint8)
        return self.t["sensor_msgs/msg/CompressedImage"](header=self.header(stamp, frame), format=fmt,
                                                         data=data)

    def serialize(self, msg: Any) -> bytes:
        out = self.store.serialize_ros1(msg, msg.__msgtype__) if self.ros1 else \
            self.store.serialize_cdr(msg, msg.__msgtype__)
        return bytes(out)


def write_rgbd_bag(
    path: Path,
    frames: Sequence[RGBDFrame],
    *,
    fmt: BagFormat,
    pose: PoseSource = "topic",
    depth_encoding: Literal["16UC1", "32FC1"] = "16UC1",
    poses: Sequence[np.ndarray] | None = None,
    lag_ns: Mapping[str, int] | None = None,
    compressed: bool = False,
    start_ns: int = 1_700_000_000_000_000_000,
    period_ns: int = 100_000_000,
) -> Path:
    """Write ``frames`` (one every ``period_ns``) to a new bag at ``path``; the topics are ``BAG_TOPICS``.

    ``poses`` replaces the frames' camera-to-world poses in the bag (one per frame; any numbers);
    ``lag_ns`` delays the stamps of some streams (keys of ``BAG_TOPICS`` or ``"tf"``), as unsynchronised
    sensors would. ``compressed`` writes the images as ``CompressedImage`` PNGs (depth in image_transport's
    ``16UC1; compressedDepth png`` form).
    """
    from rosbags.rosbag1 import Writer as Writer1
    from rosbags.rosbag2 import StoragePlugin
    from rosbags.rosbag2 import Writer as Writer2

    msgs = _Messages(ros1=fmt == "ros1")
    writer: Any
    if fmt == "ros1":
        writer = Writer1(path)
    else:
        plugin = StoragePlugin.MCAP if fmt == "mcap" else StoragePlugin.SQLITE3
        writer = Writer2(path, version=9, storage_plugin=plugin)
    optical = BAG_TOPICS["tf_frame"]
    with writer:
        def connect(topic: str, msgtype: str) -> Any:
            return writer.add_connection(topic, msgtype, typestore=msgs.store)

        image_type = "sensor_msgs/msg/CompressedImage" if compressed else "sensor_msgs/msg/Image"
        conn = {
            "depth": connect(BAG_TOPICS["depth"], image_type),
            "color": connect(BAG_TOPICS["color"], image_type),
            "instance": connect(BAG_TOPICS["instance"], image_type),
            "camera_info": connect(BAG_TOPICS["camera_info"], "sensor_msgs/msg/CameraInfo"),
        }
        if pose == "topic":
            conn["pose"] = connect(BAG_TOPICS["pose"], "geometry_msgs/msg/PoseStamped")
        else:
            conn["tf"] = connect("/tf", "tf2_msgs/msg/TFMessage")
            conn["tf_static"] = connect("/tf_static", "tf2_msgs/msg/TFMessage")
            writer.write(conn["tf_static"], start_ns,
                         msgs.serialize(msgs.tf(start_ns, "base_link", optical, CAMERA_MOUNT)))
        for n, f in enumerate(frames):
            t = start_ns + n * period_ns
            cam_to_world = f.cam_to_world if poses is None else np.asarray(poses[n], dtype=np.float64)
            if depth_encoding == "16UC1":
                depth = np.round(np.nan_to_num(f.depth) * 1000).clip(0, 65535).astype(np.uint16)
            else:
                depth = f.depth.astype(np.float32)
            color, instance = f.color.astype(np.uint8), f.instance.astype(np.uint16)
            out = [("camera_info", msgs.camera_info(t, optical, f.intrinsics, f.depth.shape))]
            if compressed:
                if depth_encoding != "16UC1":
                    raise ValueError("compressed bags hold 16UC1 depth")
                depth_png = msgs.compressed(t, optical, depth, "16UC1; compressedDepth png", bytes(12))
                out += [("depth", depth_png),
                        ("color", msgs.compressed(t, optical, color, "rgb8; png compressed rgb8")),
                        ("instance", msgs.compressed(t, optical, instance, "mono16; png compressed mono16"))]
            else:
                out += [("depth", msgs.image(t, optical, depth, depth_encoding)),
                        ("color", msgs.image(t, optical, color, "rgb8")),
                        ("instance", msgs.image(t, optical, instance, "mono16"))]
            if pose == "topic":
                out.append(("pose", msgs.pose_stamped(t, "world", cam_to_world)))
            else:
                base = cam_to_world @ np.linalg.inv(CAMERA_MOUNT)
                out.append(("tf", msgs.tf(t, "world", "base_link", base)))
            for key, msg in out:
                lag = (lag_ns or {}).get(key, 0)
                stamped = msg.transforms[0] if key == "tf" else msg
                stamped.header.stamp.sec, stamped.header.stamp.nanosec = divmod(t + lag, 1_000_000_000)
                writer.write(conn[key], t + lag, msgs.serialize(msg))
    return path
