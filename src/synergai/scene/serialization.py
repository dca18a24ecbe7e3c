"""Versioned JSON of a :class:`SceneGraph` (format ``synergai.scene_graph``, version 2).

Version 2 added rooms: ``rooms`` (a list of ``{id, category, name, footprint}``) and each object's
``room`` (a room id or null). Version 1 documents (no rooms) are still read.

Round trips are exact: floats are written with ``repr`` precision, tuples come back as tuples and
enums as enums. Reading is strict: a wrong format or version, a missing, unknown or mistyped field,
an unknown relation name, a duplicate id or an edge to an unknown id raises :class:`SceneError`
whose one-line message names the offending field (``objects[3].center: ...``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from synergai.scene.model import (
    Edge,
    ObjectKind,
    OrientedBox,
    Relation,
    Room,
    SceneError,
    SceneGraph,
    SceneObject,
    is_stored,
)

FORMAT = "synergai.scene_graph"
VERSION = 2
#: Versions this reader accepts (1: before rooms).
READABLE_VERSIONS = (1, 2)

_OBJECT_REQUIRED = ("id", "category", "center", "size")
_OBJECT_OPTIONAL = ("color", "attributes", "confidence", "provenance", "kind", "front", "obb", "room")
_EDGE_REQUIRED = ("subject", "relation", "object")
_EDGE_OPTIONAL = ("provenance",)
_GRAPH_REQUIRED = ("format", "version", "scene", "objects", "edges")
_GRAPH_OPTIONAL = ("scene_type", "levels", "rooms")
_ROOM_REQUIRED = ("id", "category", "name", "footprint")


# ----- writing
def _vec(values: Any, where: str) -> list[float]:
    out = [float(v) for v in values]
    if len(out) != 3 or not all(math.isfinite(v) for v in out):
        raise SceneError(f"{where}: expected 3 finite numbers, got {values!r}")
    return out


def _plain_list3(value: Any) -> list[float] | None:
    """Three finite floats as a list (what a checked object holds), else None."""
    if type(value) is not tuple or len(value) != 3:
        return None
    x, y, z = value
    if type(x) is float and type(y) is float and type(z) is float and \
            math.isfinite(x) and math.isfinite(y) and math.isfinite(z):
        return [x, y, z]
    return None


def _plain_dict(obj: SceneObject) -> dict[str, Any] | None:
    """:func:`object_to_dict` of an object whose fields are all of the plain types an object read or built
    here holds, made without the messages a refused one needs (an update of a big scene writes hundreds of
    thousands); None when any field is not plain (the checked writer then writes it, or refuses it)."""
    oid, category, provenance, color, attrs = obj.id, obj.category, obj.provenance, obj.color, obj.attributes
    center, size, confidence, front, obb = _plain_list3(obj.center), _plain_list3(obj.size), obj.confidence, \
        obj.front, obj.obb
    if not (type(oid) is str and oid and type(category) is str and category and type(provenance) is str
            and center is not None and size is not None and type(confidence) is float
            and math.isfinite(confidence) and type(attrs) is tuple and type(obj.kind) is ObjectKind
            and (obj.room is None or type(obj.room) is str) and obb is None):
        return None
    for a in attrs:
        if type(a) is not str:
            return None
    rgb: list[int] | None = None
    if color is not None:
        if type(color) is not tuple or len(color) != 3:
            return None
        for c in color:
            if type(c) is not int or not 0 <= c <= 255:
                return None
        rgb = list(color)
    facing = None if front is None else _plain_list3(front)
    if front is not None and facing is None:
        return None
    return {"id": oid, "category": category, "center": center, "size": size, "color": rgb,
            "attributes": list(attrs), "confidence": confidence, "provenance": provenance,
            "kind": obj.kind._value_, "front": facing, "obb": None, "room": obj.room}


def object_to_dict(obj: SceneObject) -> dict[str, Any]:
    """A JSON-ready dict with every field of ``obj`` (optional ones as ``null`` / defaults)."""
    plain = _plain_dict(obj)
    if plain is not None:
        return plain
    where = f"object {obj.id!r}"
    # what is written must read back (object_from_dict): refuse it here, before anything is stored
    _str(obj.id, f"{where}.id")
    _str(obj.category, f"{where}.category")
    _str(obj.provenance, f"{where}.provenance", empty=True)
    _color(obj.color, f"{where}.color")
    if not all(isinstance(a, str) for a in obj.attributes):
        raise SceneError(f"{where}.attributes: expected strings, got {list(obj.attributes)!r}")
    if not math.isfinite(float(obj.confidence)):
        raise SceneError(f"{where}.confidence: not a finite number")
    return {
        "id": obj.id,
        "category": obj.category,
        "center": _vec(obj.center, f"{where}.center"),
        "size": _vec(obj.size, f"{where}.size"),
        "color": None if obj.color is None else [int(c) for c in obj.color],
        "attributes": list(obj.attributes),
        "confidence": float(obj.confidence),
        "provenance": obj.provenance,
        "kind": ObjectKind(obj.kind).value,
        "front": None if obj.front is None else _vec(obj.front, f"{where}.front"),
        "obb": None if obj.obb is None else {
            "center": _vec(obj.obb.center, f"{where}.obb.center"),
            "size": _vec(obj.obb.size, f"{where}.obb.size"),
            "yaw": float(obj.obb.yaw),
        },
        "room": obj.room,
    }


def room_to_dict(room: Room) -> dict[str, Any]:
    """A JSON-ready dict of a room (footprint as ``[[x, y], ...]``)."""
    return {"id": room.id, "category": room.category, "name": room.name,
            "footprint": [[float(x), float(y)] for x, y in room.footprint]}


def edge_to_dict(edge: Edge) -> dict[str, Any]:
    """A JSON-ready dict of an edge (relation by its canonical name)."""
    return {
        "subject": edge.subject,
        # the enum's own value when it is one (Relation(...) is slow; an update writes 100,000s of edges)
        "relation": rel._value_ if type(rel := edge.relation) is Relation else Relation(rel).value,
        "object": edge.object,
        "provenance": edge.provenance,
    }


def graph_to_dict(graph: SceneGraph) -> dict[str, Any]:
    """The versioned document of a graph; objects and edges keep their insertion order."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "scene": graph.scene_id,
        "scene_type": graph.scene_type,
        "objects": [object_to_dict(o) for o in graph],
        "edges": [edge_to_dict(e) for e in graph.edges],
        # in object order, however the levels were computed (in full or updated after an edit)
        "levels": {k: int(graph.levels[k]) for k in [*graph.ids, *graph.levels] if k in graph.levels},
        "rooms": [room_to_dict(r) for r in graph.rooms],
    }


