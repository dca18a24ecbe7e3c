"""Spark-DSG (MIT SPARK's scene-graph format, what Hydra writes) in and out, through the ``spark_dsg``
package's own API (``pip install 'synergai[hydra]'``); nothing here reads or writes its files by hand.

Mapping:

- objects <-> the ``OBJECTS`` layer (id 2, partition 0): node ``O<k>`` with position (box centre),
  axis-aligned bounding box, semantic label through the layer's labelspace (category), colour and
  name (our object id);
- rooms <-> the ``ROOMS`` layer (id 4): node ``R<k>`` with name, semantic label through the rooms'
  labelspace (category), position (footprint centroid at floor height) and the footprint's bounding
  box; an edge room -> object for each object of the room;
- our stored relations, which Spark-DSG has no types for, <-> edges between object nodes whose
  metadata lists them (``{"synergai_relations": [[subject, relation, object], ...]}``: one edge per pair);
- the rest (each object's and room's full synergai document, the scene id, type and levels) in the
  nodes' and the graph's metadata under ``"synergai"``, so that our own round trip is lossless (the
  bounding boxes are single precision).

Reading a graph another tool wrote (Hydra): objects come from the object layer, named by their
labelspace category (else their name, else "object"); an object's room is the room above it (room ->
place -> object, or room -> object), else the room whose footprint holds its centre; a room's footprint
is its bounding box's floor rectangle, else the outline of its objects. A node's colour gets its colour
name; a box that is no box (a negative dimension, the node's position outside it: what
``BoundingBox(min, max)`` gives, the constructor taking (dimensions, centre)) is refused. Every other
layer (places, mesh places, agents, buildings, ...) and the mesh are left out;
:attr:`SparkDsgImport.left_out` says which.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from synergai.geometry.frames import vec3
from synergai.scene.attributes import color_name
from synergai.scene.model import (
    Edge,
    OrientedBox,
    Relation,
    Room,
    SceneError,
    SceneGraph,
    SceneObject,
    is_stored,
)
from synergai.scene.rooms import fill_rooms
from synergai.scene.serialization import object_from_dict, object_to_dict, room_from_dict, room_to_dict

OBJECTS_LAYER = 2
ROOMS_LAYER = 4
#: Graph, node and edge metadata key of what Spark-DSG has no field for.
META_KEY = "synergai"
RELATIONS_KEY = "synergai_relations"


def _dsg() -> Any:
    try:
        import spark_dsg
    except ImportError:
        raise SceneError("Spark-DSG needs the spark-dsg package: pip install 'synergai[hydra]'") from None
    return spark_dsg


@dataclass(frozen=True)
class SparkDsgImport:
    """A Spark-DSG graph read into our model, what of it was left out (one line, empty when nothing)
    and what the package said while reading it (e.g. that the file has an outdated encoding)."""

    graph: SceneGraph
    left_out: str
    library_notes: str = ""


# ----------------------------------------------------------------------------------------- writing
def to_spark_dsg(graph: SceneGraph) -> Any:
    """A ``spark_dsg.DynamicSceneGraph`` of ``graph`` (objects, rooms, relations; see the module doc)."""
    dsg = _dsg()
    out = dsg.DynamicSceneGraph()
    categories = sorted({o.category for o in graph})
    labels = {c: i for i, c in enumerate(categories)}
    out.set_labelspace(dsg.Labelspace({i: c for c, i in labels.items()}), OBJECTS_LAYER)
    symbols: dict[str, Any] = {}
    for k, o in enumerate(graph):
        attrs = dsg.ObjectNodeAttributes()
        attrs.position = np.asarray(o.center, dtype=float)
        attrs.bounding_box = dsg.BoundingBox(np.asarray(o.size, dtype=float),
                                             np.asarray(o.center, dtype=float))
        attrs.semantic_label = labels[o.category]
        attrs.name = o.id
        if o.color is not None:
            attrs.color = np.asarray(o.color, dtype=np.uint8)
        attrs.metadata.set({META_KEY: object_to_dict(o)})
        symbols[o.id] = dsg.NodeSymbol("O", k)
        out.add_node(OBJECTS_LAYER, symbols[o.id], attrs)
    room_categories = sorted({r.category for r in graph.rooms})
    room_labels = {c: i for i, c in enumerate(room_categories)}
    if room_categories:
        out.set_labelspace(dsg.Labelspace({i: c for c, i in room_labels.items()}), ROOMS_LAYER)
    room_symbols: dict[str, Any] = {}
    for k, r in enumerate(graph.rooms):
        attrs = dsg.RoomNodeAttributes()
        xy = np.asarray(r.footprint, dtype=float)
        lo, hi = xy.min(axis=0), xy.max(axis=0)
        cx, cy = r.centroid
        attrs.position = np.array([cx, cy, 0.0])
        attrs.bounding_box = dsg.BoundingBox(np.array([*(hi - lo), 0.0]), np.array([*((lo + hi) / 2), 0.0]))
        attrs.semantic_label = room_labels[r.category]
        attrs.name = r.name
        attrs.metadata.set({META_KEY: room_to_dict(r)})
        room_symbols[r.id] = dsg.NodeSymbol("R", k)
        out.add_node(ROOMS_LAYER, room_symbols[r.id], attrs)
    for o in graph:
        if o.room is not None:
            out.insert_edge(room_symbols[o.room], symbols[o.id])
    pairs: dict[tuple[str, str], list[list[str]]] = {}
    for e in graph.edges:
        key = (e.subject, e.object) if (e.object, e.subject) not in pairs else (e.object, e.subject)
        pairs.setdefault(key, []).append([e.subject, e.relation.value, e.object, e.provenance])
    for (a, b), facts in pairs.items():
        info = dsg.EdgeAttributes()
        info.metadata.set({RELATIONS_KEY: facts})
        out.insert_edge(symbols[a], symbols[b], info)
    levels = {k: int(v) for k, v in graph.levels.items()}
    out.metadata.add({META_KEY: {"scene": graph.scene_id, "scene_type": graph.scene_type, "levels": levels}})
    return out


def save_spark_dsg(graph: SceneGraph, path: Path) -> None:
    """Write ``graph`` as a Spark-DSG file; the package picks the encoding by extension (``.json``: JSON,
    ``.sparkdsg`` / ``.bson`` / none: binary) and refuses any other."""
    out = to_spark_dsg(graph)
    with _library_messages() as messages:
        try:
            out.save(str(path), include_mesh=False)
        except (RuntimeError, ValueError, OSError) as exc:
            raise SceneError(f"cannot write {path}: {_one_line(exc, messages())}") from None


# ----------------------------------------------------------------------------------------- reading
@contextmanager
def _library_messages() -> Iterator[Any]:
    """Capture what the library's C++ code prints on stdout and stderr (warnings about old encodings),
    so that an error stays one line; yields a function returning the captured text."""
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile(mode="w+b") as captured:
        saved = [os.dup(1), os.dup(2)]
        text: list[str] = []
        try:
            for fd in (1, 2):
                os.dup2(captured.fileno(), fd)
            yield lambda: "".join(text) or _read(captured)
        finally:
            for fd, old in zip((1, 2), saved, strict=True):
                os.dup2(old, fd)
                os.close(old)
            text.append(_read(captured))


def _read(f: Any) -> str:
    f.flush()
    f.seek(0)
    return f.read().decode("utf-8", "replace")


def _one_line(exc: BaseException, messages: str) -> str:
    text = " ".join(str(exc).split()) or " ".join(messages.split()) or type(exc).__name__
    return text[:300]


def load_spark_dsg(path: Path, scene_id: str | None = None) -> SparkDsgImport:
    """Read a Spark-DSG file (JSON or binary) with the package's loader; a file that is not a Spark-DSG
    graph, or of an encoding the package cannot read, is a one-line :class:`SceneError`. The package's
    binary reader (any name but ``*.json``) trusts the sizes and counts a file states, so a private copy
    of a binary file is first read by a child process under a memory limit
    (:mod:`synergai.scene.sparkdsg_child`); only a copy the child read within it is read here."""
    _dsg()
    path = Path(path)
    if not path.is_file():
        raise SceneError(f"cannot read {path}: no such file")
    if path.suffix == ".json":
        return _load_here(path, scene_id, path)
    from synergai.scene.sparkdsg_child import check_in_child

    with tempfile.TemporaryDirectory(prefix="synergai-sparkdsg-") as tmp:
        copy = Path(tmp) / "graph.sparkdsg"  # the file the child checked is the file read here
        try:
            shutil.copyfile(path, copy)
        except OSError as exc:
            raise SceneError(f"cannot read {path}: {exc.strerror or exc}") from None
        check_in_child(copy, path)
        return _load_here(copy, scene_id, path)


def _load_here(path: Path, scene_id: str | None, shown: Path) -> SparkDsgImport:
    """Load and convert ``path`` in this process (``shown``: the file the user named)."""
    dsg = _dsg()
    with _library_messages() as messages:
        try:
            loaded = dsg.DynamicSceneGraph.load(str(path))
        except (RuntimeError, ValueError, TypeError, MemoryError) as exc:
            raise SceneError(f"{shown}: not a Spark-DSG graph spark-dsg {_version()} can read "
                             f"({_one_line(exc, messages())})") from None
        notes = " ".join(messages().split())
    try:
        result = from_spark_dsg(loaded, scene_id, default_id=shown.stem)
    except (IndexError, KeyError, TypeError, ValueError, RuntimeError, OverflowError) as exc:
        if isinstance(exc, SceneError):
            raise
        raise SceneError(f"{shown}: a Spark-DSG graph that cannot be read ({type(exc).__name__}: "
                         f"{_one_line(exc, '')})") from None
    return SparkDsgImport(result.graph, result.left_out, notes)


def _version() -> str:
    from importlib.metadata import version

    return version("spark-dsg")


def _plain(value: Any) -> Any:
    """Metadata as plain JSON values (the bindings hand out read-only mappings and tuples)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _meta(attrs: Any) -> dict[str, Any]:
    data = _plain(attrs.metadata.get())
    return data if isinstance(data, dict) else {}


