"""The scene graph model: object nodes, the canonical relation enum, typed edges, the graph.

Relation edges read ``subject RELATION object`` ("cup supported_by table" = the cup is on the
table). Only viewpoint-independent relations are stored; allocentric ones (left, right, in front
of, behind, clock directions) are computed for a viewpoint on demand (``scene.relations``).

A graph may hold rooms (:class:`Room`: a category, a name, a footprint polygon in the floor plane);
each object belongs to at most one room (``SceneObject.room``). A graph without rooms (a ScanNet scan)
is one room, as it always was.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import numpy as np

from synergai.geometry.boxes import BoxArray


class SceneError(ValueError):
    """Bad scene input or a request the graph cannot satisfy (one-line message, no traceback)."""


class UnknownObjectError(SceneError, KeyError):
    """An object id that is not in the graph."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown object"


class Relation(StrEnum):
    """The canonical relation set: SynergAI Table A.1 plus LLM-TPC / Sr3D extras."""

    # vertical proximity
    SUPPORTED_BY = "supported_by"  # subject rests on object ("on")
    SUPPORTS = "supports"
    EMBEDDED_IN = "embedded_in"
    INSIDE = "inside"
    HANGING_ON = "hanging_on"
    MOUNTED_ON = "mounted_on"
    AFFIXED_ON = "affixed_on"
    ABOVE = "above"
    BELOW = "below"
    # horizontal proximity
    HIGHER_THAN = "higher_than"
    LOWER_THAN = "lower_than"
    NEAR = "near"
    FAR = "far"
    # allocentric (BESIDE / NEXT_TO are symmetric and stored; the rest need a viewpoint)
    BESIDE = "beside"
    NEXT_TO = "next_to"
    LEFT_OF = "left_of"
    RIGHT_OF = "right_of"
    BEHIND = "behind"
    IN_FRONT_OF = "in_front_of"
    # extras
    CLOSEST = "closest"
    FARTHEST = "farthest"
    BETWEEN = "between"
    WITHIN_REACH = "within_reach"


#: Relations that hold the subject up: they define the support hierarchy.
SUPPORT_RELATIONS = frozenset(
    {Relation.SUPPORTED_BY, Relation.EMBEDDED_IN, Relation.INSIDE, Relation.HANGING_ON,
     Relation.MOUNTED_ON, Relation.AFFIXED_ON}
)
#: Relations that depend on a viewpoint and are never stored.
VIEW_DEPENDENT = frozenset({Relation.LEFT_OF, Relation.RIGHT_OF, Relation.BEHIND, Relation.IN_FRONT_OF})
#: Relations that compare against a set of candidates and are never stored.
COMPARATIVE = frozenset({Relation.CLOSEST, Relation.FARTHEST, Relation.BETWEEN})


def is_stored(relation: Relation) -> bool:
    """Whether an edge of this relation may be kept in a graph (built, added by hand, logged, read).

    Viewpoint-dependent and comparative relations never are. FAR and WITHIN_REACH may be: perception
    computes them on demand (they are dense), but a user may state them ("the lamp is far from the
    bed") and the store, the serializer and the exporters must keep such an edge.
    """
    return relation not in VIEW_DEPENDENT and relation not in COMPARATIVE

#: The same fact read from the object's side.
INVERSE: dict[Relation, Relation] = {
    Relation.SUPPORTED_BY: Relation.SUPPORTS,
    Relation.SUPPORTS: Relation.SUPPORTED_BY,
    Relation.ABOVE: Relation.BELOW,
    Relation.BELOW: Relation.ABOVE,
    Relation.HIGHER_THAN: Relation.LOWER_THAN,
    Relation.LOWER_THAN: Relation.HIGHER_THAN,
    Relation.LEFT_OF: Relation.RIGHT_OF,
    Relation.RIGHT_OF: Relation.LEFT_OF,
    Relation.BEHIND: Relation.IN_FRONT_OF,
    Relation.IN_FRONT_OF: Relation.BEHIND,
    Relation.NEAR: Relation.NEAR,
    Relation.FAR: Relation.FAR,
    Relation.BESIDE: Relation.BESIDE,
    Relation.NEXT_TO: Relation.NEXT_TO,
    Relation.WITHIN_REACH: Relation.WITHIN_REACH,
}


