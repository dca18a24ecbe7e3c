"""Many writers on one scene, on both databases: processes editing at once lose nothing and duplicate
nothing; an edit built on a state another writer changed is refused naming the object and that edit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from synergai.scene import edits as E
from synergai.scene.model import SceneGraph, SceneObject
from synergai.scene.rebase import RebaseError, rebase
from synergai.scene.store import ConflictError, SceneStore

WRITER = """
import sys
from synergai.scene import edits as E
from synergai.scene.store import SceneStore
location, oid, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with SceneStore(location) as s:
    for k in range(n):
        rec = s.apply("s", E.set_attributes(s.load("s"), oid, [f"v{k}"], "agent", f"{oid} {k}"))
        print(rec.seq, flush=True)
"""


def _scene(n: int) -> SceneGraph:
    return SceneGraph("s", [SceneObject(str(k), "box", (k, 0, 0.1), (0.2, 0.2, 0.2)) for k in range(n)])


def test_writer_processes_lose_and_duplicate_nothing(store_location: str | Path) -> None:
    writers, each = 4, 25
    with SceneStore(store_location) as s:
        s.register(_scene(writers), {"b": 1})
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(store_location), str(w), str(each)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for w in range(writers)]
    acked = []
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
        acked += [int(x) for x in out.split()]
    assert sorted(acked) == list(range(1, writers * each + 1))  # every edit acknowledged once, no gap
    with SceneStore(store_location) as s:
        log = s.edits("s")
        assert [r.seq for r in log] == sorted(acked)
        expected = sorted(f"{w} {k}" for w in range(writers) for k in range(each))
        assert sorted(r.utterance for r in log) == expected
        assert all(s.load("s").get(str(w)).attributes == (f"v{each - 1}",) for w in range(writers))
        assert [e.kind for e in s.events()].count("edit") == writers * each and s.verify("s")


def test_a_stale_edit_of_the_same_object_is_refused_naming_it_and_the_newer_edit(
        store_location: str | Path) -> None:
    with SceneStore(store_location) as a, SceneStore(store_location) as b:
        a.register(_scene(3), {"b": 1})
        stale = b.load("s")
        a.apply("s", E.rename_object(a.load("s"), "1", "crate", "user", "it is a crate"))
        before = [r.seq for r in a.edits("s", include_undone=True)], a.last_event()
        with pytest.raises(ConflictError) as err:
            b.apply("s", E.rename_object(stale, "1", "bin", "agent"))
        message = str(err.value)
        assert "object 1 was changed by edit #1 (user" in message and "crate" in message
        assert "nothing was written" in message and "\n" not in message
        assert ([r.seq for r in a.edits("s", include_undone=True)], a.last_event()) == before
        b.apply("s", E.rename_object(stale, "2", "bin", "agent"))  # another object: accepted
        assert a.load("s").get("2").category == "bin" and a.verify("s")


def test_rebase_carries_an_edits_fields_onto_the_new_state() -> None:
    old = _scene(3)
    rename = E.rename_object(old, "1", "crate")
    new = old.copy()
    E.apply_changes(new, E.set_attributes(old, "1", ["red"]).changes)
    [remade] = rebase([rename], new.copy())
    assert remade.changes[0].after.category == "crate" and remade.changes[0].after.attributes == ("red",)
    other = old.copy()
    E.apply_changes(other, E.rename_object(old, "1", "bin").changes)
    with pytest.raises(RebaseError, match="object 1: its category was changed to 'bin'"):
        rebase([rename], other)
    gone = old.copy()
    E.apply_changes(gone, E.remove_object(old, "1").changes)
    with pytest.raises(RebaseError, match="object 1 was removed"):
        rebase([rename], gone)
    assert rebase([E.rename_object(old, "1", "bin")], other.copy()) == []  # already so: nothing to do
    assert json.dumps(E.change_to_dict(remade.changes[0]))  # still a loggable change
