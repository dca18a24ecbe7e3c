"""Edits of a scene graph: primitive changes, edit requests and records, apply / invert, builders.

An edit is a tuple of primitive changes. :class:`ObjectChange` adds (``before`` is None), removes
(``after`` is None) or replaces an object; :class:`EdgeChange` adds or removes one stored edge.
Removing an object never drops edges silently: the request carries an :class:`EdgeChange` for every
edge it removes (``remove_object`` builds them), so :func:`invert` restores them on undo.
:func:`apply_changes` checks the whole tuple against the current graph before touching it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Protocol

import numpy as np

from synergai.geometry.frames import vec3
from synergai.scene.hierarchy import compute_levels, update_levels
from synergai.scene.model import (
    INVERSE,
    SUPPORT_RELATIONS,
    Edge,
    Relation,
    SceneError,
    SceneGraph,
    SceneObject,
    is_stored,
    parse_relation,
)
from synergai.scene.relations.thresholds import RelationThresholds
from synergai.scene.serialization import edge_from_dict, edge_to_dict, object_from_dict, object_to_dict


class Actor(StrEnum):
    """Who made a change (a robot also has a name: its label is ``robot:<name>``)."""

    PERCEPTION = "perception"
    USER = "user"
    AGENT = "agent"
    ROBOT = "robot"


#: A robot's actor label is this prefix and its name, e.g. ``robot:Alice``.
ROBOT_PREFIX = "robot:"
#: A perception update's actor label is this prefix and its source, e.g. ``perception:rosbag``.
PERCEPTION_PREFIX = "perception:"
ROBOT_NAME_MAX = 64
_NAMED = {Actor.ROBOT: ROBOT_PREFIX, Actor.PERCEPTION: PERCEPTION_PREFIX}


class EditState(StrEnum):
    """An edit is in effect (active), undone (on the redo stack) or discarded (redo stack dropped, reset)."""

    ACTIVE = "active"
    UNDONE = "undone"
    DISCARDED = "discarded"


@dataclass(frozen=True)
class ObjectChange:
    """Add (``before`` None), remove (``after`` None) or replace one object."""

    before: SceneObject | None
    after: SceneObject | None

    def __post_init__(self) -> None:
        if self.before is None and self.after is None:
            raise SceneError("object change needs a before or an after object")
        if self.before is not None and self.after is not None and self.before.id != self.after.id:
            raise SceneError(f"object change must keep the id ({self.before.id} -> {self.after.id})")

    @property
    def object_id(self) -> str:
        obj = self.after if self.after is not None else self.before
        assert obj is not None
        return obj.id


@dataclass(frozen=True)
class EdgeChange:
    """Add (``added``) or remove one stored edge."""

    edge: Edge
    added: bool


Change = ObjectChange | EdgeChange


def parse_actor(actor: Actor | str, robot: str = "") -> tuple[Actor, str]:
    """An actor kind and its name from a kind (``user``) or a label (``robot:Alice``,
    ``perception:rosbag``); a robot needs a name, a perception update may name its source (one line, at
    most 64 characters); the other actors have none."""
    if isinstance(actor, str) and not isinstance(actor, Actor):
        for named, prefix in _NAMED.items():
            if actor.startswith(prefix):
                if robot and robot != actor[len(prefix):]:
                    raise SceneError(f"actor {actor!r} names another {named.value} than {robot!r}")
                actor, robot = named, actor[len(prefix):]
                break
    try:
        kind = Actor(actor)
    except ValueError:
        legal = ", ".join(a.value for a in Actor if a is not Actor.ROBOT)
        raise SceneError(f"unknown actor {actor!r}; legal: {legal}, robot:NAME, perception:SOURCE") from None
    if not isinstance(robot, str):
        raise SceneError(f"a robot's name must be a string, got {robot!r}")
    if kind not in _NAMED or (kind is Actor.PERCEPTION and not robot):
        if robot:
            raise SceneError(f"only a robot actor has a name (a perception update may name its source), "
                             f"not {kind.value} ({robot!r})")
        return kind, ""
    name = robot.strip()
    if not name or len(name) > ROBOT_NAME_MAX or not name.isprintable():
        raise SceneError(f"a {kind.value} actor needs a name of 1 to {ROBOT_NAME_MAX} printable characters, "
                         f"got {robot!r}")
    return kind, name


def actor_label(actor: Actor, robot: str = "") -> str:
    """``user``, ``agent``, ``perception``, ``perception:<source>`` or ``robot:<name>`` (what the log
    stores and shows)."""
    return f"{_NAMED[actor]}{robot}" if actor in _NAMED and robot else actor.value


def _actor(actor: Actor | str) -> str:
    """A builder's actor argument, checked, as its label (an edge's provenance)."""
    return actor_label(*parse_actor(actor))


@dataclass(frozen=True)
class EditRequest:
    """A high-level operation (``op``, e.g. ``update_name``) made of primitive changes."""

    actor: Actor
    op: str
    changes: tuple[Change, ...]
    utterance: str = ""
    # the robot's name when ``actor`` is ROBOT, a perception update's source when PERCEPTION (``actor``
    # may also be a label, ``"robot:<name>"`` or ``"perception:<source>"``)
    robot: str = ""

    def __post_init__(self) -> None:
        kind, name = parse_actor(self.actor, self.robot)
        object.__setattr__(self, "actor", kind)
        object.__setattr__(self, "robot", name)
        if not isinstance(self.op, str) or not self.op.strip():
            raise SceneError("edit op must be a non-empty string")
        object.__setattr__(self, "changes", tuple(self.changes))
        if not self.changes:
            raise SceneError(f"edit {self.op} changes nothing")
        for c in self.changes:
            if not isinstance(c, ObjectChange | EdgeChange):
                raise SceneError(f"edit {self.op}: not a change: {c!r}")
        if not isinstance(self.utterance, str):
            raise SceneError("edit utterance must be a string")

    @property
    def who(self) -> str:
        """The actor's label: ``user``, ``agent``, ``perception`` or ``robot:<name>``."""
        return actor_label(self.actor, self.robot)


