"""`--trace FILE` on the commands that call the model, and `synergai trace show`."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
from pathlib import Path

import pytest

from synergai.cli.main import main


def _script(tmp_path: Path) -> Path:
    plan = {"plan": [{"action": "query_for_objects", "action_input": {"query": "lamp"}}]}
    final = {"action": "final_answer", "action_input": {"short_answer": "yes"}}
    path = tmp_path / "script.json"
    path.write_text(json.dumps([json.dumps(plan), json.dumps(final)]))
    return path


def _ask(tmp_path: Path, *extra: str) -> int:
    return main(["ask", "Is the lamp white?", "--db", str(tmp_path / "s.db"),
                 "--llm", f"scripted:{_script(tmp_path)}", *extra])


def test_ask_writes_one_json_line_per_call_and_nothing_without_trace(tmp_path: Path, capsys) -> None:
    trace = tmp_path / "t.jsonl"
    assert _ask(tmp_path, "--trace", str(trace)) == 0
    lines = [json.loads(x) for x in trace.read_text().splitlines()]
    assert [(x["turn"], x["step"]) for x in lines] == [(1, 1), (1, 2)]
    assert lines[0]["question"] == "Is the lamp white?" and "query_for_objects" in lines[0]["reply"]
    assert lines[1]["messages"][0].keys() == {"role", "ref"}  # the system prompt, written once
    before = sorted(p.name for p in tmp_path.iterdir())
    assert _ask(tmp_path) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == before and len(trace.read_text().splitlines()) == 2


def test_the_environment_names_the_trace_file(tmp_path: Path, monkeypatch) -> None:
    trace = tmp_path / "env.jsonl"
    monkeypatch.setenv("SYNERGAI_TRACE", str(trace))
    assert _ask(tmp_path) == 0
    assert len(trace.read_text().splitlines()) == 2


@pytest.mark.parametrize("bad", ["missing/dir/t.jsonl", "."])
def test_a_trace_path_that_cannot_be_written_stops_before_any_model_call(tmp_path: Path, capsys,
                                                                          bad: str) -> None:
    # the script does not exist: had the model been opened, the error would name it
    code = main(["ask", "hi?", "--db", str(tmp_path / "s.db"), "--llm", f"scripted:{tmp_path}/none.json",
                 "--trace", str(tmp_path / bad)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "cannot write the trace file" in err
    assert not (tmp_path / "s.db").exists()


def test_a_trace_to_a_pipe_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """`--trace /dev/stdout | cat` used to hang or grow without end (issue 42)."""
    cmd = [sys.executable, "-m", "synergai", "ask", "hi?", "--db", str(tmp_path / "s.db"),
           "--llm", f"scripted:{_script(tmp_path)}", "--trace", "/dev/stdout"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        "synergai: error: cannot write the trace file /dev/stdout: it is not a regular file (a pipe, FIFO or "
        "device); give the path of a file"]


def test_a_full_disk_under_the_trace_keeps_the_correction_and_says_so_in_one_line(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    from synergai.llm import trace as trace_module
    from synergai.scene.store import SceneStore

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(trace_module, "_append", full)
    rename = {"action": "update_name", "action_input": {"item_id_list": ["18"], "new_name_list": ["stool"]}}
    final = {"action": "final_answer", "action_input": {"answer": "Renamed.", "short_answer": ""}}
    script = tmp_path / "script.json"
    script.write_text(json.dumps([json.dumps({"thought": "t", **rename}), json.dumps(final)]))
    trace, db = tmp_path / "t.jsonl", tmp_path / "s.db"
    code = main(["ask", "That is not a chair, it is a stool.", "--mark", "18", "--db", str(db),
                 "--llm", f"scripted:{script}", "--trace", str(trace)])
    err = capsys.readouterr().err
    assert code == 0
    assert [line for line in err.splitlines() if line] == [
        f"synergai: WARNING: synergai.llm.trace: cannot write the trace file {trace}: "
        "No space left on device; the model calls after this one are not traced"]
    with SceneStore(db) as store:
        assert [(r.op, r.who) for r in store.edits("demo")] == [("update_name", "user")]


def test_robots_team_writes_its_calls(tmp_path: Path, capsys) -> None:
    trace = tmp_path / "t.jsonl"
    script = tmp_path / "r.json"
    script.write_text(json.dumps([]))
    main(["robots", "team", "snack", "--llm", f"scripted:{script}", "--trace", str(trace),
          "--json", "--max-rounds", "1"])
    lines = [json.loads(x) for x in trace.read_text().splitlines()]
    assert lines and all("error" in x for x in lines)  # an empty script: each failed call is written


def test_trace_show_prints_a_turn_literally_and_says_what_it_skipped(tmp_path: Path, capsys) -> None:
    trace = tmp_path / "t.jsonl"
    assert _ask(tmp_path, "--trace", str(trace)) == 0
    main(["ask", "Is the \x1b[31mlamp\x1b[0m [bold]on[/]\u202e?", "--db", str(tmp_path / "s.db"),
          "--llm", f"scripted:{_script(tmp_path)}", "--trace", str(trace)])
    with trace.open("a") as f:
        f.write('{"old": "format"}\n{"turn": 2, "messages": [{"role": "user", "content": "cut')
    capsys.readouterr()
    assert main(["trace", "show", str(trace), "--turn", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("turn 2: Is the \\x1b[31mlamp\\x1b[0m [bold]on[/]\\u202e?")
    assert "\x1b" not in out and "\u202e" not in out
    assert "step 1 (" in out and "step 2 (" in out and "reply: {" in out
    assert "skipped 2 lines" in out and "line 5: not a model call" in out and "line 6: not JSON" in out
    assert main(["trace", "show", str(trace)]) == 0
    assert "turn 1: Is the lamp white?" in capsys.readouterr().out
    assert main(["trace", "show", str(trace), "--turn", "9"]) == 2
    assert "no turn 9" in capsys.readouterr().err
