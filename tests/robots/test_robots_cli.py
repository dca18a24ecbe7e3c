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


def costs_tokens(line: dict) -> bool:
    """Whether a JSON line records tokens as a scripted model's replies cost them."""
    return line["completion_tokens"] > 0 and 0 < line["new_prompt_tokens"] <= line["prompt_tokens"]


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
    assert costs_tokens(out)
    assert out["prompt_tokens"] == sum(e["prompt_tokens"] for e in out["log"])


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
    assert costs_tokens(out)
    assert out["completion_tokens"] == sum(e["completion_tokens"] for e in out["log"])


def test_team_map_sharing_is_on_unless_switched_off(tmp_path, capsys, monkeypatch):
    import synergai.robots.team.team as team_module

    seen = []
    real = team_module.run_team

    def spy(task, model, config=None, house=None):
        seen.append(config.shared_map)
        return real(task, model, config, house)

    monkeypatch.setattr(team_module, "run_team", spy)
    wait = {"analysis": "nothing to do", "command": {"skill": "wait"}}
    for flags in ([], ["--no-shared-map"]):
        run_cli(["robots", "team", "seed", "--max-rounds", "1", *flags, "--llm",
                 script(tmp_path, "w.json", [wait] * 3), "--json"], capsys)
    assert seen == [True, False]


def test_bad_options_raise_user_errors(tmp_path, capsys):
    from synergai.robots.errors import RobotError

    with pytest.raises(RobotError, match="max_rounds"):
        run_cli(["robots", "team", "seed", "--max-rounds", "0", "--llm", script(tmp_path, "e.json", []),
                 "--json"], capsys)
    with pytest.raises(ValueError, match="the task must not be empty"):
        run_cli(["robots", "team", " ", "--llm", script(tmp_path, "e.json", []), "--json"], capsys)


def test_task_file_suites_print_one_json_line_per_task_and_a_summary(tmp_path, capsys):
    tasks = tmp_path / "tabletop.json"
    tasks.write_text(json.dumps({"mode": "tabletop", "tasks": [
        {"name": "give", "text": "Put the soup can at (0.4, 0.45)", "scene": "snack",
         "goal": [["at", "soup can", [0.4, 0.45], 0.06]]},
        {"name": "stay", "text": "Leave the mustard bottle alone and move the can to (0.4, 0.45)",
         "scene": "snack",
         "goal": [["unmoved", "mustard bottle"], ["at", "soup can", [0.2, 0.2], 0.05]]}]}))
    good = {"reply": "plan", "questions": [], "steps": [
        {"action": "grasp", "xyz": [0.3, 0.4, 0.05], "why": "can"},
        {"action": "move", "xyz": [0.4, 0.45, 0.05], "why": "there"},
        {"action": "home", "xyz": [], "why": "done"}]}
    code = robots_main(["robots", "tabletop", "--task-file", str(tasks), "--no-critic", "--json", "--llm",
                        script(tmp_path, "s.json", [good, good])])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1 and len(lines) == 3
    assert lines[0]["name"] == "give" and lines[0]["success"] is True and lines[1]["success"] is False
    assert set(lines[0]) == {"name", "success", "rounds", "llm_calls", "seconds", "prompt_tokens",
                             "new_prompt_tokens", "completion_tokens"}
    assert costs_tokens(lines[0])
    assert lines[2] == {"solved": 1, "n": 2}

    house = tmp_path / "house.json"
    house.write_text(json.dumps([{"name": "hold", "text": "Bob, hold the apple", "scene": "house",
                                  "goal": [["held_by", "apple", "Bob"]]}]))
    pick = {"analysis": "apple in reach", "reasoning": "pick",
            "command": {"skill": "pick", "target": "apple"}}
    code = robots_main(["robots", "team", "--task-file", str(house), "--json", "--llm",
                        script(tmp_path, "h.json", [pick])])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and lines[0]["success"] is True and lines[0]["steps"] == 1 and "llm_calls" in lines[0]
    assert costs_tokens(lines[0])
    assert lines[-1] == {"solved": 1, "n": 1}


def robots_main(argv: list[str]) -> int:
    from synergai.cli.main import main

    return main(argv)


def test_save_scene_puts_the_final_world_in_the_store_for_the_agent(tmp_path, capsys):
    from synergai.scene.model import Relation
    from synergai.scene.store import SceneStore

    good = {"reply": "plan", "questions": [], "steps": [
        {"action": "grasp", "object": "cube", "why": "cube"},
        {"action": "move", "xyz": [0.3, -0.45, 0.11], "why": "onto the can"},
        {"action": "home", "why": "done"}]}
    db = tmp_path / "store.db"
    code = robots_main(["robots", "tabletop", "stack", "--no-critic", "--json", "--save-scene", "table now",
                        "--db", str(db), "--llm", script(tmp_path, "t.json", [good])])
    assert code == 0 and json.loads(capsys.readouterr().out)["success"] is True
    with SceneStore(db) as store:
        graph = store.load("table now")
    cube, can = graph.get("cube"), graph.get("soup can")
    assert abs(cube.center[2] - (can.size[2] + cube.size[2] / 2)) < 0.01  # the stored world has the stack
    assert (Relation.SUPPORTED_BY, "table") in graph.relations_of("soup can")
    pick = {"analysis": "a", "reasoning": "b", "command": {"skill": "pick", "target": "phone"}}
    wait = {"analysis": "a", "reasoning": "b", "command": {"skill": "wait"}}
    code = robots_main(["robots", "team", "hold_phone", "--max-rounds", "1", "--json", "--save-scene", "flat",
                        "--db", str(db), "--llm", script(tmp_path, "h.json", [pick, wait, wait])])
    capsys.readouterr()
    with SceneStore(db) as store:
        flat = store.load("flat")
    assert code == 1 and "phone" not in flat.ids and "apple" in flat.ids  # Bob holds the phone
    assert robots_main(["robots", "team", "--task-file", str(tmp_path / "x.json"), "--save-scene", "s"]) == 2