def read_from_object(relation: Relation) -> Relation | None:
    """The same fact read from its object's side (:data:`INVERSE`; "supports" for every support relation),
    None when it has no reading from there."""
    inv = INVERSE.get(relation)
    return inv if inv is not None or relation not in SUPPORT_RELATIONS else Relation.SUPPORTS


#: Surface wording, rendered deterministically ("The cup (id: 3) is on the table (id: 1).").
WORDING: dict[Relation, str] = {
    Relation.SUPPORTED_BY: "on",
    Relation.SUPPORTS: "supporting",
    Relation.EMBEDDED_IN: "embedded in",
    Relation.INSIDE: "inside",
    Relation.HANGING_ON: "hanging on",
    Relation.MOUNTED_ON: "mounted on",
    Relation.AFFIXED_ON: "affixed on",
    Relation.ABOVE: "above",
    Relation.BELOW: "below",
    Relation.HIGHER_THAN: "higher than",
    Relation.LOWER_THAN: "lower than",
    Relation.NEAR: "near",
    Relation.FAR: "far from",
    Relation.BESIDE: "beside",
    Relation.NEXT_TO: "next to",
    Relation.LEFT_OF: "to the left of",
    Relation.RIGHT_OF: "to the right of",
    Relation.BEHIND: "behind",
    Relation.IN_FRONT_OF: "in front of",
    Relation.CLOSEST: "closest to",
    Relation.FARTHEST: "farthest from",
    Relation.BETWEEN: "between",
    Relation.WITHIN_REACH: "within reach of",
}

#: Words people use for each relation, for parsing user and LLM text.
_SYNONYMS: dict[str, Relation] = {
    "on": Relation.SUPPORTED_BY, "on top of": Relation.SUPPORTED_BY, "supported by": Relation.SUPPORTED_BY,
    "resting on": Relation.SUPPORTED_BY, "sitting on": Relation.SUPPORTED_BY,
    "placed on": Relation.SUPPORTED_BY,
    "support": Relation.SUPPORTS, "supporting": Relation.SUPPORTS, "under": Relation.BELOW,
    "underneath": Relation.BELOW, "beneath": Relation.BELOW, "embed": Relation.EMBEDDED_IN,
    "in": Relation.INSIDE, "within": Relation.INSIDE, "hung on": Relation.HANGING_ON,
    "hangs on": Relation.HANGING_ON, "hanging from": Relation.HANGING_ON, "mounted to": Relation.MOUNTED_ON,
    "attached to": Relation.AFFIXED_ON, "affixed to": Relation.AFFIXED_ON, "stuck on": Relation.AFFIXED_ON,
    "over": Relation.ABOVE, "left": Relation.LEFT_OF, "left of": Relation.LEFT_OF, "right": Relation.RIGHT_OF,
    "right of": Relation.RIGHT_OF, "front": Relation.IN_FRONT_OF, "in front": Relation.IN_FRONT_OF,
    "back": Relation.BEHIND, "behind of": Relation.BEHIND, "besides": Relation.BESIDE,
    "close to": Relation.NEAR, "nearby": Relation.NEAR, "far": Relation.FAR, "far away from": Relation.FAR,
    "nearest": Relation.CLOSEST, "closest": Relation.CLOSEST, "farthest": Relation.FARTHEST,
    "furthest": Relation.FARTHEST, "higher": Relation.HIGHER_THAN, "lower": Relation.LOWER_THAN,
    "reachable": Relation.WITHIN_REACH, "within reach": Relation.WITHIN_REACH,
}


