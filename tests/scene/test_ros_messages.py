"""ROS messages (built with rosbags' ROS 1 and ROS 2 types) to numpy, and the /tf tree."""

from __future__ import annotations

import numpy as np
import pytest
from rosbags.typesys import Stores, get_typestore

from synergai.geometry.frames import quat_to_matrix
from synergai.scene.builders import ros_messages as rm
from synergai.scene.builders.ros_tf import TransformTree
from synergai.scene.model import SceneError

ROS1 = get_typestore(Stores.ROS1_NOETIC).types
ROS2 = get_typestore(Stores.ROS2_HUMBLE).types


def header(types, sec: int = 3, nanosec: int = 5):
    stamp = types["builtin_interfaces/msg/Time"](sec=sec, nanosec=nanosec)
    if types is ROS1:
        return types["std_msgs/msg/Header"](seq=0, stamp=stamp, frame_id="cam")
    return types["std_msgs/msg/Header"](stamp=stamp, frame_id="cam")


def image(types, pixels: np.ndarray, encoding: str, *, pad: int = 0, bigendian: bool = False):
    h, w = pixels.shape[:2]
    raw = np.ascontiguousarray(pixels.astype(pixels.dtype.newbyteorder(">" if bigendian else "<")))
    rows = raw.view(np.uint8).reshape(h, -1)
    data = np.concatenate([rows, np.full((h, pad), 99, np.uint8)], axis=1).reshape(-1)
    return types["sensor_msgs/msg/Image"](header=header(types), height=h, width=w, encoding=encoding,
                                          is_bigendian=int(bigendian), step=rows.shape[1] + pad, data=data)


@pytest.mark.parametrize("types", [ROS1, ROS2], ids=["ros1", "ros2"])
def test_depth_16uc1_is_millimetres_32fc1_metres_with_row_padding_and_byte_order(types) -> None:
    mm = np.array([[0, 1000, 2500], [65535, 7, 1234]], dtype=np.uint16)
    np.testing.assert_allclose(rm.depth_metres(image(types, mm, "16UC1", pad=2)), mm / 1000.0)
    np.testing.assert_allclose(rm.depth_metres(image(types, mm, "mono16", bigendian=True)), mm / 1000.0)
    metres = np.array([[np.nan, 1.25], [0.5, 0.0]], dtype=np.float32)
    got = rm.depth_metres(image(types, metres, "32FC1", pad=4))
    assert np.isnan(got[0, 0]) and got[0, 1] == 1.25 and got.dtype == np.float64
    assert rm.stamp_ns(image(types, mm, "16UC1")) == 3_000_000_005


def test_colour_encodings_give_rgb() -> None:
    rgb = np.array([[[10, 20, 30], [40, 50, 60]]], dtype=np.uint8)
    assert rm.color_rgb(image(ROS2, rgb, "rgb8")).tolist() == rgb.tolist()
    assert rm.color_rgb(image(ROS2, rgb[..., ::-1], "bgr8", pad=3)).tolist() == rgb.tolist()
    bgra = np.concatenate([rgb[..., ::-1], np.full((1, 2, 1), 255, np.uint8)], axis=2)
    assert rm.color_rgb(image(ROS2, bgra, "bgra8")).tolist() == rgb.tolist()
    grey = rm.color_rgb(image(ROS2, np.array([[7, 9]], dtype=np.uint8), "mono8"))
    assert grey.tolist() == [[[7, 7, 7], [9, 9, 9]]]


def test_instance_ids_and_bad_images() -> None:
    ids = np.array([[0, 3], [70000, -1]], dtype=np.int32)
    assert rm.instance_ids(image(ROS2, ids, "32SC1")).tolist() == ids.tolist()
    small = ids.clip(0, 9).astype(np.uint16)
    assert rm.instance_ids(image(ROS1, small, "mono16")).tolist() == [[0, 3], [9, 0]]
    with pytest.raises(SceneError, match="depth image encoding 'rgb8' is not supported; expected one of 16"):
        rm.depth_metres(image(ROS2, np.zeros((1, 1, 3), np.uint8), "rgb8"))
    with pytest.raises(SceneError, match="instance image encoding '32FC1'"):
        rm.instance_ids(image(ROS2, np.zeros((1, 1), np.float32), "32FC1"))
    short = image(ROS2, np.zeros((2, 3), np.uint16), "16UC1")
    short.data = short.data[:-1]
    with pytest.raises(SceneError, match="11 bytes do not hold 2x3 16UC1 pixels"):
        rm.depth_metres(short)


