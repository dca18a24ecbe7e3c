"""The scene store on both databases (SQLite, a real PostgreSQL server): edit log, undo / redo,
persistence across processes, crash consistency; tests named ``..._sqlite_...`` check the SQLite layer."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from file_modes import unwritable
from synergai.scene import edits as E
from synergai.scene.edits import Actor, EditState
from synergai.scene.hierarchy import compute_levels
from synergai.scene.model import Edge, ObjectKind, Relation, SceneError, SceneGraph, SceneObject
from synergai.scene.serialization import dumps, object_to_dict
from synergai.scene.store import SCHEMA_VERSION, ReplayError, SceneStore, StoreError, default_path
from synergai.scene.store_db import is_url
from synergai.scene.store_sqlite import APPLICATION_ID

SOURCE = {"builder": "objects_json", "path": "/data/s1.json", "scene": "s1"}


def _graph(scene_id: str = "s1") -> SceneGraph:
    objs = [
        SceneObject("0", "floor", (0.0, 0.0, 0.0), (6.0, 5.0, 0.02), kind=ObjectKind.FLOOR),
        SceneObject("7", "table", (1.0, 1.0, 0.375), (1.2, 0.8, 0.75)),
        SceneObject("9", "cup", (1.1, 0.9, 0.8), (0.08, 0.08, 0.1), attributes=("white",)),
        SceneObject("12", "chair", (0.2, 0.3, 0.45), (0.6, 0.6, 0.9), color=(120, 60, 20)),
        SceneObject("15", "lamp", (2.0, 2.0, 1.0), (0.3, 0.3, 2.0)),
    ]
    edges = [
        Edge("7", Relation.SUPPORTED_BY, "0"),
        Edge("9", Relation.SUPPORTED_BY, "7"),
        Edge("12", Relation.SUPPORTED_BY, "0"),
        Edge("12", Relation.NEAR, "7"),
    ]
    return SceneGraph(scene_id, objs, edges, scene_type="kitchen")


@pytest.fixture
def store(store_location: str | Path) -> Iterator[SceneStore]:
    s = SceneStore(store_location)
    s.register(_graph(), SOURCE)
    yield s
    s.close()


@contextmanager
def raw_sql(location: str | Path) -> Iterator[Callable[..., list[Any]]]:
    """Run SQL on the store's database behind the store's back (``?`` placeholders; ``rowid`` means
    the insertion-order column on either database); each statement commits."""
    if is_url(location):
        import psycopg

        with psycopg.connect(str(location), autocommit=True) as conn:
            def run(sql: str, params: tuple = ()) -> list[Any]:
                cur = conn.execute(sql.replace("?", "%s").replace("rowid", "pos"), params)
                return cur.fetchall() if cur.description else []
            yield run
        return
    conn = sqlite3.connect(location, isolation_level=None)
    try:
        def run_sqlite(sql: str, params: tuple = ()) -> list[Any]:
            return conn.execute(sql, params).fetchall()
        yield run_sqlite
    finally:
        conn.close()


def _snapshot_text(location: str | Path, scene_id: str = "s1") -> tuple[list, list, list, int]:
    """The scene's rows (scene, objects, edges in order) and its number of log entries."""
    with raw_sql(location) as sql:
        scene = sql("SELECT * FROM scenes WHERE id = ?", (scene_id,))
        objects = sql("SELECT rowid, * FROM objects WHERE scene_id = ? ORDER BY rowid", (scene_id,))
        edges = sql("SELECT rowid, * FROM edges WHERE scene_id = ? ORDER BY rowid", (scene_id,))
        n = sql("SELECT COUNT(*) FROM edits WHERE scene_id = ?", (scene_id,))[0][0]
    return scene, objects, edges, n


def _everything(location: str | Path) -> dict[str, Any]:
    """Every row of every table of the store (SQLite: every byte of its files)."""
    if not is_url(location):
        return _file_bytes(Path(location))
    with raw_sql(location) as sql:
        return {t: sorted(map(repr, sql(f"SELECT * FROM {t}")))
                for t in ("synergai_meta", "scenes", "bases", "objects", "edges", "edits", "events")}


