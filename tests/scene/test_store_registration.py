"""A scene's identity is its registration, not only its name: an edit planned on a scene that was then
dropped (and registered again under the same id) is refused, never re-made on the other scene; on
SQLite and PostgreSQL, stores of schema version 3 are migrated, and a PostgreSQL role that may not write
opens the store for reading only."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pg_roles import read_only_role
from synergai.agent.context import TurnContext
from synergai.scene import edits as E
from synergai.scene.model import SceneError, SceneGraph, SceneObject
from synergai.scene.rebase import rebase
from synergai.scene.store import SCHEMA_VERSION, SceneReplacedError, SceneStore


def _scene(category: str = "box") -> SceneGraph:
    return SceneGraph("s", [SceneObject(str(k), category, (k, 0, 0.1), (0.2, 0.2, 0.2)) for k in range(3)])


def _state(store: SceneStore) -> tuple[object, ...]:
    return store.revision("s"), [r.seq for r in store.edits("s", include_undone=True)], store.load("s")


def test_every_registration_has_its_own_id(store_location: str | Path) -> None:
    with SceneStore(store_location) as s:
        s.register(_scene(), {"b": 1})
        first, _ = s.revision("s")
        assert len(first) >= 16
        s.register(_scene(), {"b": 1})  # the same source: the same registration, nothing changes
        assert s.revision("s")[0] == first
        s.apply("s", E.rename_object(s.load("s"), "1", "crate"))
        assert s.revision("s") == (first, 1)  # an edit keeps the registration
        s.register(_scene("wall"), {"b": 2}, replace_existing=True)
        replaced = s.revision("s")[0]
        s.drop("s")
        s.register(_scene(), {"b": 1})
        assert len({first, replaced, s.revision("s")[0]}) == 3


@pytest.mark.parametrize("how", ["drop and register", "replace"])
def test_an_edit_planned_on_a_dropped_scene_is_refused_on_its_successor(store_location: str | Path,
                                                                        how: str) -> None:
    with SceneStore(store_location) as robot, SceneStore(store_location) as person:
        person.register(_scene(), {"b": 1})
        graph, (planned_on, _) = robot.snapshot("s")
        move = E.move_object(graph, "1", (1.0, 0.5, 0.1), "robot:Alice", "move it")
        if how == "drop and register":
            person.drop("s")
            person.register(_scene("wall"), {"b": 2})  # another scene entirely, the same id
        else:
            person.register(_scene("wall"), {"b": 2}, replace_existing=True)
        before = _state(person)
        with pytest.raises(SceneReplacedError, match="dropped and registered again") as err:
            robot.apply("s", move, registration=planned_on)
        assert "nothing was written" in str(err.value) and "\n" not in str(err.value)
        assert _state(person) == before and person.load("s").get("1").category == "wall"


def test_an_edit_planned_on_a_dropped_scene_is_refused(store_location: str | Path) -> None:
    with SceneStore(store_location) as s:
        s.register(_scene(), {"b": 1})
        graph, (planned_on, _) = s.snapshot("s")
        s.drop("s")
        with pytest.raises(SceneReplacedError, match="scene s was dropped since"):
            s.apply("s", E.rename_object(graph, "1", "crate"), registration=planned_on)
        assert not s.has_scene("s")


def test_the_stale_edit_rebase_refuses_to_cross_a_registration(store_location: str | Path) -> None:
    with SceneStore(store_location) as s:
        s.register(_scene(), {"b": 1})
        graph, (planned_on, _) = s.snapshot("s")
        request = E.set_attributes(graph, "1", ["red"], "agent", "it is red")
        s.register(_scene("wall"), {"b": 2}, replace_existing=True)
        now, (registration, _) = s.snapshot("s")
        same = rebase([request], now.copy(), planned_on=registration, registration=registration)
        assert same  # the same registration: re-made
        with pytest.raises(SceneReplacedError):
            rebase([request], now, planned_on=planned_on, registration=registration)


def test_an_agent_correction_is_not_carried_onto_a_scene_registered_meanwhile(
        store_location: str | Path) -> None:
    with SceneStore(store_location) as s:
        s.register(_scene(), {"b": 1})
        ctx = TurnContext(s, "s", "box 1 is red")
        ctx.apply(E.set_attributes(ctx.graph, "1", ["red"], "agent", "box 1 is red"))
        s.drop("s")
        s.register(_scene("wall"), {"b": 2})
        before = _state(s)
        with pytest.raises(SceneReplacedError):
            ctx.commit()
        assert _state(s) == before and ctx.edits == []
        # an ordinary conflict (same registration) is still retried and re-made
        ctx = TurnContext(s, "s", "wall 2 is white")
        ctx.apply(E.set_attributes(ctx.graph, "2", ["white"], "agent", "wall 2 is white"))
        s.apply("s", E.rename_object(s.load("s"), "2", "pillar"))
        [record] = ctx.commit()
        assert s.load("s").get("2").attributes == ("white",) and s.load("s").get("2").category == "pillar"
        assert record.seq == 2 and s.verify("s")


def test_sqlite_a_version_3_store_gets_registration_ids(tmp_path: Path) -> None:
    path = tmp_path / "v3.sqlite3"
    with SceneStore(path) as s:
        s.register(_scene(), {"b": 1})
        s.register(SceneGraph("t", [SceneObject("0", "box", (0, 0, 0.1), (0.2, 0.2, 0.2))]), {"b": 1})
    with sqlite3.connect(path) as c:  # what version 3 looked like: no registration ids
        c.execute("ALTER TABLE scenes DROP COLUMN registration")
        c.execute("PRAGMA user_version = 3")
    c.close()
    with SceneStore(path) as s:
        ids = {s.revision("s")[0], s.revision("t")[0]}
        assert len(ids) == 2 and "" not in ids and s.verify("s")
        graph, (planned_on, _) = s.snapshot("s")
        assert s.apply("s", E.rename_object(graph, "1", "crate"), registration=planned_on).seq == 1
    with sqlite3.connect(path) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    c.close()


def test_postgres_a_version_3_store_gets_registration_ids(pg_location: str) -> None:
    import psycopg

    with SceneStore(pg_location) as s:
        s.register(_scene(), {"b": 1})
        s.register(SceneGraph("t", [SceneObject("0", "box", (0, 0, 0.1), (0.2, 0.2, 0.2))]), {"b": 1})
    with psycopg.connect(pg_location, autocommit=True) as c:
        c.execute("ALTER TABLE scenes DROP COLUMN registration")
        c.execute("UPDATE synergai_meta SET value = '3' WHERE key = 'schema_version'")
    with SceneStore(pg_location) as s:
        ids = {s.revision("s")[0], s.revision("t")[0]}
        assert len(ids) == 2 and "" not in ids and s.verify("s")
        graph, (planned_on, _) = s.snapshot("s")
        assert s.apply("s", E.rename_object(graph, "1", "crate"), registration=planned_on).seq == 1
    with psycopg.connect(pg_location, autocommit=True) as c:
        assert c.execute("SELECT value FROM synergai_meta WHERE key = 'schema_version'").fetchone()[0] == \
            str(SCHEMA_VERSION)


def test_postgres_a_role_that_may_only_read_opens_the_store_read_only(pg_location: str) -> None:
    with SceneStore(pg_location) as s:
        s.register(_scene(), {"b": 1})
        assert not s.read_only
    with SceneStore(read_only_role(pg_location)) as s:
        assert s.read_only and s.load("s").get("1").category == "box"  # it still reads
        with pytest.raises(SceneError):  # the server refuses the write
            s.apply("s", E.rename_object(s.load("s"), "1", "crate"))


def test_a_refused_edit_names_the_object_it_changes_first(store_location: str | Path) -> None:
    from synergai.scene.build import build_graph
    from synergai.scene.store import ConflictError

    with SceneStore(store_location) as s:
        s.register(build_graph("s", [SceneObject("1", "table", (0, 0, 0.375), (1.2, 0.8, 0.75)),
                                     SceneObject("3", "cube", (0, 0, 0.775), (0.05, 0.05, 0.05))]), {"b": 1})
        stale = s.load("s")
        s.apply("s", E.remove_object(s.load("s"), "3", "user", "the cube is gone"))
        with pytest.raises(ConflictError, match=r"object 3 was changed by edit #1 \(user"):
            s.apply("s", E.move_object(stale, "3", (0.2, 0, 0.775), "robot:panda"))  # its edges touch 1 too