@dataclass(frozen=True)
class EditView:
    """What the objects and edges an edit touches look like on one side of it."""

    objects: tuple[SceneObject, ...]
    edges: tuple[Edge, ...]


@dataclass(frozen=True)
class EditRecord:
    """One logged edit: sequence number in its scene, who, what, why, when, and its state."""

    seq: int
    scene_id: str
    actor: Actor
    op: str
    utterance: str
    timestamp: str  # UTC ISO 8601
    changes: tuple[Change, ...]
    state: EditState = EditState.ACTIVE
    robot: str = ""  # the robot's name when ``actor`` is ROBOT (a perception update's source: PERCEPTION)

    @property
    def who(self) -> str:
        """The actor's label: ``user``, ``agent``, ``perception`` or ``robot:<name>``."""
        return actor_label(self.actor, self.robot)

    @property
    def before(self) -> EditView:
        """The touched objects and edges as they were before the edit."""
        return EditView(
            tuple(c.before for c in self.changes if isinstance(c, ObjectChange) and c.before is not None),
            tuple(c.edge for c in self.changes if isinstance(c, EdgeChange) and not c.added),
        )

    @property
    def after(self) -> EditView:
        """The touched objects and edges as they are after the edit."""
        return EditView(
            tuple(c.after for c in self.changes if isinstance(c, ObjectChange) and c.after is not None),
            tuple(c.edge for c in self.changes if isinstance(c, EdgeChange) and c.added),
        )

    @property
    def request(self) -> EditRequest:
        """The request this record logged."""
        return EditRequest(self.actor, self.op, self.changes, self.utterance, self.robot)

    def summary(self) -> str:
        """One line for listings, e.g. ``user renamed 12 (chair) -> stool: 'that is a stool'``."""
        text = f"{self.who} {describe(self.changes, self.op)}"
        if self.utterance:
            text += f": {self.utterance!r}"
        if self.state is not EditState.ACTIVE:
            text += f" [{self.state.value}]"
        return " ".join(text.split())


def _edge_text(e: Edge) -> str:
    return f"{e.subject} {e.relation.value} {e.object}"