def _integrity(path: Path) -> str:
    c = sqlite3.connect(path)
    try:
        return c.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        c.close()


def test_register_load_and_list(store: SceneStore) -> None:
    g = store.load("s1")
    expected = _graph()
    expected.levels = compute_levels(expected)
    assert g == expected and g.scene_type == "kitchen"
    assert g.levels["9"] == 1
    assert store.has_scene("s1") and not store.has_scene("s2")
    assert store.source("s1") == SOURCE
    info = store.scenes()
    assert [(i.id, i.source, i.n_objects, i.n_active_edits) for i in info] == [("s1", SOURCE, 5, 0)]
    with pytest.raises(SceneError, match="unknown scene 's2'"):
        store.load("s2")
    with pytest.raises(SceneError, match="unknown scene"):
        store.apply("s2", E.rename_object(g, "9", "mug"))
    with pytest.raises(SceneError, match="unknown scene"):
        store.edits("s2")
    load_twice = store.load("s1")
    load_twice.remove("9")  # a loaded graph is the caller's copy
    assert "9" in store.load("s1")


def test_every_op_applies_undoes_and_redoes(store: SceneStore) -> None:
    builders = [
        lambda g: E.rename_object(g, "9", "mug", Actor.USER, "that is a mug"),
        lambda g: E.set_attributes(g, "12", ["red", "wooden"], Actor.USER),
        lambda g: E.add_relation(g, "15", "near", "12", Actor.AGENT, "the lamp is by the chair"),
        lambda g: E.delete_relation(g, "7", "supports", "9", Actor.USER, "the cup is not on the table"),
        lambda g: E.add_object(g, SceneObject("20", "book", (2.0, 0.5, 0.1), (0.2, 0.3, 0.05)),
                               Actor.PERCEPTION, relations=[Edge("20", Relation.SUPPORTED_BY, "0")]),
        lambda g: E.move_object(g, "15", (2.5, 2.0, 1.0), Actor.USER),
        lambda g: E.remove_object(g, "7", Actor.USER, "there is no table"),
    ]
    states = [store.load("s1")]
    for k, build in enumerate(builders, start=1):
        req = build(store.load("s1"))
        rec = store.apply("s1", req)
        assert rec.seq == k and rec.op == req.op and rec.changes == req.changes
        assert rec.state is EditState.ACTIVE and rec.timestamp.endswith("+00:00")
        states.append(store.load("s1"))
        assert states[-1] != states[-2] and store.verify("s1")
    assert "7" not in states[-1] and states[-1].get("9").category == "mug"
    assert [r.op for r in store.edits("s1")] == [
        "update_name", "update_attributes", "add_relation", "delete_relation", "add_object", "move_object",
        "remove_object"]
    assert store.edits("s1")[0].summary() == "user renamed 9 (cup) -> mug: 'that is a mug'"
    assert store.edits("s1")[-1].changes == builders[-1](states[-2]).changes  # changes survive the log
    for k in range(len(builders), 0, -1):  # undo everything, newest first
        rec = store.undo("s1")
        assert rec is not None and rec.seq == k and rec.state is EditState.UNDONE
        assert store.load("s1") == states[k - 1]
        assert store.verify("s1")
    assert store.undo("s1") is None
    assert store.edits("s1") == [] and len(store.edits("s1", include_undone=True)) == 7
    for k in range(1, len(builders) + 1):  # redo everything, oldest first
        rec = store.redo("s1")
        assert rec is not None and rec.seq == k and rec.state is EditState.ACTIVE
        assert store.load("s1") == states[k]
    assert store.redo("s1") is None
    assert store.replay("s1") == store.load("s1") and store.verify("s1")


def test_new_edit_after_undo_discards_redo_stack(store: SceneStore) -> None:
    g = store.load("s1")
    store.apply("s1", E.rename_object(g, "9", "mug"))
    store.apply("s1", E.rename_object(store.load("s1"), "12", "stool"))
    assert store.undo("s1").seq == 2
    store.apply("s1", E.add_relation(store.load("s1"), "15", "near", "12", "agent"))
    assert store.redo("s1") is None
    log = store.edits("s1", include_undone=True)
    assert [(r.seq, r.state) for r in log] == [
        (1, EditState.ACTIVE), (2, EditState.DISCARDED), (3, EditState.ACTIVE)]
    assert log[1].summary().endswith("[discarded]")
    assert store.load("s1").get("12").category == "chair"
    assert store.verify("s1") and store.scenes()[0].n_active_edits == 2


