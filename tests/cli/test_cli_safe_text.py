"""Text output is safe (issue 33): every string from a file, a user or a model is printed with control
characters made visible in text mode (C0, C1, ESC / CSI / OSC, U+009B, bidi overrides and isolates) and
escaped in JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synergai.cli.main import main
from synergai.cli.safe_text import json_safe, visible
from synergai.scene.model import Edge, ObjectKind, Relation, SceneGraph, SceneObject
from synergai.scene.serialization import dumps
from synergai.scene.store import SceneStore

BIDI_ID = "evil\u202eroom\u2066"
CSI_LABEL = "\x1b[31mtable\x9b2J"
#: Characters that must never reach a terminal raw.
RAW = ["\x1b", "\x9b", "\u202e", "\u2066", "\x07", "\x00", "\x7f"]


def _clean(text: str) -> bool:
    return not any(c in text for c in RAW)


def test_visible_and_json_safe_escape_controls_and_bidi() -> None:
    text = "a\x1b[2Jb\x9bc\u202ed\u2067e\x00f\x85g"
    assert visible(text) == "a\\x1b[2Jb\\x9bc\\u202ed\\u2067e\\x00f\\x85g"
    assert visible("two\nlines\tok", multiline=True) == "two\nlines\tok"
    assert visible("one\nline") == "one\\x0aline"
    doc = json_safe(json.dumps({"k": text}, ensure_ascii=False))
    assert _clean(doc) and "\x85" not in doc and json.loads(doc) == {"k": text}


@pytest.fixture
def hostile_file(tmp_path: Path) -> Path:
    objs = [
        SceneObject("0", "floor", (2.0, 2.0, -0.05), (4.0, 4.0, 0.1), kind=ObjectKind.FLOOR),
        SceneObject("1\u202e", CSI_LABEL, (2.0, 2.0, 0.375), (1.2, 0.8, 0.75), attributes=("\x1b[5mred",)),
    ]
    graph = SceneGraph(BIDI_ID, objs, [Edge("1\u202e", Relation.SUPPORTED_BY, "0")], scene_type="\x9b1m")
    path = tmp_path / "scene.json"
    path.write_text(dumps(graph), encoding="utf-8")
    return path


@pytest.mark.parametrize("json_mode", [False, True])
def test_scene_commands_print_ids_and_labels_safely(
    hostile_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], json_mode: bool
) -> None:
    db = str(tmp_path / "s.sqlite3")
    flag = ["--json"] if json_mode else []
    assert main(["scene", "import", str(hostile_file), "--db", db, *flag]) == 0
    for cmd in ("list", "show", "edits", "reset"):
        assert main(["scene", cmd, "--scene", BIDI_ID, "--db", db, *flag]) == 0, cmd
    out, err = capsys.readouterr()
    assert _clean(out) and _clean(err)
    assert "\\x1b" in out or "\\u001b" in out
    assert "\\u202e" in out
    assert main(["scene", "show", "--scene", "no\x1b[2Jsuch", "--db", db]) == 2
    assert _clean(capsys.readouterr().err)


@pytest.mark.parametrize("scene_id", ["nul\x00id", "esc\x1b]0;pwned\x07id", "c1\x9bid"])
def test_a_scene_id_holding_a_control_character_is_refused_at_import(
    scene_id: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Such a scene could not be named (a command line holds no NUL) or dropped: it is never created."""
    floor = SceneObject("0", "floor", (2.0, 2.0, -0.05), (4.0, 4.0, 0.1), kind=ObjectKind.FLOOR)
    path = tmp_path / "scene.json"
    path.write_text(dumps(SceneGraph(scene_id, [floor], [])), encoding="utf-8")
    db = tmp_path / "s.sqlite3"
    assert main(["scene", "import", str(path), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert _clean(err) and "control character" in err and len(err.strip().splitlines()) == 1
    with SceneStore(db) as store:
        assert store.scenes() == []


def test_sandbox_output_and_error_line_are_safe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "p.py"
    program.write_text('print("\\x1b]0;title\\x07\\u202eok")\nraise ValueError("\\x1b[2J\\x9bgone")\n',
                       encoding="utf-8")
    code = main(["sandbox", "run", str(program), "--scene", "room", "--db", str(_room_db(tmp_path))])
    out, err = capsys.readouterr()
    assert code == 1 and _clean(out) and _clean(err)
    assert "\\x1b]0;title" in out and "\\x1b[2J" in err


def test_a_task_file_error_is_printed_safely(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps({"mode": "tabletop", "tasks": [{"name": "\x1b[2Jx\u202e", "text": "t"}]}),
                     encoding="utf-8")
    code = main(["robots", "tabletop", "--task-file", str(tasks), "--llm", "scripted:/nonexistent"])
    err = capsys.readouterr().err
    assert code == 2 and _clean(err) and len(err.strip().splitlines()) == 1


def _room_db(tmp_path: Path) -> Path:
    objs = [
        SceneObject("0", "floor", (2.0, 2.0, -0.05), (4.0, 4.0, 0.1), kind=ObjectKind.FLOOR),
        SceneObject("2", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75), attributes=("brown",)),
    ]
    db = tmp_path / "s.sqlite3"
    with SceneStore(db) as s:
        s.register(SceneGraph("room", objs, [Edge("2", Relation.SUPPORTED_BY, "0")]), {"builder": "test"})
    return db


def _reply(action: str, action_input: dict) -> str:
    return json.dumps({"thought": "t", "action": action, "action_input": action_input})


def test_asks_edit_summary_shows_a_hostile_rename_safely(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _room_db(tmp_path)
    script = tmp_path / "script.json"
    script.write_text(json.dumps([
        _reply("update_name", {"item_id_list": ["2"], "new_name_list": ["\x1b[31mdesk\u202e"]}),
        _reply("final_answer", {"answer": "Renamed \x1b]8;;http://x\x07it\x9b.", "short_answer": ""}),
    ]), encoding="utf-8")
    code = main(["ask", "That is not a table, it is a desk.", "--scene", "room", "--db", str(db),
                 "--mark", "2", "--llm", f"scripted:{script}"])
    out, _ = capsys.readouterr()
    assert code == 0 and "edit #1" in out and _clean(out)
    assert main(["scene", "edits", "--scene", "room", "--db", str(db)]) == 0
    assert _clean(capsys.readouterr().out)


def test_scene_show_prints_room_names_and_categories_literally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Room names came from a file and reached the terminal raw (issue 42, item 9)."""
    from synergai.scene.model import Room

    square = ((0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (0.0, 4.0))
    objs = [SceneObject("0", "floor", (2.0, 2.0, -0.05), (4.0, 4.0, 0.1), kind=ObjectKind.FLOOR),
            SceneObject("1", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75), room="k")]
    room = Room("k", "kit\x1b[2Jchen\u202e", "\x1b]0;owned\x07Anna's \x9b1m[bold]room[/]", square)
    path = tmp_path / "scene.json"
    path.write_text(dumps(SceneGraph("flat", objs, [], rooms=[room])), encoding="utf-8")
    db = str(tmp_path / "s.sqlite3")
    assert main(["scene", "import", str(path), "--db", db]) == 0
    capsys.readouterr()
    assert main(["scene", "show", "--scene", "flat", "--db", db]) == 0
    out = capsys.readouterr().out
    assert _clean(out)
    assert "\\x1b]0;owned\\x07Anna's \\x9b1m[bold]room[/] (id k, kit\\x1b[2Jchen\\u202e" in out


def test_trace_show_prints_a_hostile_step_field_literally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "t.jsonl"
    record = {"turn": 1, "step": "\x1b[2J\x1b]0;owned\x07\u202e1", "messages": [], "reply": "ok"}
    trace.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["trace", "show", str(trace)]) == 0
    out = capsys.readouterr().out
    assert _clean(out) and "step \\x1b[2J\\x1b]0;owned\\x07\\u202e1 (" in out