def describe(changes: Sequence[Change], op: str = "") -> str:
    """A short phrase for a change tuple: the object's id, then its label in brackets (``renamed 12 (chair)
    -> stool``), so that an id that reads as a label ("tray") is not taken for one."""
    objs = [c for c in changes if isinstance(c, ObjectChange)]
    added = [c.edge for c in changes if isinstance(c, EdgeChange) and c.added]
    removed = [c.edge for c in changes if isinstance(c, EdgeChange) and not c.added]
    if len(objs) == 1:
        c = objs[0]
        b, a = c.before, c.after
        rels = f" with {len(added)} relation(s)" if added else ""
        if b is None and a is not None:
            return f"added object {a.id} ({a.category}){rels}"
        if a is None and b is not None:
            rels = f" and {len(removed)} relation(s)" if removed else ""
            return f"removed object {b.id} ({b.category}){rels}"
        if b is not None and a is not None:
            if b.category != a.category and b.attributes == a.attributes and not added + removed:
                return f"renamed {a.id} ({b.category}) -> {a.category}"
            if b.attributes != a.attributes and b.category == a.category and not added + removed:
                return f"set attributes of {a.id} ({a.category}) [{', '.join(b.attributes)}] -> " \
                       f"[{', '.join(a.attributes)}]"
            if (b.center, b.size) != (a.center, a.size) and (b.category, b.attributes) == (a.category,
                                                                                              a.attributes):
                where = ", ".join(f"{v:.2f}" for v in a.center)
                return f"moved {a.id} ({a.category}) to ({where})"
    if not objs and len(added) == 1 and not removed:
        return f"added relation {_edge_text(added[0])}"
    if not objs and len(removed) == 1 and not added:
        return f"deleted relation {_edge_text(removed[0])}"
    parts = [f"{len(objs)} object change(s)"] if objs else []
    if added:
        parts.append(f"{len(added)} relation(s) added")
    if removed:
        parts.append(f"{len(removed)} relation(s) removed")
    return f"{op or 'edit'}: {', '.join(parts)}"


def _request(actor: Actor | str, op: str, changes: Iterable[Change], utterance: str) -> EditRequest:
    """An edit request by ``actor`` (a kind, or a robot's label ``robot:<name>``)."""
    kind, name = parse_actor(actor)
    return EditRequest(kind, op, tuple(changes), utterance, name)


# ----- applying
class GraphLookup(Protocol):
    """What checking an edit needs to know about the state it applies to (a graph, or stored rows)."""

    def object(self, object_id: str) -> SceneObject | None:
        """The object with this id, or None."""

    def edge(self, key: tuple[str, str, str]) -> Edge | None:
        """The edge stored under exactly this key, or None."""

    def edge_keys_touching(self, object_id: str) -> set[tuple[str, str, str]]:
        """Keys of every stored edge with this object at one end."""


class _InGraph:
    """A graph as :class:`GraphLookup`; the edges touching each object are indexed on first need."""

    def __init__(self, graph: SceneGraph) -> None:
        self.graph = graph
        self._touching: dict[str, set[tuple[str, str, str]]] | None = None

    def object(self, object_id: str) -> SceneObject | None:
        return self.graph.get(object_id) if object_id in self.graph else None

    def edge(self, key: tuple[str, str, str]) -> Edge | None:
        return self.graph.edge(key)

    def edge_keys_touching(self, object_id: str) -> set[tuple[str, str, str]]:
        if self._touching is None:  # one pass over the edges, however many objects an edit removes
            self._touching = {}
            for e in self.graph.edges:
                key = e.key()
                self._touching.setdefault(e.subject, set()).add(key)
                self._touching.setdefault(e.object, set()).add(key)
        return set(self._touching.get(object_id, ()))