def test_intrinsics_of_ros1_and_ros2_camera_info() -> None:
    k = np.array([[500.0, 0, 320], [0, 510, 240], [0, 0, 1]])
    roi1 = ROS1["sensor_msgs/msg/RegionOfInterest"](x_offset=0, y_offset=0, height=0, width=0,
                                                    do_rectify=False)
    info1 = ROS1["sensor_msgs/msg/CameraInfo"](header=header(ROS1), height=480, width=640,
                                               distortion_model="", D=np.zeros(0), K=k.ravel(),
                                               R=np.eye(3).ravel(), P=np.zeros(12), binning_x=0, binning_y=0,
                                               roi=roi1)
    info2 = ROS2["sensor_msgs/msg/CameraInfo"](header=header(ROS2), height=480, width=640,
                                               distortion_model="", d=np.zeros(0), k=k.ravel(),
                                               r=np.eye(3).ravel(), p=np.zeros(12), binning_x=0, binning_y=0,
                                               roi=roi1)
    np.testing.assert_array_equal(rm.intrinsics(info1), k)
    np.testing.assert_array_equal(rm.intrinsics(info2), k)
    info2.k = np.zeros(9)
    with pytest.raises(SceneError, match="uncalibrated"):
        rm.intrinsics(info2)


def _pose(types, xyz, quat):
    point = types["geometry_msgs/msg/Point"](x=xyz[0], y=xyz[1], z=xyz[2])
    q = types["geometry_msgs/msg/Quaternion"](x=quat[0], y=quat[1], z=quat[2], w=quat[3])
    return types["geometry_msgs/msg/Pose"](position=point, orientation=q)


def test_poses_of_every_message_kind() -> None:
    q = np.array([0.0, 0.0, np.sin(np.pi / 8), np.cos(np.pi / 8)])  # 45 degrees about z
    expected = np.eye(4)
    expected[:3, :3], expected[:3, 3] = quat_to_matrix(q), [1, 2, 3]
    stamped = ROS2["geometry_msgs/msg/PoseStamped"](header=header(ROS2), pose=_pose(ROS2, [1, 2, 3], 2 * q))
    np.testing.assert_allclose(rm.message_pose(stamped, "p"), expected, atol=1e-12)  # non-unit q normalised
    cov = ROS2["geometry_msgs/msg/PoseWithCovariance"](pose=_pose(ROS2, [1, 2, 3], q),
                                                       covariance=np.zeros(36))
    twist = ROS2["geometry_msgs/msg/TwistWithCovariance"](
        twist=ROS2["geometry_msgs/msg/Twist"](linear=ROS2["geometry_msgs/msg/Vector3"](x=0, y=0, z=0),
                                              angular=ROS2["geometry_msgs/msg/Vector3"](x=0, y=0, z=0)),
        covariance=np.zeros(36))
    odom = ROS2["nav_msgs/msg/Odometry"](header=header(ROS2), child_frame_id="base", pose=cov, twist=twist)
    np.testing.assert_allclose(rm.message_pose(odom, "o"), expected, atol=1e-12)
    rotation = ROS2["geometry_msgs/msg/Quaternion"](x=q[0], y=q[1], z=q[2], w=q[3])
    tr = ROS2["geometry_msgs/msg/Transform"](translation=ROS2["geometry_msgs/msg/Vector3"](x=1, y=2, z=3),
                                             rotation=rotation)
    ts = ROS2["geometry_msgs/msg/TransformStamped"](header=header(ROS2), child_frame_id="c", transform=tr)
    np.testing.assert_allclose(rm.message_pose(ts, "t"), expected, atol=1e-12)
    with pytest.raises(SceneError, match="topic /odom: the pose is not finite"):
        bad = ROS2["geometry_msgs/msg/PoseStamped"](header=header(ROS2), pose=_pose(ROS2, [np.nan, 0, 0], q))
        rm.message_pose(bad, "topic /odom")
    with pytest.raises(SceneError, match="zero quaternion"):
        rm.pose_matrix(_pose(ROS1, [0, 0, 0], [0, 0, 0, 0]).position,
                       _pose(ROS1, [0, 0, 0], [0, 0, 0, 0]).orientation, "p")


def test_nearest_stamp_within_tolerance() -> None:
    stamps = [100, 200, 400]
    assert rm.nearest(stamps, 149, 60) == 0 and rm.nearest(stamps, 151, 60) == 1
    assert rm.nearest(stamps, 300, 100) in (1, 2) and rm.nearest(stamps, 300, 99) is None
    assert rm.nearest(stamps, 0, 100) == 0 and rm.nearest(stamps, 5000, 10) is None
    assert rm.nearest([], 5, 10**9) is None


def _move(x: float = 0.0, yaw: float = 0.0) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = quat_to_matrix((0.0, 0.0, np.sin(yaw / 2), np.cos(yaw / 2)))
    m[0, 3] = x
    return m


