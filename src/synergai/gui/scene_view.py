"""Drawing one scene into a viser scene (one browser tab's 3D view).

Two views of the same objects live side by side and one is shown at a time: the reconstructed view
(each object's mesh in its vertex colours, or its box in its colour for box-only scenes) and the
segmentation view (every object in its instance colour, :func:`~synergai.gui.palette.instance_color`).
Walls and the ceiling can be hidden; :meth:`SceneView.pickable` says what the user can click. The
marked object gets a yellow box, the objects of the agent's last answer blue ones, both with labels that
do not cover one another (:mod:`synergai.gui.labels`). A scene with rooms shows each room as a
translucent floor patch in its colour with its outline and name (:mod:`synergai.gui.rooms`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from synergai.geometry.mesh import TriMesh
from synergai.gui.labels import place_labels
from synergai.gui.palette import ANSWER_COLOR, BOX_EDGE_COLOR, MARK_COLOR, display_color, instance_color
from synergai.gui.rooms import PATCH_OPACITY, floor_height, outline, patch, room_color
from synergai.scene.model import ObjectKind, SceneGraph, SceneObject

RGB = tuple[int, int, int]

# shadows cost most of the frame time in software WebGL (headless browsers, machines without a GPU)
# and the PBR ("standard") material is many times slower to shade there than a toon one
_SURFACE = MappingProxyType({"cast_shadow": False, "receive_shadow": False, "material": "toon5"})

# corner index pairs of the 12 edges of a box whose corners are enumerated as bits (x, y, z)
_EDGES = ((0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7))
_CORNER_BITS = tuple((k & 1, (k >> 1) & 1, (k >> 2) & 1) for k in range(8))


def box_segments(objects: Iterable[SceneObject], pad: float = 0.0) -> np.ndarray:
    """The 12 edges of each object's box as line segments (N*12, 2, 3), grown by ``pad`` metres."""
    segs = []
    for o in objects:
        lo = np.asarray(o.center) - np.asarray(o.size) / 2.0 - pad
        hi = np.asarray(o.center) + np.asarray(o.size) / 2.0 + pad
        corners = lo + np.asarray(_CORNER_BITS, dtype=np.float64) * (hi - lo)
        segs.append(corners[np.asarray(_EDGES)])
    return np.concatenate(segs) if segs else np.zeros((0, 2, 3))


def color_groups(mesh: TriMesh) -> list[tuple[RGB | None, np.ndarray, np.ndarray]]:
    """The mesh split by face colour (a face takes its first vertex's colour): (colour, vertices, faces)."""
    if mesh.vertex_colors is None or mesh.n_faces == 0:
        return [(None, np.asarray(mesh.vertices), np.asarray(mesh.faces))]
    face_rgb = np.asarray(mesh.vertex_colors)[mesh.faces[:, 0]]
    colours, inverse = np.unique(face_rgb, axis=0, return_inverse=True)
    out: list[tuple[RGB | None, np.ndarray, np.ndarray]] = []
    for k, c in enumerate(colours):
        faces = mesh.faces[inverse.reshape(-1) == k]
        used, local = np.unique(faces, return_inverse=True)
        out.append(((int(c[0]), int(c[1]), int(c[2])), mesh.vertices[used], local.reshape(-1, 3)))
    return out


@dataclass
class _Drawn:
    """Scene-tree nodes of one object, and what its box looked like when drawn."""

    recon: list[Any]
    seg: Any
    box: tuple[tuple[float, ...], tuple[float, ...]] | None  # (center, size) for box-drawn objects
    kind: ObjectKind


def label_text(obj: SceneObject) -> str:
    """An object's label in the 3D view."""
    return f"{obj.name} (id: {obj.id})"


def label_anchor(obj: SceneObject) -> tuple[float, float, float]:
    """Where an object's label hangs: just above the top of its box."""
    return (float(obj.center[0]), float(obj.center[1]), float(obj.center[2] + obj.size[2] / 2.0 + 0.05))


