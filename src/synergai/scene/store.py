"""The persistent scene store: base graphs, current graphs as rows, an undoable edit log and the
event log behind the live change feed, over SQLite (one file, the default) or PostgreSQL (a server
several machines share).

A store location is a path (SQLite; default ``platformdirs.user_data_dir("synergai")/synergai.sqlite3``)
or a ``postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME`` URL. This module holds the store's logic,
written once; :mod:`~synergai.scene.store_sqlite` and :mod:`~synergai.scene.store_postgres` hold what
differs per database (connection, schema and migrations, locking, the change feed's wake-up).

Each scene keeps the graph it was built as (``base``, one JSON document written at registration), how
it was built (``source``), the current graph as one row per object and per edge (insertion order kept;
levels are recomputed from the support edges on reading) and its edits, numbered ``seq`` = 1, 2, ...
per scene. The current graph always equals ``base`` plus the active edits in order
(:meth:`SceneStore.verify`).

Concurrency and crashes: every write is one transaction holding the store's write lock; it validates
the edit against the committed graph, appends the log row and an event row and writes only the object
and edge rows the edit changes before it commits. A killed process leaves either all of an edit or none
of it, and an edit built on a state another writer has changed is refused with a message naming the
object and the newer edit. Readers see one committed snapshot and never wait for a writer. One
:class:`SceneStore` may be shared between threads (a lock serialises its connection). The parsed graph
is kept per committed revision, so a store sees edits other processes committed and an edit costs what
it changes.

Registrations: every registration of a scene (a new scene, or one rebuilt with ``replace_existing``)
gets a new registration id (:meth:`SceneStore.revision`'s first part). A writer that planned its edit on
a scene passes the registration it read (``apply(..., registration=...)``): an edit planned on a scene
that was dropped, or dropped and registered again under the same id, is refused
(:class:`SceneReplacedError`) and never carried onto the other scene.

The event log: each committed edit, undo, redo, reset, registration and drop appends one event
``{scene, seq, kind, actor, object_ids, at}`` (one sequence for the whole store, so a reader resuming
"after seq N" misses nothing; events outlive a dropped scene). :mod:`~synergai.scene.feed` follows it.

Undo / redo: undo reverts the newest active edit (state ``undone``); redo re-applies the oldest undone
one. A new edit after an undo discards the redo stack: those records stay in the log, marked
``discarded``. :meth:`SceneStore.reset` returns a scene to its base graph and marks every edit
``discarded``; :meth:`SceneStore.drop` deletes a scene and its log.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import platformdirs

from synergai.scene.collector import collector_paused
from synergai.scene.edits import (
    Change,
    EdgeChange,
    EditRecord,
    EditRequest,
    EditState,
    ObjectChange,
    apply_changes,
    change_from_dict,
    change_to_dict,
    check_changes,
    invert,
    parse_actor,
)
from synergai.scene.hierarchy import compute_levels
from synergai.scene.model import Edge, Relation, Room, SceneError, SceneGraph, SceneObject
from synergai.scene.serialization import (
    graph_to_dict,
    loads,
    object_from_dict,
    object_to_dict,
    rooms_from_list,
)
from synergai.scene.store_db import (
    SCHEMA_VERSION,
    Database,
    StoreError,
    StoreLost,
    Transaction,
    is_url,
    open_database,
)

__all__ = ["EVENT_KINDS", "SCHEMA_VERSION", "ConflictError", "ReplayError", "SceneInfo", "SceneReplacedError",
           "SceneStore", "StoreError", "StoreEvent", "StoreLost", "default_path"]

#: The kinds of event the change feed carries.
EVENT_KINDS = ("edit", "undo", "redo", "reset", "register", "drop")


class ReplayError(StoreError):
    """The logged edits do not apply to the scene's base graph (the log was altered)."""


@dataclass(frozen=True)
class SceneInfo:
    """One row of :meth:`SceneStore.scenes`."""

    id: str
    source: dict[str, Any]
    n_objects: int
    n_active_edits: int
    updated_at: str


