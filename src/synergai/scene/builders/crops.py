"""Each segment's best picture in posed colour frames: the frame that sees most of its points, cropped
around them (for naming segments by a model that reads images).

A segment's points are projected into every frame; a point counts as seen where the frame's own depth
agrees with its distance (within ``occlusion`` metres), so a chair behind a table is not credited to a
view of the table. Frames are taken one at a time and only the best crop per segment is kept, so memory
holds one small picture per segment, not the recording.
"""

from __future__ import annotations

import io
from collections.abc import Collection, Iterable
from dataclasses import dataclass

import numpy as np

from synergai.scene.builders.rgbd import RGBDFrame
from synergai.scene.builders.segment import Segmentation


@dataclass(frozen=True)
class CropParams:
    """How crops are chosen and cut."""

    min_pixels: int = 20  # a view must see this many of the segment's points
    occlusion: float = 0.1  # metres a point may lie behind the frame's depth and still count as seen
    margin: float = 0.15  # the crop grows by this share of its size on each side
    size: int = 224  # longest side of a crop in pixels (larger crops are shrunk)


def best_crops(frames: Iterable[RGBDFrame], seg: Segmentation, segments: Collection[int],
               params: CropParams | None = None) -> dict[int, np.ndarray]:
    """Segment -> RGB crop (H, W, 3) uint8 from the frame that sees most of its points; segments no frame
    sees with ``min_pixels`` points are left out."""
    p = params or CropParams()
    wanted = np.isin(seg.segment, np.fromiter(segments, dtype=np.int64))
    xyz, sid = seg.xyz[wanted], seg.segment[wanted]
    best: dict[int, tuple[int, np.ndarray]] = {}
    for frame in frames:
        u, v, ok = _seen(frame, xyz, p.occlusion)
        for s in np.unique(sid[ok]):
            mine = ok & (sid == s)
            n = int(np.count_nonzero(mine))
            if n < p.min_pixels or n <= best.get(int(s), (0, None))[0]:
                continue
            best[int(s)] = (n, _cut(frame.color, u[mine], v[mine], p))
    return {s: crop for s, (_, crop) in sorted(best.items())}


def _seen(frame: RGBDFrame, xyz: np.ndarray, occlusion: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pixel column, row and whether the frame sees each point (in view, its depth measured and agreeing)."""
    h, w = frame.depth.shape
    pose, k = frame.cam_to_world, frame.intrinsics
    cam = (xyz - pose[:3, 3]) @ pose[:3, :3]
    z = cam[:, 2]
    front = z > 1e-6
    zs = np.where(front, z, 1.0)
    u = np.round(k[0, 0] * cam[:, 0] / zs + k[0, 1] * cam[:, 1] / zs + k[0, 2]).astype(np.int64)
    v = np.round(k[1, 1] * cam[:, 1] / zs + k[1, 2]).astype(np.int64)
    ok = front & (u >= 0) & (u < w) & (v >= 0) & (v < h)
    measured = np.zeros(len(xyz))
    measured[ok] = frame.depth[v[ok], u[ok]]
    ok &= (measured > 0) & (np.abs(measured - z) <= occlusion)
    return u, v, ok


def _cut(color: np.ndarray, u: np.ndarray, v: np.ndarray, p: CropParams) -> np.ndarray:
    h, w = color.shape[:2]
    du, dv = (u.max() - u.min() + 1) * p.margin, (v.max() - v.min() + 1) * p.margin
    u0, u1 = max(0, int(u.min() - du)), min(w, int(u.max() + du) + 1)
    v0, v1 = max(0, int(v.min() - dv)), min(h, int(v.max() + dv) + 1)
    crop = np.ascontiguousarray(color[v0:v1, u0:u1, :3], dtype=np.uint8)
    longest = max(crop.shape[:2])
    if longest <= p.size:
        return crop
    from PIL import Image

    scale = p.size / longest
    shape = (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale)))
    return np.asarray(Image.fromarray(crop).resize(shape, Image.Resampling.BILINEAR))


def png_bytes(image: np.ndarray) -> bytes:
    """An RGB image as PNG file bytes."""
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image, dtype=np.uint8)).save(out, format="PNG")
    return out.getvalue()