def _category(labelspace: Any, attrs: Any, default: str) -> str:
    name = labelspace.get_category(attrs.semantic_label) if labelspace else None
    return name or (attrs.name or "").strip() or default


#: How far (metres) a node's position may lie outside its bounding box (single-precision boxes).
POSITION_TOLERANCE = 0.01
_MIN_MAX_HINT = ("; it looks like BoundingBox(min, max), but spark_dsg.BoundingBox takes (dimensions, "
                 "centre): BoundingBox(max - min, (min + max) / 2)")


def check_box(where: str, box: Any, position: Any) -> None:
    """Refuse a bounding box that is no box: a negative dimension, or the node's position (when set)
    outside it. Both are what ``BoundingBox(min, max)`` gives, as the constructor takes (dimensions,
    centre); the message says so when the numbers fit that reading. (Plain floats: this runs per node.)"""
    dims = [float(v) for v in box.dimensions]
    centre = [float(v) for v in box.world_P_center]
    p = [float(v) for v in position]
    if not all(math.isfinite(v) for v in (*dims, *centre)):
        raise SceneError(f"{where}: its bounding box is not finite")
    given = any(p)  # a position of (0, 0, 0) is the library's default: not given
    if box.has_rotation():
        local = [float(v) for v in np.asarray(box.world_R_center, dtype=float).T @ (np.asarray(p) - centre)]
    else:
        local = [a - c for a, c in zip(p, centre, strict=True)]
    negative = any(d < 0 for d in dims)
    outside = given and any(abs(v) > d / 2 + POSITION_TOLERANCE for v, d in zip(local, dims, strict=True))
    if not (negative or outside):
        return
    as_min_max = all(d <= c for d, c in zip(dims, centre, strict=True)) and (
        not given or all(d <= v <= c for d, v, c in zip(dims, p, centre, strict=True)))
    hint = _MIN_MAX_HINT if as_min_max else ""
    shown = f"(dimensions {_xyz(dims)}, centre {_xyz(centre)})"
    if negative:
        raise SceneError(f"{where}: its bounding box has a negative dimension {shown}{hint}")
    raise SceneError(f"{where}: its position {_xyz(p)} lies outside its bounding box {shown}{hint}")