def test_failing_apply_writes_nothing(store: SceneStore, monkeypatch: pytest.MonkeyPatch) -> None:
    store.apply("s1", E.rename_object(store.load("s1"), "9", "mug"))
    before = _snapshot_text(store.location)
    stale = E.rename_object(_graph(), "9", "glass")  # built on the base: 9 is no longer a cup
    with pytest.raises(SceneError, match="not in the state"):
        store.apply("s1", stale)
    assert _snapshot_text(store.location) == before

    def boom(*args: object) -> None:  # fails after the log row was inserted, inside the transaction
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(store, "_save", boom)
    with pytest.raises(RuntimeError, match="disk on fire"):
        store.apply("s1", E.rename_object(store.load("s1"), "9", "glass"))
    monkeypatch.undo()
    assert _snapshot_text(store.location) == before
    assert [r.seq for r in store.edits("s1", include_undone=True)] == [1]
    assert store.load("s1").get("9").category == "mug" and store.verify("s1")
    rec = store.apply("s1", E.rename_object(store.load("s1"), "9", "glass"))
    assert rec.seq == 2  # the store still works


def test_apply_all_logs_several_edits_in_one_transaction_or_none(store: SceneStore) -> None:
    store.apply("s1", E.rename_object(store.load("s1"), "12", "stool"))
    store.undo("s1")  # a redo stack: discarded only when edits are written
    before = _snapshot_text(store.location)
    work = store.load("s1")  # a turn's own graph: each edit is built on the one before it
    first = E.rename_object(work, "9", "mug")
    E.apply_changes(work, first.changes)
    second = E.set_attributes(work, "9", ["red"])
    stale = E.rename_object(_graph(), "9", "glass")
    with pytest.raises(SceneError, match="not in the state"):
        store.apply_all("s1", [first, second, stale])  # the third is built on the base: 9 is a mug by then
    assert _snapshot_text(store.location) == before and store.redo("s1") is not None and store.undo("s1")
    before = _snapshot_text(store.location)
    assert store.apply_all("s1", []) == [] and _snapshot_text(store.location) == before
    records = store.apply_all("s1", [first, second])
    assert [(r.seq, r.op) for r in records] == [(2, "update_name"), (3, "update_attributes")]
    assert [r.state for r in store.edits("s1", include_undone=True)] == [
        EditState.DISCARDED, EditState.ACTIVE, EditState.ACTIVE]
    assert store.load("s1").get("9").attributes == ("red",) and store.verify("s1")


def test_register_again_keeps_state_and_checks_source(store: SceneStore) -> None:
    store.apply("s1", E.rename_object(store.load("s1"), "9", "mug"))
    store.register(_graph(), dict(SOURCE))  # same source: nothing changes
    assert store.load("s1").get("9").category == "mug" and len(store.edits("s1")) == 1
    other = {**SOURCE, "path": "/data/other.json"}
    with pytest.raises(SceneError, match="already registered"):
        store.register(_graph(), other)
    assert store.source("s1") == SOURCE
    rebuilt = _graph()
    rebuilt.remove("15")
    store.register(rebuilt, other, replace_existing=True)
    assert store.source("s1") == other and "15" not in store.load("s1")
    assert store.edits("s1") == [] and store.edits("s1", include_undone=True)[0].state is EditState.DISCARDED
    assert store.verify("s1")
    with pytest.raises(SceneError, match="source must be a dict"):
        store.register(_graph("s3"), "objects.json")  # type: ignore[arg-type]
    with pytest.raises(SceneError, match="not JSON-serializable"):
        store.register(_graph("s3"), {"path": Path("/x")})
    assert not store.has_scene("s3")


def test_reset_returns_to_base(store: SceneStore) -> None:
    base = store.load("s1")
    store.apply("s1", E.remove_object(base, "7"))
    store.apply("s1", E.rename_object(store.load("s1"), "9", "mug"))
    store.reset("s1")
    assert store.load("s1") == base and store.edits("s1") == []
    assert store.undo("s1") is None and store.redo("s1") is None
    assert store.scenes()[0].n_objects == 5 and store.verify("s1")


