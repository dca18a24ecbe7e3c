"""What the change feed says besides events (issue 42 items 7 and 14): a SQLite store file replaced
under `scene watch` is followed again; `--since` past the end says which event it waits for; a role
that may not read the event log is told so at once; a server that goes away and comes back is one line
each, and the feed goes on."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from test_store_feed import Watch, _graph, _wait_for_listener

from pg_roles import reader_role
from synergai.scene import edits as E
from synergai.scene.feed import follow
from synergai.scene.store import SceneStore
from tcp_proxy import TcpProxy


def _backup(path: Path, copy: Path) -> None:
    """``sqlite3 store.sqlite3 ".backup copy.sqlite3"``, as the deployment guide says."""
    src, dst = sqlite3.connect(path), sqlite3.connect(copy)
    with dst:
        src.backup(dst)
    src.close()
    dst.close()


def _restore(copy: Path, path: Path) -> None:
    """Put a copy in the store's place, as a file (its journal files go: they belong to the old file)."""
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    os.replace(copy, path)


def _notices(watch: Watch, n: int, timeout: float = 20.0) -> list[str]:
    got: list[str] = []
    deadline = time.monotonic() + timeout
    while len(got) < n and time.monotonic() < deadline:
        try:
            got.append(watch.errors.get(timeout=0.1).strip())
        except Exception:  # queue.Empty
            continue
    assert len(got) == n, got
    return got


def test_watch_follows_a_store_file_restored_from_an_older_copy(tmp_path: Path) -> None:
    path, copy = tmp_path / "store.sqlite3", tmp_path / "copy.sqlite3"
    with SceneStore(path) as s:
        s.register(_graph(), {"b": 1})
        _backup(path, copy)  # the copy holds event 1
        s.apply("s1", E.rename_object(s.load("s1"), "9", "mug", "user"))
    watch = Watch(path, "--since", "0")
    try:
        assert [e["seq"] for e in watch.take(2)] == [1, 2]
        _restore(copy, path)
        [said] = _notices(watch, 1)
        assert "was replaced by another file whose history differs" in said and "#1" in said
        with SceneStore(path) as s:  # the restored store's next event is #2 again: it is shown
            s.apply("s1", E.rename_object(s.load("s1"), "9", "bowl", "user"))
        [seen] = watch.take(1)
        assert (seen["seq"], seen["kind"], seen["actor"]) == (2, "edit", "user")
        assert watch.proc.poll() is None
    finally:
        watch.stop()


def test_watch_goes_on_after_a_copy_with_the_same_history_and_waits_for_a_removed_file(
        tmp_path: Path) -> None:
    path, copy = tmp_path / "store.sqlite3", tmp_path / "copy.sqlite3"
    with SceneStore(path) as s:
        s.register(_graph(), {"b": 1})
    watch = Watch(path, "--since", "0")
    try:
        assert [e["seq"] for e in watch.take(1)] == [1]
        _backup(path, copy)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        assert "was removed; waiting" in _notices(watch, 1)[0]
        os.replace(copy, path)
        assert "same history; going on after event #1" in _notices(watch, 1)[0]
        with SceneStore(path) as s:
            s.undo("s1")  # nothing to undo: no event
            s.apply("s1", E.rename_object(s.load("s1"), "9", "mug", "user"))
        assert [(e["seq"], e["kind"]) for e in watch.take(1)] == [(2, "edit")]
    finally:
        watch.stop()


def test_watch_since_past_the_end_says_which_event_it_waits_for(store_location: str | Path) -> None:
    with SceneStore(store_location) as s:
        s.register(_graph(), {"b": 1})
        watch = Watch(store_location, "--since", "2")
        try:
            [said] = _notices(watch, 1)
            assert said == "synergai: the store's newest event is #1: waiting for event #3"
            _wait_for_listener(store_location)
            g = s.load("s1")
            s.apply("s1", E.rename_object(g, "9", "mug", "user"))  # event 2: before the one awaited
            s.undo("s1")  # event 3
            assert [(e["seq"], e["kind"]) for e in watch.take(1)] == [(3, "undo")]
        finally:
            watch.stop()


@pytest.fixture
def blind_role(pg_location: str) -> Iterator[str]:
    """The URL of a role that may read every table of the store except the event log."""
    with SceneStore(pg_location) as s:
        s.register(_graph(), {"b": 1})
    with reader_role(pg_location, hidden=["events"]) as url:
        yield url


@pytest.mark.parametrize("since", [[], ["--since", "0"]])
def test_watch_without_select_on_the_event_log_says_so_at_once(blind_role: str, since: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "synergai", "scene", "watch", "--db", blind_role, *since],
                          capture_output=True, text=True, env=env, timeout=60)
    assert time.monotonic() - start < 20  # it said "unreachable" after 61 s before
    err = done.stderr.strip()
    assert done.returncode == 2 and "\n" not in err and "permission denied for table events" in err
    password = urlsplit(blind_role).password
    assert "unreachable" not in err and password and password not in err


def _proxied(location: str, proxy: TcpProxy) -> str:
    parts = urlsplit(location)
    return urlunsplit(parts._replace(netloc=f"{parts.username}:{parts.password}@127.0.0.1:{proxy.port}"))


def test_a_server_that_goes_away_and_comes_back_is_one_notice_each(pg_location: str) -> None:
    parts = urlsplit(pg_location)
    proxy = TcpProxy("127.0.0.1", int(parts.port or 5432))
    location = _proxied(pg_location, proxy)
    said: list[str] = []
    seen: list[tuple[int, str]] = []
    stop = threading.Event()
    with SceneStore(pg_location) as s:
        s.register(_graph(), {"b": 1})

        def run() -> None:
            for event in follow(location, since=1, stop=stop, notice=said.append):
                seen.append((event.seq, event.kind))

        reader = threading.Thread(target=run)
        reader.start()
        try:
            _wait_for_listener(pg_location)  # the reader follows the feed (through the proxy)
            proxy.down()
            deadline = time.monotonic() + 20
            while not said and time.monotonic() < deadline:  # told once the server is away...
                time.sleep(0.05)
            time.sleep(1.5)  # ...then many retries while the server is away, not told again
            s.apply("s1", E.rename_object(s.load("s1"), "9", "mug", "user"))  # committed meanwhile
            proxy.up()
            deadline = time.monotonic() + 20
            while not seen and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            stop.set()
            reader.join(timeout=10)
            proxy.down()
    assert seen == [(2, "edit")]
    assert len(said) == 2, said
    assert "trying again" in said[0] and ":***@" in said[0] and "\n" not in said[0]
    assert said[1].endswith("is reachable again")
