"""Every packaged task is solvable: a hand-written reference plan per task passes the Analyzer's rules,
runs in the simulator (house: every command is one the feasible-action schema offers) and satisfies the
goal, while the untouched start does not. Guards the suites against impossible or trivial tasks."""

from __future__ import annotations

import pytest

from synergai.llm import ScriptedModel
from synergai.robots.tabletop.perception import TabletopPerception
from synergai.robots.tabletop.plan import parse_plan_text
from synergai.robots.tabletop.rules import check_plan
from synergai.robots.tabletop.sim import TabletopSim
from synergai.robots.task_file import load_task_file, packaged_task_file
from synergai.robots.team.house import Command, parse_command
from synergai.robots.team.prompts import command_schema
from synergai.robots.team.team import Team

TABLETOP_PLANS = {
    "eat": "grasp((0.3, 0.4))\nmove((0.4, 0.45))",
    "interchange": "grasp((0.32, -0.33))\nmove((0.3, -0.1))\ngrasp((0.35, 0.35))\nmove((0.32, -0.33))\n"
                   "grasp((0.3, -0.1))\nmove((0.35, 0.35))\ngrasp((0.38, -0.51))\nmove((0.3, -0.1))\n"
                   "grasp((0.4, 0.51))\nmove((0.38, -0.51))\ngrasp((0.3, -0.1))\nmove((0.4, 0.51))",
    "line": "grasp((0.32, -0.33))\nmove((0.44, -0.2))\ngrasp((0.35, 0.35))\nmove((0.34, -0.2))\n"
            "grasp((0.38, -0.51))\nmove((0.24, -0.2))\ngrasp((0.4, 0.51))\nmove((0.15, -0.2))",
    "next_to": "grasp((0.35, -0.2))\nmove((0.38, -0.36))",
    "swap_toys": "grasp((0.35, -0.2))\nmove((0.3, -0.05))\ngrasp((0.3, -0.45))\nmove((0.35, -0.2))\n"
                 "grasp((0.3, -0.05))\nmove((0.3, -0.45))",
    "stack": "grasp((0.35, -0.2))\nmove((0.3, -0.45, 0.11))",
    "sort_by_kind": "grasp((0.32, 0.15))\nmove((0.3, -0.3))\ngrasp((0.3, 0.4))\nmove((0.3, -0.05))",
    "line_up_cubes": "grasp((0.25, -0.3))\nmove((0.35, -0.3))\ngrasp((0.42, 0.0))\nmove((0.35, 0.0))\n"
                     "grasp((0.3, 0.3))\nmove((0.35, 0.3))",
    "clear_middle": "grasp((0.35, 0.0))\nmove((0.42, 0.27))\ngrasp((0.28, -0.05))\nmove((0.3, 0.22))",
    "hand_me_a_toy": "grasp((0.35, -0.2))\nmove((0.35, 0.0))",
    "right_of_bottle": "grasp((0.3, 0.4))\nmove((0.33, -0.5))",
    "behind_mug": "grasp((0.35, -0.2))\nmove((0.44, 0.2))",
    "move_to_point": "grasp((0.32, -0.33))\nmove((0.35, 0.0))",
    "swap_bottles": "grasp((0.32, -0.33))\nmove((0.3, 0.0))\ngrasp((0.35, 0.35))\nmove((0.32, -0.33))\n"
                    "grasp((0.3, 0.0))\nmove((0.35, 0.35))",
}