def test_drop_forgets_a_scene_and_its_log(store: SceneStore) -> None:
    store.register(_graph("s2"), {"builder": "test"})
    store.apply("s1", E.rename_object(store.load("s1"), "9", "mug"))
    store.load("s1")
    store.drop("s1")
    assert not store.has_scene("s1") and [i.id for i in store.scenes()] == ["s2"]
    with raw_sql(store.location) as sql:
        assert sql("SELECT COUNT(*) FROM edits")[0][0] == 0
    with pytest.raises(SceneError, match="unknown scene 's1'"):
        store.drop("s1")
    store.register(_graph(), {"builder": "other"})  # the id is free again, with a new source
    assert store.load("s1").get("9").category == "cup" and store.edits("s1", include_undone=True) == []
    with SceneStore(store.location) as other:  # another connection with its own parsed-snapshot cache
        assert "15" in other.load("s1")
        rebuilt = _graph()
        rebuilt.remove("15")
        store.drop("s1")
        store.register(rebuilt, {"builder": "other"})  # same revision number as the dropped scene
        assert "15" not in other.load("s1")


def test_verify_detects_a_tampered_log(store: SceneStore) -> None:
    store.apply("s1", E.rename_object(store.load("s1"), "9", "mug"))
    with raw_sql(store.location) as sql:  # snapshot no longer matches the log
        sql("UPDATE edits SET state = 'undone' WHERE seq = 1")
    assert not store.verify("s1")
    with raw_sql(store.location) as sql:  # a log that does not replay
        sql("UPDATE edits SET state = 'active' WHERE seq = 1")
        changes = json.loads(sql("SELECT changes FROM edits WHERE seq = 1")[0][0])
        changes[0]["before"]["category"] = "bowl"
        sql("UPDATE edits SET changes = ? WHERE seq = 1", (json.dumps(changes),))
    assert not store.verify("s1")
    with pytest.raises(ReplayError, match="edit 1 does not replay"):
        store.replay("s1")
    with raw_sql(store.location) as sql:  # an unreadable object row
        sql("UPDATE objects SET data = '{broken' WHERE id = '9'")
        sql("UPDATE scenes SET revision = revision + 1")
    assert not store.verify("s1")
    with pytest.raises(StoreError, match="stored object '9' is unreadable"):
        store.load("s1")
    with pytest.raises(SceneError, match="unknown scene"):
        store.verify("nope")


def _run(code: str, *args: str) -> str:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


READER = """
import json, sys
from synergai.scene.serialization import dumps, object_to_dict
from synergai.scene.store import SceneStore
with SceneStore(sys.argv[1]) as s:
    print(json.dumps({"graph": dumps(s.load("s1")), "log": [r.summary() for r in s.edits("s1", True)],
                      "verify": s.verify("s1")}))
"""

WRITER = """
import sys
from synergai.scene import edits as E
from synergai.scene.store import SceneStore
with SceneStore(sys.argv[1]) as s:
    g = s.load("s1")
    s.apply("s1", E.add_relation(g, "15", "near", "9", "agent", "from another process"))
    print(s.undo("s1").seq, s.apply("s1", E.rename_object(g, "12", "stool", "user")).seq)
"""


def test_a_new_process_sees_the_edits_and_vice_versa(store: SceneStore) -> None:
    store.apply("s1", E.rename_object(store.load("s1"), "9", "mug", Actor.USER, "that is a mug"))
    store.apply("s1", E.remove_object(store.load("s1"), "7", Actor.AGENT))
    store.undo("s1")
    seen = json.loads(_run(READER, str(store.location)))
    assert seen["graph"] == dumps(store.load("s1"))
    assert seen["log"] == ["user renamed 9 (cup) -> mug: 'that is a mug'",
                           "agent removed object 7 (table) and 3 relation(s) [undone]"]
    assert seen["verify"] is True
    cached = store.load("s1")  # the parent has parsed this revision already
    assert _run(WRITER, str(store.location)).split() == ["3", "4"]
    now = store.load("s1")  # ... and still sees the child's commits
    assert now != cached and now.get("12").category == "stool" and not now.has_edge("15", Relation.NEAR, "9")
    assert [(r.seq, r.state.value) for r in store.edits("s1", include_undone=True)] == [
        (1, "active"), (2, "discarded"), (3, "discarded"), (4, "active")]
    assert store.verify("s1")