def dumps(graph: SceneGraph, *, indent: int | None = None) -> str:
    """The graph as a JSON string (exact floats, no NaN)."""
    try:
        return json.dumps(graph_to_dict(graph), indent=indent, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise SceneError(f"scene {graph.scene_id}: not serializable: {exc}") from None


# ----- reading
def _mapping(data: Any, where: str, required: tuple[str, ...], optional: tuple[str, ...]) -> Mapping:
    if not isinstance(data, Mapping):
        raise SceneError(f"{where}: expected an object, got {type(data).__name__}")
    for key in required:
        if key not in data:
            raise SceneError(f"{where}.{key}: missing")
    if len(data) <= len(required) + len(optional) and all(k in required or k in optional for k in data):
        return data  # the common case, checked without building the list of unknown fields
    unknown = sorted(str(k) for k in data if k not in required and k not in optional)
    if unknown:
        raise SceneError(f"{where}: unknown field(s) {', '.join(unknown)}")
    return data


def _str(value: Any, where: str, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value):
        raise SceneError(f"{where}: expected a {'' if empty else 'non-empty '}string, got {value!r}")
    return value


def _num(value: Any, where: str) -> float:
    try:
        number = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan
    except OverflowError:  # an integer of 309+ digits
        number = math.inf
    if not math.isfinite(number):
        raise SceneError(f"{where}: expected a finite number, got {str(value)[:40]!r}")
    return number


def _vec3(value: Any, where: str) -> tuple[float, float, float]:
    if not isinstance(value, list | tuple) or len(value) != 3:
        raise SceneError(f"{where}: expected 3 numbers, got {value!r}")
    return (_num(value[0], where), _num(value[1], where), _num(value[2], where))


def _color(value: Any, where: str) -> tuple[int, int, int] | None:
    if value is None:
        return None
    ok = isinstance(value, list | tuple) and len(value) == 3 and all(
        isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in value
    )
    if not ok:
        raise SceneError(f"{where}: expected null or 3 integers in 0..255, got {value!r}")
    r, g, b = value
    return (r, g, b)


def _obb(value: Any, where: str) -> OrientedBox | None:
    if value is None:
        return None
    d = _mapping(value, where, ("center", "size", "yaw"), ())
    return OrientedBox(_vec3(d["center"], f"{where}.center"), _vec3(d["size"], f"{where}.size"),
                       _num(d["yaw"], f"{where}.yaw"))


_OBJECT_FIELDS = frozenset(_OBJECT_REQUIRED + _OBJECT_OPTIONAL)
_OBB_FIELDS = frozenset(("center", "size", "yaw"))
_KINDS = {k.value: k for k in ObjectKind}


def _plain3(value: Any) -> tuple[float, float, float] | None:
    """Three finite floats (what the writer makes), else None."""
    if type(value) is not list or len(value) != 3:
        return None
    x, y, z = value
    if type(x) is float and type(y) is float and type(z) is float and \
            math.isfinite(x) and math.isfinite(y) and math.isfinite(z):
        return (x, y, z)
    return None


def _plain_object(d: Any) -> SceneObject | None:
    """An object document exactly as :func:`object_to_dict` writes it, read without making the error
    messages a refused one needs (a big scene reads hundreds of thousands); None when any field is not
    in that plain form (the strict reader then reads it, or says what is wrong)."""
    if type(d) is not dict or not d.keys() <= _OBJECT_FIELDS:
        return None
    oid, category, provenance = d.get("id"), d.get("category"), d.get("provenance", "perception")
    room, color, attrs = d.get("room"), d.get("color"), d.get("attributes", [])
    confidence, kind = d.get("confidence", 1.0), d.get("kind", ObjectKind.OBJECT.value)
    front, obb = d.get("front"), d.get("obb")
    center, size = _plain3(d.get("center")), _plain3(d.get("size"))
    if not (type(oid) is str and oid and type(category) is str and category and type(provenance) is str
            and (room is None or (type(room) is str and room)) and center is not None and size is not None
            and type(confidence) is float and math.isfinite(confidence) and type(kind) is str
            and kind in _KINDS and type(attrs) is list and all(type(a) is str for a in attrs)):
        return None
    if color is not None:
        if type(color) is not list or len(color) != 3 or \
                not all(type(c) is int and 0 <= c <= 255 for c in color):
            return None
        color = (color[0], color[1], color[2])
    if front is not None and (front := _plain3(front)) is None:
        return None
    box = None
    if obb is not None:
        if type(obb) is not dict or obb.keys() != _OBB_FIELDS:
            return None
        yaw, box_center, box_size = obb["yaw"], _plain3(obb["center"]), _plain3(obb["size"])
        if type(yaw) is not float or not math.isfinite(yaw) or box_center is None or box_size is None:
            return None
        try:
            box = OrientedBox(box_center, box_size, yaw)
        except SceneError:
            return None
    try:
        return SceneObject(id=oid, category=category, center=center, size=size, color=color,
                           attributes=tuple(attrs), confidence=confidence, provenance=provenance,
                           kind=_KINDS[kind], front=front, obb=box, room=room)
    except SceneError:
        return None


def object_from_dict(data: Any, *, where: str = "object") -> SceneObject:
    """Read an object dict strictly; ``where`` prefixes error messages."""
    plain = _plain_object(data)
    if plain is not None:
        return plain
    d = _mapping(data, where, _OBJECT_REQUIRED, _OBJECT_OPTIONAL)
    attrs = d.get("attributes", [])
    if not isinstance(attrs, list | tuple) or not all(isinstance(a, str) for a in attrs):
        raise SceneError(f"{where}.attributes: expected a list of strings, got {attrs!r}")
    kind = d.get("kind", ObjectKind.OBJECT.value)
    try:
        kind = ObjectKind(kind)
    except ValueError:
        legal = ", ".join(k.value for k in ObjectKind)
        raise SceneError(f"{where}.kind: unknown kind {kind!r}; legal: {legal}") from None
    front = d.get("front")
    try:
        return SceneObject(
            id=_str(d["id"], f"{where}.id"),
            category=_str(d["category"], f"{where}.category"),
            center=_vec3(d["center"], f"{where}.center"),
            size=_vec3(d["size"], f"{where}.size"),
            color=_color(d.get("color"), f"{where}.color"),
            attributes=tuple(attrs),
            confidence=_num(d.get("confidence", 1.0), f"{where}.confidence"),
            provenance=_str(d.get("provenance", "perception"), f"{where}.provenance", empty=True),
            kind=kind,
            front=None if front is None else _vec3(front, f"{where}.front"),
            obb=_obb(d.get("obb"), f"{where}.obb"),
            room=None if d.get("room") is None else _str(d["room"], f"{where}.room"),
        )
    except SceneError as exc:
        msg = str(exc)
        raise SceneError(msg if msg.startswith((f"{where}.", f"{where}:")) else f"{where}: {msg}") from None


_EDGE_FIELDS = frozenset(_EDGE_REQUIRED + _EDGE_OPTIONAL)
_STORED_RELATIONS = {r.value: r for r in Relation if is_stored(r)}


def _plain_edge(d: Any) -> Edge | None:
    """An edge document as :func:`edge_to_dict` writes it, read without making error messages; None when
    it is not in that plain form (the strict reader then reads it, or says what is wrong)."""
    if type(d) is not dict or not d.keys() <= _EDGE_FIELDS:
        return None
    subject, name, obj = d.get("subject"), d.get("relation"), d.get("object")
    provenance = d.get("provenance", "perception")
    if not (type(subject) is str and subject and type(obj) is str and obj and type(provenance) is str
            and type(name) is str and name in _STORED_RELATIONS):
        return None
    return Edge(subject, _STORED_RELATIONS[name], obj, provenance)


def edge_from_dict(data: Any, *, where: str = "edge") -> Edge:
    """Read an edge dict strictly (canonical relation names only)."""
    plain = _plain_edge(data)
    if plain is not None:
        return plain
    d = _mapping(data, where, _EDGE_REQUIRED, _EDGE_OPTIONAL)
    name = d["relation"]
    try:
        relation = Relation(name)
    except ValueError:
        legal = ", ".join(r.value for r in Relation)
        raise SceneError(f"{where}.relation: unknown relation {name!r}; legal: {legal}") from None
    if not is_stored(relation):
        raise SceneError(f"{where}.relation: {relation.value} is computed on demand, not stored")
    return Edge(
        _str(d["subject"], f"{where}.subject"),
        relation,
        _str(d["object"], f"{where}.object"),
        _str(d.get("provenance", "perception"), f"{where}.provenance", empty=True),
    )


def room_from_dict(data: Any, *, where: str = "room") -> Room:
    """Read a room dict strictly (a footprint that is not a polygon is a one-line error)."""
    d = _mapping(data, where, _ROOM_REQUIRED, ())
    footprint = d["footprint"]
    if isinstance(footprint, list):
        footprint = tuple(tuple(p) if isinstance(p, list) else p for p in footprint)
    try:
        return Room(_str(d["id"], f"{where}.id"), _str(d["category"], f"{where}.category"),
                    _str(d["name"], f"{where}.name"), footprint)
    except SceneError as exc:
        msg = str(exc)
        raise SceneError(msg if msg.startswith(f"{where}.") else f"{where}: {msg}") from None


def rooms_from_list(items: Any, where: str = "graph.rooms") -> list[Room]:
    """Rooms from a document's ``rooms`` list (ids unique)."""
    if not isinstance(items, list):
        raise SceneError(f"{where}: expected a list, got {type(items).__name__}")
    rooms: dict[str, Room] = {}
    for i, item in enumerate(items):
        room = room_from_dict(item, where=f"rooms[{i}]")
        if room.id in rooms:
            raise SceneError(f"rooms[{i}].id: duplicate room id {room.id!r}")
        rooms[room.id] = room
    return list(rooms.values())


def graph_from_dict(data: Any) -> SceneGraph:
    """Read a versioned graph document strictly (version 1 or 2)."""
    d = _mapping(data, "graph", _GRAPH_REQUIRED, _GRAPH_OPTIONAL)
    if d["format"] != FORMAT:
        raise SceneError(f"graph.format: expected {FORMAT!r}, got {d['format']!r}")
    if type(d["version"]) is not int or d["version"] not in READABLE_VERSIONS:
        raise SceneError(f"graph.version: unsupported version {d['version']!r} "
                         f"(this reader knows {', '.join(map(str, READABLE_VERSIONS))})")
    scene_id = _str(d["scene"], "graph.scene")
    scene_type = d.get("scene_type")
    if scene_type is not None:
        scene_type = _str(scene_type, "graph.scene_type", empty=True)
    for key in ("objects", "edges"):
        if not isinstance(d[key], list):
            raise SceneError(f"graph.{key}: expected a list, got {type(d[key]).__name__}")
    graph = SceneGraph(scene_id, scene_type=scene_type, rooms=rooms_from_list(d.get("rooms", [])))
    room_ids = {r.id for r in graph.rooms}
    for i, item in enumerate(d["objects"]):
        obj = object_from_dict(item, where=f"objects[{i}]")
        if obj.id in graph:
            raise SceneError(f"objects[{i}].id: duplicate object id {obj.id!r}")
        if obj.room is not None and obj.room not in room_ids:
            raise SceneError(f"objects[{i}].room: unknown room id {obj.room!r}")
        graph.put(obj)
    for i, item in enumerate(d["edges"]):
        edge = edge_from_dict(item, where=f"edges[{i}]")
        for end in ("subject", "object"):
            if getattr(edge, end) not in graph:
                raise SceneError(f"edges[{i}].{end}: unknown object id {getattr(edge, end)!r}")
        if not graph.add_edge(edge):
            raise SceneError(f"edges[{i}]: duplicate edge {' '.join(edge.key())}")
    levels = d.get("levels", {})
    if not isinstance(levels, Mapping):
        raise SceneError(f"graph.levels: expected an object, got {type(levels).__name__}")
    for key, value in levels.items():
        if key not in graph:
            raise SceneError(f"graph.levels.{key}: unknown object id")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise SceneError(f"graph.levels.{key}: expected a non-negative integer, got {value!r}")
    graph.levels = dict(levels)
    return graph


def parse_json(text: str | bytes, where: str) -> Any:
    """JSON text as Python data, or a one-line SceneError naming ``where`` (also for nesting deeper than
    Python's stack and integers of more than 4300 digits, which :func:`json.loads` rejects otherwise)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SceneError(f"{where}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise SceneError(f"{where}: not UTF-8 text ({exc.reason})") from None
    except RecursionError:
        raise SceneError(f"{where}: JSON nested too deeply") from None
    except ValueError as exc:
        raise SceneError(f"{where}: unusable JSON ({str(exc)[:100]})") from None
    except TypeError:
        raise SceneError(f"{where}: expected JSON text, got {type(text).__name__}") from None


def loads(text: str | bytes) -> SceneGraph:
    """Parse a JSON string written by :func:`dumps`."""
    return graph_from_dict(parse_json(text, "graph"))