def _xyz(v: list[float]) -> str:
    return "(" + ", ".join(f"{x:.3g}" for x in v) + ")"


def _native_object(oid: str, attrs: Any, labelspace: Any) -> SceneObject:
    """An object from Spark-DSG's own fields (a graph Hydra or another tool wrote). A rotated box gives
    the axis-aligned box around its corners and, when it turns about z only, the oriented box. A box
    that is no box (:func:`check_box`) is refused; a colour gets its colour name as an attribute."""
    dsg = _dsg()
    box = attrs.bounding_box
    obb = None
    if box.type != dsg.BoundingBoxType.INVALID:
        check_box(f"Spark-DSG node {oid}", box, attrs.position)
    if box.type == dsg.BoundingBoxType.INVALID:
        center, size = vec3(attrs.position), (0.0, 0.0, 0.0)
    elif box.has_rotation():
        corners = np.asarray(box.corners(), dtype=float).reshape(8, 3)
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        center, size = vec3((lo + hi) / 2), vec3(hi - lo)
        rot = np.asarray(box.world_R_center, dtype=float)
        if np.allclose(rot[2], [0.0, 0.0, 1.0], atol=1e-6):  # a turn about z: our oriented box
            obb = OrientedBox(vec3(box.world_P_center), vec3(box.dimensions),
                              float(np.arctan2(rot[1, 0], rot[0, 0])))
    else:
        center, size = vec3(box.world_P_center), vec3(box.dimensions)
    r, g, b = (int(c) for c in attrs.color)
    color = None if (r, g, b) == (0, 0, 0) else (r, g, b)  # the library's default: no colour given
    return SceneObject(oid, _category(labelspace, attrs, "object"), center, size, color=color,
                       attributes=(color_name(color),) if color is not None else (),
                       provenance="spark-dsg", obb=obb)