def test_threads_share_one_store(store: SceneStore) -> None:
    errors: list[BaseException] = []
    ids = ["9", "12", "15", "7"]

    def work(oid: str) -> None:
        try:
            for k in range(8):  # other threads' edits between load and apply touch other objects
                store.apply("s1", E.rename_object(store.load("s1"), oid, f"{oid}-v{k}", Actor.AGENT))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(oid,)) for oid in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [r.seq for r in store.edits("s1")] == list(range(1, 33))
    g = store.load("s1")
    assert [g.get(oid).category for oid in ids] == [f"{oid}-v7" for oid in ids]
    assert store.verify("s1")


def test_two_connections_in_one_process(store_location: str | Path) -> None:
    path = store_location
    with SceneStore(path) as a, SceneStore(path) as b:
        a.register(_graph(), SOURCE)
        assert b.has_scene("s1")
        b.apply("s1", E.rename_object(b.load("s1"), "9", "mug"))
        assert a.load("s1").get("9").category == "mug"
        a.apply("s1", E.rename_object(a.load("s1"), "9", "glass"))
        assert b.undo("s1").seq == 2 and a.load("s1").get("9").category == "mug"
        assert a.verify("s1") and b.verify("s1")


def test_sqlite_default_path_and_closed_or_bad_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_path() == tmp_path / "xdg" / "synergai" / "synergai.sqlite3"
    with SceneStore() as s:
        assert s.path == default_path() and s.path.is_file()
        s.register(_graph(), SOURCE)
    with pytest.raises(StoreError, match="closed"):
        s.load("s1")
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match=r"junk\.sqlite3"):
        SceneStore(junk)
    newer = tmp_path / "newer.sqlite3"
    with sqlite3.connect(newer) as c:
        c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        c.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="schema version 99"):
        SceneStore(newer)


CHILD = """
import sys
from synergai.scene import edits as E
from synergai.scene.model import SceneObject, Edge, Relation
from synergai.scene.store import SceneStore
s = SceneStore(sys.argv[1])
i = int(sys.argv[2])
while True:
    i += 1
    g = s.load("s1")
    if i % 7 == 0:
        r = s.undo("s1")
        print("undo", r.seq if r else 0, flush=True)
        continue
    if i % 3 == 0:
        req = E.add_object(g, SceneObject(f"n{i}", "box", (1.0, 1.0, 0.8), (0.1, 0.1, 0.1)), "perception",
                           relations=[Edge(f"n{i}", Relation.SUPPORTED_BY, "7")])
    elif i % 3 == 1:
        extra = [o.id for o in g if o.id.startswith("n")]
        req = E.remove_object(g, extra[0], "agent") if extra else E.rename_object(g, "9", f"cup{i}", "user")
    elif g.has_edge("15", Relation.NEAR, "12"):
        req = E.delete_relation(g, "15", "near", "12", "user", f"utterance {i}")
    else:
        req = E.add_relation(g, "15", "near", "12", "user", f"utterance {i}")
    print("apply", s.apply("s1", req).seq, flush=True)
"""


