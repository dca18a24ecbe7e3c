"""Task files: parsing, the packaged paper tasks and suite, and one-line errors (exit 2 on the CLI)."""

from __future__ import annotations

import json

import pytest

from synergai.cli.main import main
from synergai.robots.errors import RobotError
from synergai.robots.task_file import load_task_file, packaged_task_file, parse_tasks

INLINE = {"name": "t", "text": "Put cube 1 next to the can",
          "scene": {"objects": [{"name": "cube 1", "kind": "cube", "xy": [0.3, 0.1]},
                                {"name": "can", "kind": "soup can", "xy": [0.35, -0.2]},
                                {"name": "m", "kind": "mug", "xy": [0.3, 0.3]},
                                {"name": "b", "kind": "mustard bottle", "xy": [0.2, -0.4]}]},
          "answers": ["next to it"], "goal": [["near", "cube 1", "can", 0.1]]}


def test_inline_tabletop_scene_with_every_kind():
    (task,) = parse_tasks({"mode": "tabletop", "tasks": [INLINE]}, "tabletop")
    assert [o.category for o in task.objects] == ["cube", "soup can", "mug", "mustard bottle"]
    assert task.objects[0].position == (0.3, 0.1) and task.answers == ("next to it",)
    assert task.goal[0].name == "near" and task.scene == "inline"


def test_inline_house_scene_places_items_on_and_in_furniture():
    data = [{"name": "h", "text": "Put the milk on the sofa", "scene": {"items": [
        {"name": "milk", "in": "fridge"}, {"name": "apple", "on": "table_0"}]},
        "goal": [["on", "milk", "sofa"], ["closed", "fridge"]]}]
    (task,) = parse_tasks(data, "house")
    house = task.make_house()
    assert house.items["milk"].location == "fridge" and task.targets == ("milk",)
    assert not task.check(house).success


def test_packaged_paper_tasks_and_suites():
    tabletop = load_task_file(packaged_task_file("tabletop_suite.json"), "tabletop")
    house = load_task_file(packaged_task_file("house_suite.json"), "house")
    assert len(tabletop) >= 12 and len(house) >= 6
    paper = [t.name for t in load_task_file(packaged_task_file("tabletop_paper.json"), "tabletop")]
    assert paper == ["eat", "interchange", "line"] and paper == [t.name for t in tabletop[:3]]
    assert [t.name for t in load_task_file(packaged_task_file("house_paper.json"), "house")] == [
        "seed", "snack", "evening"]
    # no packaged task is solved before anything moves
    for task in tabletop:
        states = {o.name: _resting(o) for o in task.objects}
        assert not task.check(states, states).success, task.name
    for task in house:
        assert not task.check(task.make_house()).success, task.name


def _resting(spec):
    from synergai.robots.tabletop.objects import ObjectState

    h = spec.size[2] if spec.shape != "urdf" else 0.1
    size = (spec.size[0], spec.size[1], h)
    return ObjectState(spec.name, spec.category, (*spec.position, h / 2), size, True, spec.color)


@pytest.mark.parametrize(("change", "message"), [
    ({"scene": "kitchen"}, "unknown tabletop scene 'kitchen'"),
    ({"scene": {"objects": [{"name": "x", "kind": "banana", "xy": [0.3, 0.1]}]}}, "unknown kind 'banana'"),
    ({"goal": [["near", "cube 1", "spoon", 0.1]]}, "unknown object 'spoon'"),
    ({"goal": [["floats", "cube 1"]]}, "unknown tabletop predicate 'floats'"),
    ({"colour": "red"}, "unknown keys colour"),
    ({"answers": "yes"}, "answers must be a list"),
])
def test_bad_tasks_name_the_file_task_and_problem(change, message):
    with pytest.raises(RobotError, match=message) as exc:
        parse_tasks([{**INLINE, **change}], "tabletop", "f.json")
    assert str(exc.value).startswith("f.json: task t: ") and "\n" not in str(exc.value)


def test_house_errors_and_mode_mismatch():
    with pytest.raises(RobotError, match="unknown house scene 'flat'"):
        parse_tasks([{"name": "h", "text": "x", "scene": "flat", "goal": [["open", "fridge"]]}], "house")
    with pytest.raises(RobotError, match="unknown furniture 'garage'"):
        parse_tasks([{"name": "h", "text": "x", "scene": {"items": [{"name": "a", "on": "garage"}]},
                      "goal": [["open", "fridge"]]}], "house")
    with pytest.raises(RobotError, match="unknown robot 'Eve'"):
        parse_tasks([{"name": "h", "text": "x", "scene": "house", "goal": [["held_by", "apple", "Eve"]]}],
                    "house")
    with pytest.raises(RobotError, match="holds 'house' tasks"):
        parse_tasks({"mode": "house", "tasks": [INLINE]}, "tabletop")


@pytest.mark.parametrize("command", ["tabletop", "team"])
def test_cli_bad_task_file_is_a_one_line_error_with_exit_2(tmp_path, capsys, command):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{**INLINE, "goal": [["near", "cube 1", "spoon", 0.1]]}]))
    llm = "scripted:" + str(tmp_path / "none.json")
    code = main(["robots", command, "--task-file", str(bad), "--llm", llm])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("synergai: error: ")
    missing = main(["robots", command, "--task-file", str(tmp_path / "nope.json")])
    assert missing == 2


def test_every_task_is_validated_before_the_first_runs(tmp_path, capsys):
    """A suite whose fifth task puts an object off the table is refused whole, before any task runs."""
    tasks = [{**INLINE, "name": f"t{k}"} for k in range(1, 5)]
    off = json.loads(json.dumps(INLINE))
    off["name"] = "t5"
    off["scene"]["objects"][1]["xy"] = [0.9, 0.0]
    with pytest.raises(RobotError, match=r"task t5: object can at \[0\.9, 0\.0\] is off the table"):
        parse_tasks({"mode": "tabletop", "tasks": [*tasks, off]}, "tabletop")
    path = tmp_path / "suite.json"
    path.write_text(json.dumps({"mode": "tabletop", "tasks": [*tasks, off]}))
    assert main(["robots", "tabletop", "--task-file", str(path), "--llm", "scripted:/nonexistent"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "off the table" in err
