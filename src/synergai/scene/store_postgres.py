"""The scene store's PostgreSQL layer (psycopg 3), for a world model several machines share.

A database is recognised before anything is written to it: an empty schema is initialised, one
holding synergai's tables (``synergai_meta`` names the schema version) is used (version 3, without
registration ids, is migrated), anything else (another program's tables or views, also ones this role
may not see: the catalog ``pg_class`` is read, not ``information_schema``, which hides them) is refused
untouched. A role that may not write the store's tables opens it for reading only
(:attr:`PostgresDatabase.read_only`).

Writers take turns: each write is one transaction that first takes a transaction-level advisory
lock, so every edit is checked against the latest committed state and the event log's sequence is
gap-free and committed in order. Every lock wait is bounded (``lock_timeout``, :data:`LOCK_WAIT_S`):
a writer that does not get the lock in time fails with :class:`StoreBusy` naming the connection that
holds it (``pg_locks`` / ``pg_stat_activity``: its ``application_name``, which names our processes,
server pid, client address, state). Readers use ``REPEATABLE READ READ ONLY`` transactions (one
snapshot, MVCC: they never wait for a writer). A trigger on the event log sends ``NOTIFY synergai_events`` for
each event row, delivered when its transaction commits; a change-feed reader LISTENs (the notification
only wakes it; it then reads the log).
A connection the server closed is opened again at the next transaction.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from synergai.masking import mask_secrets
from synergai.scene.store_db import (
    LOCK_WAIT_S,
    SCHEMA_VERSION,
    StoreBusy,
    StoreError,
    StoreUnavailable,
    application_name,
)

#: The advisory lock every writer takes ("SYNG" as a number).
WRITE_LOCK = 0x53594E47
CHANNEL = "synergai_events"
CONNECT_TIMEOUT_S = 10
#: From this many rows on, an update or delete of many rows is one statement over a COPY (fewer rows: one
#: statement per row, sent together).
BULK_ROWS = 500
APPLICATION = "synergai"

_SCHEMA = """
CREATE TABLE synergai_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE scenes (
    id         TEXT PRIMARY KEY,
    source     TEXT NOT NULL,
    n_objects  INTEGER NOT NULL,
    revision   INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    scene_type TEXT,
    registration TEXT NOT NULL DEFAULT ''
);
CREATE TABLE edits (
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
CREATE TABLE bases (
    scene_id TEXT PRIMARY KEY REFERENCES scenes(id) ON DELETE CASCADE,
    graph    TEXT NOT NULL
);
CREATE TABLE objects (
    pos      BIGINT GENERATED ALWAYS AS IDENTITY,
    scene_id TEXT NOT NULL REFERENCES scenes(id) ON DELETE CASCADE,
    id       TEXT NOT NULL,
    data     TEXT NOT NULL,
    UNIQUE (scene_id, id)
);
CREATE TABLE edges (
    pos        BIGINT GENERATED ALWAYS AS IDENTITY,
    scene_id   TEXT NOT NULL REFERENCES scenes(id) ON DELETE CASCADE,
    subject    TEXT NOT NULL,
    relation   TEXT NOT NULL,
    object     TEXT NOT NULL,
    provenance TEXT NOT NULL,
    UNIQUE (scene_id, subject, relation, object)
);
CREATE INDEX edges_by_object ON edges (scene_id, object);
CREATE TABLE events (
    seq        BIGINT PRIMARY KEY,
    scene_id   TEXT NOT NULL,
    kind       TEXT NOT NULL,
    actor      TEXT NOT NULL,
    object_ids TEXT NOT NULL,
    at         TEXT NOT NULL
);
CREATE INDEX events_by_scene ON events (scene_id, seq)
"""
#: Every event row wakes the feed's listeners when its transaction commits (payload: its seq).
_NOTIFY = [
    f"""CREATE FUNCTION synergai_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', NEW.seq::text);
    RETURN NULL;
END $$""",
    "CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION synergai_notify()",
]
#: Version 3 -> 4: each scene's registration id (every scene already stored gets one of its own).
_V4_REGISTRATION = [
    "ALTER TABLE scenes ADD COLUMN registration TEXT NOT NULL DEFAULT ''",
    "UPDATE scenes SET registration = md5(random()::text || clock_timestamp()::text || id)",
    f"UPDATE synergai_meta SET value = '{SCHEMA_VERSION}' WHERE key = 'schema_version'",
]
#: Whether this role may write what an edit writes (else the store is opened for reading only).
_WRITABLE = ("SELECT bool_and(has_table_privilege(t, p)) AND NOT pg_is_in_recovery() "
             "AND NOT current_setting('default_transaction_read_only')::bool FROM unnest("
             "ARRAY['scenes', 'edits', 'bases', 'objects', 'edges', 'events', 'scenes', 'edits', 'objects'], "
             "ARRAY['INSERT', 'INSERT', 'INSERT', 'INSERT', 'INSERT', 'INSERT', 'UPDATE', 'UPDATE', 'UPDATE']"
             ") AS w(t, p)")


def _one_line(exc: BaseException, url: str) -> str:
    """The error on one line, the credentials of ``url`` (and any other) masked in whatever form."""
    text = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip()) or type(exc).__name__
    return mask_secrets(text, url)


def unavailable(exc: BaseException) -> bool:
    """Whether a psycopg error means the server cannot be reached now (a later try may work), rather
    than something that stays until fixed (no permission, a bad password, a missing table)."""
    if not isinstance(exc, psycopg.OperationalError):
        return False
    state = exc.sqlstate
    return state is None or state.startswith("08") or state in ("57P01", "57P02", "57P03")


def connect(url: str, *, autocommit: bool = True) -> psycopg.Connection:
    """A connection to ``url`` named after this process, its lock waits bounded (:data:`LOCK_WAIT_S`);
    any failure is a one-line :class:`StoreError` naming the masked URL (:class:`StoreUnavailable`
    when the server cannot be reached)."""
    try:
        conn = psycopg.connect(url, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT_S,
                               application_name=application_name())
    except (psycopg.Error, ValueError) as exc:
        kind = StoreUnavailable if unavailable(exc) else StoreError
        raise kind(f"cannot open scene store {mask_secrets(url)}: {_one_line(exc, url)}") from None
    try:
        conn.execute(f"SET lock_timeout = {int(LOCK_WAIT_S * 1000)}")
        if not autocommit:
            conn.commit()
    except psycopg.Error as exc:
        conn.close()
        kind = StoreUnavailable if unavailable(exc) else StoreError
        raise kind(f"scene store {mask_secrets(url)}: {_one_line(exc, url)}") from None
    return conn


class _Tx:
    """A transaction on a psycopg connection: ``?`` placeholders become ``%s``. ``staging``: whether this
    role may create temporary tables (large updates and deletes go through one)."""

    def __init__(self, conn: psycopg.Connection, staging: bool = True) -> None:
        self.conn = conn
        self.staging = staging

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor:
        return self.conn.execute(sql.replace("?", "%s"), tuple(params))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self.conn.cursor() as cur:
            cur.executemany(sql.replace("?", "%s"), rows)

    def copy_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        with self.conn.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def _staged(self, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """The rows COPYed into the temporary table ``synergai_batch`` (text columns; it is dropped at
        commit, or by the caller once used)."""
        typed = ", ".join(f"{c} text" for c in columns)
        self.conn.execute(f"CREATE TEMPORARY TABLE synergai_batch ({typed}) ON COMMIT DROP")
        self.copy_rows("synergai_batch", columns, rows)
        self.conn.execute("ANALYZE synergai_batch")  # autovacuum never sees a temporary table

    def update_rows(self, table: str, keys: Sequence[str], values: Sequence[str],
                    rows: Sequence[Sequence[Any]]) -> None:
        n = len(keys)
        if len(rows) < BULK_ROWS or not self.staging:
            self.executemany(f"UPDATE {table} SET {', '.join(f'{v} = ?' for v in values)} "
                             f"WHERE {' AND '.join(f'{k} = ?' for k in keys)}",
                             ((*row[n:], *row[:n]) for row in rows))
            return
        last = {tuple(row[:n]): row for row in rows}  # one row per key: the last one wins, as in order
        self._staged([*keys, *values], list(last.values()))
        self.conn.execute(f"UPDATE {table} t SET {', '.join(f'{v} = b.{v}' for v in values)} "
                          f"FROM synergai_batch b WHERE {' AND '.join(f't.{k} = b.{k}' for k in keys)}")
        self.conn.execute("DROP TABLE synergai_batch")

    def delete_rows(self, table: str, keys: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        if len(rows) < BULK_ROWS or not self.staging:
            self.executemany(f"DELETE FROM {table} WHERE {' AND '.join(f'{k} = ?' for k in keys)}", rows)
            return
        self._staged(keys, rows)
        self.conn.execute(f"DELETE FROM {table} t USING synergai_batch b "
                          f"WHERE {' AND '.join(f't.{k} = b.{k}' for k in keys)}")
        self.conn.execute("DROP TABLE synergai_batch")


class PostgresDatabase:
    """One PostgreSQL database holding a synergai store (see the module doc-string)."""

    order = "pos"

    def __init__(self, url: str) -> None:
        self.url = url
        self.where = mask_secrets(url)
        self._conn: psycopg.Connection | None = connect(url)
        self._closed = False
        #: True when this role may not write the store's tables (or the server is read only)
        self.read_only = False
        self.registrations = True
        self._staging = False  # known after _setup: whether this role may create temporary tables
        try:
            self._setup()
        except BaseException:
            self.close()
            raise

    def _error(self, exc: BaseException) -> StoreError:
        kind = StoreUnavailable if unavailable(exc) else StoreError
        return kind(f"scene store {self.where}: {_one_line(exc, self.url)}")

    def replaced(self) -> bool:
        """A server's store is not a file: never replaced under a session."""
        return False

    def _db(self) -> psycopg.Connection:
        if self._closed:
            raise StoreError(f"scene store {self.where} is closed")
        if self._conn is None or self._conn.closed or self._conn.broken:
            if self._conn is not None:
                self._conn.close()
            self._conn = connect(self.url)
        return self._conn

    def _setup(self) -> None:
        with self.read() as tx:
            kind = self._kind(tx)
        if kind in ("new", "v3"):
            with self.write() as tx:
                kind = self._kind(tx)  # another process may have initialised or migrated it meanwhile
                if kind == "new":
                    for stmt in [*_SCHEMA.split(";"), *_NOTIFY]:
                        tx.execute(stmt)
                    tx.executemany("INSERT INTO synergai_meta (key, value) VALUES (?, ?)",
                                   [("application", APPLICATION), ("schema_version", str(SCHEMA_VERSION))])
                if kind == "v3":
                    for stmt in _V4_REGISTRATION:
                        tx.execute(stmt)
        with self.read() as tx:
            self.read_only = not tx.execute(_WRITABLE).fetchone()[0]
            self._staging = bool(tx.execute(
                "SELECT has_database_privilege(current_database(), 'TEMPORARY')").fetchone()[0])

    def _kind(self, tx: _Tx) -> str:
        """``new`` (the schema holds no relation), ``ours`` (synergai's tables), else refused."""
        schema = tx.execute("SELECT current_schema()").fetchone()[0]  # type: ignore[index]
        if schema is None:
            raise StoreError(f"scene store {self.where}: no schema of the search path exists; "
                             "create one (CREATE SCHEMA) or name an existing one")
        # pg_class lists every relation, also those this role may not see (information_schema hides them)
        tables = {r[0] for r in tx.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'v', 'm', 'p', 'f')")}
        if not tables:
            return "new"
        if "synergai_meta" in tables:
            try:
                meta: dict[str, str] = dict(tx.execute("SELECT key, value FROM synergai_meta").fetchall())
            except psycopg.errors.InsufficientPrivilege:
                raise StoreError(f"scene store {self.where}: this role may not read the table synergai_meta "
                                 f"of schema {schema!r}; nothing was written") from None
            if meta.get("application") == APPLICATION:
                version = meta.get("schema_version")
                if version == "3":
                    return "v3"
                if version != str(SCHEMA_VERSION):
                    raise StoreError(f"scene store {self.where} has schema version {version}; "
                                     f"this synergai reads version {SCHEMA_VERSION}")
                return "ours"
        names = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise StoreError(f"{self.where} is not a synergai scene store (tables {names}): schema {schema!r} "
                         "holds another program's tables or views; nothing was written to it: choose another "
                         "--db or schema")

    def _begin(self, begin: str, lock: bool) -> psycopg.Connection:
        conn = self._db()
        conn.execute(f"{begin}; SELECT pg_advisory_xact_lock({WRITE_LOCK})" if lock else begin)
        return conn

    def _start(self, begin: str, lock: bool) -> psycopg.Connection:
        try:
            return self._begin(begin, lock)
        except psycopg.OperationalError:
            if self._conn is None or not self._conn.broken:
                raise
            return self._begin(begin, lock)  # the server closed an idle connection: nothing was sent yet

    def _rollback(self) -> None:
        conn = self._conn
        try:
            if conn is not None and not conn.broken and \
                    conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.execute("ROLLBACK")
        except psycopg.Error:
            pass

    def _busy(self, lock: bool) -> StoreBusy:
        """The error for a lock wait that timed out: names the write lock's holder (for a writer)."""
        waited = f"was not free after {LOCK_WAIT_S:.0f} s"
        if not lock:
            return StoreBusy(f"scene store {self.where}: a lock another connection holds {waited}; "
                             "nothing was written")
        return StoreBusy(f"scene store {self.where}: the write lock {waited}: held by {self._holder()}; "
                         "nothing was written (end that session, or pg_terminate_backend(its server pid))")

    def _holder(self) -> str:
        """Who holds the store's write lock, as ``pg_locks`` and ``pg_stat_activity`` tell it."""
        try:
            row = self._db().execute(
                "SELECT a.application_name, l.pid, host(a.client_addr), a.state, "
                "EXTRACT(EPOCH FROM now() - a.xact_start)::bigint "
                "FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 "
                f"AND l.objid = {WRITE_LOCK}::oid AND l.objsubid = 1 "
                "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            ).fetchone()
        except psycopg.Error:
            return "another connection (pg_locks could not be read)"
        if row is None:
            return "another connection, which has released it since"
        name, pid, client, state, seconds = row
        named = f"{name!r}" if name else "a connection without an application_name"
        where = f"client {client}" if client else "a local socket or a hidden client address"
        how = f", {state} for {seconds} s" if state and seconds is not None else ""
        return f"{named} (server pid {pid}, {where}{how})"

    @contextmanager
    def _transaction(self, begin: str, lock: bool) -> Iterator[_Tx]:
        try:
            conn = self._start(begin, lock)
        except psycopg.Error as exc:
            self._rollback()
            if isinstance(exc, psycopg.errors.LockNotAvailable):
                raise self._busy(lock) from None
            raise self._error(exc) from None
        try:
            yield _Tx(conn, self._staging)
            conn.execute("COMMIT")
        except BaseException as exc:
            self._rollback()
            if isinstance(exc, psycopg.errors.LockNotAvailable):
                raise self._busy(lock=False) from None
            if isinstance(exc, psycopg.Error):
                raise self._error(exc) from None
            raise

    def write(self) -> Any:
        """One transaction holding the store's write lock (writers take turns)."""
        return self._transaction("BEGIN", lock=True)

    def read(self) -> Any:
        """One snapshot (``REPEATABLE READ READ ONLY``): never waits for a writer."""
        return self._transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", lock=False)

    def close(self) -> None:
        self._closed = True
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class PostgresWaker:
    """LISTENs on the store's channel; a connection the server closed is opened again (the reader
    then catches up from the log)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: psycopg.Connection | None = None
        self._listen()

    def _listen(self) -> None:
        self._conn = connect(self.url)
        try:
            self._conn.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error as exc:
            self._conn.close()
            self._conn = None
            kind = StoreUnavailable if unavailable(exc) else StoreError
            raise kind(f"scene store {mask_secrets(self.url)}: {_one_line(exc, self.url)}") from None

    def wait(self, timeout: float) -> None:
        try:
            if self._conn is None or self._conn.closed or self._conn.broken:
                self._listen()
            assert self._conn is not None
            for _ in self._conn.notifies(timeout=timeout, stop_after=1):
                pass
        except psycopg.Error:
            if self._conn is not None:
                self._conn.close()
            self._conn = None
            time.sleep(min(timeout, 0.2))
            self._listen()  # raises StoreError while the server is away

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
