"""`--trace FILE` on the commands that call the model, and `synergai trace show`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synergai.cli.main import main


def _script(tmp_path: Path) -> Path:
    plan = {"plan": [{"action": "query_for_objects", "action_input": {"query": "lamp"}}]}
    final = {"action": "final_answer", "action_input": {"short_answer": "white"}}
    path = tmp_path / "script.json"
    path.write_text(json.dumps([json.dumps(plan), json.dumps(final)]))
    return path


def _ask(tmp_path: Path, *extra: str) -> int:
    return main(["ask", "What colour is the lamp?", "--db", str(tmp_path / "s.db"),
                 "--llm", f"scripted:{_script(tmp_path)}", *extra])


def test_ask_writes_one_json_line_per_call_and_nothing_without_trace(tmp_path: Path, capsys) -> None:
    trace = tmp_path / "t.jsonl"
    assert _ask(tmp_path, "--trace", str(trace)) == 0
    lines = [json.loads(x) for x in trace.read_text().splitlines()]
    assert [(x["turn"], x["step"]) for x in lines] == [(1, 1), (1, 2)]
    assert lines[0]["question"] == "What colour is the lamp?" and "query_for_objects" in lines[0]["reply"]
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
    assert "turn 1: What colour is the lamp?" in capsys.readouterr().out
    assert main(["trace", "show", str(trace), "--turn", "9"]) == 2
    assert "no turn 9" in capsys.readouterr().err
