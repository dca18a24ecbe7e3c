"""Objects from an instance-labelled point cloud: one axis-aligned box and mean colour per instance.

Boxes are exact min/max boxes by default. With ``trim=p`` (percent, 0 <= p < 25) each axis uses the
p-th and (100 - p)-th percentiles of the instance's points instead, so a few stray points (depth
noise, mislabelled mask edges) do not inflate the box; the cost is that the box shrinks by about
p % of the points per side on clean data. The colour is the mean RGB of all the instance's points.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from types import MappingProxyType

import numpy as np

from synergai.scene.attributes import color_name
from synergai.scene.model import ObjectKind, SceneError, SceneObject

_KINDS = MappingProxyType({"floor": ObjectKind.FLOOR, "wall": ObjectKind.WALL, "walls": ObjectKind.WALL,
          "ceiling": ObjectKind.CEILING})


def kind_for_label(label: str) -> ObjectKind:
    """FLOOR / WALL / CEILING for those exact labels (any case), OBJECT otherwise."""
    return _KINDS.get(label.strip().lower(), ObjectKind.OBJECT)


def object_from_points(
    object_id: str,
    category: str,
    xyz: np.ndarray,
    rgb: np.ndarray | None = None,
    *,
    trim: float = 0.0,
    provenance: str = "pointcloud",
    confidence: float = 1.0,
) -> SceneObject:
    """One object from its points (N, 3) and optional colours (N, 3) 0..255 (see module doc for ``trim``)."""
    pts = np.asarray(xyz, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[1] != 3 or len(pts) == 0:
        raise SceneError(f"object {object_id}: points must be a non-empty (N, 3) array, got {pts.shape}")
    if not 0.0 <= trim < 25.0:
        raise SceneError(f"trim must be a percentage in [0, 25), got {trim}")
    if trim > 0.0:
        lo, hi = np.percentile(pts, [trim, 100.0 - trim], axis=0)
    else:
        lo, hi = pts.min(axis=0), pts.max(axis=0)
    color: tuple[int, int, int] | None = None
    attributes: tuple[str, ...] = ()
    if rgb is not None:
        mean = np.asarray(rgb, dtype=np.float64).reshape(-1, 3).mean(axis=0)
        r, g, b = (int(v) for v in np.round(mean))
        color = (r, g, b)
        attributes = (color_name(color),)
    c, s = (lo + hi) / 2.0, hi - lo
    return SceneObject(
        id=str(object_id),
        category=category,
        center=(float(c[0]), float(c[1]), float(c[2])),
        size=(float(s[0]), float(s[1]), float(s[2])),
        color=color,
        attributes=attributes,
        confidence=confidence,
        provenance=provenance,
        kind=kind_for_label(category),
    )


def _check_cloud(xyz: np.ndarray, rgb: np.ndarray, instance: np.ndarray) -> tuple[np.ndarray, ...]:
    pts = np.asarray(xyz, dtype=np.float64)
    col = np.asarray(rgb)
    inst = np.asarray(instance)
    if pts.ndim != 2 or pts.shape[1] != 3:
        raise SceneError(f"points must have shape (N, 3), got {pts.shape}")
    if col.shape != pts.shape:
        raise SceneError(f"colours must have shape {pts.shape}, got {col.shape}")
    if inst.shape != (len(pts),):
        raise SceneError(f"instance labels must have shape ({len(pts)},), got {inst.shape}")
    if not np.issubdtype(inst.dtype, np.integer):
        raise SceneError(f"instance labels must be integers, got {inst.dtype}")
    if not np.all(np.isfinite(pts)):
        raise SceneError("points contain NaN or infinite values")
    if col.size and (col.min() < 0 or col.max() > 255):
        raise SceneError("colours must be 8-bit values in 0..255")
    return pts, col.astype(np.float64), inst.astype(np.int64)


def objects_from_points(
    xyz: np.ndarray,
    rgb: np.ndarray,
    instance: np.ndarray,
    labels: Mapping[int, str],
    *,
    ignore: Collection[int] = (-1, 0),
    min_points: int = 10,
    trim: float = 0.0,
    provenance: str = "pointcloud",
) -> list[SceneObject]:
    """One :class:`SceneObject` per instance id (id = ``str(instance)``, category = ``labels[instance]``).

    Points whose instance is in ``ignore`` (unlabelled / background) are dropped, and instances with
    fewer than ``min_points`` points are skipped as noise. An instance kept without a label raises
    :class:`SceneError`. Objects come in increasing instance order.
    """
    pts, col, inst = _check_cloud(xyz, rgb, instance)
    if min_points < 1:
        raise SceneError(f"min_points must be at least 1, got {min_points}")
    if not 0.0 <= trim < 25.0:
        raise SceneError(f"trim must be a percentage in [0, 25), got {trim}")
    keep = ~np.isin(inst, np.fromiter(ignore, dtype=np.int64))
    pts, col, inst = pts[keep], col[keep], inst[keep]
    if len(inst) == 0:
        return []
    order = np.argsort(inst, kind="stable")
    pts, col, inst = pts[order], col[order], inst[order]
    ids, starts, counts = np.unique(inst, return_index=True, return_counts=True)
    big = counts >= min_points
    missing = [int(i) for i in ids[big] if int(i) not in labels]
    if missing:
        raise SceneError(f"no label for instance ids {missing[:10]}")
    out = []
    for i, s, n in zip(ids[big], starts[big], counts[big], strict=True):
        sl = slice(int(s), int(s + n))
        out.append(object_from_points(str(int(i)), labels[int(i)], pts[sl], col[sl], trim=trim,
                                      provenance=provenance))
    return out
