"""The thin per-database layer under the scene store: what a database must offer the store's logic
(:mod:`synergai.scene.store`), how a store location is read (a path means SQLite, a
``postgresql://`` URL means PostgreSQL) and the error every database failure becomes.

The store's logic writes its SQL once, with ``?`` placeholders; a database layer translates what
differs (placeholders, the column that keeps insertion order, bulk inserts, locking, recognising and
migrating its schema, waking a change-feed reader).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from synergai.masking import mask_secrets
from synergai.scene.model import SceneError
from synergai.scene.store_location import is_url, store_location

__all__ = ["LOCK_WAIT_S", "SCHEMA_VERSION", "Database", "StoreBusy", "StoreError", "StoreLost",
           "StoreUnavailable", "Transaction", "Waker", "application_name", "is_url",
           "open_database", "open_waker", "store_location"]

#: The schema both databases hold: version 3 added the event log (the change feed), version 4 each
#: scene's registration id (new on every registration: a writer that planned on a scene names it).
SCHEMA_VERSION = 4
POSTGRES_SCHEMES = ("postgresql", "postgres")
#: The longest a transaction waits for a lock another connection holds (then :class:`StoreBusy`).
LOCK_WAIT_S = 30.0


class StoreError(SceneError):
    """The store cannot be used (not a database, newer schema, server unreachable, closed store)."""


class StoreLost(StoreError):
    """The store this session opened is gone (its file removed or replaced): nothing more is written."""


class StoreUnavailable(StoreError):
    """The database server cannot be reached now (down, restarting, the connection lost): a later try
    may succeed. Any other :class:`StoreError` (no permission, not a store, ...) stays until fixed."""


class StoreBusy(StoreError):
    """A lock another connection holds was not free within :data:`LOCK_WAIT_S`; the message names the
    holder as far as the database can tell. Nothing was written."""


def application_name() -> str:
    """How this process names itself to a database server (PostgreSQL ``application_name``, seen in
    ``pg_stat_activity``): ``synergai COMMAND pid N on HOST`` (at most 63 characters)."""
    import os
    import socket
    import sys

    command = next((w for w in sys.argv[1:2] if w.isascii() and w.isalpha() and len(w) <= 12), "")
    words = ["synergai", command.lower(), f"pid {os.getpid()} on {socket.gethostname()}"]
    return " ".join(w for w in words if w)[:63]


class Cursor(Protocol):
    """The part of a DB-API cursor the store reads."""

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Transaction(Protocol):
    """One open transaction: SQL with ``?`` placeholders."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor: ...

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    def copy_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """Insert many rows fast (COPY on PostgreSQL)."""

    def update_rows(self, table: str, keys: Sequence[str], values: Sequence[str],
                    rows: Sequence[Sequence[Any]]) -> None:
        """``UPDATE table SET values WHERE keys`` for each row (its key columns, then its values; one row
        per key): on PostgreSQL a large batch is one statement over a COPY into a temporary table."""

    def delete_rows(self, table: str, keys: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """``DELETE FROM table WHERE keys`` for each row (its key columns), as :meth:`update_rows`."""


class Database(Protocol):
    """A connection to one store: a write transaction holds the store's write lock (writers take
    turns: every edit is checked against the latest committed state); a read transaction sees one
    committed snapshot and never waits for a writer."""

    where: str  #: the location for messages (a URL's password masked)
    read_only: bool
    #: the scenes table has registration ids (False only for an older store read before its migration)
    registrations: bool
    #: the column giving a table's insertion order ("rowid" on SQLite)
    order: str

    def write(self) -> AbstractContextManager[Transaction]: ...

    def read(self) -> AbstractContextManager[Transaction]: ...

    def close(self) -> None: ...

    def replaced(self) -> bool:
        """Whether the store opened is no longer the one at its location (a file replaced or removed;
        always False on a server)."""


class Waker(Protocol):
    """Wakes a change-feed reader when another process may have committed (never the truth: the
    reader then reads the event log)."""

    def wait(self, timeout: float) -> None:
        """Return when something may have been committed, or after ``timeout`` seconds."""

    def close(self) -> None: ...


def open_database(location: str | Path) -> Database:
    """The database layer for a location: ``postgresql://`` (or ``postgres://``) URLs -> PostgreSQL,
    any other URL refused, a path -> SQLite."""
    if is_url(location):
        url = str(location).strip()
        scheme = url.split("://", 1)[0].lower()
        if scheme not in POSTGRES_SCHEMES:
            raise StoreError(f"scene store {mask_secrets(url)}: unsupported URL scheme {scheme!r}; "
                             "use a file path (SQLite) or postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME")
        from synergai.scene.store_postgres import PostgresDatabase

        return PostgresDatabase(url)
    from synergai.scene.store_sqlite import SqliteDatabase

    return SqliteDatabase(Path(location))


def open_waker(location: str | Path) -> Waker:
    """A change-feed waker for a location (LISTEN on PostgreSQL, ``PRAGMA data_version`` on SQLite)."""
    if is_url(location):
        from synergai.scene.store_postgres import PostgresWaker

        return PostgresWaker(str(location).strip())
    from synergai.scene.store_sqlite import SqliteWaker

    return SqliteWaker(Path(location))