def test_sigkill_mid_run_leaves_a_consistent_store(store: SceneStore) -> None:
    path = store.location
    store.close()
    rng = random.Random(7)
    applied: list[int] = []
    undone: list[int] = []
    for round_ in range(3):
        proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(round_ * 1000)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines: list[str] = []
        target = rng.randint(15, 40)
        assert proc.stdout is not None
        while len(lines) < target:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else "child died"
            lines.append(line)
        os.kill(proc.pid, signal.SIGKILL)
        # read the rest through the same buffered file: communicate() reads the raw pipe and
        # would lose lines that readline() has already buffered
        rest = proc.stdout.read()
        assert proc.wait(timeout=30) == -signal.SIGKILL
        proc.stdout.close()
        if proc.stderr:
            proc.stderr.close()
        lines += rest.splitlines()
        for line in lines:
            kind, seq = line.split()
            (applied if kind == "apply" else undone).append(int(seq))
        if not is_url(path):
            assert _integrity(Path(path)) == "ok"
        with SceneStore(path) as s:
            log = {r.seq: r for r in s.edits("s1", include_undone=True)}
            assert set(applied) <= set(log)  # every printed commit survived
            assert max(log) <= max(applied + undone) + 1  # at most one unprinted commit
            for seq in undone:
                if seq:
                    assert log[seq].state in (EditState.UNDONE, EditState.DISCARDED)
            active = [q for q, r in log.items() if r.state is EditState.ACTIVE]
            pending = [q for q, r in log.items() if r.state is EditState.UNDONE]
            assert not pending or min(pending) > max(active, default=0)  # undone edits form the redo tail
            assert s.verify("s1")
            assert s.replay("s1") == s.load("s1")
            assert s.scenes()[0].n_objects == len(s.load("s1"))
    assert len(applied) >= 45


def _file_bytes(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.parent.glob(path.name + "*"))}


def test_sqlite_another_programs_file_is_refused_untouched(tmp_path: Path) -> None:
    foreign = tmp_path / "photos.db"
    with sqlite3.connect(foreign) as c:
        c.execute("CREATE TABLE albums (id INTEGER PRIMARY KEY, name TEXT)")
        c.execute("INSERT INTO albums (name) VALUES ('holiday')")
    c.close()
    before = _file_bytes(foreign)
    with pytest.raises(StoreError, match=r"photos\.db is not a synergai scene store \(tables albums\)") \
            as err:
        SceneStore(foreign)
    assert "\n" not in str(err.value)
    assert _file_bytes(foreign) == before


def test_a_rejected_graph_leaves_the_store_byte_for_byte(store: SceneStore) -> None:
    store.close()
    before = _everything(store.location)
    with SceneStore(store.location) as s:
        bad_colour = SceneGraph("s2", [SceneObject("1", "cup", (0, 0, 0.5), (0.1, 0.1, 0.1),
                                                   color=(300, 0, 0))])
        with pytest.raises(SceneError, match=r"0\.\.255"):
            s.register(bad_colour, {"builder": "test"})
        with pytest.raises(SceneError, match="scene id must be a non-empty string"):
            s.register(SceneGraph("", [SceneObject("1", "cup", (0, 0, 0.5), (0.1, 0.1, 0.1))]), {"b": 1})
        with pytest.raises(SceneError, match="category"):
            s.register(SceneGraph("s3", [SceneObject("1", "", (0, 0, 0.5), (0.1, 0.1, 0.1))]), {"b": 1})
        assert [i.id for i in s.scenes()] == ["s1"]
    assert _everything(store.location) == before


def test_readers_never_wait_for_a_writer(store: SceneStore) -> None:
    import time

    store.apply("s1", E.rename_object(store.load("s1"), "9", "mug"))
    other = SceneStore(store.location)
    try:
        with other._write() as c:  # another writer holds the write lock, with an uncommitted change
            c.execute("UPDATE scenes SET updated_at = 'x'")
            t0 = time.monotonic()
            with SceneStore(store.location) as reader:  # opening does not take the write lock either
                assert [i.id for i in reader.scenes()] == ["s1"]
                assert reader.load("s1").get("9").category == "mug" and len(reader.edits("s1")) == 1
            assert time.monotonic() - t0 < 1.0
            raise KeyboardInterrupt  # roll back
    except KeyboardInterrupt:
        pass
    finally:
        other.close()
    assert store.scenes()[0].updated_at != "x"