def check_changes(state: GraphLookup, changes: Sequence[Change]) -> None:
    """Raise SceneError if ``changes`` cannot be applied in order to ``state``; touch nothing.

    Costs what the edit touches: the changes are tracked in overlays over ``state`` (removing an
    object also asks for the relations it still has)."""
    objs: dict[str, SceneObject | None] = {}  # id -> object after the changes so far (None: removed)
    edges: dict[tuple[str, str, str], Edge | None] = {}
    touching: dict[str, set[tuple[str, str, str]]] = {}  # id -> keys in ``edges`` with it at one end

    def obj_now(oid: str) -> SceneObject | None:
        return objs[oid] if oid in objs else state.object(oid)

    def edge_now(key: tuple[str, str, str]) -> Edge | None:
        return edges[key] if key in edges else state.edge(key)

    for i, c in enumerate(changes):
        where = f"change {i + 1}"
        if isinstance(c, ObjectChange):
            oid = c.object_id
            cur = obj_now(oid)
            if c.before is None:
                if cur is not None:
                    raise SceneError(f"{where}: object {oid} already exists")
            elif cur is None:
                raise SceneError(f"{where}: unknown object id {oid!r}")
            elif cur != c.before:
                raise SceneError(f"{where}: object {oid} is not in the state the edit expects")
            if c.after is None:
                keys = state.edge_keys_touching(oid) | touching.get(oid, set())
                left = sorted(k for k in keys if edge_now(k) is not None)
                if left:
                    raise SceneError(f"{where}: object {oid} still has {len(left)} relation(s) "
                                     f"(e.g. {' '.join(left[0])}); remove them in the same edit first")
            objs[oid] = c.after
        elif isinstance(c, EdgeChange):
            e = c.edge
            key = e.key()
            if c.added:
                if not is_stored(e.relation):
                    raise SceneError(f"{where}: {e.relation.value} is computed on demand and never stored")
                if e.subject == e.object:
                    raise SceneError(f"{where}: relation {_edge_text(e)} joins an object to itself")
                for end in (e.subject, e.object):
                    if obj_now(end) is None:
                        raise SceneError(f"{where}: relation {_edge_text(e)} names unknown object id {end!r}")
                inv = INVERSE.get(e.relation)
                if edge_now(key) is not None or (
                        inv is not None and edge_now((e.object, inv.value, e.subject)) is not None):
                    raise SceneError(f"{where}: relation {_edge_text(e)} is already stored")
                edges[key] = e
            else:
                if edge_now(key) is None:
                    raise SceneError(f"{where}: no stored relation {_edge_text(e)}")
                edges[key] = None
            touching.setdefault(key[0], set()).add(key)
            touching.setdefault(key[2], set()).add(key)
        else:
            raise SceneError(f"{where}: not a change: {c!r}")


def _check(graph: SceneGraph, changes: Sequence[Change]) -> None:
    check_changes(_InGraph(graph), changes)


def _moves_levels(graph: SceneGraph, changes: Sequence[Change]) -> bool:
    """Whether ``changes`` may change any level: levels follow the set of objects, their kinds and
    the support edges (:func:`compute_levels`), nothing else."""
    for c in changes:
        if isinstance(c, EdgeChange):
            if c.edge.relation in SUPPORT_RELATIONS:
                return True
        elif c.before is None or c.after is None or c.before.kind is not c.after.kind:
            return True
    return False


def _level_roots(changes: Sequence[Change]) -> list[str]:
    """Objects whose level may change first: added or re-kinded ones, subjects of support edges."""
    out = []
    for c in changes:
        if isinstance(c, EdgeChange):
            if c.edge.relation in SUPPORT_RELATIONS:
                out.append(c.edge.subject)
        elif c.after is not None and (c.before is None or c.before.kind is not c.after.kind):
            out.append(c.after.id)
    return out


def apply_changes(graph: SceneGraph, changes: Iterable[Change]) -> None:
    """Validate every change against the current graph, then apply them in order and recompute levels
    (when the changes can move any).

    On any error nothing is changed.
    """
    changes = tuple(changes)
    _check(graph, changes)
    had_levels = len(graph.levels) == len(graph)
    for c in changes:
        if isinstance(c, ObjectChange):
            if c.after is None:
                graph.remove(c.object_id)  # checked: no stored edge touches it
            else:
                graph.put(c.after)
        elif c.added:
            graph.add_edge(c.edge)
        else:
            graph.remove_edge(c.edge.subject, c.edge.relation, c.edge.object)
    if not had_levels:
        graph.levels = compute_levels(graph)  # levels were not computed for this graph
    elif _moves_levels(graph, changes) and not update_levels(graph, _level_roots(changes)):
        graph.levels = compute_levels(graph)


