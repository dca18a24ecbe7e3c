"""Colours of the GUI: the instance (segmentation) palette, object display colours, highlight colours.

The segmentation palette is deterministic per object id (a hash of the id picks a hue on the golden-angle
sequence), so an object keeps its colour across sessions, tabs and restarts, and neighbouring ids get
well separated hues.
"""

from __future__ import annotations

import colorsys
import hashlib

import numpy as np

from synergai.geometry.mesh import TriMesh
from synergai.scene.model import ObjectKind, SceneObject

RGB = tuple[int, int, int]

#: The marked object's box (the paper's yellow box).
MARK_COLOR: RGB = (255, 214, 0)
#: Boxes of the objects the agent's last answer names.
ANSWER_COLOR: RGB = (0, 190, 255)
#: Objects without any colour information.
DEFAULT_COLOR: RGB = (170, 170, 170)
#: Edges drawn around every object box in box-only scenes.
BOX_EDGE_COLOR: RGB = (60, 60, 60)

_GOLDEN = 0.618033988749895


def instance_color(object_id: str) -> RGB:
    """The segmentation colour of an object id: fixed per id, saturated, never grey or near-white."""
    digest = hashlib.blake2b(str(object_id).encode("utf-8"), digest_size=8).digest()
    k = int.from_bytes(digest, "little")
    hue = ((k & 0xFFFF) * _GOLDEN) % 1.0
    sat = 0.55 + 0.35 * ((k >> 16) & 0xFF) / 255.0
    val = 0.70 + 0.25 * ((k >> 24) & 0xFF) / 255.0
    r, g, b = colorsys.hsv_to_rgb(hue, sat, val)
    return (round(r * 255), round(g * 255), round(b * 255))


def mesh_color(mesh: TriMesh) -> RGB | None:
    """Mean vertex colour of a mesh, when it has colours."""
    if mesh.vertex_colors is None or mesh.n_vertices == 0:
        return None
    mean = np.asarray(mesh.vertex_colors, dtype=np.float64).mean(axis=0)
    return (round(float(mean[0])), round(float(mean[1])), round(float(mean[2])))


def display_color(obj: SceneObject, mesh: TriMesh | None = None) -> RGB:
    """How an object is drawn in the reconstructed view: its own colour, else its mesh's, else grey."""
    if obj.color is not None:
        return (int(obj.color[0]), int(obj.color[1]), int(obj.color[2]))
    if mesh is not None:
        c = mesh_color(mesh)
        if c is not None:
            return c
    if obj.kind is ObjectKind.FLOOR:
        return (200, 195, 185)
    return DEFAULT_COLOR
