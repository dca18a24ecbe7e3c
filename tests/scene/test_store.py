"""The SQLite scene store: edit log, undo / redo, persistence across processes, crash consistency."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from synergai.scene import edits as E
from synergai.scene.edits import Actor, EditState
from synergai.scene.hierarchy import compute_levels
from synergai.scene.model import Edge, ObjectKind, Relation, SceneError, SceneGraph, SceneObject
from synergai.scene.serialization import dumps
from synergai.scene.store import ReplayError, SceneStore, StoreError, default_path

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
def store(tmp_path: Path) -> SceneStore:
    s = SceneStore(tmp_path / "store.sqlite3")
    s.register(_graph(), SOURCE)
    yield s
    s.close()


def _snapshot_text(path: Path, scene_id: str = "s1") -> tuple[str, int]:
    with sqlite3.connect(path) as c:
        current = c.execute("SELECT current FROM scenes WHERE id = ?", (scene_id,)).fetchone()[0]
        n = c.execute("SELECT COUNT(*) FROM edits WHERE scene_id = ?", (scene_id,)).fetchone()[0]
    return current, n


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
    assert store.edits("s1")[0].summary() == "user renamed 9 cup -> mug: 'that is a mug'"
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
    before = _snapshot_text(store.path)
    stale = E.rename_object(_graph(), "9", "glass")  # built on the base: 9 is no longer a cup
    with pytest.raises(SceneError, match="not in the state"):
        store.apply("s1", stale)
    assert _snapshot_text(store.path) == before

    def boom(*args: object) -> None:  # fails after the log row was inserted, inside the transaction
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(store, "_save", boom)
    with pytest.raises(RuntimeError, match="disk on fire"):
        store.apply("s1", E.rename_object(store.load("s1"), "9", "glass"))
    monkeypatch.undo()
    assert _snapshot_text(store.path) == before
    assert [r.seq for r in store.edits("s1", include_undone=True)] == [1]
    assert store.load("s1").get("9").category == "mug" and store.verify("s1")
    rec = store.apply("s1", E.rename_object(store.load("s1"), "9", "glass"))
    assert rec.seq == 2  # the store still works


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
    with sqlite3.connect(store.path) as c:
        assert c.execute("SELECT COUNT(*) FROM edits").fetchone()[0] == 0
    with pytest.raises(SceneError, match="unknown scene 's1'"):
        store.drop("s1")
    store.register(_graph(), {"builder": "other"})  # the id is free again, with a new source
    assert store.load("s1").get("9").category == "cup" and store.edits("s1", include_undone=True) == []
    with SceneStore(store.path) as other:  # another connection with its own parsed-snapshot cache
        assert "15" in other.load("s1")
        rebuilt = _graph()
        rebuilt.remove("15")
        store.drop("s1")
        store.register(rebuilt, {"builder": "other"})  # same revision number as the dropped scene
        assert "15" not in other.load("s1")


def test_verify_detects_a_tampered_log(store: SceneStore) -> None:
    store.apply("s1", E.rename_object(store.load("s1"), "9", "mug"))
    with sqlite3.connect(store.path) as c:  # snapshot no longer matches the log
        c.execute("UPDATE edits SET state = 'undone' WHERE seq = 1")
    assert not store.verify("s1")
    with sqlite3.connect(store.path) as c:  # a log that does not replay
        c.execute("UPDATE edits SET state = 'active' WHERE seq = 1")
        changes = json.loads(c.execute("SELECT changes FROM edits WHERE seq = 1").fetchone()[0])
        changes[0]["before"]["category"] = "bowl"
        c.execute("UPDATE edits SET changes = ? WHERE seq = 1", (json.dumps(changes),))
    assert not store.verify("s1")
    with pytest.raises(ReplayError, match="edit 1 does not replay"):
        store.replay("s1")
    with sqlite3.connect(store.path) as c:  # an unreadable snapshot
        c.execute("UPDATE scenes SET current = '{broken', revision = revision + 1")
    assert not store.verify("s1")
    with pytest.raises(SceneError, match="invalid JSON"):
        store.load("s1")
    with pytest.raises(SceneError, match="unknown scene"):
        store.verify("nope")


def _run(code: str, *args: str) -> str:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


READER = """
import json, sys
from synergai.scene.serialization import dumps
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
    seen = json.loads(_run(READER, str(store.path)))
    assert seen["graph"] == dumps(store.load("s1"))
    assert seen["log"] == ["user renamed 9 cup -> mug: 'that is a mug'",
                           "agent removed object 7 table and 3 relation(s) [undone]"]
    assert seen["verify"] is True
    cached = store.load("s1")  # the parent has parsed this revision already
    assert _run(WRITER, str(store.path)).split() == ["3", "4"]
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


def test_two_connections_in_one_process(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    with SceneStore(path) as a, SceneStore(path) as b:
        a.register(_graph(), SOURCE)
        assert b.has_scene("s1")
        b.apply("s1", E.rename_object(b.load("s1"), "9", "mug"))
        assert a.load("s1").get("9").category == "mug"
        a.apply("s1", E.rename_object(a.load("s1"), "9", "glass"))
        assert b.undo("s1").seq == 2 and a.load("s1").get("9").category == "mug"
        assert a.verify("s1") and b.verify("s1")


def test_default_path_and_closed_or_bad_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
    path = store.path
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
        assert _integrity(path) == "ok"
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
