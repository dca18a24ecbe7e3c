"""`synergai scene build --from scannet-raw DIR | pointcloud FILE | rgbd DIR | rosbag BAG`: your own scan
into the store (files another tool wrote as a scene graph: `scene import`, :mod:`synergai.scene.formats`).

Input formats (docs/own-data.md has worked examples):

- scannet-raw DIR: a ScanNet v2 scan directory (``<id>_vh_clean_2.ply``,
  ``<id>_vh_clean_2.0.010000.segs.json``, ``<id>.aggregation.json``, optional ``<id>.txt`` with
  ``axisAlignment``).
- pointcloud FILE: points as rows ``x y z r g b [instance]``: ``.bin`` (float32, ``--columns``), ``.npy``,
  or text (``.txt``/``.xyz``/``.csv``); or a point-only ``.ply`` (x y z + colours). Instance ids come
  from the 7th column or ``--instances FILE`` (one integer per point, ``.npy`` or text); their names from
  ``--labels FILE``. ``--axis-alignment FILE`` applies a 4x4 matrix first. At most :data:`MAX_POINTS`.
- rgbd DIR: ScanNet's exported frames: ``depth/*.png`` (16-bit, ``--depth-scale`` units per metre),
  ``color/*.jpg|png``, ``pose/*.txt`` (4x4 camera-to-world), ``instance/*.png`` (instance id per pixel,
  0 = background), matched by file stem; intrinsics from ``--intrinsics`` (default
  ``intrinsic/intrinsic_depth.txt``).
- rosbag BAG: a ROS 1 ``.bag``, a ROS 2 ``.db3`` / ``.mcap`` file or bag directory: depth, colour,
  camera info and instance-mask topics, poses from ``--pose-topic`` or ``/tf`` (``--tf-frame``), frames
  matched by time (``synergai.scene.builders.rosbag``).

Without instance ids (no 7th column or ``--instances``; no ``instance/`` directory; no
``--instance-topic``) the scan is segmented class-agnostically (``synergai.scene.builders.segment``):
floor, walls and ceiling are named by geometry, the rest are unnamed objects people name by talking;
``--name-with MODEL`` asks a model that reads images to name them from their crops (rgbd, rosbag).

Labels files: JSON ``{"<id>": "<label>", ...}`` or a ScanNet ``*.aggregation.json`` (``segGroups``;
instance id = ``objectId + 1`` as ScanNet's 2D ``instance-filt`` images number them when
``--labels-offset 1``; default offset 0 keeps objectId).
"""

from __future__ import annotations

import argparse
import json
import math
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from synergai.cli.common import print_json, settings
from synergai.cli.reperceive_cmd import add_update_options, update
from synergai.cli.safe_text import visible
from synergai.scene.model import SceneError, SceneGraph, SceneObject
from synergai.scene.store_location import store_location

if TYPE_CHECKING:
    from synergai.llm.vision import ImageModel
    from synergai.scene.builders.rgbd import RGBDFrame
    from synergai.scene.builders.segment import Segmentation

SOURCES = ("scannet-raw", "pointcloud", "rgbd", "rosbag")
#: Most points a point file may hold (a bigger cloud: thin it out first; the segmentation keeps one point
#: per 2 cm voxel anyway).
MAX_POINTS = 2_000_000


