"""Decoded ROS messages (as ``rosbags`` deserialises them) to numpy: images, intrinsics, poses, stamps.

Works on ROS 1 and ROS 2 message objects alike (``CameraInfo.K`` / ``.k``). Conventions (REP 118,
REP 103): depth ``16UC1`` / ``mono16`` is in millimetres, ``32FC1`` in metres; poses are the pose of
the child frame in the parent frame, quaternions x, y, z, w.

Images are ``sensor_msgs/Image`` or ``sensor_msgs/CompressedImage``: JPEG / PNG (image_transport's
``compressed``), and depth in image_transport's ``compressedDepth`` PNG form (a 12-byte header, then a
16-bit PNG: millimetres for ``16UC1``, quantised inverse depth ``a / (v - b)`` for ``32FC1``).
"""

from __future__ import annotations

import io
import struct
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from synergai.geometry.frames import quat_to_matrix
from synergai.scene.model import SceneError

#: sensor_msgs/Image encoding -> (numpy dtype, channels)
ENCODINGS: dict[str, tuple[str, int]] = {
    "mono8": ("u1", 1), "8UC1": ("u1", 1), "mono16": ("u2", 1), "16UC1": ("u2", 1),
    "32SC1": ("i4", 1), "32FC1": ("f4", 1), "rgb8": ("u1", 3), "bgr8": ("u1", 3),
    "rgba8": ("u1", 4), "bgra8": ("u1", 4),
}
#: The most pixels an image may have (8K video is 33 Mpx): checked before its pixels are allocated or
#: decompressed, so a small file cannot ask for gigabytes (Pillow's own decompression-bomb check is later).
MAX_IMAGE_PIXELS = 50_000_000
DEPTH_ENCODINGS = ("16UC1", "mono16", "32FC1")
COLOR_ENCODINGS = ("rgb8", "bgr8", "rgba8", "bgra8", "mono8")
INSTANCE_ENCODINGS = ("mono16", "16UC1", "32SC1", "mono8", "8UC1")


def stamp_ns(msg: Any) -> int:
    """The message header's stamp in nanoseconds."""
    stamp = msg.header.stamp
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


def nearest(stamps: list[int] | np.ndarray, stamp: int, tolerance_ns: int) -> int | None:
    """Index of the stamp (sorted ascending) nearest to ``stamp``, or None when none is within tolerance."""
    arr = np.asarray(stamps, dtype=np.int64)
    if arr.size == 0:
        return None
    i = int(np.searchsorted(arr, stamp))
    best = min((j for j in (i - 1, i) if 0 <= j < arr.size), key=lambda j: abs(int(arr[j]) - stamp))
    return best if abs(int(arr[best]) - stamp) <= tolerance_ns else None


def pose_at(
    stamps: list[int] | np.ndarray, poses: list[np.ndarray], stamp: int, tolerance_ns: int
) -> np.ndarray | None:
    """The pose at ``stamp`` from time-sorted samples: interpolated (linear position, spherical rotation)
    between the samples on either side when both are within tolerance, else the nearest one within
    tolerance, else None."""
    arr = np.asarray(stamps, dtype=np.int64)
    i = int(np.searchsorted(arr, stamp))
    if 0 < i < arr.size and stamp - arr[i - 1] <= tolerance_ns and arr[i] - stamp <= tolerance_ns:
        t0, t1 = int(arr[i - 1]), int(arr[i])
        if stamp in (t0, t1):
            return poses[i - 1] if stamp == t0 else poses[i]
        from scipy.spatial.transform import Rotation, Slerp

        w = (stamp - t0) / (t1 - t0)
        a, b = poses[i - 1], poses[i]
        out = np.eye(4)
        out[:3, :3] = Slerp([0.0, 1.0], Rotation.from_matrix(np.stack([a[:3, :3], b[:3, :3]])))(w).as_matrix()
        out[:3, 3] = (1 - w) * a[:3, 3] + w * b[:3, 3]
        return out
    k = nearest(arr, stamp, tolerance_ns)
    return None if k is None else poses[k]


