"""The store's change feed on both databases: one event per committed change, `scene watch` resuming
from --since without missing one, and catching up after the server closed its connection."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import pytest

from synergai.scene import edits as E
from synergai.scene.feed import follow
from synergai.scene.model import Edge, Relation, SceneGraph, SceneObject
from synergai.scene.store import SceneStore
from synergai.scene.store_db import is_url

KEYS = ["scene", "seq", "kind", "actor", "object_ids", "at"]


def _graph(scene_id: str = "s1") -> SceneGraph:
    objs = [SceneObject("0", "floor", (0, 0, 0), (6, 5, 0.02)),
            SceneObject("7", "table", (1, 1, 0.375), (1.2, 0.8, 0.75)),
            SceneObject("9", "cup", (1.1, 0.9, 0.8), (0.08, 0.08, 0.1))]
    return SceneGraph(scene_id, objs, [Edge("9", Relation.SUPPORTED_BY, "7")])


def test_every_kind_of_change_is_one_event_in_commit_order(store_location: str | Path) -> None:
    with SceneStore(store_location) as s:
        assert s.last_event() == 0 and s.events() == []
        s.register(_graph(), {"b": 1})
        s.register(_graph(), {"b": 1})  # the same source again changes nothing: no event
        g = s.load("s1")
        first = E.rename_object(g, "9", "mug", "user")
        E.apply_changes(g, first.changes)
        s.apply_all("s1", [first, E.add_relation(g, "0", "near", "7", "agent")])
        s.undo("s1")
        s.redo("s1", actor="agent")
        s.reset("s1")
        s.register(_graph("s2"), {"b": 2})
        s.drop("s1")
        events = s.events()
        assert [(e.seq, e.scene, e.kind, e.actor, e.object_ids) for e in events] == [
            (1, "s1", "register", "perception", ()),
            (2, "s1", "edit", "user", ("9",)),
            (3, "s1", "edit", "agent", ("0", "7")),
            (4, "s1", "undo", "user", ("0", "7")),
            (5, "s1", "redo", "agent", ("0", "7")),
            (6, "s1", "reset", "user", ()),
            (7, "s2", "register", "perception", ()),
            (8, "s1", "drop", "user", ()),
        ]
        assert all(e.at.endswith("+00:00") for e in events) and s.last_event() == 8
        assert list(events[1].to_dict()) == KEYS
        assert [e.seq for e in s.events(since=3, scene_id="s1")] == [4, 5, 6, 8]
        assert [e.seq for e in s.events(since=0, limit=2)] == [1, 2]
        failed = E.rename_object(_graph("s2"), "7", "desk")
        s.drop("s2")
        with pytest.raises(Exception, match="unknown scene"):
            s.apply("s2", failed)  # a refused edit publishes nothing
        assert s.last_event() == 9


class Watch:
    """`synergai scene watch --json` in a child process; its lines arrive on a queue."""

    def __init__(self, location: str | Path, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
        cmd = [sys.executable, "-m", "synergai", "scene", "watch", "--db", str(location), "--json", *args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.lines: queue.Queue[str] = queue.Queue()
        self.errors: queue.Queue[str] = queue.Queue()  # its notices on stderr, one per line
        assert self.proc.stdout is not None and self.proc.stderr is not None
        threading.Thread(target=self._read, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stderr, self.errors), daemon=True).start()

    @staticmethod
    def _read(out: IO[str], lines: queue.Queue[str]) -> None:
        for line in out:
            lines.put(line)

    def take(self, n: int, timeout: float = 20.0) -> list[dict]:
        got = []
        deadline = time.monotonic() + timeout
        while len(got) < n:
            try:
                got.append(json.loads(self.lines.get(timeout=max(0.01, deadline - time.monotonic()))))
            except queue.Empty:
                err = "".join(self.errors.queue)
                raise AssertionError(f"{len(got)} of {n} events within {timeout} s {err}") from None
        return got

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        for f in (self.proc.stdout, self.proc.stderr):
            if f:
                f.close()


def _wait_for_listener(location: str | Path) -> None:
    """The watcher has read the log once it holds a connection (PostgreSQL) or after a moment."""
    if not is_url(location):
        time.sleep(1.5)
        return
    import psycopg

    deadline = time.monotonic() + 20
    with psycopg.connect(str(location), autocommit=True) as c:
        while time.monotonic() < deadline:
            n = c.execute("SELECT COUNT(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'").fetchone()
            if n and n[0]:
                time.sleep(0.3)
                return
            time.sleep(0.1)
    raise AssertionError("the watcher never listened")


def test_scene_watch_prints_events_as_they_happen_and_resumes_from_since(store_location: str | Path) -> None:
    with SceneStore(store_location) as s:
        s.register(_graph(), {"b": 1})
        watch = Watch(store_location, "--scene", "s1")
        try:
            _wait_for_listener(store_location)
            t0 = time.monotonic()
            s.apply("s1", E.rename_object(s.load("s1"), "9", "mug", "user"))
            [seen] = watch.take(1)
            assert time.monotonic() - t0 < 5.0
            assert list(seen) == KEYS
            assert (seen["seq"], seen["kind"], seen["object_ids"]) == (2, "edit", ["9"])
            s.register(_graph("other"), {"b": 2})  # another scene: filtered out
            s.undo("s1")
            assert [e["kind"] for e in watch.take(1)] == ["undo"]
        finally:
            watch.stop()
        s.redo("s1")  # while nobody watches
        s.reset("s1")
        resumed = Watch(store_location, "--since", "2")
        try:
            assert [(e["seq"], e["scene"], e["kind"]) for e in resumed.take(4)] == [
                (3, "other", "register"), (4, "s1", "undo"), (5, "s1", "redo"), (6, "s1", "reset")]
            s.drop("other")
            assert [(e["seq"], e["kind"]) for e in resumed.take(1)] == [(7, "drop")]
        finally:
            resumed.stop()


def test_a_watcher_catches_up_after_the_server_closes_its_connection(pg_location: str) -> None:
    import psycopg

    with SceneStore(pg_location) as s:
        s.register(_graph(), {"b": 1})
        watch = Watch(pg_location, "--since", "1")
        try:
            _wait_for_listener(pg_location)
            with psycopg.connect(pg_location, autocommit=True) as admin:
                killed = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                       "WHERE application_name LIKE 'synergai %' AND pid <> pg_backend_pid() "
                                       "AND query LIKE 'LISTEN%'").fetchall()
            assert killed and all(k[0] for k in killed)
            s.apply("s1", E.rename_object(s.load("s1"), "9", "mug", "user"))  # while it reconnects
            s.undo("s1")
            assert [(e["seq"], e["kind"]) for e in watch.take(2)] == [(2, "edit"), (3, "undo")]
            assert watch.proc.poll() is None
        finally:
            watch.stop()


def test_follow_in_a_thread_stops_when_asked(store_location: str | Path) -> None:
    with SceneStore(store_location) as s:
        s.register(_graph(), {"b": 1})
        stop = threading.Event()
        got: list[int] = []

        def run() -> None:
            for event in follow(store_location, since=0, stop=stop):
                got.append(event.seq)

        t = threading.Thread(target=run)
        t.start()
        deadline = time.monotonic() + 10
        while not got and time.monotonic() < deadline:
            time.sleep(0.05)
        s.reset("s1")
        while len(got) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        stop.set()
        t.join(timeout=5)
        assert not t.is_alive() and got == [1, 2]