def test_sqlite_an_edit_writes_only_the_rows_it_changes(tmp_path: Path) -> None:
    objs = [SceneObject("floor", "floor", (0, 0, -0.01), (100, 100, 0.02), kind=ObjectKind.FLOOR)]
    objs += [SceneObject(str(k), "box", (k * 0.5, 0, 0.1), (0.2, 0.2, 0.2)) for k in range(400)]
    edges = [Edge(str(k), Relation.SUPPORTED_BY, "floor") for k in range(400)]
    with SceneStore(tmp_path / "big.sqlite3") as s:
        s.register(SceneGraph("big", objs, edges), {"builder": "test"})
        before = _snapshot_text(s.path, "big")
        conn = s._db()._conn  # type: ignore[attr-defined]
        n0 = conn.total_changes
        s.apply("big", E.rename_object(s.load("big"), "7", "crate"))
        # the log row, the object row, the scene row, the event row (the log's redo-stack update
        # touches none here)
        assert conn.total_changes - n0 == 4
        after = _snapshot_text(s.path, "big")
        assert [r for r in after[1] if r not in before[1]] == [
            (9, "big", "7", json.dumps(object_to_dict(s.load("big").get("7"))))]
        assert after[2] == before[2]  # no edge row rewritten
        n0 = conn.total_changes
        s.apply("big", E.remove_object(s.load("big"), "3"))
        assert conn.total_changes - n0 == 5  # log + edge + object + scene + event
        s.undo("big")
        s.undo("big")
        assert s.load("big").get("7").category == "box" and "3" in s.load("big") and s.verify("big")
        with SceneStore(s.path) as other:  # a fresh reader builds the same graph from the rows
            assert dumps(other.load("big")) == dumps(s.load("big"))


