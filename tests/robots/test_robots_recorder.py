"""The recorder writes robot actions as `robot:<name>` edits and survives another writer's edit."""

from __future__ import annotations

from pathlib import Path

import pytest

from synergai.robots.recorder import SceneRecorder
from synergai.scene import edits as E
from synergai.scene.build import build_graph
from synergai.scene.model import ObjectKind, SceneError, SceneGraph, SceneObject
from synergai.scene.store import SceneStore


def _kitchen() -> SceneGraph:
    return build_graph("k", [
        SceneObject("0", "floor", (2.0, 2.0, -0.01), (4.0, 4.0, 0.02), kind=ObjectKind.FLOOR),
        SceneObject("1", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75)),
        SceneObject("2", "cup", (2.1, 2.0, 0.8), (0.08, 0.08, 0.1)),
        SceneObject("3", "cabinet", (3.5, 3.5, 0.45), (0.6, 0.5, 0.9), attributes=("white", "closed")),
    ])


def test_moves_and_states_are_edits_by_the_robot(tmp_path: Path) -> None:
    with SceneStore(tmp_path / "s.db") as store:
        store.register(_kitchen(), {"builder": "test"})
        rec = SceneRecorder(store, "k", "tidy up")
        assert rec.move("Alice", "2", (2.1, 2.0, 0.8), "Alice: wait()") is None  # did not move: no edit
        moved = rec.move("Alice", "2", (1.8, 2.1, 0.8), "Alice: place(cup, table)")
        opened = rec.set_open("Alice", "3", True, "Alice: open(cabinet)")
        assert rec.set_open("Alice", "3", True, "Alice: open(cabinet)") is None  # already open
        assert moved is not None and opened is not None
        assert [r.who for r in store.edits("k")] == ["robot:Alice", "robot:Alice"]
        assert moved.utterance == "Alice: place(cup, table) (task: tidy up)"
        assert store.load("k").get("2").center == (1.8, 2.1, 0.8)
        assert store.load("k").get("3").attributes == ("white", "open")
        rec.set_open("Bob", "3", False, "Bob: close(cabinet)")
        assert store.load("k").get("3").attributes == ("white", "closed") and store.verify("k")


def test_an_edit_by_another_writer_meanwhile_is_built_on_anew(tmp_path: Path) -> None:
    with SceneStore(tmp_path / "s.db") as store:
        store.register(_kitchen(), {"builder": "test"})
        rec = SceneRecorder(store, "k")
        with SceneStore(tmp_path / "s.db") as other:  # a person renames the cup meanwhile
            other.apply("k", E.rename_object(other.load("k"), "2", "mug", "user", "that is a mug"))
        rec.move("Alice", "2", (1.8, 2.1, 0.8), "Alice: place(mug, table)")
        cup = store.load("k").get("2")
        assert (cup.category, cup.center) == ("mug", (1.8, 2.1, 0.8))  # both edits kept
        assert [r.who for r in store.edits("k")] == ["user", "robot:Alice"] and store.verify("k")


def test_a_wrong_edit_is_an_error_not_a_retry(tmp_path: Path) -> None:
    with SceneStore(tmp_path / "s.db") as store:
        store.register(_kitchen(), {"builder": "test"})
        rec = SceneRecorder(store, "k")
        with pytest.raises(SceneError, match="must be finite"):
            rec.move("Alice", "2", (float("nan"), 2.0, 0.8), "Alice: place(cup, table)")
        assert store.edits("k") == []
