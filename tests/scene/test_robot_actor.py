"""A robot is an actor with a name (``robot:<name>``): its edits are logged, listed and undone like any
other on both backends, and a version-2 store (whose log accepted only perception / user / agent) takes
them once migrated."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from synergai.scene import edits as E
from synergai.scene.edits import Actor
from synergai.scene.model import SceneError, SceneGraph, SceneObject
from synergai.scene.store import SCHEMA_VERSION, SceneStore

SOURCE = {"builder": "test"}


def _graph() -> SceneGraph:
    return SceneGraph("s1", [SceneObject("1", "table", (0, 0, 0.4), (1.0, 1.0, 0.8)),
                             SceneObject("2", "cup", (0.2, 0, 0.85), (0.08, 0.08, 0.1))])


def test_a_robot_actor_has_a_name_and_a_label() -> None:
    g = _graph()
    req = E.move_object(g, "2", (0.3, 0.1, 0.85), actor="robot:Alice", utterance="tidy up", refresh=False)
    assert (req.actor, req.robot, req.who) == (Actor.ROBOT, "Alice", "robot:Alice")
    same = E.EditRequest(Actor.ROBOT, "move_object", req.changes, "tidy up", "Alice")
    assert same == req
    with pytest.raises(SceneError, match="only a robot actor has a name"):
        E.EditRequest(Actor.USER, "move_object", req.changes, "", "Alice")
    with pytest.raises(SceneError, match="needs a name"):
        E.EditRequest(Actor.ROBOT, "move_object", req.changes)
    with pytest.raises(SceneError, match="needs a name"):
        E.EditRequest("robot:bad\nname", "move_object", req.changes)
    edge = E.add_relation(g, "2", "near", "1", actor="robot:Bob").changes[0]
    assert isinstance(edge, E.EdgeChange) and edge.edge.provenance == "robot:Bob"


def test_robot_edits_are_logged_listed_and_undone(store_location: str | Path) -> None:
    with SceneStore(store_location) as store:
        store.register(_graph(), SOURCE)
        req = E.move_object(store.load("s1"), "2", (0.3, 0.1, 0.85), actor="robot:Alice", utterance="tidy up")
        rec = store.apply("s1", req)
        assert rec.who == "robot:Alice"
        [event] = [e for e in store.events(scene_id="s1") if e.kind == "edit"]
        assert event.actor == "robot:Alice" and "2" in event.object_ids
    with SceneStore(store_location) as store:  # read back by another connection
        [logged] = store.edits("s1")
        assert (logged.actor, logged.robot, logged.who) == (Actor.ROBOT, "Alice", "robot:Alice")
        assert logged.summary().startswith("robot:Alice moved 2 (cup) to (0.30, 0.10, 0.85)")
        assert store.load("s1").get("2").center == (0.3, 0.1, 0.85)
        assert store.undo("s1") is not None and store.load("s1").get("2").center == (0.2, 0, 0.85)
        assert store.verify("s1")


def _as_version_2(path: Path) -> None:
    """Turn a store back into what version 2 wrote: no event log, a log that knew only three actors."""
    with sqlite3.connect(path) as c:
        rows = c.execute("SELECT * FROM edits").fetchall()
        c.execute("DROP TABLE events")
        c.execute("DROP TABLE edits")
        c.execute("CREATE TABLE edits (scene_id TEXT NOT NULL REFERENCES scenes(id) ON DELETE CASCADE, "
                  "seq INTEGER NOT NULL CHECK (seq > 0), "
                  "actor TEXT NOT NULL CHECK (actor IN ('perception', 'user', 'agent')), "
                  "op TEXT NOT NULL, utterance TEXT NOT NULL, ts TEXT NOT NULL, changes TEXT NOT NULL, "
                  "state TEXT NOT NULL CHECK (state IN ('active', 'undone', 'discarded')), "
                  "PRIMARY KEY (scene_id, seq))")
        c.executemany("INSERT INTO edits VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        c.execute("ALTER TABLE scenes DROP COLUMN registration")  # version 4's
        c.execute("PRAGMA user_version = 2")
    c.close()


def test_a_version_2_store_is_migrated_and_takes_robot_edits(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with SceneStore(path) as store:
        store.register(_graph(), SOURCE)
        store.apply("s1", E.rename_object(store.load("s1"), "2", "mug", "user", "a mug"))
    _as_version_2(path)
    with SceneStore(path) as store:
        assert [r.who for r in store.edits("s1")] == ["user"]
        store.apply("s1", E.move_object(store.load("s1"), "2", (0.3, 0, 0.85), actor="robot:Alice"))
        assert [r.who for r in store.edits("s1")] == ["user", "robot:Alice"] and store.verify("s1")
    with sqlite3.connect(path) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert json.loads(c.execute("SELECT changes FROM edits WHERE seq = 1").fetchone()[0])
    c.close()