def _native_room(rid: str, attrs: Any, labelspace: Any, members: list[SceneObject]) -> Room:
    """A room from Spark-DSG's own fields: footprint from its box, else around its objects."""
    category = _category(labelspace, attrs, "room")
    name = (attrs.name or "").strip() or (category if category != "room" else rid)  # unlabelled: its id
    box = attrs.bounding_box
    dims = np.asarray(box.dimensions, dtype=float)
    if box.type != _dsg().BoundingBoxType.INVALID and np.all(np.isfinite(dims)) and np.all(dims[:2] > 0):
        c, d = np.asarray(box.world_P_center, dtype=float), np.asarray(box.dimensions, dtype=float)
        lo, hi = c[:2] - d[:2] / 2, c[:2] + d[:2] / 2
    elif members:
        lo = np.min([o.min_corner[:2] for o in members], axis=0)
        hi = np.max([o.max_corner[:2] for o in members], axis=0)
        if not np.all(hi - lo > 0):
            lo, hi = lo - 0.5, hi + 0.5
    else:
        p = np.asarray(attrs.position, dtype=float)[:2]
        lo, hi = p - 0.5, p + 0.5
    x0, y0, x1, y1 = float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])
    return Room(rid, category, name, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))


def from_spark_dsg(loaded: Any, scene_id: str | None = None, *,
                   default_id: str = "spark-dsg") -> SparkDsgImport:
    """Our graph of a ``spark_dsg.DynamicSceneGraph`` (see the module doc-string). The scene id is
    ``scene_id``, else the one synergai wrote into the graph's metadata, else ``default_id``."""
    graph_meta = _meta(loaded).get(META_KEY, {})
    graph_meta = graph_meta if isinstance(graph_meta, dict) else {}
    written = graph_meta.get("scene")
    sid = scene_id or (written if isinstance(written, str) and written else default_id)
    if not loaded.has_layer(OBJECTS_LAYER):
        raise SceneError(f"Spark-DSG graph {sid}: no object layer (layer {OBJECTS_LAYER})")
    labels = loaded.get_labelspace(OBJECTS_LAYER)
    objects: dict[int, SceneObject] = {}
    for node in loaded.get_layer(OBJECTS_LAYER).nodes:
        attrs = node.attributes
        ours = _meta(attrs).get(META_KEY)
        where = f"Spark-DSG node {node.id.str()}"
        if isinstance(ours, dict):
            obj = object_from_dict(ours, where=where)
        else:
            obj = _native_object(node.id.str(), attrs, labels)
        objects[node.id.value] = obj
    if len({o.id for o in objects.values()}) != len(objects):
        raise SceneError(f"Spark-DSG graph {sid}: two object nodes carry the same object id")
    rooms, room_of = _rooms(loaded, objects)
    placed = [o.with_changes(room=room_of.get(o.id)) if o.room != room_of.get(o.id) else o
              for o in objects.values()]
    placed = fill_rooms(placed, rooms)  # an object without a room node above it: by footprint
    scene_type = graph_meta.get("scene_type")
    graph = SceneGraph(sid, placed, scene_type=scene_type if isinstance(scene_type, str) else None,
                       rooms=rooms)
    _relations(loaded, objects, graph)
    levels = graph_meta.get("levels")
    if isinstance(levels, dict) and all(k in graph and isinstance(v, int) for k, v in levels.items()):
        graph.levels = dict(levels)
    return SparkDsgImport(graph, _left_out(loaded))


