"""The generic goal checker: every tabletop and house predicate, true and false."""

from __future__ import annotations

import pytest

from synergai.robots.errors import RobotError
from synergai.robots.goals import Names, check_house, check_tabletop, parse_goal
from synergai.robots.tabletop.objects import ObjectState
from synergai.robots.task_file import load_task_file, packaged_task_file

NAMES = Names(frozenset({"a", "b", "c", "d"}))


def st(name: str, x: float, y: float, z: float | None = None, h: float = 0.1, upright: bool = True):
    return ObjectState(name, "cube", (x, y, h / 2 if z is None else z), (0.05, 0.05, h), upright, (0, 0, 200))


START = {"a": st("a", 0.3, 0.0), "b": st("b", 0.3, -0.3), "c": st("c", 0.4, 0.3), "d": st("d", 0.2, 0.2)}


def holds(goal: list, final: dict, initial: dict = START) -> bool:
    return check_tabletop(parse_goal([goal], "tabletop", NAMES), initial, final).success


def moved(**where: tuple[float, ...]) -> dict:
    out = dict(START)
    for name, xyz in where.items():
        out[name] = st(name, *xyz)
    return out


@pytest.mark.parametrize(("goal", "true_final", "false_final"), [
    (["left_of", "a", "b"], moved(), moved(a=(0.3, -0.5))),  # +y is the arm's left
    (["right_of", "b", "a"], moved(), moved(b=(0.3, 0.2))),
    (["in_front_of", "d", "c"], moved(d=(0.2, 0.3)), moved(d=(0.5, 0.3))),  # nearer the arm's base
    (["behind", "c", "d"], moved(c=(0.4, 0.2)), moved(c=(0.1, 0.2))),
    (["near", "a", "d", 0.25], moved(), moved(d=(0.2, 0.4))),
    (["at", "a", [0.35, 0.05], 0.08], moved(), moved(a=(0.45, 0.1))),
    (["at_start_of", "a", "b", 0.05], moved(a=(0.31, -0.3), b=(0.1, 0.4)),
     moved(a=(0.3, -0.2), b=(0.1, 0.4))),
    (["on", "a", "b"], moved(a=(0.3, -0.3, 0.15)), moved(a=(0.3, -0.2, 0.15))),
    (["in_line", ["a", "b", "c"], 0.03], moved(b=(0.3, -0.3), c=(0.3, 0.3)), moved()),
    (["in_line", ["a", "b"], 0.03, "x"], moved(a=(0.1, -0.3)), moved(a=(0.1, -0.2))),
    (["unmoved", "c"], moved(a=(0.1, 0.1)), moved(c=(0.4, 0.25))),
])
def test_each_tabletop_predicate_is_true_and_false(goal, true_final, false_final):
    assert holds(goal, true_final)
    assert not holds(goal, false_final)


def test_objects_too_close_are_not_a_line_and_a_fallen_object_fails_every_goal():
    assert not holds(["in_line", ["a", "b"], 0.03], moved(b=(0.32, 0.0)))
    fallen = moved()
    fallen["d"] = st("d", 0.2, 0.2, upright=False)
    verdict = check_tabletop(parse_goal([["unmoved", "a"]], "tabletop", NAMES), START, fallen)
    assert not verdict.success and "upright: d" in verdict.reason


def house_goal(goal: list):
    task = load_task_file(packaged_task_file("house_paper.json"), "house")[0]
    names = Names(frozenset(i.name for i in task.items),
                  frozenset(task.make_house().furniture), frozenset({"Alice", "Bob", "David"}))
    return task.make_house(), parse_goal([goal], "house", names)


@pytest.mark.parametrize("goal", [["in", "ham", "drawer"], ["on", "apple", "table_0"], ["closed", "fridge"]])
def test_house_predicates_true_on_the_seed_placement(goal):
    house, parsed = house_goal(goal)
    assert check_house(parsed, house).success


@pytest.mark.parametrize("goal", [["in", "ham", "fridge"], ["on", "apple", "sofa"], ["open", "fridge"],
                                  ["held_by", "apple", "Alice"]])
def test_house_predicates_false_on_the_seed_placement(goal):
    house, parsed = house_goal(goal)
    assert not check_house(parsed, house).success


def test_house_predicates_follow_the_world():
    from synergai.robots.team.house import Command

    house, goal = house_goal(["held_by", "apple", "Bob"])
    assert house.execute("Bob", Command("pick", ("apple",))).ok
    assert check_house(goal, house).success
    _, opened = house_goal(["open", "drawer"])
    _, closed = house_goal(["closed", "drawer"])
    house.execute("Alice", Command("navigate", ("drawer", "stand_pose_0")))
    assert house.execute("Alice", Command("open", ("drawer",))).ok
    assert check_house(opened, house).success and not check_house(closed, house).success


@pytest.mark.parametrize(("goal", "message"), [
    ([["hovering", "a"]], "unknown tabletop predicate 'hovering'"),
    ([["near", "a", "zz", 0.1]], "unknown object 'zz'"),
    ([["near", "a", "b"]], "takes 3 arguments"),
    ([["at", "a", [0.1], 0.05]], "expected a point"),
    ([["in_line", ["a", "b"], 0.03, "z"]], "axis"),
    ([], "non-empty list"),
])
def test_bad_goals_are_one_line_errors(goal, message):
    with pytest.raises(RobotError, match=message) as exc:
        parse_goal(goal, "tabletop", NAMES)
    assert "\n" not in str(exc.value)