def invert(changes: Iterable[Change]) -> tuple[Change, ...]:
    """The changes that undo ``changes`` (each one reversed, in reverse order)."""
    out: list[Change] = []
    for c in reversed(tuple(changes)):
        out.append(ObjectChange(c.after, c.before) if isinstance(c, ObjectChange)
                   else EdgeChange(c.edge, not c.added))
    return tuple(out)


# ----- JSON of changes (for the store's log)
def change_to_dict(change: Change) -> dict[str, Any]:
    """A JSON-ready dict of one change."""
    if isinstance(change, ObjectChange):
        return {
            "type": "object",
            "before": None if change.before is None else object_to_dict(change.before),
            "after": None if change.after is None else object_to_dict(change.after),
        }
    return {"type": "edge", "edge": edge_to_dict(change.edge), "added": change.added}


def change_from_dict(data: Any, *, where: str = "change") -> Change:
    """Read one change dict strictly."""
    if not isinstance(data, dict):
        raise SceneError(f"{where}: expected an object, got {type(data).__name__}")
    kind = data.get("type")
    if kind == "object":
        if set(data) != {"type", "before", "after"}:
            raise SceneError(f"{where}: object change needs exactly type, before, after")
        before, after = (None if data[k] is None else object_from_dict(data[k], where=f"{where}.{k}")
                         for k in ("before", "after"))
        return ObjectChange(before, after)
    if kind == "edge":
        if set(data) != {"type", "edge", "added"}:
            raise SceneError(f"{where}: edge change needs exactly type, edge, added")
        if not isinstance(data["added"], bool):
            raise SceneError(f"{where}.added: expected true or false, got {data['added']!r}")
        return EdgeChange(edge_from_dict(data["edge"], where=f"{where}.edge"), data["added"])
    raise SceneError(f"{where}.type: expected 'object' or 'edge', got {kind!r}")


# ----- builders of the common requests
def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SceneError(f"{what} must be a non-empty string, got {value!r}")
    return " ".join(value.split())


def rename_object(graph: SceneGraph, object_id: str | int, new_category: str,
                  actor: Actor | str = Actor.USER, utterance: str = "") -> EditRequest:
    """Change an object's category (the paper's ``update_name``)."""
    obj = graph.get(object_id)
    name = _text(new_category, "new category")
    if name == obj.category:
        raise SceneError(f"object {obj.id} is already called {name!r}")
    return _request(actor, "update_name", (ObjectChange(obj, obj.with_changes(category=name)),),
                       utterance)


def set_attributes(graph: SceneGraph, object_id: str | int, attributes: Iterable[str],
                   actor: Actor | str = Actor.USER, utterance: str = "") -> EditRequest:
    """Replace an object's attribute list (``update_attributes``); blanks and repeats are dropped."""
    obj = graph.get(object_id)
    if isinstance(attributes, str):
        raise SceneError("attributes must be a list of strings, not one string")
    attrs = tuple(dict.fromkeys(_text(a, "attribute") for a in attributes))
    if attrs == obj.attributes:
        raise SceneError(f"object {obj.id} already has attributes [{', '.join(attrs)}]")
    return _request(actor, "update_attributes",
                       (ObjectChange(obj, obj.with_changes(attributes=attrs)),), utterance)


def _relation(relation: Relation | str) -> Relation:
    rel = relation if isinstance(relation, Relation) else parse_relation(str(relation))
    if not is_stored(rel):
        raise SceneError(f"{rel.value} is computed for a viewpoint or a candidate set and is never stored")
    return rel