def default_path() -> Path:
    """``<user data dir>/synergai/synergai.sqlite3`` (the directory is not created here)."""
    return Path(platformdirs.user_data_dir("synergai")) / "synergai.sqlite3"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _source_json(source: Any) -> str:
    if not isinstance(source, dict):
        raise SceneError(f"scene source must be a dict, got {type(source).__name__}")
    try:
        return json.dumps(source, sort_keys=True, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise SceneError(f"scene source is not JSON-serializable: {exc}") from None


def _canonical(graph: SceneGraph) -> dict[str, Any]:
    """A graph document independent of insertion order (for comparing graphs)."""
    d = graph_to_dict(graph)
    d["objects"].sort(key=lambda o: o["id"])
    d["edges"].sort(key=lambda e: (e["subject"], e["relation"], e["object"]))
    return d


#: The JSON writer of the store's documents (exact floats, no NaN, text as is): one, not one per call.
_JSON = json.JSONEncoder(allow_nan=False, ensure_ascii=False)


def _change_texts(changes: Sequence[Change]) -> tuple[str, list[str | None]]:
    """The log's JSON text of ``changes`` (what ``json.dumps([change_to_dict(ch) ...])`` writes) and each
    change's ``after`` object as JSON text for its row (None for the others). Each object is encoded once
    (its row's text is part of the log's), each run of relation changes in one call."""
    pieces: list[str] = []
    afters: list[str | None] = []
    run: list[dict[str, Any]] = []  # relation changes not encoded yet
    for ch in changes:
        if isinstance(ch, ObjectChange):
            if run:
                pieces.append(_JSON.encode(run)[1:-1])
                run = []
            before = "null" if ch.before is None else _JSON.encode(object_to_dict(ch.before))
            after = None if ch.after is None else _JSON.encode(object_to_dict(ch.after))
            pieces.append(f'{{"type": "object", "before": {before}, "after": {after or "null"}}}')
            afters.append(after)
        else:
            run.append(change_to_dict(ch))
            afters.append(None)
    if run:
        pieces.append(_JSON.encode(run)[1:-1])
    return f"[{', '.join(pieces)}]", afters


def _object_row(scene_id: str, obj: SceneObject) -> tuple[str, str, str]:
    return (scene_id, obj.id, _JSON.encode(object_to_dict(obj)))


def _edge_row(scene_id: str, edge: Edge) -> tuple[str, str, str, str, str]:
    return (scene_id, edge.subject, edge.relation.value, edge.object, edge.provenance)


_OBJECT_COLUMNS = ("scene_id", "id", "data")
_EDGE_COLUMNS = ("scene_id", "subject", "relation", "object", "provenance")


def _write_batch(c: Transaction, kind: str, rows: list[tuple[Any, ...]]) -> None:
    """Write one batch of :meth:`SceneStore._write_changes` (``kind``: ``insert|update|delete objects|edges``;
    rows as :func:`_object_row` and :func:`_edge_row` make them, a delete's only the key columns)."""
    what, table = kind.split()
    columns = _OBJECT_COLUMNS if table == "objects" else _EDGE_COLUMNS
    if what == "insert":
        c.copy_rows(table, columns, rows)
    elif what == "update":  # only objects are updated (an edge is removed and added)
        c.update_rows(table, columns[:2], columns[2:], rows)
    else:
        c.delete_rows(table, columns[:len(rows[0])], rows)


@dataclass(frozen=True)
class _StoredRows:
    """A scene's committed rows as :class:`~synergai.scene.edits.GraphLookup` (reads only what an
    edit touches)."""

    c: Transaction
    scene_id: str

    def object(self, object_id: str) -> SceneObject | None:
        row = self.c.execute("SELECT data FROM objects WHERE scene_id = ? AND id = ?",
                             (self.scene_id, object_id)).fetchone()
        if row is None:
            return None
        where = f"scene {self.scene_id}: stored object {object_id!r}"
        try:
            return object_from_dict(json.loads(row[0]), where=where)
        except ValueError as exc:
            raise StoreError(f"{where} is unreadable: {exc}") from None

    def edge(self, key: tuple[str, str, str]) -> Edge | None:
        row = self.c.execute("SELECT provenance FROM edges WHERE scene_id = ? AND subject = ? "
                             "AND relation = ? AND object = ?", (self.scene_id, *key)).fetchone()
        return None if row is None else Edge(key[0], Relation(key[1]), key[2], row[0])

    def edge_keys_touching(self, object_id: str) -> set[tuple[str, str, str]]:
        rows = self.c.execute("SELECT subject, relation, object FROM edges WHERE scene_id = ? "
                              "AND (subject = ? OR object = ?)", (self.scene_id, object_id, object_id))
        return {(s, r, o) for s, r, o in rows}


class ConflictError(SceneError):
    """An edit built on a state another writer has changed since: nothing was written."""


class SceneReplacedError(ConflictError):
    """An edit planned on a registration of its scene that is gone (the scene was dropped, or dropped
    and registered again under the same id): nothing was written, and no retry may carry it over."""


@dataclass(frozen=True)
class StoreEvent:
    """One entry of the store's event log (what the change feed publishes)."""

    scene: str
    seq: int
    kind: str
    actor: str
    object_ids: tuple[str, ...]
    at: str

    def to_dict(self) -> dict[str, Any]:
        """``{scene, seq, kind, actor, object_ids, at}`` (the feed's JSON line)."""
        return {"scene": self.scene, "seq": self.seq, "kind": self.kind, "actor": self.actor,
                "object_ids": list(self.object_ids), "at": self.at}


def _touched(changes: Sequence[Change]) -> tuple[str, ...]:
    """The ids of the objects ``changes`` change, or whose relations they change."""
    ids: set[str] = set()
    for ch in changes:
        if isinstance(ch, ObjectChange):
            ids.add(ch.object_id)
        elif isinstance(ch, EdgeChange):
            ids.update((ch.edge.subject, ch.edge.object))
    return tuple(sorted(ids))


class SceneStore:
    """Scenes, their current graphs (rows), their edit logs and the event log in one SQLite file or
    PostgreSQL database; see the module doc-string.

    ``location``: a path (SQLite), a ``postgresql://`` URL, or None (the default SQLite file).
    """

    def __init__(self, location: Path | str | None = None) -> None:
        if location is None:
            location = default_path()
        #: the store's location as given (a URL keeps its password: never print it; see :attr:`where`)
        self.location: Path | str = location if is_url(location) else Path(location)
        #: the SQLite file, or None on a server
        self.path: Path | None = None if is_url(location) else Path(location)
        self._lock = threading.RLock()
        # scene id -> ((registration, revision), the current graph of that revision); owned by the store
        self._cache: dict[str, tuple[tuple[str, int], SceneGraph]] = {}
        self._database: Database | None = open_database(self.location)
        #: the location for messages (a URL's password masked)
        self.where: str = self._database.where
        #: True when the store cannot be written (it can still be read: listed, shown, exported)
        self.read_only: bool = self._database.read_only

    # ----- connection
    def _db(self) -> Database:
        if self._database is None:
            raise StoreError(f"scene store {self.where} is closed")
        return self._database

    @contextmanager
    def _write(self) -> Iterator[Transaction]:
        """One write transaction (the store's write lock held): committed on success, rolled back on
        any error."""
        with self._lock, self._db().write() as c:
            yield c

    @contextmanager
    def _read(self) -> Iterator[Transaction]:
        """One read transaction (one committed snapshot; it never waits for a writer)."""
        with self._lock, self._db().read() as c:
            yield c

    def _event(self, c: Transaction, scene_id: str, kind: str, actor: str,
               object_ids: Sequence[str], at: str) -> None:
        """Append one event to the log, in the writer's transaction (the database layer wakes the feed's
        readers when it commits)."""
        c.execute("INSERT INTO events (seq, scene_id, kind, actor, object_ids, at) "
                  "SELECT COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ? FROM events",
                  (scene_id, kind, actor, json.dumps(list(object_ids), ensure_ascii=False), at))

    def events(self, since: int = 0, scene_id: str | None = None, limit: int = 1000) -> list[StoreEvent]:
        """The logged events after ``since`` (of one scene, or all), oldest first, at most ``limit``."""
        where, params = ("seq > ?", [since]) if scene_id is None else \
            ("seq > ? AND scene_id = ?", [since, scene_id])
        with self._read() as c:
            rows = c.execute(f"SELECT scene_id, seq, kind, actor, object_ids, at FROM events WHERE {where} "
                             f"ORDER BY seq LIMIT {int(limit)}", params).fetchall()
        return [StoreEvent(r[0], int(r[1]), r[2], r[3], tuple(self._json(r[4], f"event {r[1]}: object ids")),
                           r[5]) for r in rows]

    def last_event(self) -> int:
        """The newest event's seq (0 when none)."""
        with self._read() as c:
            return int(c.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])

    def replaced(self) -> bool:
        """Whether the store at :attr:`location` is no longer the one this object opened (a SQLite file
        replaced or removed, eg. restored from a copy; never on a server)."""
        return self._db().replaced()

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            if self._database is not None:
                self._database.close()
                self._database = None
            self._cache.clear()

    def __enter__(self) -> SceneStore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # ----- rows of the current graph
    @staticmethod
    def _insert_rows(c: Transaction, scene_id: str, graph: SceneGraph,
                     documents: list[dict[str, Any]] | None = None) -> None:
        """Replace the scene's object and edge rows by ``graph`` (``documents``: its objects' dicts,
        when already made)."""
        c.execute("DELETE FROM edges WHERE scene_id = ?", (scene_id,))
        c.execute("DELETE FROM objects WHERE scene_id = ?", (scene_id,))
        if documents is None:
            rows = (_object_row(scene_id, o) for o in graph)
        else:
            rows = ((scene_id, d["id"], _JSON.encode(d))
                    for d in documents)
        c.copy_rows("objects", ("scene_id", "id", "data"), rows)
        c.copy_rows("edges", ("scene_id", "subject", "relation", "object", "provenance"),
                    (_edge_row(scene_id, e) for e in graph.edges))

    @staticmethod
    def _write_changes(c: Transaction, scene_id: str, changes: tuple[Change, ...],
                       texts: Sequence[str | None] | None = None) -> None:
        """The rows one edit changes, in the order the graph applied them: consecutive changes of one
        kind are written as one batch (an update of a whole scene is a few bulk writes, not a round trip
        per row: :meth:`Transaction.copy_rows`, ``update_rows``, ``delete_rows``); ``texts``: each
        change's ``after`` object as JSON text, when already made (None for the others)."""
        batch: list[tuple[Any, ...]] = []
        kind = ""
        row: tuple[Any, ...]

        def object_row(k: int, obj: SceneObject) -> tuple[str, str, str]:
            text = None if texts is None else texts[k]
            return _object_row(scene_id, obj) if text is None else (scene_id, obj.id, text)

        for k, ch in enumerate(changes):
            if isinstance(ch, ObjectChange):
                if ch.before is None:
                    assert ch.after is not None  # an ObjectChange always has a before or an after
                    now, row = "insert objects", object_row(k, ch.after)
                elif ch.after is None:
                    now, row = "delete objects", (scene_id, ch.before.id)
                else:
                    now, row = "update objects", object_row(k, ch.after)
            elif ch.added:
                now, row = "insert edges", _edge_row(scene_id, ch.edge)
            else:
                now, row = "delete edges", _edge_row(scene_id, ch.edge)[:4]
            if now != kind and batch:
                _write_batch(c, kind, batch)
                batch = []
            kind = now
            batch.append(row)
        if batch:
            _write_batch(c, kind, batch)

    def _rooms(self, c: Transaction, scene_id: str) -> list[Room]:
        """The scene's rooms: kept in its base graph document (edits do not change rooms)."""
        text = self._base(c, scene_id)
        if '"rooms": [{' not in text:  # no rooms: skip parsing the base document
            return []
        try:
            return rooms_from_list(json.loads(text).get("rooms", []))
        except (ValueError, AttributeError) as exc:
            raise StoreError(f"scene {scene_id}: the stored rooms are unreadable: {exc}") from None

    def _load_rows(self, c: Transaction, scene_id: str, rooms: list[Room] | None = None) -> SceneGraph:
        """The current graph read from its rows (levels recomputed: they follow the support edges);
        ``rooms`` when already known, else read from the base graph."""
        scene_type = self._row(c, scene_id, "scene_type")
        rooms = self._rooms(c, scene_id) if rooms is None else rooms
        graph = SceneGraph(scene_id, scene_type=scene_type, rooms=rooms)
        order = self._db().order
        for oid, data in c.execute(f"SELECT id, data FROM objects WHERE scene_id = ? ORDER BY {order}",
                                   (scene_id,)):
            where = f"scene {scene_id}: stored object {oid!r}"
            try:
                graph.put(object_from_dict(json.loads(data), where=where))
            except ValueError as exc:  # SceneError included
                raise StoreError(f"{where} is unreadable: {exc}") from None
        relations = {r.value: r for r in Relation}  # a look-up, not the enum's call, per edge
        for subject, relation, obj, provenance in c.execute(
                "SELECT subject, relation, object, provenance FROM edges WHERE scene_id = ? "
                f"ORDER BY {order}",
                (scene_id,)):
            try:
                graph.add_edge(Edge(subject, relations.get(relation) or Relation(relation), obj, provenance))
            except ValueError as exc:
                raise StoreError(f"scene {scene_id}: stored relation {subject} {relation} {obj} "
                                 f"is unreadable: {exc}") from None
        graph.levels = compute_levels(graph)
        return graph

    # ----- scenes
    def register(self, graph: SceneGraph, source: dict[str, Any], *, replace_existing: bool = False,
                 actor: str = "perception") -> None:
        """Store ``graph`` as the base of scene ``graph.scene_id`` the first time it is seen.

        The graph is checked completely first (it must read back exactly as written: non-empty ids,
        colours in 0..255, finite numbers ...); a rejected graph writes nothing. Levels are recomputed
        with ``compute_levels`` (the store's invariant: every stored graph's levels come from its
        support edges). Registering a known scene again keeps its current state and edits when
        ``source`` is the same; when ``source`` differs it raises :class:`SceneError`, unless
        ``replace_existing`` is set: then ``graph`` becomes the new base and current graph, the source
        is replaced and every earlier edit is kept in the log marked ``discarded``. A new scene and a
        replaced one get a new registration id (edits planned on the earlier one are refused).
        """
        if not isinstance(graph, SceneGraph):
            raise SceneError(f"register needs a SceneGraph, got {type(graph).__name__}")
        if not isinstance(graph.scene_id, str) or not graph.scene_id.strip():
            raise SceneError(f"scene id must be a non-empty string, got {graph.scene_id!r}")
        if any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in graph.scene_id):
            # a NUL cannot be typed on a command line: such a scene could never be named or dropped
            raise SceneError(f"scene id {graph.scene_id!r} holds a control character")
        src = _source_json(source)
        base = graph.copy()
        base.levels = compute_levels(base)
        doc = graph_to_dict(base)  # refuses what could not be read back, before anything is written
        try:
            text = json.dumps(doc, allow_nan=False, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise SceneError(f"scene {graph.scene_id}: not serializable: {exc}") from None
        now = _now()
        with self._write() as c:
            row = c.execute("SELECT source FROM scenes WHERE id = ?", (graph.scene_id,)).fetchone()
            registration = uuid.uuid4().hex  # every registration its own id
            if row is None:
                c.execute("INSERT INTO scenes (id, source, scene_type, n_objects, created_at, "
                          "updated_at, registration) VALUES (?, ?, ?, ?, ?, ?, ?)",
                          (graph.scene_id, src, base.scene_type, len(base), now, now, registration))
            elif row[0] != src:
                if not replace_existing:
                    raise SceneError(f"scene {graph.scene_id} is already registered from source {row[0]}; "
                                     f"pass replace_existing=True to rebuild it from {src}")
                c.execute("UPDATE scenes SET source = ?, scene_type = ?, n_objects = ?, "
                          "updated_at = ?, revision = revision + 1, registration = ? WHERE id = ?",
                          (src, base.scene_type, len(base), now, registration, graph.scene_id))
                c.execute("UPDATE edits SET state = 'discarded' WHERE scene_id = ? AND state != 'discarded'",
                          (graph.scene_id,))
            else:
                return
            c.execute("INSERT INTO bases (scene_id, graph) VALUES (?, ?) "
                      "ON CONFLICT (scene_id) DO UPDATE SET graph = excluded.graph", (graph.scene_id, text))
            self._insert_rows(c, graph.scene_id, base, doc["objects"])
            self._event(c, graph.scene_id, "register", actor, (), now)
        self._cache.pop(graph.scene_id, None)

    def has_scene(self, scene_id: str) -> bool:
        """Whether the scene is registered."""
        with self._read() as c:
            return c.execute("SELECT 1 FROM scenes WHERE id = ?", (scene_id,)).fetchone() is not None

    def scenes(self) -> list[SceneInfo]:
        """Every registered scene, by id."""
        with self._read() as c:
            rows = c.execute(
                "SELECT s.id, s.source, s.n_objects, s.updated_at, "
                "(SELECT COUNT(*) FROM edits e WHERE e.scene_id = s.id AND e.state = 'active') "
                "FROM scenes s ORDER BY s.id").fetchall()
        return [SceneInfo(r[0], self._json(r[1], f"scene {r[0]}: source"), r[2], r[4], r[3]) for r in rows]

    @staticmethod
    def _json(text: str, what: str) -> Any:
        try:
            return json.loads(text)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{what} is unreadable: {exc}") from None

    def source(self, scene_id: str) -> dict[str, Any]:
        """How the scene was built (the dict given to :meth:`register`)."""
        with self._read() as c:
            text = self._row(c, scene_id, "source")
        return self._json(text, f"scene {scene_id}: source")

    @staticmethod
    def _row(c: Transaction, scene_id: str, column: str) -> Any:
        row = c.execute(f"SELECT {column} FROM scenes WHERE id = ?", (scene_id,)).fetchone()
        if row is None:
            raise SceneError(f"unknown scene {scene_id!r} in the scene store")
        return row[0]

    def _base(self, c: Transaction, scene_id: str) -> str:
        self._row(c, scene_id, "id")
        row = c.execute("SELECT graph FROM bases WHERE scene_id = ?", (scene_id,)).fetchone()
        if row is None:
            raise StoreError(f"scene {scene_id}: the base graph is missing from the store")
        return row[0]

    def load(self, scene_id: str) -> SceneGraph:
        """The scene's current graph (checked against the database: other processes' edits included)."""
        with self._read() as c:
            return self._current(c, scene_id).copy()

    def snapshot(self, scene_id: str) -> tuple[SceneGraph, tuple[str, int]]:
        """The scene's current graph and its revision (registration id, revision), read together: what a
        writer plans on (it passes the registration id to :meth:`apply`)."""
        with self._read() as c:
            return self._current(c, scene_id).copy(), self._revision(c, scene_id)

    def _current(self, c: Transaction, scene_id: str) -> SceneGraph:
        """The store's own graph of the committed revision (read from the rows once per revision);
        callers outside the store get copies."""
        key = self._revision(c, scene_id)
        hit = self._cache.get(scene_id)
        if hit is not None and hit[0] == key:
            return hit[1]
        # Rooms change only when a scene is registered (a new registration id): an edit keeps them.
        same_scene = hit is not None and hit[0][0] == key[0]
        with collector_paused():
            graph = self._load_rows(c, scene_id, hit[1].rooms if hit is not None and same_scene else None)
        self._cache[scene_id] = (key, graph)
        return graph

    def _revision(self, c: Transaction, scene_id: str) -> tuple[str, int]:
        """Identifies one committed state: the registration id (new on every registration: it tells a
        dropped and re-registered scene apart) and the revision."""
        column = "registration" if self._db().registrations else "''"  # an older store, not yet migrated
        row = c.execute(f"SELECT {column}, revision FROM scenes WHERE id = ?", (scene_id,)).fetchone()
        if row is None:
            raise SceneError(f"unknown scene {scene_id!r} in the scene store")
        return (row[0], int(row[1]))

    def revision(self, scene_id: str) -> tuple[str, int]:
        """Identifies the scene's committed snapshot: (registration id, revision); it changes with every
        edit (keys rendering caches) and every registration."""
        with self._read() as c:
            return self._revision(c, scene_id)

    def base(self, scene_id: str) -> SceneGraph:
        """The graph the scene was registered with."""
        with self._read() as c:
            text = self._base(c, scene_id)
        return loads(text)

    # ----- the log
    @staticmethod
    def _record(row: tuple) -> EditRecord:
        return SceneStore._parsed(row)[0]

    @staticmethod
    def _parsed(row: tuple) -> tuple[EditRecord, list[Any]]:
        """The log row as a record, and its changes' documents (the dicts :func:`change_to_dict` made)."""
        scene_id, seq, actor, op, utterance, ts, changes, state = row
        try:
            items = json.loads(changes)
        except ValueError as exc:
            raise StoreError(f"scene {scene_id}: edit {seq} has unreadable changes: {exc}") from None
        if not isinstance(items, list):
            raise StoreError(f"scene {scene_id}: edit {seq} changes are not a list")
        kind, robot = parse_actor(actor)
        record = EditRecord(seq, scene_id, kind, op, utterance, ts,
                            tuple(change_from_dict(d, where=f"edit {seq} change {i + 1}")
                                  for i, d in enumerate(items)),
                            EditState(state), robot)
        return record, items

    _COLUMNS = "scene_id, seq, actor, op, utterance, ts, changes, state"

    def edits(self, scene_id: str, include_undone: bool = False, *,
              perception: bool | None = None) -> list[EditRecord]:
        """The scene's active edits in order; with ``include_undone`` also undone and discarded ones;
        ``perception`` False: only those of people and robots (not perception's, which are not read), True:
        only perception's."""
        where = "" if include_undone else " AND state = 'active'"
        params: list[str] = [scene_id]
        if perception is not None:
            where += f" AND {'' if perception else 'NOT '}(actor = ? OR actor LIKE ?)"
            params += ["perception", "perception:%"]
        with self._read() as c:
            self._row(c, scene_id, "id")
            rows = c.execute(f"SELECT {self._COLUMNS} FROM edits WHERE scene_id = ?{where} ORDER BY seq",
                             params).fetchall()
        return [self._record(r) for r in rows]

    def _save(self, c: Transaction, scene_id: str, changes: tuple[Change, ...], now: str,
              texts: Sequence[str | None] | None = None) -> tuple[str, int]:
        """Write the rows ``changes`` touch (``texts``: each change's ``after`` object as JSON text, when
        made); returns the new revision key (as :meth:`_revision` reads it: the cache is keyed by it)."""
        self._write_changes(c, scene_id, changes, texts)
        delta = sum((ch.after is None) - (ch.before is None)
                    for ch in changes if isinstance(ch, ObjectChange))
        column = "registration" if self._db().registrations else "''"  # as _revision reads it
        row = c.execute("UPDATE scenes SET n_objects = n_objects - ?, updated_at = ?, "
                        f"revision = revision + 1 WHERE id = ? RETURNING {column}, revision",
                        (delta, now, scene_id)).fetchone()
        return (row[0], int(row[1]))

    @contextmanager
    def _editing(self, scene_id: str, registration: str | None = None
                 ) -> Iterator[tuple[Transaction, SceneGraph | None]]:
        """A write transaction and the store's graph of the scene when it holds the committed revision
        (None otherwise: the edit is then checked against the rows, without reading the whole graph);
        on any error the graph (which the caller may have changed) is forgotten. ``registration``: the
        registration the caller planned on (:class:`SceneReplacedError` when it is gone)."""
        with self._lock:
            try:
                with self._write() as c:
                    key = self._registered(c, scene_id, registration)
                    hit = self._cache.get(scene_id)
                    yield c, hit[1] if hit is not None and hit[0] == key else None
            except BaseException:
                self._cache.pop(scene_id, None)
                raise

    def _registered(self, c: Transaction, scene_id: str, registration: str | None) -> tuple[str, int]:
        """The scene's revision key, checked against the ``registration`` a writer planned on."""
        if registration is None:
            return self._revision(c, scene_id)
        row = c.execute("SELECT registration, revision FROM scenes WHERE id = ?", (scene_id,)).fetchone()
        if row is None or row[0] != registration:
            now = "dropped" if row is None else "dropped and registered again (another scene under that id)"
            raise SceneReplacedError(f"scene {scene_id} was {now} since this edit was planned on it; "
                                     "nothing was written")
        return (row[0], int(row[1]))

    #: From this many changes on, an edit the store holds no graph for reads the scene's rows once (and
    #: keeps the graph) instead of reading each row it touches (an update of a big scene, its undo)
    _READ_WHOLE = 1000

    def _change(self, c: Transaction, scene_id: str, graph: SceneGraph | None,
                changes: tuple[Change, ...]) -> SceneGraph | None:
        """Check ``changes`` against the committed state (and apply them to the held graph); returns the
        graph held now (read here for a large edit)."""
        if graph is None and len(changes) >= self._READ_WHOLE:
            hit = self._cache.get(scene_id)
            graph = self._load_rows(c, scene_id, hit[1].rooms if hit is not None and
                                    hit[0][0] == self._revision(c, scene_id)[0] else None)
        if graph is not None:
            apply_changes(graph, changes)
        else:
            check_changes(_StoredRows(c, scene_id), changes)
        return graph

    def _remember(self, scene_id: str, revision: tuple[str, int], graph: SceneGraph | None) -> None:
        if graph is None:
            self._cache.pop(scene_id, None)
        else:
            self._cache[scene_id] = (revision, graph)

    def apply(self, scene_id: str, request: EditRequest, *, registration: str | None = None) -> EditRecord:
        """Validate and log one edit, and write the rows it changes, in one transaction.

        The edit is checked against the committed graph (an edit built on a graph another writer has
        changed since is refused). ``registration``: the registration id of the scene the edit was
        planned on (:meth:`snapshot`); when the scene has been dropped or registered again since,
        :class:`SceneReplacedError`. On any error nothing is written and the error propagates. Any redo
        stack is discarded.
        """
        return self.apply_all(scene_id, [request], registration=registration)[0]

    def apply_all(self, scene_id: str, requests: Sequence[EditRequest], *,
                  registration: str | None = None) -> list[EditRecord]:
        """Apply several edits in order in one transaction: all of them are logged, or (on any error)
        none. Each is checked against the state the ones before it leave; any redo stack is discarded.
        ``registration`` as for :meth:`apply`."""
        requests = list(requests)
        for request in requests:
            if not isinstance(request, EditRequest):
                raise SceneError(f"apply needs an EditRequest, got {type(request).__name__}")
        if not requests:
            return []
        with collector_paused():
            return self._apply_all(scene_id, requests, registration)

    def _apply_all(self, scene_id: str, requests: list[EditRequest], registration: str | None
                   ) -> list[EditRecord]:
        documents = [_change_texts(r.changes) for r in requests]
        records = []
        with self._editing(scene_id, registration) as (c, graph):
            now = _now()
            seq = c.execute("SELECT COALESCE(MAX(seq), 0) FROM edits WHERE scene_id = ?",
                            (scene_id,)).fetchone()[0]
            # the redo stack is discarded only once the edits are accepted: a refused edit's message
            # names the log as it stays (an undone edit is "undone", not "discarded")
            undone = c.execute("SELECT seq FROM edits WHERE scene_id = ? AND state = 'undone'",
                               (scene_id,)).fetchall()
            for request, (payload, texts) in zip(requests, documents, strict=True):
                try:
                    graph = self._change(c, scene_id, graph, request.changes)
                except SceneError as exc:
                    raise self._conflict(c, scene_id, request.changes, exc) from None
                seq += 1
                c.execute(f"INSERT INTO edits ({self._COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, 'active')",
                          (scene_id, seq, request.who, request.op, request.utterance, now, payload))
                revision = self._save(c, scene_id, request.changes, now, texts)
                self._event(c, scene_id, "edit", request.who, _touched(request.changes), now)
                records.append(EditRecord(seq, scene_id, request.actor, request.op, request.utterance, now,
                                          request.changes, EditState.ACTIVE, request.robot))
            c.executemany("UPDATE edits SET state = 'discarded' WHERE scene_id = ? AND seq = ?",
                          [(scene_id, r[0]) for r in undone])
        self._remember(scene_id, revision, graph)
        return records

    #: how far back the log is searched for the edit that made another one a conflict
    _CONFLICT_LOOKBACK = 500

    def _conflict(self, c: Transaction, scene_id: str, changes: Sequence[Change],
                  exc: SceneError) -> SceneError:
        """The error for an edit the committed state refuses: when a logged edit changed one of its
        objects, a :class:`ConflictError` naming the object and that (newer) edit; else ``exc``."""
        touched = set(_touched(changes))
        own = {ch.object_id for ch in changes if isinstance(ch, ObjectChange)}  # named first: what it edits
        rows = c.execute(f"SELECT {self._COLUMNS} FROM edits WHERE scene_id = ? ORDER BY seq DESC "
                         f"LIMIT {self._CONFLICT_LOOKBACK}", (scene_id,)).fetchall()
        for row in rows:
            record = self._record(row)
            hit = sorted(touched & set(_touched(record.changes)), key=lambda oid: (oid not in own, oid))
            if hit:
                return ConflictError(
                    f"{exc}: object {hit[0]} was changed by edit #{record.seq} ({record.who}, "
                    f"{record.state}, {record.timestamp}: {record.summary()}) since this edit was made; "
                    "nothing was written")
        return exc

    def _step(self, scene_id: str, undo: bool, actor: str, expect: int | None) -> EditRecord | None:
        with collector_paused():
            return self._step_paused(scene_id, undo, actor, expect)

    def _step_paused(self, scene_id: str, undo: bool, actor: str, expect: int | None) -> EditRecord | None:
        if undo:
            order, state, new = "DESC", "active", EditState.UNDONE
        else:
            order, state, new = "ASC", "undone", EditState.ACTIVE
        with self._editing(scene_id) as (c, graph):
            row = c.execute(f"SELECT {self._COLUMNS} FROM edits WHERE scene_id = ? AND state = ? "
                            f"ORDER BY seq {order} LIMIT 1", (scene_id, state)).fetchone()
            record, items = (None, []) if row is None else self._parsed(row)
            if expect is not None and (record is None or record.seq != expect):
                raise self._stale_step(c, scene_id, undo, expect, record)
            if record is None:
                return None
            changes = invert(record.changes) if undo else record.changes
            # the rows' documents as logged (read back strictly above): each object is not made again
            side = "before" if undo else "after"
            texts = [_JSON.encode(item[side]) if isinstance(item.get(side), dict) else None
                     for item in (reversed(items) if undo else items)]
            graph = self._change(c, scene_id, graph, changes)
            c.execute("UPDATE edits SET state = ? WHERE scene_id = ? AND seq = ?",
                      (new.value, scene_id, record.seq))
            now = _now()
            revision = self._save(c, scene_id, changes, now, texts)
            self._event(c, scene_id, "undo" if undo else "redo", actor, _touched(changes), now)
        self._remember(scene_id, revision, graph)
        return replace(record, state=new)

    def _stale_step(self, c: Transaction, scene_id: str, undo: bool, expect: int,
                    record: EditRecord | None) -> ConflictError:
        """The error for an undo / redo of edit ``expect`` when another is now first in line (``record``)."""
        verb, line = ("undo", "newest active") if undo else ("redo", "oldest undone")
        row = c.execute(f"SELECT {self._COLUMNS} FROM edits WHERE scene_id = ? AND seq = ?",
                        (scene_id, expect)).fetchone()
        now = "is not in the log any more" if row is None else f"is {self._record(row).state} now"
        if record is not None:
            now = (f"is no longer the {line} edit: edit #{record.seq} ({record.who}, {record.state}, "
                   f"{record.timestamp}: {record.summary()}) is, since another writer changed the log")
        return ConflictError(f"{verb} of edit #{expect} of scene {scene_id} refused: edit #{expect} {now}; "
                             "nothing was changed")

    def undo(self, scene_id: str, *, actor: str = "user", expect: int | None = None) -> EditRecord | None:
        """Revert the newest active edit; returns it (now ``undone``), or None when there is none.

        ``expect``: the seq of the edit the caller means (the newest it showed); when another writer
        has changed the log since, so that this is no longer the newest active edit, a
        :class:`ConflictError` names the edit that is, and nothing is changed."""
        return self._step(scene_id, undo=True, actor=actor, expect=expect)

    def redo(self, scene_id: str, *, actor: str = "user", expect: int | None = None) -> EditRecord | None:
        """Re-apply the oldest undone edit; returns it (active again), or None when there is none.
        ``expect``: as for :meth:`undo` (the oldest undone edit the caller showed)."""
        return self._step(scene_id, undo=False, actor=actor, expect=expect)

    def reset(self, scene_id: str, *, actor: str = "user") -> None:
        """Return the scene to its base graph; every edit stays in the log marked ``discarded``."""
        with self._editing(scene_id) as (c, _):
            base = loads(self._base(c, scene_id))
            self._insert_rows(c, scene_id, base)
            now = _now()
            c.execute("UPDATE scenes SET n_objects = ?, updated_at = ?, revision = revision + 1 "
                      "WHERE id = ?", (len(base), now, scene_id))
            c.execute("UPDATE edits SET state = 'discarded' WHERE scene_id = ? AND state != 'discarded'",
                      (scene_id,))
            revision = self._revision(c, scene_id)
            self._event(c, scene_id, "reset", actor, (), now)
        self._cache[scene_id] = (revision, base)

    def drop(self, scene_id: str, *, actor: str = "user") -> None:
        """Delete a scene, its base graph and its whole edit log (the only operation that forgets edits;
        the event log keeps that it was dropped)."""
        with self._write() as c:
            self._row(c, scene_id, "id")
            for table, column in (("edits", "scene_id"), ("edges", "scene_id"), ("objects", "scene_id"),
                                  ("bases", "scene_id"), ("scenes", "id")):
                c.execute(f"DELETE FROM {table} WHERE {column} = ?", (scene_id,))
            self._event(c, scene_id, "drop", actor, (), _now())
        self._cache.pop(scene_id, None)

    def replay(self, scene_id: str) -> SceneGraph:
        """The base graph with every active edit re-applied in order."""
        with self._read() as c:
            return self._replay(c, scene_id)

    def _replay(self, c: Transaction, scene_id: str) -> SceneGraph:
        graph = loads(self._base(c, scene_id))
        rows = c.execute(f"SELECT {self._COLUMNS} FROM edits WHERE scene_id = ? AND state = 'active' "
                         "ORDER BY seq", (scene_id,)).fetchall()
        for row in rows:
            record = self._record(row)
            try:
                apply_changes(graph, record.changes)
            except SceneError as exc:
                raise ReplayError(f"scene {scene_id}: edit {record.seq} does not replay: {exc}") from None
        return graph

    def verify(self, scene_id: str) -> bool:
        """Whether the stored rows equal the replay of the base graph and the active edits.

        False also when the log does not replay or a stored document is unreadable; an unknown scene
        raises :class:`SceneError`.
        """
        with self._read() as c:
            self._row(c, scene_id, "id")
            try:
                return _canonical(self._replay(c, scene_id)) == _canonical(self._load_rows(c, scene_id))
            except SceneError:
                return False
