"""The persistent scene store: base graphs, current snapshots and an undoable edit log in SQLite.

One file (default ``platformdirs.user_data_dir("synergai")/synergai.sqlite3``) holds every scene the
user has opened. Each scene keeps the graph it was built as (``base``), how it was built (``source``),
the current graph (``current``, a snapshot) and its edits, numbered ``seq`` = 1, 2, ... per scene.
``current`` always equals ``base`` plus the active edits in order (:meth:`SceneStore.verify`).

Concurrency and crashes: WAL journal, ``synchronous=FULL``, every write is one ``BEGIN IMMEDIATE``
transaction that re-reads the snapshot, validates, appends the log row and rewrites the snapshot
before ``COMMIT``; a killed process leaves either all of an edit or none of it. Several processes can
open the same file (a busy timeout waits for a writer); one :class:`SceneStore` may be shared between
threads (a lock serialises its connection). Reads always go to the database, so a store sees edits
other processes committed.

Undo / redo: undo reverts the newest active edit (state ``undone``); redo re-applies the oldest undone
one. A new edit after an undo discards the redo stack: those records stay in the log, marked
``discarded``. :meth:`SceneStore.reset` returns a scene to its base graph and marks every edit
``discarded``; :meth:`SceneStore.drop` deletes a scene and its log.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import platformdirs

from synergai.scene.edits import (
    Actor,
    EditRecord,
    EditRequest,
    EditState,
    apply_changes,
    change_from_dict,
    change_to_dict,
    invert,
)
from synergai.scene.hierarchy import compute_levels
from synergai.scene.model import SceneError, SceneGraph
from synergai.scene.serialization import dumps, graph_to_dict, loads

SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 30.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scenes (
    id         TEXT PRIMARY KEY,
    source     TEXT NOT NULL,
    base       TEXT NOT NULL,
    current    TEXT NOT NULL,
    n_objects  INTEGER NOT NULL,
    revision   INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS edits (
    scene_id  TEXT NOT NULL REFERENCES scenes(id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL CHECK (seq > 0),
    actor     TEXT NOT NULL CHECK (actor IN ('perception', 'user', 'agent')),
    op        TEXT NOT NULL,
    utterance TEXT NOT NULL,
    ts        TEXT NOT NULL,
    changes   TEXT NOT NULL,
    state     TEXT NOT NULL CHECK (state IN ('active', 'undone', 'discarded')),
    PRIMARY KEY (scene_id, seq)
);
"""


class StoreError(SceneError):
    """The store file cannot be used (not a database, newer schema, closed store)."""


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