def _rooms(loaded: Any, objects: dict[int, SceneObject]) -> tuple[list[Room], dict[str, str]]:
    """The room layer's rooms and each object's room from the edges above it (room -> [place ->] object)."""
    if not loaded.has_layer(ROOMS_LAYER):
        return [], {}
    labels = loaded.get_labelspace(ROOMS_LAYER)
    rooms: list[Room] = []
    room_of: dict[str, str] = {}
    for node in loaded.get_layer(ROOMS_LAYER).nodes:
        members = [objects[c] for c in _descendants(loaded, node) if c in objects]
        ours = _meta(node.attributes).get(META_KEY)
        where = f"Spark-DSG room {node.id.str()}"
        try:
            room = (room_from_dict(ours, where=where) if isinstance(ours, dict)
                    else _native_room(node.id.str(), node.attributes, labels, members))
        except SceneError as exc:
            raise SceneError(f"{where}: {exc}") from None
        rooms.append(room)
        for o in members:
            room_of.setdefault(o.id, room.id)
    if len({r.id for r in rooms}) != len(rooms):
        raise SceneError("Spark-DSG graph: two room nodes carry the same room id")
    return rooms, room_of


def _descendants(loaded: Any, node: Any) -> list[int]:
    """Node values below a room: its children and their children (Hydra: room -> places -> objects)."""
    out: list[int] = []
    for child in node.children():
        out.append(child)
        out.extend(loaded.get_node(child).children())
    return out


def _relations(loaded: Any, objects: dict[int, SceneObject], graph: SceneGraph) -> None:
    """Our relations from the object edges' metadata (edges without it carry no relation we know)."""
    for edge in loaded.get_layer(OBJECTS_LAYER).edges:
        facts = _meta(edge.info).get(RELATIONS_KEY)
        if not isinstance(facts, list):
            continue
        for i, fact in enumerate(facts):
            where = f"Spark-DSG edge {edge.source}-{edge.target} relation {i}"
            if not (isinstance(fact, list) and len(fact) in (3, 4) and all(isinstance(f, str) for f in fact)):
                raise SceneError(f"{where}: expected [subject, relation, object, provenance]")
            try:
                relation = Relation(fact[1])
            except ValueError:
                raise SceneError(f"{where}: unknown relation {fact[1]!r}") from None
            ends = {objects[edge.source].id, objects[edge.target].id}
            if {fact[0], fact[2]} != ends or not is_stored(relation):
                raise SceneError(f"{where}: {fact[0]} {fact[1]} {fact[2]} does not belong on this edge")
            graph.add_edge(Edge(fact[0], relation, fact[2], fact[3] if len(fact) == 4 else "spark-dsg"))


def _layer_label(loaded: Any, layer: int, partition: int) -> str:
    """A layer's name in the graph: the one given for exactly this layer and partition (OBJECTS and
    AGENTS share layer 2: partition 0 is OBJECTS), else the layer's other name for a partition (Hydra's
    agents live in partitions of layer 2), else ``layer L partition P``."""
    keys = {n: (k.layer, k.partition) for n, k in loaded.layer_names.items()}
    exact = [n for n, k in keys.items() if k == (layer, partition)]
    if exact:
        return ([n for n in exact if n != "AGENTS"] or exact)[0]
    base = {n for n, k in keys.items() if k == (layer, 0) and n != "AGENTS"}
    others = [n for n, k in keys.items() if k[0] == layer and n not in base]
    if partition and len(others) == 1:
        return others[0]
    return f"layer {layer}" + (f" partition {partition}" if partition else "")


def _left_out(loaded: Any) -> str:
    """One line naming the layers (and the mesh) not imported, with their node counts."""
    parts = []
    for layer in [*loaded.layers, *loaded.layer_partitions]:
        key = (layer.id, layer.partition)
        if key in ((OBJECTS_LAYER, 0), (ROOMS_LAYER, 0)) or layer.num_nodes() == 0:
            continue
        parts.append(f"{_layer_label(loaded, *key)} ({layer.num_nodes()} nodes)")
    if loaded.has_mesh() and loaded.mesh is not None and loaded.mesh.num_vertices() > 0:
        parts.append(f"mesh ({loaded.mesh.num_vertices()} vertices)")
    return ("left out: " + ", ".join(parts)) if parts else ""