_FETCH = ("Alice: navigate(table_0, stand_pose_1)", "Alice: place({item}, tray)")
HOUSE_SCRIPTS = {
    "seed": ["Bob: pick(apple)", "Bob: place(apple, tray)", "Bob: pick(phone)", "Bob: place(phone, tray)",
             "Bob: pick(fork)", "Bob: place(fork, tray)", "Alice: navigate(drawer, stand_pose_0)",
             "Alice: open(drawer)", "Alice: pick(ham)", *_FETCH, "David: navigate(washbasin, stand_pose_0)",
             "Alice: navigate(washbasin, stand_pose_0)", "Alice: pick(soap)", *_FETCH],
    "snack": ["Bob: pick(banana)", "Bob: place(banana, tray)", "Alice: navigate(dishwasher, stand_pose_0)",
              "Alice: open(dishwasher)", "Alice: pick(cup)", *_FETCH, "David: navigate(sofa, stand_pose_0)",
              "Alice: navigate(sofa, stand_pose_0)", "Alice: pick(remote)", *_FETCH],
    "evening": ["Bob: pick(phone)", "Bob: place(phone, tray)", "David: navigate(book_case, stand_pose_0)",
                "Alice: navigate(book_case, stand_pose_0)",
                "Alice: pick(book)", *_FETCH, "Alice: navigate(microwave, stand_pose_0)",
                "Alice: open(microwave)", "Alice: pick(mug)", *_FETCH],
    "ham_to_fridge": ["Alice: navigate(drawer, stand_pose_0)", "Alice: open(drawer)", "Alice: pick(ham)",
                      "Alice: navigate(fridge, stand_pose_0)", "Alice: open(fridge)",
                      "Alice: place(ham, fridge)"],
    "open_two": ["Alice: navigate(microwave, stand_pose_0)", "Alice: open(microwave)",
                 "Alice: navigate(fridge, stand_pose_0)", "Alice: open(fridge)"],
    "apple_to_sofa": ["Alice: navigate(table_0, stand_pose_1)", "Alice: pick(apple)",
                      "Alice: navigate(sofa, stand_pose_0)", "Alice: place(apple, sofa)"],
    "hold_phone": ["Bob: pick(phone)", "Bob: place(phone, tray)", "Alice: navigate(table_0, stand_pose_1)",
                   "Alice: pick(phone)"],
    "fruit_in_tray": ["David: navigate(table_3, stand_pose_0)", "Alice: navigate(table_3, stand_pose_0)",
                      "Alice: pick(apple)", *_FETCH, "David: navigate(table_1, stand_pose_0)",
                      "Alice: navigate(table_1, stand_pose_0)", "Alice: pick(banana)", *_FETCH],
    "cup_to_table": ["Alice: navigate(dishwasher, stand_pose_0)", "Alice: open(dishwasher)",
                     "Alice: pick(cup)", "Alice: navigate(table_1, stand_pose_0)",
                     "Alice: place(cup, table_1)"],
}

TABLETOP = load_task_file(packaged_task_file("tabletop_suite.json"), "tabletop")
HOUSE = load_task_file(packaged_task_file("house_suite.json"), "house")


def test_every_packaged_task_has_a_reference_plan():
    assert sorted(TABLETOP_PLANS) == sorted(t.name for t in TABLETOP)
    assert sorted(HOUSE_SCRIPTS) == sorted(t.name for t in HOUSE)


@pytest.mark.parametrize("task", TABLETOP, ids=lambda t: t.name)
def test_tabletop_task_is_solvable_and_not_solved_at_the_start(task):
    steps = parse_plan_text(TABLETOP_PLANS[task.name] + "\nhome()")
    with TabletopSim(task.objects) as sim:
        initial = sim.states()
        assert not task.check(initial, initial).success
        graph = TabletopPerception(sim).scan()
        assert check_plan(steps, graph, reachable=lambda x, y: sim.reachable((x, y, 0.07))) == []
        report = sim.execute(steps)
        assert report.ok, report.feedback()
        verdict = task.check(initial, sim.states())
        assert verdict.success, verdict.reason


@pytest.mark.parametrize("task", HOUSE, ids=lambda t: t.name)
def test_house_task_is_solvable_with_offered_commands_only(task):
    house = task.make_house()
    assert not task.check(house).success
    held: str | None = None
    for line in HOUSE_SCRIPTS[task.name]:
        robot, _, text = line.partition(": ")
        command = parse_command(text.format(item=held))
        team = Team(house, ScriptedModel([]), task)  # the schema a robot of the team is given
        schema = command_schema(house, robot, sorted(house.known[robot]), settled=team.settled(),
                                targets=task.targets, destinations=team.destinations())
        assert _offered(schema, command), f"{line} not offered"
        feedback = house.execute(robot, command)
        assert feedback.ok, f"{line}: {feedback.text}"
        held = house.states["Alice"].holding
    verdict = task.check(house)
    assert verdict.success, verdict.reason


def _offered(schema: dict, command: Command) -> bool:
    names = {"navigate": ("target", "stand_pose"), "open": ("target",), "pick": ("target",),
             "place": ("target", "location")}[command.skill]
    wanted = dict(zip(names, command.args, strict=True))
    for v in schema["properties"]["command"]["anyOf"]:
        props = v["properties"]
        if props["skill"]["const"] != command.skill:
            continue
        if all(props[k].get("const", value) == value and value in props[k].get("enum", [value])
               for k, value in wanted.items()):
            return True
    return False