def parse_relation(text: str) -> Relation:
    """Map a canonical name or a common phrase ("on top of", "is mounted on") to a :class:`Relation`."""
    t = re.sub(r"[\s_\-]+", " ", text.strip().lower())
    t = re.sub(r"^(is|are|being)\s+", "", t)
    t = re.sub(r"\s+(the|a|an)$", "", t)
    for rel in Relation:
        if t in (rel.value.replace("_", " "), WORDING[rel]):
            return rel
    if t in _SYNONYMS:
        return _SYNONYMS[t]
    legal = ", ".join(r.value for r in Relation)
    raise SceneError(f"unknown relation {text!r}; legal relations: {legal}")


class ObjectKind(StrEnum):
    """Ordinary objects and the special structural nodes SynergAI keeps."""

    OBJECT = "object"
    FLOOR = "floor"
    WALL = "wall"
    CEILING = "ceiling"


STRUCTURE_KINDS = frozenset({ObjectKind.FLOOR, ObjectKind.WALL, ObjectKind.CEILING})

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class OrientedBox:
    """A box rotated about z by ``yaw`` radians."""

    center: Vec3
    size: Vec3
    yaw: float

    def __post_init__(self) -> None:
        if len(self.center) != 3 or len(self.size) != 3:
            raise SceneError("oriented box: center and size need 3 numbers")
        if not np.all(np.isfinite(np.asarray([*self.center, *self.size, self.yaw], dtype=float))):
            raise SceneError("oriented box: non-finite center, size or yaw")


def _plain_box(center: Any, size: Any) -> bool:
    """Whether ``center`` and ``size`` are tuples of three finite floats, the size's non-negative."""
    if type(center) is not tuple or type(size) is not tuple or len(center) != 3 or len(size) != 3:
        return False
    x, y, z = center
    a, b, c = size
    return (type(x) is float and type(y) is float and type(z) is float and type(a) is float
            and type(b) is float and type(c) is float and math.isfinite(x) and math.isfinite(y)
            and math.isfinite(z) and math.isfinite(a) and math.isfinite(b) and math.isfinite(c)
            and a >= 0 and b >= 0 and c >= 0)


@dataclass(frozen=True)
class SceneObject:
    """One object instance: category, axis-aligned box, appearance and where it came from."""

    id: str
    category: str
    center: Vec3
    size: Vec3
    color: tuple[int, int, int] | None = None
    attributes: tuple[str, ...] = ()
    confidence: float = 1.0
    provenance: str = "perception"
    kind: ObjectKind = ObjectKind.OBJECT
    front: Vec3 | None = None
    obb: OrientedBox | None = None
    room: str | None = None  # the id of the room the object is in (None: no room / the scene's only one)

    def __post_init__(self) -> None:
        if not self.id:
            raise SceneError("object id must not be empty")
        if self.room is not None and (not isinstance(self.room, str) or not self.room):
            raise SceneError(f"object {self.id}: room must be a non-empty room id or None")
        if self.front is None and _plain_box(self.center, self.size):
            return  # the common case, checked without the generic checks below (a big scene makes 100,000s)
        if len(self.center) != 3 or len(self.size) != 3:
            raise SceneError(f"object {self.id}: center and size need 3 numbers")
        # plain floats, not numpy: a big scene reads tens of thousands of objects
        if not all(math.isfinite(float(v)) for v in (*self.center, *self.size)):
            raise SceneError(f"object {self.id}: non-finite center or size")
        if any(float(v) < 0 for v in self.size):
            raise SceneError(f"object {self.id}: negative size")
        if self.front is not None and (len(self.front) != 3
                                       or not all(math.isfinite(float(v)) for v in self.front)):
            raise SceneError(f"object {self.id}: front needs 3 finite numbers")

    @property
    def name(self) -> str:
        """The category, as the paper's templates call it."""
        return self.category

    @property
    def min_corner(self) -> np.ndarray:
        return np.asarray(self.center) - np.asarray(self.size) / 2.0

    @property
    def max_corner(self) -> np.ndarray:
        return np.asarray(self.center) + np.asarray(self.size) / 2.0

    def with_changes(self, **changes: object) -> SceneObject:
        """A copy with some fields replaced."""
        return replace(self, **changes)  # type: ignore[arg-type]

    def with_id(self, object_id: str, room: str | None) -> SceneObject:
        """A copy under another id and room (its numbers are not checked again: they are this object's)."""
        if not isinstance(object_id, str) or not object_id:
            raise SceneError("object id must not be empty")
        if room is not None and (not isinstance(room, str) or not room):
            raise SceneError(f"object {object_id}: room must be a non-empty room id or None")
        out = copy.copy(self)
        object.__setattr__(out, "id", object_id)
        object.__setattr__(out, "room", room)
        return out


