"""Every wait of the store is bounded and ends in one line naming who holds the lock, on both
databases; a version-2 SQLite store is listed at once while another process holds its write lock;
another program's PostgreSQL schema is never taken over, also when its tables are hidden from our
role (issue 42 items 5, 8 and 15)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import psycopg
import pytest

from synergai.cli.main import main
from synergai.scene import edits as E
from synergai.scene import store_postgres, store_sqlite
from synergai.scene.model import SceneGraph, SceneObject
from synergai.scene.store import SceneStore, StoreError
from synergai.scene.store_db import StoreBusy, is_url

HOLD_WRITE = """
import sys, time
from synergai.scene.store import SceneStore
s = SceneStore(sys.argv[1])
with s._write() as c:
    c.execute("UPDATE scenes SET updated_at = updated_at")
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
"""
#: Holds a SQLite file's write lock as any program would (without opening it as a store: no migration).
HOLD_SQLITE = """
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _graph() -> SceneGraph:
    return SceneGraph("s", [SceneObject("1", "table", (1, 1, 0.375), (1.2, 0.8, 0.75)),
                            SceneObject("2", "cup", (1, 1, 0.8), (0.08, 0.08, 0.1))])


@contextmanager
def _held_write_lock(location: str | Path, seconds: float = 60.0, script: str = HOLD_WRITE,
                     ) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the store's write lock until the block ends."""
    proc = subprocess.Popen([sys.executable, "-c", script, str(location), str(seconds)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked", proc.stderr
        yield proc
    finally:
        proc.kill()
        proc.wait()


def _short_waits(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    monkeypatch.setattr(store_sqlite, "BUSY_TIMEOUT_S", seconds)
    monkeypatch.setattr(store_postgres, "LOCK_WAIT_S", seconds)


def test_a_writer_behind_a_held_write_lock_gives_up_naming_the_holder(
        store_location: str | Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with SceneStore(store_location) as s:
        s.register(_graph(), {"b": 1})
    _short_waits(monkeypatch, 1.0)
    with SceneStore(store_location) as s, _held_write_lock(store_location) as holder:
        edit = E.rename_object(s.load("s"), "2", "mug")
        start = time.monotonic()
        with pytest.raises(StoreBusy) as err:
            s.apply("s", edit)
        assert time.monotonic() - start < 15.0
        message = str(err.value)
        assert "\n" not in message and "the write lock was not free after 1 s" in message
        assert "nothing was written" in message
        if is_url(store_location):  # named by its application_name, server pid and client address
            assert f"held by 'synergai pid {holder.pid} on " in message
            assert "client 127.0.0.1" in message and "idle in transaction" in message
        else:
            assert f"held by process {holder.pid} (" in message
        assert s.edits("s") == []  # the reader was not held up, and nothing was written
    with SceneStore(store_location) as s:
        assert s.apply("s", E.rename_object(s.load("s"), "2", "mug")).seq == 1  # the lock is free again


def test_the_command_line_says_who_holds_the_lock_in_one_line(
        store_location: str | Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    with SceneStore(store_location) as s:
        s.register(_graph(), {"b": 1})
        s.apply("s", E.rename_object(s.load("s"), "2", "mug"))
    _short_waits(monkeypatch, 1.0)
    with _held_write_lock(store_location) as holder:
        assert main(["scene", "undo", "--scene", "s", "--db", str(store_location)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "write lock was not free" in err and str(holder.pid) in err


def _as_version_2(path: Path) -> None:
    with sqlite3.connect(path) as c:
        c.execute("DROP TABLE events")
        c.execute("ALTER TABLE scenes DROP COLUMN registration")
        c.execute("PRAGMA user_version = 2")
    c.close()


def test_a_version_2_store_is_listed_at_once_while_another_process_writes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "old.sqlite3"
    with SceneStore(path) as s:
        s.register(_graph(), {"b": 1})
    _as_version_2(path)
    with _held_write_lock(path, script=HOLD_SQLITE):
        start = time.monotonic()
        assert main(["scene", "list", "--db", str(path), "--json"]) == 0
        assert time.monotonic() - start < 10.0  # it waited the whole busy timeout (30 s) before
        assert '"id": "s"' in capsys.readouterr().out
        with SceneStore(path) as s:
            assert s.load("s").get("2").category == "cup"
    with sqlite3.connect(path) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] == 2  # read as it is: not migrated
    c.close()
    with SceneStore(path) as s:  # the lock is free: migrated now, and the first write works
        assert s.apply("s", E.rename_object(s.load("s"), "2", "mug")).seq == 1
        assert [e.kind for e in s.events()] == ["edit"]


def test_a_version_2_store_opened_while_locked_is_migrated_by_its_first_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.sqlite3"
    with SceneStore(path) as s:
        s.register(_graph(), {"b": 1})
    _as_version_2(path)
    with _held_write_lock(path, seconds=2.0, script=HOLD_SQLITE) as holder:
        s = SceneStore(path)
        holder.wait(timeout=30)  # the other writer finishes
    with s:
        s.apply("s", E.move_object(s.load("s"), "2", (1, 1.1, 0.8), actor="robot:Alice"))  # needs version 3
        assert [(e.kind, e.actor) for e in s.events()] == [("edit", "robot:Alice")] and s.verify("s")


# ----- another program's schema
@pytest.fixture
def limited_role(postgres_url: str) -> Iterator[tuple[str, str]]:
    """A schema our (unprivileged) role may create in, holding a table and a view of another program
    that the role may not read; yields (the role's store URL, the schema)."""
    role, schema, password = f"r_{uuid.uuid4().hex[:10]}", f"s_{uuid.uuid4().hex[:10]}", uuid.uuid4().hex
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
        admin.execute(f"CREATE SCHEMA {schema}")
        admin.execute(f"GRANT USAGE, CREATE ON SCHEMA {schema} TO {role}")
    parts = urlsplit(postgres_url)
    url = urlunsplit(parts._replace(netloc=f"{role}:{password}@{parts.hostname}:{parts.port}"))
    yield f"{url}?options={quote(f'-csearch_path={schema}')}", schema
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"DROP SCHEMA {schema} CASCADE")
        admin.execute(f"DROP ROLE {role}")


def _relations(postgres_url: str, schema: str) -> list[str]:
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        rows = admin.execute("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                             "WHERE n.nspname = %s ORDER BY 1", (schema,)).fetchall()
    return [r[0] for r in rows]


@pytest.mark.parametrize("what", ["TABLE payroll (id INT, salary INT)", "VIEW payroll AS SELECT 1 AS salary"])
def test_a_schema_holding_tables_our_role_cannot_see_is_not_taken_over(
        postgres_url: str, limited_role: tuple[str, str], what: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    url, schema = limited_role
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"CREATE {what.replace('payroll', f'{schema}.payroll', 1)}")
    with psycopg.connect(url, autocommit=True) as mine:  # hidden from this role's information_schema
        assert mine.execute("SELECT count(*) FROM information_schema.tables "
                            "WHERE table_schema = current_schema()").fetchone()[0] == 0
    with pytest.raises(StoreError) as err:
        SceneStore(url)
    message = str(err.value)
    assert f"schema '{schema}'" in message and "payroll" in message and "\n" not in message
    assert "nothing was written" in message
    assert main(["scene", "list", "--db", url]) == 2
    assert f"schema '{schema}'" in capsys.readouterr().err
    assert _relations(postgres_url, schema) == ["payroll"]  # not one synergai table beside it


def test_our_role_still_initialises_an_empty_schema(postgres_url: str, limited_role: tuple[str, str]) -> None:
    url, schema = limited_role
    with SceneStore(url) as s:
        s.register(_graph(), {"b": 1})
        assert s.load("s").get("2").category == "cup"
    assert "synergai_meta" in _relations(postgres_url, schema)
