"""The scene store's SQLite layer: one file, WAL journal, ``synchronous=FULL``.

A file is recognised before anything is written to it (``PRAGMA application_id``): a new empty file
is initialised, an older synergai store is migrated (version 1 kept one JSON snapshot per scene,
version 2 had no event log, version 3 no registration ids), anything else (another program's SQLite
file) is refused untouched. A store this user cannot write is opened for reading only.

Writers take turns (``BEGIN IMMEDIATE``; a busy timeout waits up to :data:`LOCK_WAIT_S` for another
process's writer, then :class:`StoreBusy` names the process holding the lock, as ``/proc/locks``
tells it); readers use plain read transactions and never wait. A version-2 store whose write lock
another process holds is not migrated at opening: it is read as it is (``scene list`` answers at
once) and migrated by this session's first write. Before a write commits, the file's identity (device
and inode) is compared with the one opened: a file removed or replaced under a running session is
detected, the write rolled back and the store refuses every later write (:class:`StoreLost`).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from synergai.scene.serialization import loads, object_to_dict
from synergai.scene.store_db import LOCK_WAIT_S, SCHEMA_VERSION, StoreBusy, StoreError, StoreLost

#: ``PRAGMA application_id`` of a synergai store ("SYNG"): a file without it is not written to.
APPLICATION_ID = 0x53594E47
BUSY_TIMEOUT_S = LOCK_WAIT_S
#: The byte a writer locks: in WAL mode in the ``-shm`` file (WAL_WRITE_LOCK), else the file's RESERVED byte.
_WAL_WRITE_BYTE = 120
_RESERVED_BYTE = 0x40000001
#: How often a change-feed reader looks at ``PRAGMA data_version`` (a read of a shared-memory counter).
POLL_S = 0.02

_SCHEMA_V2 = """
CREATE TABLE scenes (
    id         TEXT PRIMARY KEY,
    source     TEXT NOT NULL,
    n_objects  INTEGER NOT NULL,
    revision   INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    scene_type TEXT
);
CREATE TABLE edits (
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
#: The base graph and the current graph: one row per object and per edge (rowid order = the graph's
#: insertion order).
_ROWS_SCHEMA = """
CREATE TABLE bases (
    scene_id TEXT PRIMARY KEY REFERENCES scenes(id) ON DELETE CASCADE,
    graph    TEXT NOT NULL
);
CREATE TABLE objects (
    scene_id TEXT NOT NULL REFERENCES scenes(id) ON DELETE CASCADE,
    id       TEXT NOT NULL,
    data     TEXT NOT NULL,
    UNIQUE (scene_id, id)
);
CREATE TABLE edges (
    scene_id   TEXT NOT NULL REFERENCES scenes(id) ON DELETE CASCADE,
    subject    TEXT NOT NULL,
    relation   TEXT NOT NULL,
    object     TEXT NOT NULL,
    provenance TEXT NOT NULL,
    UNIQUE (scene_id, subject, relation, object)
);
CREATE INDEX edges_by_object ON edges (scene_id, object);
"""
#: Version 3: the edit log without a fixed list of actors (who may edit is checked by
#: :class:`~synergai.scene.edits.Actor`), and the event log behind the change feed (one global sequence;
#: it outlives a dropped scene).
_V3_EDITS = """
CREATE TABLE edits_v3 (
    scene_id  TEXT NOT NULL REFERENCES scenes(id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL CHECK (seq > 0),
    actor     TEXT NOT NULL,
    op        TEXT NOT NULL,
    utterance TEXT NOT NULL,
    ts        TEXT NOT NULL,
    changes   TEXT NOT NULL,
    state     TEXT NOT NULL CHECK (state IN ('active', 'undone', 'discarded')),
    PRIMARY KEY (scene_id, seq)
);
INSERT INTO edits_v3 SELECT scene_id, seq, actor, op, utterance, ts, changes, state FROM edits;
DROP TABLE edits;
ALTER TABLE edits_v3 RENAME TO edits
"""
_EVENTS_SCHEMA = """
CREATE TABLE events (
    seq        INTEGER PRIMARY KEY,
    scene_id   TEXT NOT NULL,
    kind       TEXT NOT NULL,
    actor      TEXT NOT NULL,
    object_ids TEXT NOT NULL,
    at         TEXT NOT NULL
);
CREATE INDEX events_by_scene ON events (scene_id, seq);
"""
#: Version 4: each scene's registration id (every scene already stored gets one of its own).
_V4_REGISTRATION = """
ALTER TABLE scenes ADD COLUMN registration TEXT NOT NULL DEFAULT '';
UPDATE scenes SET registration = lower(hex(randomblob(16)))
"""


def _statements(script: str) -> list[str]:
    return [stmt for stmt in script.split(";") if stmt.strip()]


def _locked_by(file: Path, byte: int) -> int | None:
    """The pid holding a write lock on ``byte`` of ``file``, read from ``/proc/locks`` (Linux; None
    elsewhere or when nobody holds it). Never ``fcntl(F_GETLK)``: closing a descriptor of the file
    would drop the POSIX locks this process's own SQLite connections hold on it."""
    try:
        st = os.stat(file)
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return None
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in lines:
        parts = line.split()
        if len(parts) < 8 or parts[1] == "->" or parts[3] != "WRITE" or parts[5] != inode:
            continue
        start, end = parts[6], parts[7]
        if int(start) <= byte and (end == "EOF" or byte <= int(end)):
            return int(parts[4])
    return None


def lock_holder(path: Path) -> str:
    """Who holds the store's write lock: ``process 1234 (python3)``, as far as this system tells."""
    pid = _locked_by(Path(f"{path}-shm"), _WAL_WRITE_BYTE) or _locked_by(path, _RESERVED_BYTE)
    if pid is None:
        return "another connection (its process could not be found)"
    if pid == os.getpid():
        return f"another connection of this process (pid {pid})"
    try:
        name = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        name = ""
    return f"process {pid}" + (f" ({name!r})" if name else "")


class _Tx:
    """A transaction on the SQLite connection (``?`` placeholders are SQLite's own)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self.conn.executemany(sql, rows)

    def copy_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        marks = ", ".join("?" for _ in columns)
        self.conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    def update_rows(self, table: str, keys: Sequence[str], values: Sequence[str],
                    rows: Sequence[Sequence[Any]]) -> None:
        n = len(keys)
        self.conn.executemany(f"UPDATE {table} SET {', '.join(f'{v} = ?' for v in values)} "
                              f"WHERE {' AND '.join(f'{k} = ?' for k in keys)}",
                              ((*row[n:], *row[:n]) for row in rows))

    def delete_rows(self, table: str, keys: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        self.conn.executemany(f"DELETE FROM {table} WHERE {' AND '.join(f'{k} = ?' for k in keys)}", rows)


class SqliteDatabase:
    """One SQLite store file (see the module doc-string)."""

    order = "rowid"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)
        self.read_only = False
        self._conn: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None
        self._lost: str | None = None
        self._upgraded = False  # the file holds the current schema (else the first write migrates it)
        self.registrations = True  # False while an older store is read before its migration
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                         check_same_thread=False)
            self._setup()
        except StoreError:
            self.close()
            raise
        except (sqlite3.Error, OSError) as exc:
            self.close()
            unwritable = isinstance(exc, sqlite3.OperationalError) and self.path.is_file() and (
                not os.access(self.path, os.W_OK) or "readonly" in str(exc) or "unable to open" in str(exc))
            if not unwritable:
                raise StoreError(f"cannot open scene store {self.path}: {exc}") from None
            self._open_read_only(exc)
        self._identity = self._stat()

    def _stat(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino)

    def _open_read_only(self, why: Exception) -> None:
        """Open a store this process cannot write, for reading only. Without write access to the
        store's directory SQLite cannot make the WAL index; the file is then read as it is on disk
        (``immutable``: what another process commits meanwhile is not seen)."""
        where = quote(str(self.path.resolve()))
        for options in ("mode=ro", "mode=ro&immutable=1"):
            try:
                self._conn = sqlite3.connect(f"file:{where}?{options}", uri=True, timeout=BUSY_TIMEOUT_S,
                                             isolation_level=None, check_same_thread=False)
                self._conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
                if self._kind(self._conn) != "ours":
                    raise StoreError(f"scene store {self.path} cannot be written and is not initialised "
                                     "(or has an older schema)")
                self.read_only = True
                return
            except sqlite3.Error:
                self.close()
            except StoreError:
                self.close()
                raise
        raise StoreError(f"cannot open scene store {self.path}: {why}")

    def _setup(self) -> None:
        """Recognise the file before writing to it: ours, new and empty (initialised), an older
        synergai store (migrated; a version-2 store whose write lock another process holds is read as
        it is and migrated by the first write), or anything else (refused, untouched)."""
        conn = self._db()
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        kind = self._kind(conn)
        if kind == "new":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        self._upgraded = kind == "ours"
        self.registrations = kind not in ("v2", "v3")
        if self._upgraded:
            return
        if kind not in ("v2", "v3"):
            with self.write():  # initialises or migrates (waits for another writer, bounded)
                pass
            return
        conn.execute("PRAGMA busy_timeout = 0")  # a reader of an older store does not wait to migrate it
        try:
            with self.write():
                pass
        except StoreBusy:
            pass
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")

    def _upgrade(self, conn: sqlite3.Connection) -> None:
        """Initialise a new file or migrate an older store (in the caller's write transaction)."""
        kind = self._kind(conn)  # another process may have done it meanwhile
        if kind == "new":
            for stmt in _statements(_SCHEMA_V2 + _ROWS_SCHEMA):
                conn.execute(stmt)
        if kind == "v1":
            self._migrate_v1(conn)
        if kind in ("new", "v1", "v2"):
            for stmt in _statements(_V3_EDITS + ";" + _EVENTS_SCHEMA):
                conn.execute(stmt)
        if kind in ("new", "v1", "v2", "v3"):
            for stmt in _statements(_V4_REGISTRATION):
                conn.execute(stmt)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _kind(self, conn: sqlite3.Connection) -> str:
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if app == APPLICATION_ID:
            if version in (2, 3):
                return f"v{version}"
            if version != SCHEMA_VERSION:
                raise StoreError(f"scene store {self.path} has schema version {version}; "
                                 f"this synergai reads version {SCHEMA_VERSION}")
            return "ours"
        if app == 0 and version == 0 and not tables:
            return "new"
        if app == 0 and version == 1 and tables == {"scenes", "edits"}:
            return "v1"
        what = f"tables {', '.join(sorted(tables))}" if tables else f"application id {app}"
        raise StoreError(f"{self.path} is not a synergai scene store ({what}); "
                         "nothing was written to it: choose another --db")

    @staticmethod
    def _migrate_v1(c: sqlite3.Connection) -> None:
        """Version 1 kept the current graph as one JSON snapshot per scene: split it into rows."""
        for stmt in _statements(_ROWS_SCHEMA):
            c.execute(stmt)
        c.execute("ALTER TABLE scenes ADD COLUMN scene_type TEXT")
        for scene_id, base, current in c.execute("SELECT id, base, current FROM scenes").fetchall():
            graph = loads(current)
            objects = ((scene_id, o.id, json.dumps(object_to_dict(o), ensure_ascii=False)) for o in graph)
            edges = ((scene_id, e.subject, e.relation.value, e.object, e.provenance) for e in graph.edges)
            c.executemany("INSERT INTO objects (scene_id, id, data) VALUES (?, ?, ?)", objects)
            c.executemany("INSERT INTO edges (scene_id, subject, relation, object, provenance) "
                          "VALUES (?, ?, ?, ?, ?)", edges)
            c.execute("INSERT INTO bases (scene_id, graph) VALUES (?, ?)", (scene_id, base))
            c.execute("UPDATE scenes SET scene_type = ? WHERE id = ?", (graph.scene_type, scene_id))
        c.execute("ALTER TABLE scenes DROP COLUMN current")
        c.execute("ALTER TABLE scenes DROP COLUMN base")

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"scene store {self.path} is closed")
        return self._conn

    def _error(self, exc: sqlite3.Error) -> StoreError:
        if isinstance(exc, sqlite3.OperationalError) and str(exc).startswith(("database is locked",
                                                                              "database is busy")):
            return StoreBusy(f"scene store {self.path}: the write lock was not free after "
                             f"{BUSY_TIMEOUT_S:.0f} s: held by {lock_holder(self.path)}; nothing was written")
        return StoreError(f"scene store {self.path}: {exc}")

    def replaced(self) -> bool:
        """Whether the file at the store's path is no longer the one opened (replaced or removed)."""
        return self._identity is not None and self._stat() != self._identity

    def _check_identity(self) -> None:
        """Refuse to acknowledge a write into a file that is no longer the one this session opened."""
        if self._lost is None and self._identity is not None and self._stat() != self._identity:
            self._lost = (f"scene store {self.path} was removed or replaced while this session had it open; "
                          "nothing more is saved: restart to open the store again")
        if self._lost is not None:
            raise StoreLost(self._lost)

    @contextmanager
    def write(self) -> Iterator[_Tx]:
        """One ``BEGIN IMMEDIATE`` transaction: committed on success, rolled back on any error (an
        older store is migrated first, in the same transaction)."""
        conn = self._db()
        if self.read_only:
            raise StoreError(f"scene store {self.path} cannot be written by this user: nothing was changed")
        self._check_identity()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        try:
            if not self._upgraded:
                self._upgrade(conn)
            yield _Tx(conn)
            self._check_identity()
            conn.execute("COMMIT")
            self._upgraded = self.registrations = True
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise self._error(exc) from exc
            raise

    @contextmanager
    def read(self) -> Iterator[_Tx]:
        """One read transaction (no write lock: WAL readers never wait for a writer)."""
        conn = self._db()
        try:
            conn.execute("BEGIN DEFERRED")
            yield _Tx(conn)
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        finally:
            if conn.in_transaction:
                try:
                    conn.execute("COMMIT")
                except sqlite3.Error as exc:
                    raise self._error(exc) from exc

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class SqliteWaker:
    """Wakes a change-feed reader when another connection commits to the file (``PRAGMA data_version``
    on a connection of its own)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._conn: sqlite3.Connection | None = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S,
                                                                    isolation_level=None,
                                                                    check_same_thread=False)
            self._version = self._data_version()
        except sqlite3.Error as exc:
            raise StoreError(f"scene store {path}: {exc}") from None

    def _data_version(self) -> int:
        assert self._conn is not None
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def wait(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self._conn is not None:
            try:
                version = self._data_version()
            except sqlite3.Error as exc:
                raise StoreError(f"scene store {self.path}: {exc}") from None
            if version != self._version:
                self._version = version
                return
            left = deadline - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(POLL_S, left))

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