Point2 = tuple[float, float]


@dataclass(frozen=True)
class Room:
    """A room: stable id, category ("bedroom"), name ("Anna's bedroom") and its footprint, a simple
    polygon in the floor plane (x, y vertices in order, not closed) of positive area."""

    id: str
    category: str
    name: str
    footprint: tuple[Point2, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise SceneError("room id must be a non-empty string")
        for what in ("category", "name"):
            if not isinstance(getattr(self, what), str) or not getattr(self, what).strip():
                raise SceneError(f"room {self.id}: {what} must be a non-empty string")
        check_footprint(self.footprint, f"room {self.id}")

    def contains(self, x: float, y: float) -> bool:
        """Whether the floor point (x, y) lies inside the footprint or on its border."""
        import shapely

        return bool(shapely.intersects_xy(self.polygon(), x, y))

    def polygon(self) -> Any:
        """The footprint as a ``shapely.Polygon`` (shapely is imported when first needed)."""
        import shapely

        return shapely.Polygon(self.footprint)

    @property
    def area(self) -> float:
        """Floor area in square metres."""
        return float(self.polygon().area)

    @property
    def centroid(self) -> Point2:
        c = self.polygon().centroid
        return (float(c.x), float(c.y))


def check_footprint(footprint: object, where: str) -> None:
    """Raise a one-line :class:`SceneError` unless ``footprint`` is a simple polygon: at least 3 (x, y)
    pairs of finite numbers, not self-intersecting, of positive area."""
    import shapely

    if not isinstance(footprint, list | tuple) or len(footprint) < 3:
        raise SceneError(f"{where}: footprint is not a polygon: need at least 3 (x, y) vertices, "
                         f"got {str(footprint)[:80]}")
    for i, p in enumerate(footprint):
        ok = isinstance(p, list | tuple) and len(p) == 2 and all(
            isinstance(v, int | float) and not isinstance(v, bool) and np.isfinite(v) for v in p)
        if not ok:
            raise SceneError(f"{where}: footprint vertex {i} is not 2 finite numbers: {str(p)[:40]}")
    poly = shapely.Polygon(footprint)
    if not poly.is_valid or poly.area <= 0.0:
        why = shapely.is_valid_reason(poly) if not poly.is_valid else "zero area"
        raise SceneError(f"{where}: footprint is not a polygon ({why.split('[')[0].strip().lower()})")


@dataclass(frozen=True, order=True)
class Edge:
    """A typed relation ``subject RELATION object``."""

    subject: str
    relation: Relation
    object: str
    provenance: str = field(default="perception", compare=False)

    def key(self) -> tuple[str, str, str]:
        # ``_value_`` is ``value`` without the enum property's lookup (keys are made millions of times)
        return (self.subject, self.relation._value_, self.object)


def _norm_text(s: str) -> str:
    return re.sub(r"[^a-z0-9 ]+", " ", s.lower()).strip()


class SceneGraph:
    """A scene's objects and stored relation edges, with support hierarchy levels.

    The graph is a plain in-memory value; persistence and the edit log live in ``scene.store``.
    """

    def __init__(
        self,
        scene_id: str,
        objects: Iterable[SceneObject] = (),
        edges: Iterable[Edge] = (),
        *,
        scene_type: str | None = None,
        levels: dict[str, int] | None = None,
        rooms: Iterable[Room] = (),
    ) -> None:
        self.scene_id = scene_id
        self.scene_type = scene_type
        self._rooms: dict[str, Room] = {}
        for r in rooms:
            self.add_room(r)
        self._objects: dict[str, SceneObject] = {}
        for o in objects:
            if o.id in self._objects:
                raise SceneError(f"scene {scene_id}: duplicate object id {o.id}")
            self._check_room(o)
            self._objects[o.id] = o
        self._edges: dict[tuple[str, str, str], Edge] = {}
        # support adjacency (subject -> holder -> number of support edges, and the reverse)
        self._holders: dict[str, dict[str, int]] = {}
        self._held: dict[str, dict[str, int]] = {}
        # object id -> the keys of the edges touching it, in insertion order (built at first use)
        self._touching: dict[str, dict[tuple[str, str, str], None]] | None = None
        for e in edges:
            self.add_edge(e)
        self.levels: dict[str, int] = dict(levels or {})
        #: Derived data of ``scene.relation_index`` (array boxes, which edges perception stored), kept
        #: by the builder for the next refresh; not part of the graph's value (not copied or compared).
        self.relation_index: object | None = None

    # ----- objects
    def __len__(self) -> int:
        return len(self._objects)

    def __contains__(self, object_id: object) -> bool:
        return object_id in self._objects

    def __iter__(self) -> Iterator[SceneObject]:
        return iter(self._objects.values())

    @property
    def objects(self) -> list[SceneObject]:
        return list(self._objects.values())

    @property
    def ids(self) -> list[str]:
        return list(self._objects)

    def get(self, object_id: str | int) -> SceneObject:
        """The object with this id, or :class:`UnknownObjectError`."""
        key = str(object_id)
        try:
            return self._objects[key]
        except KeyError:
            raise UnknownObjectError(f"scene {self.scene_id}: unknown object id {key!r}") from None

    def put(self, obj: SceneObject) -> None:
        """Insert or replace an object (relations are not recomputed here); its room must be known."""
        self._check_room(obj)
        self._objects[obj.id] = obj

    # ----- rooms
    def _check_room(self, obj: SceneObject) -> None:
        if obj.room is not None and obj.room not in self._rooms:
            raise SceneError(f"scene {self.scene_id}: object {obj.id} is in unknown room {obj.room!r}")

    def add_room(self, room: Room) -> None:
        """Add a room (its id must be new)."""
        if not isinstance(room, Room):
            raise SceneError(f"add_room needs a Room, got {type(room).__name__}")
        if room.id in self._rooms:
            raise SceneError(f"scene {self.scene_id}: duplicate room id {room.id}")
        self._rooms[room.id] = room

    @property
    def rooms(self) -> list[Room]:
        """The rooms in insertion order (empty: the scene is one room, as a ScanNet scan)."""
        return list(self._rooms.values())

    def room(self, room_id: str) -> Room:
        """The room with this id, or :class:`SceneError` naming the known ones."""
        try:
            return self._rooms[room_id]
        except KeyError:
            known = ", ".join(self._rooms) or "none"
            raise SceneError(f"scene {self.scene_id}: unknown room {room_id!r}; rooms: {known}") from None

    def room_objects(self, room_id: str) -> list[SceneObject]:
        """The objects in a room, in insertion order."""
        rid = self.room(room_id).id
        return [o for o in self._objects.values() if o.room == rid]

    def remove(self, object_id: str) -> SceneObject:
        """Remove an object and every edge touching it (found through the edge index, not a scan)."""
        obj = self.get(object_id)
        for key in list(self._touching_index().get(obj.id, ())):
            self._unlink(self._edges.pop(key))
        del self._objects[obj.id]
        for holder in self._holders.pop(obj.id, {}):
            self._held[holder].pop(obj.id, None)
        for held in self._held.pop(obj.id, {}):
            self._holders[held].pop(obj.id, None)
        self.levels.pop(obj.id, None)
        return obj

    def by_category(self, category: str) -> list[SceneObject]:
        """Objects whose category equals ``category`` (case-insensitive)."""
        c = _norm_text(category)
        return [o for o in self._objects.values() if _norm_text(o.category) == c]

    def search(self, text: str) -> list[SceneObject]:
        """Objects whose category or attributes share a word with ``text`` (plural-insensitive)."""
        words = {w.rstrip("s") for w in _norm_text(text).split() if len(w) > 1}
        hits = []
        for o in self._objects.values():
            own = {w.rstrip("s") for w in _norm_text(" ".join([o.category, *o.attributes])).split()}
            if words & own or _norm_text(o.category) in _norm_text(text):
                hits.append(o)
        return hits

    def categories(self) -> dict[str, int]:
        """Count of objects per category."""
        out: dict[str, int] = {}
        for o in self._objects.values():
            out[o.category] = out.get(o.category, 0) + 1
        return out

    def box_array(self, ids: list[str] | None = None) -> BoxArray:
        """Boxes of the given objects (all, in insertion order, by default)."""
        objs = [self.get(i) for i in ids] if ids is not None else list(self._objects.values())
        if not objs:
            return BoxArray(np.zeros((0, 3)), np.zeros((0, 3)))
        return BoxArray.from_center_size(np.array([o.center for o in objs]), np.array([o.size for o in objs]))

    # ----- edges
    @property
    def edges(self) -> list[Edge]:
        return list(self._edges.values())

    def add_edge(self, edge: Edge) -> bool:
        """Add an edge; False when it was already there."""
        if not is_stored(edge.relation):
            raise SceneError(f"{edge.relation.value} depends on a viewpoint or candidates; it is not stored")
        if edge.subject not in self._objects or edge.object not in self._objects:
            self.get(edge.subject if edge.subject not in self._objects else edge.object)  # raises
        key = edge.key()
        if key in self._edges:
            return False
        self._edges[key] = edge
        self._link(edge, 1)
        if self._touching is not None:
            for end in (edge.subject, edge.object):
                self._touching.setdefault(end, {})[key] = None
        return True

    def _touching_index(self) -> dict[str, dict[tuple[str, str, str], None]]:
        """Object id -> keys of the edges touching it (built once, then kept up to date)."""
        if self._touching is None:
            index: dict[str, dict[tuple[str, str, str], None]] = {}
            for key, e in self._edges.items():
                index.setdefault(e.subject, {})[key] = None
                index.setdefault(e.object, {})[key] = None
            self._touching = index
        return self._touching

    def _unlink(self, edge: Edge) -> None:
        """Forget a removed edge in the adjacency tables."""
        self._link(edge, -1)
        if self._touching is not None:
            for end in (edge.subject, edge.object):
                keys = self._touching.get(end)
                if keys is not None:
                    keys.pop(edge.key(), None)
                    if not keys:
                        del self._touching[end]

    def _link(self, edge: Edge, step: int) -> None:
        """Count a support edge in (``step`` 1) or out (-1) of the support adjacency."""
        if edge.relation not in SUPPORT_RELATIONS:
            return
        for table, a, b in ((self._holders, edge.subject, edge.object),
                             (self._held, edge.object, edge.subject)):
            row = table.setdefault(a, {})
            row[b] = row.get(b, 0) + step
            if row[b] <= 0:
                del row[b]

    def holders(self, object_id: str) -> list[str]:
        """Ids of the objects holding this one up (support edges where it is the subject)."""
        return list(self._holders.get(object_id, ()))

    def held(self, object_id: str) -> list[str]:
        """Ids of the objects this one holds up."""
        return list(self._held.get(object_id, ()))

    def remove_edge(self, subject: str, relation: Relation, obj: str) -> Edge:
        """Remove a stored edge (either direction of a symmetric or inverse pair)."""
        key = (subject, relation.value, obj)
        inv = INVERSE.get(relation)
        if key not in self._edges and inv is not None:
            key = (obj, inv.value, subject)
        if key in self._edges:
            edge = self._edges.pop(key)
            self._unlink(edge)
            return edge
        raise SceneError(f"no relation {subject} {relation.value} {obj} in scene {self.scene_id}")

    def edge(self, key: tuple[str, str, str]) -> Edge | None:
        """The edge stored under exactly this ``(subject, relation, object)`` key, or None."""
        return self._edges.get(key)

    def has_edge(self, subject: str, relation: Relation, obj: str) -> bool:
        """Whether the fact is stored, in either reading."""
        if (subject, relation.value, obj) in self._edges:
            return True
        inv = INVERSE.get(relation)
        return inv is not None and (obj, inv.value, subject) in self._edges

    def relations_of(self, object_id: str) -> list[tuple[Relation, str]]:
        """Every stored fact about an object, read from its side: ``[(relation, other_id)]`` (through the
        adjacency index: the cost is the object's own edges, not the graph's)."""
        oid = self.get(object_id).id
        out: list[tuple[Relation, str]] = []
        for key in self._touching_index().get(oid, ()):
            e = self._edges[key]
            if e.subject == oid:
                out.append((e.relation, e.object))
            elif e.object == oid and (inv := read_from_object(e.relation)) is not None:
                out.append((inv, e.subject))
        return out

    def related(self, object_id: str, relation: Relation) -> list[str]:
        """Ids ``x`` such that ``object_id relation x`` holds in the stored graph."""
        return [other for rel, other in self.relations_of(object_id) if rel == relation]

    # ----- hierarchy and sub-graphs
    def level(self, object_id: str) -> int | None:
        """Support-hierarchy level (floor's children = 0), when computed."""
        return self.levels.get(self.get(object_id).id)

    def subgraph(self, ids: Iterable[str], hops: int = 0) -> SceneGraph:
        """The induced sub-graph on ``ids`` grown by ``hops`` edge hops."""
        keep = {self.get(i).id for i in ids}
        for _ in range(hops):
            grow = set(keep)
            for e in self._edges.values():
                if e.subject in keep or e.object in keep:
                    grow.update((e.subject, e.object))
            keep = grow
        return SceneGraph(
            self.scene_id,
            [o for o in self._objects.values() if o.id in keep],
            [e for e in self._edges.values() if e.subject in keep and e.object in keep],
            scene_type=self.scene_type,
            levels={k: v for k, v in self.levels.items() if k in keep},
            rooms=self._rooms.values(),
        )

    def copy(self) -> SceneGraph:
        """An independent copy (objects are immutable, containers are not shared)."""
        g = SceneGraph(self.scene_id, scene_type=self.scene_type)
        g._rooms = dict(self._rooms)
        g._objects = dict(self._objects)
        g._edges = dict(self._edges)
        g._holders = {k: dict(v) for k, v in self._holders.items()}
        g._held = {k: dict(v) for k, v in self._held.items()}
        g.levels = copy.copy(self.levels)
        return g

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SceneGraph):
            return NotImplemented
        return (
            self.scene_id == other.scene_id
            and self._objects == other._objects
            and self._rooms == other._rooms
            and set(self._edges) == set(other._edges)
            and self.levels == other.levels
        )

    def __repr__(self) -> str:
        return f"SceneGraph({self.scene_id!r}, {len(self._objects)} objects, {len(self._edges)} edges)"