class SceneView:
    """The 3D view of one tab: draws a graph, toggles views, shows the mark and the answer's objects."""

    def __init__(self, scene: Any) -> None:
        self.scene = scene  # a viser SceneApi (client.scene)
        self.segmentation = False
        self.show_walls = True
        self.show_ceiling = False
        self._drawn: dict[str, _Drawn] = {}
        self._names: dict[str, str] = {}
        self._edges: Any = None
        self._meshes: Mapping[str, TriMesh] = {}
        self.mark_node: Any = None
        self.mark_label: Any = None
        self.marked: str | None = None
        self.answer_ids: tuple[str, ...] = ()
        self._answer_nodes: list[Any] = []
        self.show_rooms = True
        self._room_nodes: list[Any] = []

    # ----- drawing
    def _node(self, object_id: str) -> str:
        if object_id not in self._names:
            self._names[object_id] = f"o{len(self._names)}"
        return self._names[object_id]

    def clear(self) -> None:
        """Remove everything this view drew."""
        for d in self._drawn.values():
            for h in [*d.recon, d.seg]:
                h.remove()
        self._drawn.clear()
        self._names.clear()
        if self._edges is not None:
            self._edges.remove()
            self._edges = None
        self._clear_rooms()
        self.show_mark(None)
        self.show_answer(None, ())

    def draw(self, graph: SceneGraph, meshes: Mapping[str, TriMesh]) -> None:
        """Draw every object of ``graph`` (meshes where given, else boxes), replacing what was there."""
        self.clear()
        self._meshes = meshes
        for obj in graph:
            self._draw_object(obj)
        self._draw_box_edges(graph)
        self.draw_rooms(graph)

    def _clear_rooms(self) -> None:
        for h in self._room_nodes:
            h.remove()
        self._room_nodes = []

    def draw_rooms(self, graph: SceneGraph) -> None:
        """Each room's floor patch, outline and name in its colour (replacing earlier ones; hidden with
        :attr:`show_rooms` off)."""
        self._clear_rooms()
        z = floor_height(graph)
        for k, room in enumerate(graph.rooms):
            rgb = room_color(room)
            vertices, faces = patch(room, z)
            self._room_nodes += [
                self.scene.add_mesh_simple(f"/rooms/r{k}/patch", vertices=vertices, faces=faces, color=rgb,
                                           opacity=PATCH_OPACITY, side="double", visible=self.show_rooms,
                                           **_SURFACE),
                self.scene.add_line_segments(f"/rooms/r{k}/outline", outline(room, z), rgb, thickness=3.0,
                                             thickness_units="screen", visible=self.show_rooms),
                self.scene.add_label(f"/rooms/r{k}/name", room.name, position=(*room.centroid, z + 0.05),
                                     anchor="bottom-center", visible=self.show_rooms),
            ]

    def set_rooms(self, on: bool) -> None:
        """Show or hide the rooms' patches, outlines and names."""
        self.show_rooms = bool(on)
        for h in self._room_nodes:
            h.visible = self.show_rooms

    def _visible(self, kind: ObjectKind) -> bool:
        if kind is ObjectKind.WALL:
            return self.show_walls
        if kind is ObjectKind.CEILING:
            return self.show_ceiling
        return True

    def _draw_object(self, obj: SceneObject) -> None:
        name = self._node(obj.id)
        mesh = self._meshes.get(obj.id)
        vis = self._visible(obj.kind)
        recon_vis, seg_vis = vis and not self.segmentation, vis and self.segmentation
        seg_rgb = instance_color(obj.id)
        if mesh is not None and mesh.n_faces > 0:
            base = display_color(obj, mesh)
            recon = [
                self.scene.add_mesh_simple(f"/recon/{name}/c{k}", vertices=v, faces=f, color=c or base,
                                           flat_shading=True, side="double", visible=recon_vis, **_SURFACE)
                for k, (c, v, f) in enumerate(color_groups(mesh))
            ]
            seg = self.scene.add_mesh_simple(f"/seg/{name}", vertices=mesh.vertices, faces=mesh.faces,
                                             color=seg_rgb, flat_shading=True, side="double", visible=seg_vis,
                                             **_SURFACE)
            self._drawn[obj.id] = _Drawn(recon, seg, None, obj.kind)
            return
        size = tuple(max(float(s), 0.01) for s in obj.size)
        structure = obj.kind is not ObjectKind.OBJECT
        opacity = 0.35 if structure and obj.kind is not ObjectKind.FLOOR else None
        recon_box = self.scene.add_box(f"/recon/{name}/box", color=display_color(obj), dimensions=size,
                                       position=tuple(obj.center), opacity=opacity, visible=recon_vis,
                                       **_SURFACE)
        seg = self.scene.add_box(f"/seg/{name}", color=seg_rgb, dimensions=size, position=tuple(obj.center),
                                 opacity=opacity, visible=seg_vis, **_SURFACE)
        self._drawn[obj.id] = _Drawn([recon_box], seg, (tuple(obj.center), tuple(obj.size)), obj.kind)

    def _draw_box_edges(self, graph: SceneGraph) -> None:
        if self._edges is not None:
            self._edges.remove()
            self._edges = None
        boxed = [graph.get(i) for i, d in self._drawn.items() if d.box is not None and self._visible(d.kind)]
        if boxed:
            self._edges = self.scene.add_line_segments(
                "/edges", box_segments(boxed), BOX_EDGE_COLOR, thickness=1.0, thickness_units="screen")

    def update(self, graph: SceneGraph) -> None:
        """Bring the drawing in line with an edited graph (objects removed, added or moved)."""
        changed = False
        for oid in [i for i in self._drawn if i not in graph]:
            gone = self._drawn.pop(oid)
            for h in [*gone.recon, gone.seg]:
                h.remove()
            changed = True
        for obj in graph:
            d = self._drawn.get(obj.id)
            if d is not None and (d.box is None or d.box == (tuple(obj.center), tuple(obj.size))):
                continue
            if d is not None:
                for h in [*d.recon, d.seg]:
                    h.remove()
            self._draw_object(obj)
            changed = True
        if changed:
            self._draw_box_edges(graph)
        if self.marked is not None:
            self.show_mark(graph.get(self.marked) if self.marked in graph else None)
        if self.answer_ids:
            self.show_answer(graph, self.answer_ids)

    # ----- view switches
    def _refresh_visibility(self) -> None:
        for d in self._drawn.values():
            vis = self._visible(d.kind)
            for h in d.recon:
                h.visible = vis and not self.segmentation
            d.seg.visible = vis and self.segmentation

    def set_segmentation(self, on: bool) -> None:
        """Show instance colours (True) or the reconstructed colours (False)."""
        self.segmentation = bool(on)
        self._refresh_visibility()

    def set_structure(self, graph: SceneGraph, walls: bool, ceiling: bool) -> None:
        """Show or hide walls and the ceiling (hidden ones cannot be clicked)."""
        self.show_walls, self.show_ceiling = bool(walls), bool(ceiling)
        self._refresh_visibility()
        self._draw_box_edges(graph)

    def pickable(self) -> list[str]:
        """Ids of the objects currently drawn and visible."""
        return [i for i, d in self._drawn.items() if self._visible(d.kind)]

    # ----- highlights
    def show_mark(self, obj: SceneObject | None) -> None:
        """Draw the marked object's yellow box and label (None removes them)."""
        for h in (self.mark_node, self.mark_label):
            if h is not None:
                h.remove()
        self.mark_node = self.mark_label = None
        self.marked = None if obj is None else obj.id
        if obj is None:
            return
        self.mark_node = self.scene.add_line_segments(
            "/mark/box", box_segments([obj], pad=0.015), MARK_COLOR, thickness=4.0, thickness_units="screen")
        self.mark_label = self.scene.add_label("/mark/label", label_text(obj), position=label_anchor(obj),
                                               anchor="bottom-center")

    def show_answer(self, graph: SceneGraph | None, ids: Iterable[str]) -> None:
        """Draw blue boxes and labels around the objects the agent named (replacing earlier ones)."""
        for h in self._answer_nodes:
            h.remove()
        self._answer_nodes = []
        objs = [] if graph is None else [graph.get(i) for i in ids if i in graph]
        self.answer_ids = tuple(o.id for o in objs)
        if graph is None or not objs:
            return
        self._answer_nodes.append(self.scene.add_line_segments(
            "/answer/boxes", box_segments(objs, pad=0.03), ANSWER_COLOR, thickness=3.0,
            thickness_units="screen"))
        labelled = [o for o in objs if o.id != self.marked]  # the mark already carries its own label
        mark = self.marked
        fixed = [graph.get(mark)] if mark is not None and mark in graph else []  # stays; the others move
        anchors = [label_anchor(o) for o in [*fixed, *labelled]]
        placed = place_labels(anchors, [label_text(o) for o in [*fixed, *labelled]])[len(fixed):]
        leaders = []
        for k, (o, anchor, position) in enumerate(zip(labelled, anchors[len(fixed):], placed, strict=True)):
            self._answer_nodes.append(self.scene.add_label(f"/answer/label{k}", label_text(o),
                                                           position=position, anchor="bottom-center"))
            if position[2] - anchor[2] > 1e-6:  # raised above another label: a line shows whose it is
                leaders.append((anchor, position))
        if leaders:
            self._answer_nodes.append(self.scene.add_line_segments(
                "/answer/leaders", np.asarray(leaders, dtype=np.float64), ANSWER_COLOR, thickness=1.5,
                thickness_units="screen"))

    @property
    def drawn(self) -> list[str]:
        """Ids of every object drawn (visible or not)."""
        return list(self._drawn)

    def mark_segments(self) -> np.ndarray | None:
        """The yellow box's line segments as sent to the browser, or None."""
        return None if self.mark_node is None else np.asarray(self.mark_node.points)