def image_array(msg: Any, allowed: tuple[str, ...], what: str) -> np.ndarray:
    """The pixels of a sensor_msgs/Image as an (H, W) or (H, W, C) array in the encoding's dtype."""
    enc = str(msg.encoding)
    if enc not in allowed:
        raise SceneError(f"{what} image encoding {enc!r} is not supported; expected one of "
                         f"{', '.join(allowed)}")
    kind, channels = ENCODINGS[enc]
    dtype = np.dtype(kind).newbyteorder(">" if msg.is_bigendian else "<")
    h, w, step = int(msg.height), int(msg.width), int(msg.step)
    _check_size(w, h, what)
    row = w * channels * dtype.itemsize
    data = np.asarray(msg.data, dtype=np.uint8)
    if h <= 0 or w <= 0 or step < row or data.size < step * (h - 1) + row:
        raise SceneError(f"{what} image: {data.size} bytes do not hold {h}x{w} {enc} pixels (step {step})")
    rows = np.lib.stride_tricks.as_strided(data, shape=(h, row), strides=(step, 1))
    pixels = np.ascontiguousarray(rows).view(dtype).astype(dtype.newbyteorder("="))
    return pixels.reshape(h, w, channels) if channels > 1 else pixels.reshape(h, w)


def decoded_file(data: bytes, what: str) -> np.ndarray:
    """The pixels of a compressed image file (JPEG, PNG, ... as Pillow reads them; 16-bit PNG as uint16)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)  # one line, not a warning
            img = Image.open(io.BytesIO(data))  # reads the header only
        with img:
            _check_size(img.width, img.height, what)
            if img.mode in ("I;16", "I;16B", "I;16L"):
                return np.asarray(img, dtype=np.uint16)
            return np.asarray(img.convert("RGB") if img.mode not in ("L", "I") else img)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise SceneError(f"{what} image: more than the {MAX_IMAGE_PIXELS:,} pixels an image may have "
                         f"({' '.join(str(exc).split())})") from None
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise SceneError(f"{what} image: the compressed data is not a readable image ({exc})") from None


def _check_size(width: int, height: int, what: str) -> None:
    """A one-line SceneError for an image of more than :data:`MAX_IMAGE_PIXELS` pixels."""
    if width * height > MAX_IMAGE_PIXELS:
        raise SceneError(f"{what} image: {width}x{height} is more than the {MAX_IMAGE_PIXELS:,} pixels an "
                         "image may have")


def check_image_file(path: Path, what: str) -> None:
    """A one-line SceneError when the image file at ``path`` has more than :data:`MAX_IMAGE_PIXELS`
    pixels (its header is read, not its pixels); other faults are left to the reader that follows."""
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as img:
                _check_size(img.width, img.height, what)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise SceneError(f"{what} image: more than the {MAX_IMAGE_PIXELS:,} pixels an image may have "
                         f"({' '.join(str(exc).split())})") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return


def _compressed_depth(msg: Any) -> np.ndarray:
    fmt = str(msg.format)
    data = bytes(np.asarray(msg.data, dtype=np.uint8))
    encoding, _, codec = (part.strip() for part in fmt.partition(";"))
    if "rvl" in codec.lower() or encoding not in ("16UC1", "32FC1") or len(data) <= 12:
        raise SceneError(f"depth image format {fmt!r} is not supported; expected 16UC1 or 32FC1 "
                         "'compressedDepth png'")
    pixels = decoded_file(data[12:], "depth")
    if pixels.dtype != np.uint16 or pixels.ndim != 2:
        raise SceneError(f"depth image ({fmt}): the PNG is not a 16-bit single-channel image")
    if encoding == "16UC1":
        return pixels.astype(np.float64) / 1000.0
    a, b = struct.unpack("<ff", data[4:12])
    with np.errstate(divide="ignore"):
        return np.where(pixels > 0, a / (pixels.astype(np.float64) - b), np.nan)


def depth_metres(msg: Any) -> np.ndarray:
    """Depth in metres (float64; 0 or NaN where there is no measurement)."""
    if hasattr(msg, "format"):
        if "compresseddepth" in str(msg.format).lower():
            return _compressed_depth(msg)
        pixels = decoded_file(bytes(np.asarray(msg.data, dtype=np.uint8)), "depth")
        if pixels.dtype != np.uint16 or pixels.ndim != 2:
            raise SceneError(f"depth image ({msg.format}): not a 16-bit single-channel image (millimetres)")
    else:
        pixels = image_array(msg, DEPTH_ENCODINGS, "depth")
    if pixels.dtype == np.uint16:
        return pixels.astype(np.float64) / 1000.0
    return pixels.astype(np.float64)


def color_rgb(msg: Any) -> np.ndarray:
    """Colour as (H, W, 3) uint8 RGB."""
    if hasattr(msg, "format"):
        pixels = decoded_file(bytes(np.asarray(msg.data, dtype=np.uint8)), "colour")
        if pixels.dtype != np.uint8:
            raise SceneError(f"colour image ({msg.format}): not an 8-bit image")
        bgr = False
    else:
        pixels = image_array(msg, COLOR_ENCODINGS, "colour")
        bgr = str(msg.encoding).startswith("bgr")
    if pixels.ndim == 2:
        return np.repeat(pixels[..., None], 3, axis=2)
    rgb = pixels[..., :3]
    return np.ascontiguousarray(rgb[..., ::-1] if bgr else rgb)


def instance_ids(msg: Any) -> np.ndarray:
    """Instance id per pixel (int64; 0 = background)."""
    if hasattr(msg, "format"):
        pixels = decoded_file(bytes(np.asarray(msg.data, dtype=np.uint8)), "instance")
        if pixels.ndim != 2:
            raise SceneError(f"instance image ({msg.format}): not a single-channel image of ids")
        return pixels.astype(np.int64)
    return image_array(msg, INSTANCE_ENCODINGS, "instance").astype(np.int64)


def intrinsics(msg: Any) -> np.ndarray:
    """The 3x3 camera matrix K of a sensor_msgs/CameraInfo (ROS 1 ``K``, ROS 2 ``k``)."""
    k = np.asarray(msg.K if hasattr(msg, "K") else msg.k, dtype=np.float64).reshape(3, 3)
    if not np.all(np.isfinite(k)) or k[0, 0] <= 0 or k[1, 1] <= 0:
        raise SceneError("camera info: K has no positive focal lengths (an uncalibrated camera?)")
    return k


def pose_matrix(position: Any, orientation: Any, what: str) -> np.ndarray:
    """4x4 matrix of a position (x, y, z) and a quaternion (x, y, z, w); NaN or a zero quaternion fails."""
    t = np.array([position.x, position.y, position.z], dtype=np.float64)
    q = np.array([orientation.x, orientation.y, orientation.z, orientation.w], dtype=np.float64)
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(q))):
        raise SceneError(f"{what}: the pose is not finite (NaN or infinity)")
    if np.linalg.norm(q) < 1e-9:
        raise SceneError(f"{what}: the orientation is a zero quaternion")
    m = np.eye(4)
    m[:3, :3] = quat_to_matrix(q / np.linalg.norm(q))
    m[:3, 3] = t
    return m


def message_pose(msg: Any, what: str) -> np.ndarray:
    """The 4x4 pose in a PoseStamped, PoseWithCovarianceStamped, Odometry or TransformStamped."""
    if hasattr(msg, "transform"):
        return pose_matrix(msg.transform.translation, msg.transform.rotation, what)
    pose = msg.pose
    if hasattr(pose, "pose"):  # PoseWithCovariance (also inside Odometry)
        pose = pose.pose
    return pose_matrix(pose.position, pose.orientation, what)
