"""The scene store's PostgreSQL layer (psycopg 3), for a world model several machines share.

A database is recognised before anything is written to it: an empty schema is initialised, one
holding synergai's tables (``synergai_meta`` names the schema version) is used, anything else
(another program's tables) is refused untouched.

Writers take turns: each write is one transaction that first takes a transaction-level advisory
lock, so every edit is checked against the latest committed state and the event log's sequence is
gap-free and committed in order. Readers use ``REPEATABLE READ READ ONLY`` transactions (one snapshot,
MVCC: they never wait for a writer). A trigger on the event log sends ``NOTIFY synergai_events`` for
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
from synergai.scene.store_db import SCHEMA_VERSION, StoreError

#: The advisory lock every writer takes ("SYNG" as a number).
WRITE_LOCK = 0x53594E47
CHANNEL = "synergai_events"
CONNECT_TIMEOUT_S = 10
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
    scene_type TEXT
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


def _one_line(exc: BaseException, url: str) -> str:
    """The error on one line, the credentials of ``url`` (and any other) masked in whatever form."""
    text = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip()) or type(exc).__name__
    return mask_secrets(text, url)


def connect(url: str, *, autocommit: bool = True) -> psycopg.Connection:
    """A connection to ``url``; any failure is a one-line :class:`StoreError` naming the masked URL."""
    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT_S,
                               application_name=APPLICATION)
    except (psycopg.Error, ValueError) as exc:
        raise StoreError(f"cannot open scene store {mask_secrets(url)}: {_one_line(exc, url)}") from None


class _Tx:
    """A transaction on a psycopg connection: ``?`` placeholders become ``%s``."""

    def __init__(self, conn: psycopg.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor:
        return self.conn.execute(sql.replace("?", "%s"), tuple(params))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self.conn.cursor() as cur:
            cur.executemany(sql.replace("?", "%s"), rows)

    def copy_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        with self.conn.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)


class PostgresDatabase:
    """One PostgreSQL database holding a synergai store (see the module doc-string)."""

    order = "pos"
    read_only = False

    def __init__(self, url: str) -> None:
        self.url = url
        self.where = mask_secrets(url)
        self._conn: psycopg.Connection | None = connect(url)
        self._closed = False
        try:
            self._setup()
        except BaseException:
            self.close()
            raise

    def _error(self, exc: BaseException) -> StoreError:
        return StoreError(f"scene store {self.where}: {_one_line(exc, self.url)}")

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
        if kind == "new":
            with self.write() as tx:
                if self._kind(tx) == "new":  # another process may have initialised it meanwhile
                    for stmt in [*_SCHEMA.split(";"), *_NOTIFY]:
                        tx.execute(stmt)
                    tx.executemany("INSERT INTO synergai_meta (key, value) VALUES (?, ?)",
                                   [("application", APPLICATION), ("schema_version", str(SCHEMA_VERSION))])

    def _kind(self, tx: _Tx) -> str:
        tables = {r[0] for r in tx.execute("SELECT table_name FROM information_schema.tables "
                                           "WHERE table_schema = current_schema()")}
        if not tables:
            return "new"
        if "synergai_meta" in tables:
            meta: dict[str, str] = dict(tx.execute("SELECT key, value FROM synergai_meta").fetchall())
            if meta.get("application") == APPLICATION:
                version = meta.get("schema_version")
                if version != str(SCHEMA_VERSION):
                    raise StoreError(f"scene store {self.where} has schema version {version}; "
                                     f"this synergai reads version {SCHEMA_VERSION}")
                return "ours"
        names = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise StoreError(f"{self.where} is not a synergai scene store (tables {names}); "
                         "nothing was written to it: choose another --db")

    def _begin(self, begin: str, lock: bool) -> psycopg.Connection:
        conn = self._db()
        conn.execute(f"{begin}; SELECT pg_advisory_xact_lock({WRITE_LOCK})" if lock else begin)
        return conn

    @contextmanager
    def _transaction(self, begin: str, lock: bool) -> Iterator[_Tx]:
        try:
            try:
                conn = self._begin(begin, lock)
            except psycopg.OperationalError:
                if self._conn is None or not self._conn.broken:
                    raise
                conn = self._begin(begin, lock)  # the server closed an idle connection: nothing was sent yet
        except psycopg.Error as exc:
            raise self._error(exc) from None
        try:
            yield _Tx(conn)
            conn.execute("COMMIT")
        except BaseException as exc:
            try:
                if not conn.broken and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    conn.execute("ROLLBACK")
            except psycopg.Error:
                pass
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
            raise StoreError(f"scene store {mask_secrets(self.url)}: {_one_line(exc, self.url)}") from None

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
