"""`synergai robots tabletop|team --json` through the command functions, with scripted models."""

from __future__ import annotations

import argparse
import json

import pytest

from synergai.cli import robots_cmd


def run_cli(argv: list[str], capsys) -> tuple[int, dict]:
    parser = argparse.ArgumentParser(prog="synergai")
    robots_cmd.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code = args.func(args)
    return code, json.loads(capsys.readouterr().out)


def script(tmp_path, name: str, replies: list) -> str:
    path = tmp_path / name
    path.write_text(json.dumps([r if isinstance(r, str) else json.dumps(r) for r in replies]))
    return f"scripted:{path}"


def test_tabletop_json_shape_and_answers(tmp_path, capsys):
    replies = [
        {"reply": "questions", "questions": ["Which food?", "Where to?"], "steps": []},
        {"reply": "plan", "questions": [], "steps": [
            {"action": "grasp", "xyz": [0.3, 0.4, 0.05], "why": "the soup can"},
            {"action": "move", "xyz": [0.4, 0.45, 0.05], "why": "hand-over"},
            {"action": "home", "xyz": [], "why": "done"}]},
        {"violations": []},
    ]
    llm = script(tmp_path, "t.json", replies)
    code, out = run_cli(["robots", "tabletop", "Give me something to eat", "--llm", llm, "--answers",
                         "The soup can.", "--answers", "At (0.4, 0.45, 0.04).", "--json"], capsys)
    assert code == 0
    assert {"success", "rounds", "messages", "log"} <= set(out)
    assert out["success"] is True and out["rounds"] == 2 and out["checked"] is True
    assert isinstance(out["messages"], int) and out["messages"] == 6  # 2 plans, 2 answers, 1 critique, 1 sim
    assert [e["planner"] for e in out["log"]] == ["questions", "plan"]
    assert out["log"][1]["simulator"] == "The plan is feasible!"


def test_tabletop_without_answers_reports_the_question(tmp_path, capsys):
    replies = [{"reply": "questions", "questions": ["Which food?"], "steps": []}]
    code, out = run_cli(["robots", "tabletop", "Give me something to eat", "--no-critic", "--llm",
                         script(tmp_path, "q.json", replies), "--json"], capsys)
    assert code == 1 and out["success"] is False and out["pending_questions"] == ["Which food?"]


def test_team_json_shape(tmp_path, capsys):
    wait = {"analysis": "nothing to do", "reasoning": "wait", "command": {"skill": "wait"}}
    hello = {"analysis": "tell Alice", "reasoning": "she explores",
             "command": {"skill": "communicate", "content": "I need the ham", "robot_name": "Alice"}}
    code, out = run_cli(["robots", "team", "seed", "--max-rounds", "3", "--no-feedback", "--llm",
                         script(tmp_path, "m.json", [hello, wait, wait, wait, wait, wait, wait, wait, wait]),
                         "--json"], capsys)
    assert code == 1
    assert {"success", "steps", "messages", "log"} <= set(out)
    assert out["success"] is False and out["messages"] == 1 and out["steps"] == 9 and out["rounds"] == 3
    assert [e["robot"] for e in out["log"][:3]] == ["Bob", "Alice", "David"]
    assert out["log"][0]["command"] == "communicate(I need the ham, Alice)"


def test_bad_options_raise_user_errors(tmp_path, capsys):
    from synergai.robots.errors import RobotError

    with pytest.raises(RobotError, match="max_rounds"):
        run_cli(["robots", "team", "seed", "--max-rounds", "0", "--llm", script(tmp_path, "e.json", []),
                 "--json"], capsys)
    with pytest.raises(RobotError, match="tray task"):
        run_cli(["robots", "team", "dance", "--llm", script(tmp_path, "e.json", []), "--json"], capsys)