def add_relation(graph: SceneGraph, subject: str | int, relation: Relation | str, obj: str | int,
                 actor: Actor | str = Actor.USER, utterance: str = "") -> EditRequest:
    """Store a new fact ``subject relation obj`` (``add_relation``)."""
    s, o, rel = graph.get(subject).id, graph.get(obj).id, _relation(relation)
    if s == o:
        raise SceneError(f"a relation needs two different objects, got {s} twice")
    if graph.has_edge(s, rel, o):
        raise SceneError(f"relation {s} {rel.value} {o} is already stored")
    who = _actor(actor)
    return _request(actor, "add_relation", (EdgeChange(Edge(s, rel, o, who), True),), utterance)


def _stored_edge(graph: SceneGraph, s: str, rel: Relation, o: str) -> Edge | None:
    inv = INVERSE.get(rel)
    for e in graph.edges:
        if e.key() == (s, rel.value, o) or (inv is not None and e.key() == (o, inv.value, s)):
            return e
    return None


def delete_relation(graph: SceneGraph, subject: str | int, relation: Relation | str, obj: str | int,
                    actor: Actor | str = Actor.USER, utterance: str = "") -> EditRequest:
    """Remove a stored fact, in whichever reading it is stored (``delete_relation``)."""
    s, o, rel = graph.get(subject).id, graph.get(obj).id, _relation(relation)
    edge = _stored_edge(graph, s, rel, o)
    if edge is None:
        raise SceneError(f"no stored relation {s} {rel.value} {o} in scene {graph.scene_id}")
    return _request(actor, "delete_relation", (EdgeChange(edge, False),), utterance)


def add_object(graph: SceneGraph, obj: SceneObject, actor: Actor | str = Actor.USER, utterance: str = "",
               relations: Iterable[Edge] = ()) -> EditRequest:
    """Insert a new object, optionally with relations to existing objects (``add_object``). In a scene
    with rooms, an object given no room is put in the room whose footprint holds its centre."""
    if not isinstance(obj, SceneObject):
        raise SceneError(f"add_object needs a SceneObject, got {type(obj).__name__}")
    if obj.id in graph:
        raise SceneError(f"object id {obj.id!r} already exists in scene {graph.scene_id}")
    if graph.rooms and obj.room is None:
        from synergai.scene.rooms import assign_rooms

        obj = assign_rooms([obj], graph.rooms)[0]
    changes: list[Change] = [ObjectChange(None, obj)]
    changes += [EdgeChange(e, True) for e in relations]
    req = _request(actor, "add_object", tuple(changes), utterance)
    _check(graph, req.changes)
    return req


def remove_object(graph: SceneGraph, object_id: str | int, actor: Actor | str = Actor.USER,
                  utterance: str = "") -> EditRequest:
    """Delete an object and, explicitly, every stored edge touching it (``remove_object``)."""
    obj = graph.get(object_id)
    changes: list[Change] = [EdgeChange(e, False) for e in graph.edges if obj.id in (e.subject, e.object)]
    changes.append(ObjectChange(obj, None))
    return _request(actor, "remove_object", tuple(changes), utterance)


