"""Robots talk while they work: one line per round (tabletop) or action (team) on stderr as it happens,
a first line before the model is opened, nothing with -q, and the --json document on stdout unchanged.
Scripted models."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from synergai.cli import robots_cmd
from synergai.cli.main import main
from synergai.cli.robots_talk import TerminalTalk
from synergai.llm import ScriptedModel

WAIT = {"analysis": "nothing to do", "command": {"skill": "wait"}}
HELLO = {"analysis": "tell Alice", "command": {"skill": "communicate", "content": "I need the ham\x1b[2J",
                                               "robot_name": "Alice"}}
PLAN = {"reply": "plan", "questions": [], "steps": [
    {"action": "grasp", "xyz": [0.3, 0.4, 0.05], "why": "the soup can"},
    {"action": "move", "xyz": [0.4, 0.45, 0.05], "why": "hand-over"},
    {"action": "home", "xyz": [], "why": "done"}]}


def _script(tmp_path: Path, replies: list[Any]) -> str:
    path = tmp_path / f"script-{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps([json.dumps(r) for r in replies]))
    return f"scripted:{path}"


def _team(tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str, list[str]]:
    code = main([*flags, "robots", "team", "seed", "--max-rounds", "2", "--json", "--llm",
                 _script(tmp_path, [HELLO] + [WAIT] * 8)])
    out, err = capsys.readouterr()
    return code, out, err.splitlines()


def test_the_team_says_each_action_on_stderr_and_the_json_is_unchanged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, lines = _team(tmp_path, capsys)
    log = json.loads(out)["log"]
    assert code == 1 and len(log) == 6
    assert lines[0].startswith("team: Bob, Alice and David take \"Put the apple")
    steps = [line for line in lines if line.startswith("round ")]
    assert len(steps) == len(log) == len(lines) - 2  # one line per action, a first and a last line
    assert steps[0] == ("round 1, Bob: communicate(I need the ham\\x1b[2J, Alice) ok: The message has been "
                        "successfully sent to Alice.")  # a model's words printed literally
    assert [line.split(":")[0] for line in steps] == [f"round {e['round']}, {e['robot']}" for e in log]
    assert lines[-1].startswith("team: not done, stopped after 2 rounds")
    quiet_code, quiet_out, quiet_lines = _team(tmp_path, capsys, "-q")
    assert quiet_code == code and quiet_lines == [] and json.loads(quiet_out) == json.loads(out)


def test_the_first_line_comes_before_the_model_is_opened(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    said_before: list[str] = []

    def open_llm(args: argparse.Namespace) -> ScriptedModel:
        said_before.append(capsys.readouterr().err)
        return ScriptedModel([json.dumps(WAIT)] * 3)

    monkeypatch.setattr(robots_cmd, "open_llm", open_llm)
    assert main(["robots", "team", "Bring me the apple", "--max-rounds", "1", "--json"]) == 1
    [before] = said_before
    assert before.startswith("team: Bob, Alice and David take \"Bring me the apple\"")
    assert "round 1" in capsys.readouterr().err  # the rounds come after


def test_the_tabletop_says_each_round(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replies = [{"reply": "questions", "questions": ["Which food?"], "steps": []}, PLAN, {"violations": []}]
    code = main(["robots", "tabletop", "Give me something to eat", "--answers", "The soup can.", "--json",
                 "--llm", _script(tmp_path, replies)])
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert code == 0 and len(json.loads(out)["log"]) == 2
    assert lines[0].startswith("tabletop: the arm's planner takes \"Give me something to eat\"")
    assert lines[1] == "round 1: the planner asks: Which food?; answered: The soup can."
    assert lines[2] == ("round 2: a plan of 3 steps; critic: Feasible Plan!; simulator: The plan is "
                        "feasible!")
    assert lines[3].startswith("tabletop: success, plan executed") and len(lines) == 4


def test_the_spinner_follows_the_conventions_of_ask(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    terminal = argparse.Namespace(json=False, quiet=0)
    assert TerminalTalk(terminal).display.mode == "live"
    assert TerminalTalk(argparse.Namespace(json=True, quiet=0)).display.mode == "off"
    quiet = TerminalTalk(argparse.Namespace(json=False, quiet=1))
    assert quiet.display.mode == "off" and quiet.quiet
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert TerminalTalk(terminal).display.mode == "off"  # lines only, no spinner in a file
