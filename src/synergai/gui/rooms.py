"""Rooms in the GUI: a colour per room, the translucent floor patch and outline that show it in the 3D
view, and the panel that lists the rooms (name, category, how many objects) in those colours. Names are
escaped."""

from __future__ import annotations

import html

import numpy as np

from synergai.gui.palette import RGB, instance_color
from synergai.scene.model import STRUCTURE_KINDS, Room, SceneGraph
from synergai.scene.rooms import room_members

#: Height of the room patches above the floor (metres): just above it, under everything standing on it.
PATCH_LIFT = 0.01
PATCH_OPACITY = 0.35


def room_color(room: Room) -> RGB:
    """A room's colour: fixed per room id, from the segmentation palette (with a prefix, so that a room
    and an object of the same id differ)."""
    return instance_color(f"room:{room.id}")


def floor_height(graph: SceneGraph) -> float:
    """Where the room patches lie: the top of the lowest floor, else the bottom of the lowest object."""
    floors = [o.center[2] + o.size[2] / 2 for o in graph if o.kind.value == "floor"]
    if floors:
        return float(min(floors))
    bottoms = [o.center[2] - o.size[2] / 2 for o in graph]
    return float(min(bottoms)) if bottoms else 0.0


def patch(room: Room, z: float) -> tuple[np.ndarray, np.ndarray]:
    """The footprint as a flat triangle mesh at height ``z`` (vertices (n, 3), faces (m, 3)); concave
    footprints are triangulated inside their outline (constrained Delaunay)."""
    import shapely

    triangles = shapely.constrained_delaunay_triangles(room.polygon()).geoms
    corners = np.array([t.exterior.coords[:3] for t in triangles], dtype=np.float64).reshape(-1, 2)
    vertices = np.c_[corners, np.full(len(corners), z + PATCH_LIFT)]
    return vertices, np.arange(len(vertices)).reshape(-1, 3)


def outline(room: Room, z: float) -> np.ndarray:
    """The footprint's edges as line segments (n, 2, 3) at height ``z``."""
    xy = np.asarray(room.footprint, dtype=np.float64)
    pts = np.c_[xy, np.full(len(xy), z + PATCH_LIFT)]
    return np.stack([pts, np.roll(pts, -1, axis=0)], axis=1)


def rooms_html(graph: SceneGraph) -> str:
    """The rooms panel: one line per room with its colour, name, category and object count."""
    members = room_members(graph)
    lines = []
    for r in graph.rooms:
        n = sum(1 for oid in members[r.id] if graph.get(oid).kind not in STRUCTURE_KINDS)
        rgb = room_color(r)
        kind = "" if r.category == r.name else f" · {html.escape(r.category)}"
        lines.append(f'<div style="margin:2px 0;font-size:12px"><span style="display:inline-block;width:12px;'
                     f'height:12px;border-radius:2px;background:rgb{rgb};vertical-align:middle"></span> '
                     f"<b>{html.escape(r.name)}</b>{kind} · {n} objects · {r.area:.1f} m²</div>")
    return f'<div class="synergai-rooms" style="padding:0 12px">{"".join(lines)}</div>' if lines else ""
