"""What the store refuses is an error, said as it is (issue 42 item 14): a correction the store refuses
ends `ask` with a non-zero exit; a write without permission is an error (no "please say it again",
no exit 0); a conflict calls an undone edit "undone"; an undo of an edit another writer has since
superseded is refused naming the newer edit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pg_roles import reader_role
from synergai.cli import agent_cmd
from synergai.cli.main import main
from synergai.llm import ScriptedModel
from synergai.scene import edits as E
from synergai.scene.model import SceneGraph, SceneObject
from synergai.scene.store import ConflictError, SceneStore

RECOLOUR = json.dumps({"thought": "Fix it.", "plan": [
    {"action": "update_attributes", "action_input": {"object_id": "4", "new_attributes_list": ["red"]}}]})
DONE = json.dumps({"thought": "Done.", "action": "final_answer",
                   "action_input": {"answer": "Done.", "short_answer": "", "item_id_list": ["4"]}})


def _room() -> SceneGraph:
    return SceneGraph("room", [SceneObject("0", "floor", (2, 2, -0.05), (4, 4, 0.1)),
                               SceneObject("2", "table", (2, 2, 0.375), (1.2, 0.8, 0.75)),
                               SceneObject("4", "chair", (1, 2, 0.45), (0.5, 0.5, 0.9))])


def test_a_correction_the_store_refuses_exits_non_zero(
        store_location: str | Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    with SceneStore(store_location) as other:
        other.register(_room(), {"b": 1})

        class Meanwhile(ScriptedModel):  # another writer recolours the chair while the agent works
            def chat(self, messages: Any, **kw: Any) -> Any:
                if len(self.requests) == 1:
                    other.apply("room", E.set_attributes(other.load("room"), "4", ["blue"], utterance="cli"))
                return super().chat(messages, **kw)

        monkeypatch.setattr(agent_cmd, "open_llm", lambda args, progress=None: Meanwhile([RECOLOUR, DONE]))
        code = main(["ask", "The marked object is red.", "--scene", "room", "--mark", "4",
                     "--db", str(store_location)])
        out, err = capsys.readouterr()
        assert code == 1 and out == ""
        assert err.count("\n") == 1 and err.startswith("synergai: error: the edits were not saved: ")
        assert "object 4 was changed by edit #1" in err
        assert other.load("room").get("4").attributes == ("blue",)


@pytest.fixture
def read_only_role(pg_location: str) -> Iterator[str]:
    """The URL of a role that may read the store holding the room, but not write it."""
    with SceneStore(pg_location) as s:
        s.register(_room(), {"b": 1})
    with reader_role(pg_location) as url:
        yield url


def test_a_correction_without_write_permission_is_an_error(
        read_only_role: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([RECOLOUR, DONE]))
    code = main(["ask", "The marked object is red.", "--scene", "room", "--mark", "4", "--db", read_only_role,
                 "--llm", f"scripted:{script}"])
    out, err = capsys.readouterr()
    assert code != 0 and "say it again" not in out + err and "Done." not in out
    assert err.count("\n") == 1 and "permission denied" in err
    with SceneStore(read_only_role) as s:
        assert s.edits("room") == [] and s.load("room").get("4").attributes == ()


def test_a_conflict_names_an_undone_edit_undone(store_location: str | Path) -> None:
    with SceneStore(store_location) as a, SceneStore(store_location) as b:
        a.register(_room(), {"b": 1})
        a.apply("room", E.rename_object(a.load("room"), "4", "stool", "user", "a stool"))
        stale = b.load("room")  # sees the stool
        a.undo("room")
        with pytest.raises(ConflictError) as err:
            b.apply("room", E.rename_object(stale, "4", "bench", "agent"))
        assert "object 4 was changed by edit #1 (user, undone," in str(err.value)
        assert [r.state.value for r in a.edits("room", include_undone=True)] == ["undone"]  # redo still there
        assert a.redo("room") is not None and a.load("room").get("4").category == "stool"


def test_an_undo_of_a_superseded_edit_is_refused_naming_the_newer_edit(store_location: str | Path) -> None:
    with SceneStore(store_location) as gui, SceneStore(store_location) as robot:
        gui.register(_room(), {"b": 1})
        mine = gui.apply("room", E.rename_object(gui.load("room"), "4", "stool", "user", "a stool"))
        robot.apply("room", E.move_object(robot.load("room"), "2", (2.5, 2, 0.375), actor="robot:Alice"))
        with pytest.raises(ConflictError) as err:
            gui.undo("room", expect=mine.seq)
        said = str(err.value)
        assert "undo of edit #1 of scene room refused" in said and "edit #2 (robot:Alice, active," in said
        assert "nothing was changed" in said
        assert gui.load("room").get("2").center == (2.5, 2, 0.375)  # the newer edit is kept
        assert gui.undo("room", expect=2).seq == 2  # the edit shown as newest is undone
        assert gui.redo("room", expect=2).seq == 2
        with pytest.raises(ConflictError, match="edit #1 is active now"):
            gui.redo("room", expect=1)