def register(ssub: argparse._SubParsersAction) -> None:
    """Add `scene build` to the scene command group."""
    p = ssub.add_parser("build",
                        help=f"build a scene graph from your own scan ({', '.join(SOURCES)}) and store it",
                        description="Build a scene graph from a raw ScanNet scan, an instance-labelled "
                                    "point cloud, posed RGB-D frames or a ROS bag, and store it for `ask`, "
                                    "`chat` and the GUI.")
    p.add_argument("--from", dest="source", choices=SOURCES, required=True, help="input kind")
    p.add_argument("path", type=Path, help="the scan directory, point file or ROS bag")
    p.add_argument("--scene-id", default=None, help="id in the store (default: the directory or file name)")
    p.add_argument("--scene-type", default=None, help='e.g. "Kitchen" (shown to the model)')
    p.add_argument("--labels", type=Path, default=None,
                   help="instance id -> label: JSON {id: label} or a ScanNet aggregation.json "
                        "(pointcloud, rgbd, rosbag)")
    p.add_argument("--labels-offset", type=int, default=0,
                   help="added to an aggregation's objectId to give the instance id (ScanNet 2D masks: 1)")
    p.add_argument("--axis-alignment", type=Path, default=None,
                   help="4x4 matrix applied to the points: ScanNet <scene>.txt, or JSON (16 numbers, or "
                        "{scene id: 16 numbers}) (pointcloud, rgbd, rosbag)")
    p.add_argument("--no-align", action="store_true", help="scannet-raw: keep the raw scan frame")
    p.add_argument("--instances", type=Path, default=None,
                   help="pointcloud: per-point instance ids (.npy or text), when the file has no 7th column")
    p.add_argument("--columns", type=int, default=None,
                   help="pointcloud .bin: float32 values per point (6: x y z r g b, 7: + instance)")
    p.add_argument("--intrinsics", type=Path, default=None,
                   help="rgbd: 3x3 or 4x4 camera matrix (default DIR/intrinsic/intrinsic_depth.txt)")
    p.add_argument("--depth-scale", type=float, default=1000.0, help="rgbd: depth units per metre (1000)")
    p.add_argument("--merge", choices=("ids", "overlap"), default="ids",
                   help="rgbd, rosbag: instance ids are scene-wide (ids) or per frame (overlap)")
    p.add_argument("--voxel", type=float, default=0.02,
                   help="rgbd, rosbag: fusion voxel edge in metres (without instance ids: also the "
                        "segmentation's, pointcloud too)")
    ros = p.add_argument_group("rosbag", "topics of `--from rosbag BAG` (ROS 1 .bag, ROS 2 .db3 / .mcap)")
    ros.add_argument("--depth-topic", metavar="T", default=None,
                     help="depth Image (16UC1 in mm, 32FC1 in m) or compressedDepth CompressedImage")
    ros.add_argument("--color-topic", metavar="T", default=None,
                     help="colour Image (rgb8, bgr8, ...) or CompressedImage (JPEG, PNG)")
    ros.add_argument("--camera-info-topic", metavar="T", default=None,
                     help="sensor_msgs/CameraInfo of the depth image")
    ros.add_argument("--instance-topic", metavar="T", default=None,
                     help="instance ids per depth pixel: Image (mono16, 32SC1) or PNG; 0 = background")
    ros.add_argument("--pose-topic", metavar="T", default=None,
                     help="the camera's optical-frame pose in the world: PoseStamped (or "
                          "PoseWithCovarianceStamped, TransformStamped, Odometry)")
    ros.add_argument("--tf-frame", metavar="F", default=None,
                     help="instead of --pose-topic: the camera's optical frame in /tf and /tf_static")
    ros.add_argument("--sync-tolerance", metavar="S", type=float, default=0.05,
                     help="seconds: colour, mask and pose nearest to each depth image must be this close")
    ros.add_argument("--every", metavar="N", type=int, default=1, help="use every N-th depth image")
    p.add_argument("--min-points", type=int, default=None, help="instances with fewer points are noise")
    naming = p.add_argument_group("naming segments", "without instance ids (rgbd, rosbag): name each segment "
                                  "from its picture by a model that reads images (off by default)")
    naming.add_argument("--name-with", metavar="MODEL", default=None,
                        help="openai:MODEL (an endpoint with image input) or scripted:FILE")
    naming.add_argument("--base-url", default=None,
                        help="that endpoint's URL [env SYNERGAI_BASE_URL, config base_url]")
    naming.add_argument("--timeout", type=float, default=None,
                        help="seconds one naming call may take [env SYNERGAI_TIMEOUT, config timeout]")
    p.add_argument("--trim", type=float, default=0.0, help="percentile trim of boxes (0..25)")
    p.add_argument("--replace", action="store_true",
                   help="replace a stored scene of the same id (its edits stay in the log, discarded)")
    p.add_argument("--db", type=store_location, default=None,
                   help="scene store: a SQLite file or a postgresql:// URL (default: user data directory)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    add_update_options(p, replace=False)
    p.set_defaults(func=cmd_build)


def _read_text_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SceneError(f"cannot read {what} {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SceneError(f"{path}: not valid JSON ({exc})".splitlines()[0]) from None


def read_labels(path: Path, offset: int = 0) -> dict[int, str]:
    """Instance id -> label from JSON ``{id: label}`` or a ScanNet aggregation (``objectId + offset``)."""
    data = _read_text_json(path, "labels file")
    if isinstance(data, dict) and isinstance(data.get("segGroups"), list):
        out = {}
        for g in data["segGroups"]:
            g = g if isinstance(g, dict) else {}
            oid, label = g.get("objectId", g.get("id")), g.get("label")
            if not isinstance(oid, int) or not isinstance(label, str):
                raise SceneError(f"{path}: each segGroup needs an integer objectId and a label")
            out[oid + offset] = label
        return out
    if not isinstance(data, dict) or not data:
        raise SceneError(f"{path}: expected a JSON object {{instance id: label}} or a ScanNet aggregation")
    out = {}
    for key, label in data.items():
        if not isinstance(label, str) or not label.strip():
            raise SceneError(f"{path}: the label of instance {key} is not a non-empty string")
        try:
            out[int(key) + offset] = label.strip()
        except ValueError:
            raise SceneError(f"{path}: instance id {key!r} is not a whole number") from None
    return out


def read_matrix(path: Path, scene_id: str | None, *, size: int = 4) -> np.ndarray:
    """A 4x4 (or 3x3) matrix from a ScanNet ``<scene>.txt``, JSON, or whitespace-separated text."""
    from synergai.scene.builders.scannet_raw import read_axis_alignment

    if not path.is_file():
        raise SceneError(f"{path}: file not found")
    text = path.read_text(encoding="utf-8", errors="replace")
    if "axisAlignment" in text:
        return read_axis_alignment(path)
    if path.suffix.lower() == ".json":
        data = _read_text_json(path, "matrix file")
        if isinstance(data, dict):
            if scene_id not in data:
                raise SceneError(f"{path}: no matrix for scene {scene_id!r} (use --scene-id)")
            data = data[scene_id]
        values = np.asarray(data, dtype=float).ravel()
    else:
        try:
            values = np.array([float(t) for t in text.split()])
        except ValueError:
            raise SceneError(f"{path}: expected numbers only") from None
    if values.size == 16:
        m = values.reshape(4, 4)
        return m if size == 4 else m[:3, :3]
    if values.size == 9 and size == 3:
        return values.reshape(3, 3)
    raise SceneError(f"{path}: expected {'16' if size == 4 else '9 or 16'} numbers, got {values.size}")


def _numbers(path: Path) -> np.ndarray:
    """A numeric table from ``.npy`` or text (whitespace or comma separated)."""
    if path.suffix.lower() == ".npy":
        try:
            return np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise SceneError(f"{path}: not a readable .npy array ({exc})".splitlines()[0]) from None
    try:
        return np.loadtxt(path, delimiter="," if path.suffix.lower() == ".csv" else None, ndmin=2)
    except (OSError, ValueError) as exc:
        raise SceneError(f"{path}: not a numeric table ({exc})".splitlines()[0]) from None


def _check_size(path: Path, suffix: str, columns: int) -> None:
    """Refuse a point file that holds more than MAX_POINTS points, before reading it."""
    size = path.stat().st_size
    if suffix == ".bin":
        points = size // (4 * columns)
    elif suffix == ".npy":
        try:
            points = len(np.load(path, mmap_mode="r", allow_pickle=False))
        except (OSError, ValueError, TypeError) as exc:
            raise SceneError(f"{path}: not a readable .npy array ({exc})".splitlines()[0]) from None
    else:  # text or PLY: no row is shorter than 8 bytes
        points = size // 8 if size > MAX_POINTS * 8 else 0
    if points > MAX_POINTS:
        raise SceneError(f"{path}: {size / 2**20:.0f} MB holds more than {MAX_POINTS:,} points; thin the "
                         "cloud out first (e.g. Open3D's voxel_down_sample at 1-2 cm)")


def read_cloud(path: Path, columns: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Points, colours 0..255 and instance ids (None when the file has no 7th column); at most MAX_POINTS."""
    from synergai.geometry.mesh import read_ply

    if not path.is_file():
        raise SceneError(f"{path}: file not found")
    suffix = path.suffix.lower()
    cols = columns or 6
    _check_size(path, suffix, cols)
    if suffix == ".ply":
        mesh = read_ply(path)
        if mesh.vertex_colors is None:
            raise SceneError(f"{path}: the PLY has no vertex colours")
        return mesh.vertices, np.asarray(mesh.vertex_colors)[:, :3], None
    if suffix == ".bin":
        raw = np.fromfile(path, dtype="<f4")
        if raw.size == 0 or raw.size % cols:
            raise SceneError(f"{path}: {raw.size} float32 values is not a multiple of {cols} columns")
        table = raw.reshape(-1, cols).astype(np.float64)
    else:
        table = np.asarray(_numbers(path), dtype=np.float64)
    if table.ndim != 2 or table.shape[1] not in (6, 7):
        raise SceneError(f"{path}: expected rows of 6 (x y z r g b) or 7 (+ instance) numbers, "
                         f"got {table.shape}")
    if len(table) > MAX_POINTS:
        raise SceneError(f"{path}: {len(table):,} points, more than {MAX_POINTS:,}; thin the cloud out first")
    if not np.all(np.isfinite(table)):
        raise SceneError(f"{path}: the points contain NaN or infinite values")
    rgb = table[:, 3:6]
    if rgb.size and rgb.max() <= 1.0:
        rgb = rgb * 255.0
    inst = table[:, 6].astype(np.int64) if table.shape[1] == 7 else None
    return table[:, :3], np.clip(np.round(rgb), 0, 255), inst


def _transform(xyz: np.ndarray, m: np.ndarray) -> np.ndarray:
    return xyz @ m[:3, :3].T + m[:3, 3]


def _need(value: Any, flag: str, source: str) -> Any:
    if value is None:
        raise SceneError(f"--from {source} needs {flag}")
    return value


@dataclass
class Built:
    """What a builder made: the objects, what the store records about the source, and, for a scan built
    without instance ids, its segmentation and the frames its segments can be seen in."""

    objects: list[SceneObject]
    extra: dict[str, Any] = field(default_factory=dict)
    segmentation: Segmentation | None = None
    frames: Callable[[], Iterable[RGBDFrame]] | None = None


def _no_labels_without_ids(args: argparse.Namespace, what: str) -> None:
    if args.labels is not None:
        raise SceneError(f"--labels names instance ids and {what}: drop --labels to segment the scan "
                         "without masks")


def _segmented(args: argparse.Namespace, xyz: np.ndarray, rgb: np.ndarray, provenance: str,
               frames: Callable[[], Iterable[RGBDFrame]] | None = None, extra: dict[str, Any] | None = None
               ) -> Built:
    """Built objects of a scan without instance ids: planes, then unnamed clusters (builders.segment)."""
    from synergai.scene.builders.segment import SegmentParams, objects_from_segmentation, segment_cloud

    params = SegmentParams(voxel=args.voxel, min_points=args.min_points or SegmentParams.min_points)
    seg = segment_cloud(xyz, rgb, params)
    objects = objects_from_segmentation(seg, trim=args.trim, provenance=provenance)
    return Built(objects, dict(extra or {}), seg, frames)


def build_pointcloud(args: argparse.Namespace, scene_id: str) -> Built:
    """Objects of a point file: one per instance id, or segments when it has none."""
    from synergai.scene.builders.pointcloud import objects_from_points

    xyz, rgb, inst = read_cloud(args.path, args.columns)
    if args.instances is not None:
        inst = np.asarray(_numbers(args.instances)).ravel()
        if inst.shape != (len(xyz),):
            raise SceneError(f"{args.instances}: {inst.size} instance ids for {len(xyz)} points")
        inst = inst.astype(np.int64)
    if inst is None:
        _no_labels_without_ids(args, f"{args.path} has none (no 7th column, no --instances FILE)")
    else:
        labels = read_labels(_need(args.labels, "--labels FILE", "pointcloud"), args.labels_offset)
    if args.axis_alignment is not None:
        xyz = _transform(xyz, read_matrix(args.axis_alignment, scene_id))
    if inst is None:
        return _segmented(args, xyz, rgb, "pointcloud")
    objects = objects_from_points(xyz, rgb, inst, labels, min_points=args.min_points or 10, trim=args.trim)
    return Built(objects)


def _frames_of(directory: Path) -> list[str]:
    stems = sorted(p.stem for p in (directory / "depth").glob("*.png"))
    if not stems:
        raise SceneError(f"{directory}: no depth/*.png frames")
    return sorted(stems, key=lambda s: (len(s), s))


def _one(directory: Path, sub: str, stem: str, suffixes: tuple[str, ...]) -> Path:
    for suffix in suffixes:
        p = directory / sub / f"{stem}{suffix}"
        if p.is_file():
            return p
    raise SceneError(f"{directory / sub}: no file for frame {stem} ({' or '.join(suffixes)})")


def _image(d: Path, sub: str, stem: str, suffixes: tuple[str, ...]) -> np.ndarray:
    import imageio.v3 as iio

    from synergai.scene.builders.ros_messages import check_image_file

    path = _one(d, sub, stem, suffixes)
    try:  # the size its header states, before any pixel is decoded
        check_image_file(path, sub)
    except SceneError as exc:
        raise SceneError(f"{d}: frame {stem}: {exc}") from None
    try:
        return np.asarray(iio.imread(path))
    except (OSError, ValueError, SyntaxError, EOFError, TypeError, struct.error, zlib.error) as exc:
        # a truncated or broken PNG raises any of these from the decoder
        raise SceneError(f"{d}: frame {stem}: unreadable image ({exc})".splitlines()[0]) from None


def build_rgbd(args: argparse.Namespace, scene_id: str) -> Built:
    """Objects fused from a directory of posed RGB-D frames: one per instance id of the masks
    (``instance/``), or segments of the fused scan when there are no masks."""
    from synergai.scene.builders.rgbd import RGBDFrame, fuse_frames, objects_from_rgbd

    d = args.path
    if not d.is_dir():
        raise SceneError(f"{d}: not a directory")
    stems = _frames_of(d)
    k_path = args.intrinsics or d / "intrinsic" / "intrinsic_depth.txt"
    k = read_matrix(k_path, scene_id, size=3)
    align = read_matrix(args.axis_alignment, scene_id) if args.axis_alignment is not None else np.eye(4)
    masks = (d / "instance").is_dir()
    if masks:
        labels = read_labels(_need(args.labels, "--labels FILE", "rgbd"), args.labels_offset)
    else:
        _no_labels_without_ids(args, f"{d} has no instance/ masks")
        labels = {}
    if not 0 < args.depth_scale < math.inf:  # NaN fails too
        raise SceneError(f"--depth-scale must be positive, got {args.depth_scale}")
    frames = []
    for stem in stems:
        raw_depth = _image(d, "depth", stem, (".png",))
        mask = _image(d, "instance", stem, (".png",)) if masks else np.zeros(raw_depth.shape[:2], np.int64)
        color = _image(d, "color", stem, (".jpg", ".png", ".jpeg"))
        if raw_depth.ndim != 2 or raw_depth.dtype.kind not in "uif" or raw_depth.dtype.itemsize < 2:
            raise SceneError(f"{d}: frame {stem}: the depth image must be one channel of 16-bit depth units, "
                             f"got {raw_depth.dtype} {'x'.join(map(str, raw_depth.shape))}")
        depth = raw_depth.astype(np.float64) / args.depth_scale
        if color.ndim == 3 and color.shape[:2] != depth.shape:  # ScanNet's colour is 1296x968, depth 640x480
            from PIL import Image

            resized = Image.fromarray(color[..., :3]).resize(depth.shape[::-1], Image.Resampling.BILINEAR)
            color = np.asarray(resized)
        pose = read_matrix(_one(d, "pose", stem, (".txt",)), scene_id)
        if not np.all(np.isfinite(pose)):
            continue  # ScanNet marks frames with a lost track by -inf poses
        frames.append(RGBDFrame(depth, np.asarray(color)[..., :3], mask.astype(np.int64), k, align @ pose,
                                labels))
    if masks:
        return Built(objects_from_rgbd(frames, labels, voxel=args.voxel, merge=args.merge,
                                       min_points=args.min_points or 20, trim=args.trim))
    cloud = fuse_frames(frames, voxel=args.voxel)
    return _segmented(args, cloud.xyz, cloud.rgb, "rgbd", lambda: frames)


def build_rosbag(args: argparse.Namespace, scene_id: str) -> Built:
    """Objects fused from a ROS bag's synchronised depth, colour, pose and (optional) instance-mask messages:
    one per instance id, or segments of the fused scan without a mask topic."""
    from synergai.scene.builders.rgbd import RGBDFrame, fuse_frames, objects_from_rgbd
    from synergai.scene.builders.rosbag import BagTopics, open_bag_frames

    for flag in ("depth_topic", "color_topic", "camera_info_topic"):
        _need(getattr(args, flag), f"--{flag.replace('_', '-')} T", "rosbag")
    if args.pose_topic is None and args.tf_frame is None:
        raise SceneError("--from rosbag needs the camera pose: --pose-topic T or --tf-frame F")
    topics = BagTopics(args.depth_topic, args.color_topic, args.camera_info_topic, args.instance_topic,
                       pose=args.pose_topic, tf_frame=args.tf_frame)
    if args.instance_topic is not None:
        labels = read_labels(_need(args.labels, "--labels FILE", "rosbag"), args.labels_offset)
    else:
        _no_labels_without_ids(args, "no --instance-topic gives them")
        labels = {}
    align = read_matrix(args.axis_alignment, scene_id) if args.axis_alignment is not None else np.eye(4)

    def frames() -> Iterator[RGBDFrame]:
        with open_bag_frames(args.path, topics, labels, tolerance=args.sync_tolerance,
                             every=args.every) as bag:
            counts.update(frames=bag.count, depth_images=bag.depth_images, skipped=bag.skipped)
            for f in bag.frames:
                yield RGBDFrame(f.depth, f.color, f.instance, f.intrinsics, align @ f.cam_to_world, f.labels)

    counts: dict[str, Any] = {}
    extra: dict[str, Any] = {"topics": {k: v for k, v in vars(topics).items() if v is not None}}
    if args.instance_topic is not None:
        objects = objects_from_rgbd(frames(), labels, voxel=args.voxel, merge=args.merge,
                                    min_points=args.min_points or 20, trim=args.trim, provenance="rosbag")
        return Built(objects, extra | counts)
    cloud = fuse_frames(frames(), voxel=args.voxel)
    return _segmented(args, cloud.xyz, cloud.rgb, "rosbag", frames, extra | counts)


def _namer(args: argparse.Namespace) -> ImageModel | None:
    """The ``--name-with`` model (checked before any work), or None."""
    from synergai.cli.config import resolve_settings
    from synergai.llm.vision import make_image_model

    if args.name_with is None:
        return None
    if args.source not in ("rgbd", "rosbag"):
        raise SceneError(f"--name-with names the segments of a scan without instance ids from its colour "
                         f"frames: --from rgbd or rosbag without masks, not --from {args.source}")
    given = resolve_settings({"base_url": args.base_url, "llm_timeout": args.timeout})
    # an endpoint from the environment or the config file applies to an openai: model only (as for --llm)
    openai_spec = args.name_with.strip().startswith("openai:")
    endpoint = given["base_url"] if args.base_url is not None or openai_spec else None
    return make_image_model(args.name_with, base_url=endpoint, timeout=given["timeout"])


def name_segments(model: ImageModel, built: Built) -> int:
    """Name the unnamed segments from their crops in the frames; the number named. A failing endpoint
    raises a one-line LLMError before anything is stored."""
    from synergai.llm.vision import NAME_PROMPT, object_name
    from synergai.scene.builders.crops import best_crops, png_bytes
    from synergai.scene.building import structure_kind

    seg = built.segmentation
    if seg is None or built.frames is None:
        raise SceneError("--name-with names the segments of a scan without instance ids: this one has them")
    crops = best_crops(built.frames(), seg, seg.unnamed)
    names: dict[str, str] = {}
    for sid, crop in crops.items():
        name = object_name(model.describe_image(png_bytes(crop), NAME_PROMPT))
        if name is not None:
            names[str(sid)] = name
    built.objects = [o.with_changes(category=names[o.id], kind=structure_kind(names[o.id]), provenance=(
        f"{o.provenance}+{model.name}")) if o.id in names else o for o in built.objects]
    return len(names)


def build_scene(args: argparse.Namespace) -> tuple[SceneGraph, dict[str, Any]]:
    """The graph and its store source for the options."""
    from synergai.scene.build import build_graph
    from synergai.scene.vocabulary import UNNAMED

    path = args.path.expanduser()
    args.path = path
    scene_id = args.scene_id or (path.name if path.is_dir() else path.stem)
    namer = _namer(args)
    if args.source == "scannet-raw":
        from synergai.scene.builders.scannet_raw import load_scannet_scene

        if not path.is_dir():
            raise SceneError(f"{path}: not a directory (a ScanNet scan directory scans/<scene id>/)")
        raw = load_scannet_scene(path, args.scene_id or path.name, align=not args.no_align)
        built = Built(raw.objects)
    else:
        builders: dict[str, Callable[[argparse.Namespace, str], Built]] = {
            "pointcloud": build_pointcloud, "rgbd": build_rgbd, "rosbag": build_rosbag}
        built = builders[args.source](args, scene_id)
    named = name_segments(namer, built) if namer is not None else 0
    if not built.objects:
        raise SceneError(f"{path}: no objects found (check the instance ids and --min-points)")
    graph = build_graph(scene_id, built.objects, scene_type=args.scene_type)
    source = {"builder": args.source, "path": str(path.resolve()), "scene": scene_id, **built.extra}
    if built.segmentation is not None:
        unnamed = sum(o.category == UNNAMED for o in graph)
        source["segmented"] = {"segments": len(built.objects), "unnamed": unnamed, "named_by_model": named}
    return graph, source


def cmd_build(args: argparse.Namespace) -> int:
    from synergai.scene.builders.segment import NAMING_NOTE
    from synergai.scene.store import SceneStore
    from synergai.scene.vocabulary import UNNAMED

    settings(args)
    graph, source = build_scene(args)
    if args.update:
        return update(args, graph, source, args.source, args.db)
    with SceneStore(args.db) as store:
        if store.has_scene(graph.scene_id) and not args.replace:
            raise SceneError(f"scene {graph.scene_id} is already in the store "
                             "(--update to carry its edits over the new perception, --replace, or another "
                             "--scene-id)")
        store.register(graph, source, replace_existing=args.replace)
        path = store.where
    summary = {"scene": graph.scene_id, "objects": len(graph), "relations": len(graph.edges),
               "labels": sorted({o.category for o in graph}), "store": str(path)}
    if "frames" in source:
        summary |= {k: source[k] for k in ("frames", "depth_images", "skipped")}
    segmented = source.get("segmented")
    note = None
    if segmented is not None:
        summary |= {"unnamed": segmented["unnamed"], "named_by_model": segmented["named_by_model"]}
        if segmented["unnamed"]:
            note = NAMING_NOTE.format(n=segmented["unnamed"], label=UNNAMED, scene=graph.scene_id)
            summary["note"] = note
    if args.json:
        print_json(summary)
    else:
        if "frames" in source:
            dropped = ", ".join(f"{n} without {what}" for what, n in source["skipped"].items())
            print(f"fused {source['frames']} of {source['depth_images']} depth images"
                  + (f" (skipped: {dropped})" if dropped else ""))
        print(visible(f"built {graph.scene_id} from {args.source}: {len(graph)} objects, "
                      f"{len(graph.edges)} relations -> {path}"))
        if note is not None:
            print(visible(note))
        print(visible(f'next: synergai ask "What is here?" --scene {graph.scene_id}   (or synergai serve)'))
    return 0