def test_transform_tree_composes_static_and_nearest_dynamic_edges() -> None:
    tree = TransformTree()
    mount = _move(0.5, np.pi / 2)
    tree.add("base_link", "camera", 0, mount, static=True)
    tree.add("/world", "base_link", 200, _move(2.0), static=False)  # added out of order
    tree.add("world", "base_link", 100, _move(1.0), static=False)
    tree.sort()
    np.testing.assert_allclose(tree.pose("camera", 120, 30), _move(1.0) @ mount)
    np.testing.assert_allclose(tree.pose("/camera", 180, 30), _move(2.0) @ mount)
    assert tree.pose("camera", 150, 30) is None  # no base_link sample within 30 ns
    tree.add("camera", "optical", 0, _move(0.1), static=True)
    np.testing.assert_allclose(tree.pose("optical", 190, 30), _move(2.0) @ mount @ _move(0.1))
    assert tree.chain("optical") == ["optical", "camera", "base_link", "world"]
    static = TransformTree()
    static.add("map", "cam", 5, mount, static=True)
    np.testing.assert_allclose(static.pose("cam", 10**12, 0), mount)  # static: at any time
    with pytest.raises(SceneError, match="no transform has child frame 'lidar'; frames in the bag: "
                                         "base_link, camera, optical, world"):
        tree.pose("lidar", 100, 10)
    with pytest.raises(SceneError, match="frame 'camera' has two parents, 'base_link' and 'world'"):
        tree.add("world", "camera", 0, mount, static=True)
    tree.add("camera", "world", 0, mount, static=True)
    with pytest.raises(SceneError, match="cycle"):
        tree.chain("camera")


def compressed(types, payload: bytes, fmt: str):
    return types["sensor_msgs/msg/CompressedImage"](header=header(types), format=fmt,
                                                    data=np.frombuffer(payload, dtype=np.uint8))


def png(pixels: np.ndarray, fmt: str = "PNG") -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format=fmt)
    return buffer.getvalue()


def test_compressed_images_png_jpeg_and_compressed_depth() -> None:
    import struct

    rgb = np.array([[[10, 20, 30], [200, 100, 50]], [[0, 0, 0], [255, 255, 255]]], dtype=np.uint8)
    assert rm.color_rgb(compressed(ROS1, png(rgb), "rgb8; png compressed bgr8")).tolist() == rgb.tolist()
    flat = np.full((16, 16, 3), (200, 60, 30), np.uint8)
    jpeg = rm.color_rgb(compressed(ROS2, png(flat, "JPEG"), "rgb8; jpeg compressed bgr8"))
    assert jpeg.shape == (16, 16, 3) and np.abs(jpeg.astype(int) - flat).max() <= 3  # lossy, but RGB order
    ids = np.array([[0, 3], [300, 7]], dtype=np.uint16)
    mask = compressed(ROS2, png(ids), "mono16; png compressed mono16")
    assert rm.instance_ids(mask).tolist() == ids.tolist()
    mm = np.array([[0, 1000], [2500, 65535]], dtype=np.uint16)
    got = rm.depth_metres(compressed(ROS2, bytes(12) + png(mm), "16UC1; compressedDepth png"))
    np.testing.assert_allclose(got, mm / 1000.0)
    # 32FC1: image_transport stores a / (depth) + b as 16-bit values, 0 = no measurement
    a, b = 1000.0, -10.0
    depth = np.array([[0.5, 2.0], [4.0, np.nan]])
    inv = np.where(np.isnan(depth), 0, np.round(a / np.nan_to_num(depth, nan=1.0) + b)).astype(np.uint16)
    header32 = struct.pack("<iff", 0, a, b)
    got = rm.depth_metres(compressed(ROS2, header32 + png(inv), "32FC1; compressedDepth png"))
    np.testing.assert_allclose(got[~np.isnan(depth)], depth[~np.isnan(depth)], rtol=1e-3)
    assert np.isnan(got[1, 1])
    with pytest.raises(SceneError, match="'16UC1; compressedDepth rvl' is not supported"):
        rm.depth_metres(compressed(ROS2, bytes(20), "16UC1; compressedDepth rvl"))
    with pytest.raises(SceneError, match="colour image: the compressed data is not a readable image"):
        rm.color_rgb(compressed(ROS2, b"not an image", "jpeg"))
    with pytest.raises(SceneError, match="not a 16-bit single-channel image"):
        rm.depth_metres(compressed(ROS2, png(rgb), "png"))


def test_pose_at_interpolates_between_samples_within_tolerance() -> None:
    a, b = _move(1.0, 0.0), _move(2.0, np.pi / 2)
    stamps, poses = [100, 200], [a, b]
    np.testing.assert_allclose(rm.pose_at(stamps, poses, 150, 60), _move(1.5, np.pi / 4), atol=1e-12)
    np.testing.assert_allclose(rm.pose_at(stamps, poses, 175, 80), _move(1.75, 3 * np.pi / 8), atol=1e-12)
    assert rm.pose_at(stamps, poses, 200, 0) is b and rm.pose_at(stamps, poses, 100, 0) is a  # exact samples
    assert rm.pose_at(stamps, poses, 170, 40) is b  # the earlier sample is too far: the nearest one
    assert rm.pose_at(stamps, poses, 150, 40) is None and rm.pose_at(stamps, poses, 260, 50) is None
    assert rm.pose_at(stamps, poses, 250, 50) is b and rm.pose_at([], [], 5, 10) is None
    tree = TransformTree()
    tree.add("world", "base", 100, a, static=False)
    tree.add("world", "base", 200, b, static=False)
    tree.add("base", "cam", 0, _move(0.1), static=True)
    tree.sort()
    np.testing.assert_allclose(tree.pose("cam", 150, 60), _move(1.5, np.pi / 4) @ _move(0.1), atol=1e-12)