def test_sqlite_a_version_1_store_is_migrated_with_its_edits(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    base = _graph()
    base.levels = compute_levels(base)
    current = base.copy()
    rename = E.rename_object(current, "9", "mug", "user", "a mug")
    E.apply_changes(current, rename.changes)
    log = json.dumps([E.change_to_dict(ch) for ch in rename.changes])
    with sqlite3.connect(path) as c:
        c.execute("CREATE TABLE scenes (id TEXT PRIMARY KEY, source TEXT NOT NULL, base TEXT NOT NULL, "
                  "current TEXT NOT NULL, n_objects INTEGER NOT NULL, "
                  "revision INTEGER NOT NULL DEFAULT 0, "
                  "created_at TEXT NOT NULL, updated_at TEXT NOT NULL)")
        c.execute("CREATE TABLE edits (scene_id TEXT NOT NULL REFERENCES scenes(id) ON DELETE CASCADE, "
                  "seq INTEGER NOT NULL, actor TEXT NOT NULL, op TEXT NOT NULL, utterance TEXT NOT NULL, "
                  "ts TEXT NOT NULL, changes TEXT NOT NULL, state TEXT NOT NULL, "
                  "PRIMARY KEY (scene_id, seq))")
        c.execute("INSERT INTO scenes VALUES ('s1', ?, ?, ?, 5, 1, 't0', 't1')",
                  (json.dumps(SOURCE, sort_keys=True), dumps(base), dumps(current)))
        c.execute("INSERT INTO edits VALUES ('s1', 1, 'user', 'update_name', 'a mug', 't1', ?, 'active')",
                  (log,))
        c.execute("PRAGMA user_version = 1")
    c.close()
    with SceneStore(path) as s:
        assert s.load("s1") == current and s.load("s1").scene_type == "kitchen" and s.verify("s1")
        assert s.undo("s1").seq == 1 and s.load("s1").get("9").category == "cup"
    with SceneStore(path) as s:  # now a store of the current version
        assert s.load("s1").get("9").category == "cup" and s.source("s1") == SOURCE


def test_sqlite_a_version_2_store_gets_the_event_log(tmp_path: Path) -> None:
    path = tmp_path / "v2.sqlite3"
    with SceneStore(path) as s:
        s.register(_graph(), SOURCE)
        s.apply("s1", E.rename_object(s.load("s1"), "9", "mug"))
    with sqlite3.connect(path) as c:  # what version 2 looked like: no event log, no registration ids
        c.execute("DROP TABLE events")
        c.execute("ALTER TABLE scenes DROP COLUMN registration")
        c.execute("PRAGMA user_version = 2")
    c.close()
    with SceneStore(path) as s:
        assert s.load("s1").get("9").category == "mug" and s.verify("s1") and s.events() == []
        s.undo("s1")
        assert [(e.seq, e.kind) for e in s.events()] == [(1, "undo")]
    with sqlite3.connect(path) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    c.close()


def test_postgres_another_schema_version_is_refused(pg_location: str) -> None:
    import psycopg

    with SceneStore(pg_location) as s:
        s.register(_graph(), SOURCE)
    with psycopg.connect(pg_location, autocommit=True) as c:
        c.execute("UPDATE synergai_meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match=f"schema version 99; this synergai reads version {SCHEMA_VERSION}") \
            as err:
        SceneStore(pg_location)
    assert "\n" not in str(err.value)


def test_sqlite_a_corrupted_page_is_a_one_line_store_error(tmp_path: Path) -> None:
    objs = [SceneObject(str(k), "box", (k * 0.5, 0, 0.1), (0.2, 0.2, 0.2), attributes=("x" * 200,))
            for k in range(300)]
    store = SceneStore(tmp_path / "store.sqlite3")
    store.register(SceneGraph("s2", objs), {"builder": "test"})
    store.close()
    with sqlite3.connect(store.path) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    data = bytearray(store.path.read_bytes())
    page = 4096
    for off in range(2 * page, len(data), page):  # keep the header page, break every other one
        data[off:off + 64] = b"\xff" * 64
    store.path.write_bytes(bytes(data))
    with pytest.raises(StoreError) as err, SceneStore(store.path) as s:
        s.scenes()
        s.load("s2")
    assert "malformed" in str(err.value) and "\n" not in str(err.value)


def test_a_fresh_process_edits_without_reading_the_whole_graph(store: SceneStore,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    stale = store.load("s1")
    store.apply("s1", E.rename_object(stale, "9", "mug"))
    with SceneStore(store.location) as cold:
        def whole_graph(*args: object) -> None:
            raise AssertionError("the whole graph was read")

        monkeypatch.setattr(cold, "_load_rows", whole_graph)
        with pytest.raises(SceneError, match="not in the state"):  # conflicts are refused on rows too
            cold.apply("s1", E.rename_object(stale, "9", "glass"))
        with pytest.raises(SceneError, match="still has 3 relation"):
            cold.apply("s1", E.EditRequest(Actor.USER, "remove_object",
                                           (E.ObjectChange(stale.get("7"), None),)))
        cold.apply("s1", E.remove_object(stale, "15", Actor.AGENT))
        cold.apply("s1", E.add_relation(stale, "12", "far", "9"))
        assert cold.undo("s1").op == "add_relation" and cold.redo("s1").op == "add_relation"
        monkeypatch.undo()
        g = cold.load("s1")
        assert "15" not in g and g.has_edge("12", Relation.FAR, "9") and g.get("9").category == "mug"
        assert cold.scenes()[0].n_objects == 4 and cold.verify("s1")
    assert store.load("s1") == g and store.verify("s1")


def test_sqlite_a_store_this_user_cannot_write_can_still_be_read(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "store.sqlite3"
    with SceneStore(path) as s:
        s.register(_graph(), SOURCE)
        s.apply("s1", E.rename_object(s.load("s1"), "9", "mug"))
    assert sorted(p.name for p in folder.iterdir()) == ["store.sqlite3"]  # WAL checkpointed on close
    with unwritable([path, folder]):
        with sqlite3.connect(path) as c, pytest.raises(sqlite3.OperationalError):
            c.execute("PRAGMA application_id").fetchone()  # plain SQLite cannot even read it
        with SceneStore(path) as s:
            assert s.read_only and [i.id for i in s.scenes()] == ["s1"]
            assert s.load("s1").get("9").category == "mug" and len(s.edits("s1")) == 1
            with pytest.raises(StoreError, match="cannot be written by this user") as err:
                s.undo("s1")
            assert "\n" not in str(err.value)


def test_any_actor_the_edit_model_accepts_can_be_logged(store: SceneStore) -> None:
    with raw_sql(store.location) as sql:  # the database itself fixes no list of actors
        sql("INSERT INTO edits (scene_id, seq, actor, op, utterance, ts, changes, state) "
            "VALUES ('s1', 99, 'robot', 'move_object', '', 't', '[]', 'discarded')")
        assert sql("SELECT actor FROM edits WHERE seq = 99") == [("robot",)]