def move_object(graph: SceneGraph, object_id: str | int, center: Sequence[float],
                actor: Actor | str = Actor.USER, utterance: str = "",
                size: Sequence[float] | None = None, *, refresh: bool = True,
                thresholds: RelationThresholds | None = None) -> EditRequest:
    """Move (and optionally resize) an object's box (``move_object``); an object in a room that moves
    into another room's footprint is in that room afterwards.

    With ``refresh`` (the default) the moved object's stored relations are recomputed
    (:func:`synergai.scene.refresh.refresh_object`: its holder, what it holds, its neighbours) and the
    request carries every edge that changes, so undo restores them; without it only the box moves.
    """
    obj = graph.get(object_id)

    def vec(v: Sequence[float], what: str) -> tuple[float, float, float]:
        try:
            x, y, z = (float(c) for c in v)
        except (TypeError, ValueError, OverflowError):
            raise SceneError(f"{what} must be 3 numbers, got {v!r}") from None
        if not all(math.isfinite(c) for c in (x, y, z)):
            raise SceneError(f"{what} must be finite, got {v!r}")
        return (x, y, z)

    new_center = vec(center, "center")
    obb = obj.obb
    if obb is not None:  # the oriented box travels with the object
        shift = [n - c for n, c in zip(new_center, obj.center, strict=True)]
        obb = replace(obb, center=vec3(c + d for c, d in zip(obb.center, shift, strict=True)))
    new = obj.with_changes(center=new_center, size=obj.size if size is None else vec(size, "size"), obb=obb)
    if graph.rooms and obj.room is not None:  # a move into another room's footprint changes its room
        from synergai.scene.rooms import assign_rooms

        moved = assign_rooms([new], graph.rooms)[0]
        new = moved if moved.room is not None else new
    if new == obj:
        raise SceneError(f"object {obj.id} is already there")
    if not refresh:
        return _request(actor, "move_object", (ObjectChange(obj, new),), utterance)
    work = graph.copy()
    work.put(new)
    from synergai.scene.refresh import refresh_object  # lazy: the relation engine loads scipy

    added, removed = refresh_object(work, obj.id, thresholds)
    touched = {e.key(): e for e in (*removed, *added)}
    # net effect per fact (refresh may add and later drop the same edge)
    gone = [e for k in touched if (e := graph.edge(k)) is not None and work.edge(k) is None]
    came = [e for k in touched if (e := work.edge(k)) is not None and graph.edge(k) is None]
    changes: list[Change] = [ObjectChange(obj, work.get(obj.id))]
    changes += [EdgeChange(e, False) for e in gone]
    changes += [EdgeChange(e, True) for e in came]
    return _request(actor, "move_object", tuple(changes), utterance)


def fact_key(subject: str, relation: Relation, obj: str) -> tuple[str, str, str]:
    """One key per fact, whichever reading (``a above b`` / ``b below a``) states it."""
    inv = INVERSE.get(relation)
    key = (subject, relation._value_, obj)  # ``_value_``: no property look-up (millions of keys)
    return key if inv is None else min(key, (obj, inv._value_, subject))


def merge_objects(graph: SceneGraph, object_ids: Sequence[str | int], actor: Actor | str = Actor.USER,
                  utterance: str = "", category: str | None = None) -> EditRequest:
    """Make several objects one (``merge_objects``: "these two are one table"): the first keeps its id
    and becomes the union of the boxes (its category, or ``category``; the members' attributes joined),
    the others are removed, and their relations are re-pointed to the first (a relation between two
    members, or one the first already has, is dropped). Undo restores every member and relation."""
    if isinstance(object_ids, str) or len(object_ids) < 2:
        raise SceneError("a merge needs at least two different objects")
    members = [graph.get(i) for i in object_ids]
    ids = [m.id for m in members]
    if len(set(ids)) != len(ids):
        raise SceneError(f"a merge needs different objects, got {', '.join(ids)}")
    if any(m.kind is not members[0].kind for m in members):
        raise SceneError("only objects of one kind merge (not a wall with a table)")
    keep, gone = members[0], set(ids[1:])
    lo = np.min([m.min_corner for m in members], axis=0)
    hi = np.max([m.max_corner for m in members], axis=0)
    attrs = tuple(dict.fromkeys(a for m in members for a in m.attributes))
    merged = keep.with_changes(center=vec3((lo + hi) / 2.0), size=vec3(hi - lo), attributes=attrs, obb=None,
                               category=keep.category if category is None else _text(category, "category"))
    touching = [e for e in graph.edges if e.subject in gone or e.object in gone]
    facts = {fact_key(e.subject, e.relation, e.object) for e in graph.edges
             if not {e.subject, e.object} & gone}
    added: list[Edge] = []
    for e in touching:
        s, o = (keep.id if e.subject in gone else e.subject), (keep.id if e.object in gone else e.object)
        if s != o and fact_key(s, e.relation, o) not in facts:
            facts.add(fact_key(s, e.relation, o))
            added.append(Edge(s, e.relation, o, e.provenance))
    changes: list[Change] = [EdgeChange(e, False) for e in touching]
    changes += [ObjectChange(keep, merged)] if merged != keep else []
    changes += [ObjectChange(graph.get(i), None) for i in ids[1:]]
    changes += [EdgeChange(e, True) for e in added]
    req = _request(actor, "merge_objects", tuple(changes), utterance)
    _check(graph, req.changes)
    return req