class SceneStore:
    """Scenes, their snapshots and their edit logs in one SQLite file; see the module doc-string."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        # scene id -> ((created_at, revision), parsed current snapshot)
        self._cache: dict[str, tuple[tuple[str, int], SceneGraph]] = {}
        try:
            self._conn = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            self._setup()
        except StoreError:
            self.close()
            raise
        except sqlite3.Error as exc:
            self.close()
            raise StoreError(f"cannot open scene store {self.path}: {exc}") from None

    # ----- connection
    def _setup(self) -> None:
        conn = self._db()
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        with self._write() as c:
            version = c.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, SCHEMA_VERSION):
                raise StoreError(f"scene store {self.path} has schema version {version}; "
                                 f"this synergai reads version {SCHEMA_VERSION}")
            if version == 0:
                for stmt in _SCHEMA.split(";"):
                    if stmt.strip():
                        c.execute(stmt)
                c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"scene store {self.path} is closed")
        return self._conn

    def _error(self, exc: sqlite3.Error) -> StoreError:
        return StoreError(f"scene store {self.path}: {exc}")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: committed on success, rolled back on any error."""
        with self._lock:
            conn = self._db()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._error(exc) from exc
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise self._error(exc) from exc
                raise

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: every query inside sees the same committed state."""
        with self._lock:
            conn = self._db()
            try:
                conn.execute("BEGIN")
                yield conn
            except sqlite3.Error as exc:
                raise self._error(exc) from exc
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> SceneStore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # ----- scenes
    def register(self, graph: SceneGraph, source: dict[str, Any], *, replace_existing: bool = False) -> None:
        """Store ``graph`` as the base of scene ``graph.scene_id`` the first time it is seen.

        Levels are recomputed with ``compute_levels`` (the store's invariant: every stored graph's levels
        come from its support edges). Registering a known scene again keeps its current state and edits
        when ``source`` is the same; when ``source`` differs it raises :class:`SceneError`, unless
        ``replace_existing`` is set: then ``graph`` becomes the new base and current graph, the source is
        replaced and every earlier edit is kept in the log marked ``discarded``.
        """
        if not isinstance(graph, SceneGraph):
            raise SceneError(f"register needs a SceneGraph, got {type(graph).__name__}")
        src = _source_json(source)
        base = graph.copy()
        base.levels = compute_levels(base)
        text = dumps(base)
        now = _now()
        with self._write() as c:
            row = c.execute("SELECT source FROM scenes WHERE id = ?", (graph.scene_id,)).fetchone()
            if row is None:
                c.execute("INSERT INTO scenes (id, source, base, current, n_objects, created_at, updated_at) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?)",
                          (graph.scene_id, src, text, text, len(base), now, now))
            elif row[0] != src:
                if not replace_existing:
                    raise SceneError(f"scene {graph.scene_id} is already registered from source {row[0]}; "
                                     f"pass replace_existing=True to rebuild it from {src}")
                c.execute("UPDATE scenes SET source = ?, base = ?, current = ?, n_objects = ?, "
                          "updated_at = ?, revision = revision + 1 WHERE id = ?",
                          (src, text, text, len(base), now, graph.scene_id))
                c.execute("UPDATE edits SET state = 'discarded' WHERE scene_id = ? AND state != 'discarded'",
                          (graph.scene_id,))

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
        return [SceneInfo(r[0], json.loads(r[1]), r[2], r[4], r[3]) for r in rows]

    def source(self, scene_id: str) -> dict[str, Any]:
        """How the scene was built (the dict given to :meth:`register`)."""
        with self._read() as c:
            text = self._row(c, scene_id, "source")
        return json.loads(text)

    @staticmethod
    def _row(c: sqlite3.Connection, scene_id: str, column: str) -> Any:
        row = c.execute(f"SELECT {column} FROM scenes WHERE id = ?", (scene_id,)).fetchone()
        if row is None:
            raise SceneError(f"unknown scene {scene_id!r} in the scene store")
        return row[0]

    def load(self, scene_id: str) -> SceneGraph:
        """The scene's current graph (checked against the database: other processes' edits included)."""
        with self._read() as c:
            return self._current(c, scene_id)

    def _current(self, c: sqlite3.Connection, scene_id: str) -> SceneGraph:
        """A fresh copy of the committed snapshot, parsed once per revision."""
        key = self._revision(c, scene_id)
        hit = self._cache.get(scene_id)
        if hit is not None and hit[0] == key:
            return hit[1].copy()
        graph = loads(self._row(c, scene_id, "current"))
        self._cache[scene_id] = (key, graph.copy())
        return graph

    def _revision(self, c: sqlite3.Connection, scene_id: str) -> tuple[str, int]:
        """Identifies one committed snapshot (created_at tells a dropped and re-registered scene apart)."""
        row = c.execute("SELECT created_at, revision FROM scenes WHERE id = ?", (scene_id,)).fetchone()
        if row is None:
            raise SceneError(f"unknown scene {scene_id!r} in the scene store")
        return (row[0], int(row[1]))

    def revision(self, scene_id: str) -> tuple[str, int]:
        """Identifies the scene's committed snapshot; it changes with every edit (keys rendering caches)."""
        with self._read() as c:
            return self._revision(c, scene_id)

    def base(self, scene_id: str) -> SceneGraph:
        """The graph the scene was registered with."""
        with self._read() as c:
            text = self._row(c, scene_id, "base")
        return loads(text)

    # ----- the log
    @staticmethod
    def _record(row: tuple) -> EditRecord:
        scene_id, seq, actor, op, utterance, ts, changes, state = row
        try:
            items = json.loads(changes)
        except ValueError as exc:
            raise StoreError(f"scene {scene_id}: edit {seq} has unreadable changes: {exc}") from None
        if not isinstance(items, list):
            raise StoreError(f"scene {scene_id}: edit {seq} changes are not a list")
        return EditRecord(seq, scene_id, Actor(actor), op, utterance, ts,
                          tuple(change_from_dict(d, where=f"edit {seq} change {i + 1}")
                                for i, d in enumerate(items)),
                          EditState(state))

    _COLUMNS = "scene_id, seq, actor, op, utterance, ts, changes, state"

    def edits(self, scene_id: str, include_undone: bool = False) -> list[EditRecord]:
        """The scene's active edits in order; with ``include_undone`` also undone and discarded ones."""
        where = "" if include_undone else " AND state = 'active'"
        with self._read() as c:
            self._row(c, scene_id, "id")
            rows = c.execute(f"SELECT {self._COLUMNS} FROM edits WHERE scene_id = ?{where} ORDER BY seq",
                             (scene_id,)).fetchall()
        return [self._record(r) for r in rows]

    def _save(self, c: sqlite3.Connection, scene_id: str, graph: SceneGraph, now: str) -> tuple[str, int]:
        """Write the snapshot; returns its new revision key."""
        c.execute("UPDATE scenes SET current = ?, n_objects = ?, updated_at = ?, revision = revision + 1 "
                  "WHERE id = ?", (dumps(graph), len(graph), now, scene_id))
        return self._revision(c, scene_id)

    def apply(self, scene_id: str, request: EditRequest) -> EditRecord:
        """Validate and log one edit, and update the snapshot, in one transaction.

        On any error nothing is written and the error propagates. Any redo stack is discarded.
        """
        if not isinstance(request, EditRequest):
            raise SceneError(f"apply needs an EditRequest, got {type(request).__name__}")
        payload = json.dumps([change_to_dict(ch) for ch in request.changes], allow_nan=False,
                             ensure_ascii=False)
        with self._write() as c:
            graph = self._current(c, scene_id)
            apply_changes(graph, request.changes)
            now = _now()
            seq = c.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM edits WHERE scene_id = ?",
                            (scene_id,)).fetchone()[0]
            c.execute("UPDATE edits SET state = 'discarded' WHERE scene_id = ? AND state = 'undone'",
                      (scene_id,))
            c.execute(f"INSERT INTO edits ({self._COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, 'active')",
                      (scene_id, seq, request.actor.value, request.op, request.utterance, now, payload))
            revision = self._save(c, scene_id, graph, now)
        # committed: remember the parsed snapshot (keyed by revision, so a late write here is harmless)
        self._cache[scene_id] = (revision, graph)
        return EditRecord(seq, scene_id, request.actor, request.op, request.utterance, now,
                          request.changes, EditState.ACTIVE)

    def _step(self, scene_id: str, undo: bool) -> EditRecord | None:
        if undo:
            order, state, new = "DESC", "active", EditState.UNDONE
        else:
            order, state, new = "ASC", "undone", EditState.ACTIVE
        with self._write() as c:
            graph = self._current(c, scene_id)
            row = c.execute(f"SELECT {self._COLUMNS} FROM edits WHERE scene_id = ? AND state = ? "
                            f"ORDER BY seq {order} LIMIT 1", (scene_id, state)).fetchone()
            if row is None:
                return None
            record = self._record(row)
            apply_changes(graph, invert(record.changes) if undo else record.changes)
            c.execute("UPDATE edits SET state = ? WHERE scene_id = ? AND seq = ?",
                      (new.value, scene_id, record.seq))
            revision = self._save(c, scene_id, graph, _now())
        self._cache[scene_id] = (revision, graph)
        return replace(record, state=new)

    def undo(self, scene_id: str) -> EditRecord | None:
        """Revert the newest active edit; returns it (now ``undone``), or None when there is none."""
        return self._step(scene_id, undo=True)

    def redo(self, scene_id: str) -> EditRecord | None:
        """Re-apply the oldest undone edit; returns it (active again), or None when there is none."""
        return self._step(scene_id, undo=False)

    def reset(self, scene_id: str) -> None:
        """Return the scene to its base graph; every edit stays in the log marked ``discarded``."""
        with self._write() as c:
            base = self._row(c, scene_id, "base")
            c.execute("UPDATE scenes SET current = ?, n_objects = ?, updated_at = ?, revision = revision + 1 "
                      "WHERE id = ?", (base, len(loads(base)), _now(), scene_id))
            c.execute("UPDATE edits SET state = 'discarded' WHERE scene_id = ? AND state != 'discarded'",
                      (scene_id,))

    def drop(self, scene_id: str) -> None:
        """Delete a scene, its base graph and its whole edit log (the only operation that forgets edits)."""
        with self._write() as c:
            self._row(c, scene_id, "id")
            c.execute("DELETE FROM edits WHERE scene_id = ?", (scene_id,))
            c.execute("DELETE FROM scenes WHERE id = ?", (scene_id,))
        self._cache.pop(scene_id, None)

    def replay(self, scene_id: str) -> SceneGraph:
        """The base graph with every active edit re-applied in order."""
        with self._read() as c:
            graph, _ = self._replay(c, scene_id)
        return graph

    def _replay(self, c: sqlite3.Connection, scene_id: str) -> tuple[SceneGraph, str]:
        graph = loads(self._row(c, scene_id, "base"))
        current = self._row(c, scene_id, "current")
        rows = c.execute(f"SELECT {self._COLUMNS} FROM edits WHERE scene_id = ? AND state = 'active' "
                         "ORDER BY seq", (scene_id,)).fetchall()
        for row in rows:
            record = self._record(row)
            try:
                apply_changes(graph, record.changes)
            except SceneError as exc:
                raise ReplayError(f"scene {scene_id}: edit {record.seq} does not replay: {exc}") from None
        return graph, current

    def verify(self, scene_id: str) -> bool:
        """Whether the stored snapshot equals the replay of the base graph and the active edits.

        False also when the log does not replay or a stored document is unreadable; an unknown scene
        raises :class:`SceneError`.
        """
        with self._read() as c:
            self._row(c, scene_id, "id")
            try:
                graph, current = self._replay(c, scene_id)
                return _canonical(graph) == _canonical(loads(current))
            except SceneError:
                return False
