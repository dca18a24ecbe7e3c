"""The arm plan language and the Analyzer's rule checks."""

from __future__ import annotations

import pytest

from synergai.robots.errors import RobotError
from synergai.robots.tabletop.plan import ArmStep, format_plan, parse_plan_text, parse_step, steps_from_json
from synergai.robots.tabletop.rules import check_plan, without_idle_moves
from synergai.scene.build import build_graph
from synergai.scene.model import SceneObject


def test_text_steps_parse_like_multitalk_writes_them():
    s = parse_step("2: move((0.4, 0.45, 0.04)) # Move the soup can to the desired location")
    assert s == ArmStep("move", (0.4, 0.45, 0.04), "Move the soup can to the desired location")
    assert parse_step("move((0.1, -0.33))").xyz == (0.1, -0.33)
    assert parse_step("9: home() # back").render() == "home()"
    plan = parse_plan_text("Step-by-step Instructions:\n1: grasp((0.3,0.4, 0.04)) # can\n\n2: home()")
    assert [p.render() for p in plan] == ["grasp((0.3, 0.4, 0.04))", "home()"]
    assert format_plan(plan) == "1: grasp((0.3, 0.4, 0.04)) # can\n2: home()"


@pytest.mark.parametrize("bad", ["fly((0.1, 0.2))", "grasp((0.1))", "grasp((0.1, 0.2, 0.3, 0.4))",
                                 "home((1, 2))"])
def test_malformed_steps_are_refused(bad):
    with pytest.raises(RobotError):
        parse_step(bad)


def test_json_steps_validate_and_name_the_bad_step():
    steps = steps_from_json([{"action": "grasp", "xyz": [0.3, 0.4, 0.05]},
                             {"action": "home", "xyz": [0, 0, 0]}])
    assert steps[1] == ArmStep("home")
    with pytest.raises(RobotError, match="step 2"):
        steps_from_json([{"action": "grasp", "xyz": [0.3, 0.4]}, {"action": "move", "xyz": ["a", 1]}])
    with pytest.raises(RobotError, match="no steps"):
        steps_from_json([])


def test_json_steps_need_no_why_and_the_text_form_names_the_object():
    steps = steps_from_json([{"action": "grasp", "object": "soup can", "xyz": [0.3, 0.4, 0.05]},
                             {"action": "move", "xyz": [0.4, 0.45, 0.05]},
                             {"action": "grasp", "xyz": [0.1, 0.2]},
                             {"action": "move", "xyz": [0.2, 0.2], "why": "out of the way"},
                             {"action": "home"}])
    assert steps[0] == ArmStep("grasp", (0.3, 0.4, 0.05), "", "soup can")
    assert format_plan(steps).splitlines() == [
        "1: grasp((0.3, 0.4, 0.05)) # soup can", "2: move((0.4, 0.45, 0.05)) # soup can",
        "3: grasp((0.1, 0.2))", "4: move((0.2, 0.2)) # out of the way", "5: home()"]
    assert format_plan(steps, reasons=False).splitlines()[0] == "1: grasp((0.3, 0.4, 0.05))"


@pytest.fixture()
def graph():
    objects = [SceneObject("table", "table", (0.2, 0.0, -0.31), (1.0, 1.5, 0.62)),
               SceneObject("bottle 1", "bottle", (0.32, -0.33, 0.095), (0.06, 0.095, 0.19)),
               SceneObject("bottle 2", "bottle", (0.35, 0.35, 0.095), (0.06, 0.095, 0.19))]
    return build_graph("t", objects)


def test_rules_track_objects_through_the_plan(graph):
    # the seed's Fig. 2 fault: grasping bottle 2 where bottle 1 was just put
    plan = parse_plan_text("grasp((0.32, -0.33))\nmove((0.35, 0.35))\ngrasp((0.35, 0.35))\nhome()")
    v = check_plan(plan, graph)
    assert [x.step for x in v] == [2, 3, 4]
    assert "occupied by bottle 2" in v[0].problem and "both" in v[1].problem


def test_a_move_onto_an_occupied_place_names_the_nearest_free_one(graph):
    from synergai.robots.tabletop.objects import TableBounds

    v = check_plan(parse_plan_text("grasp((0.32, -0.33))\nmove((0.35, 0.35))\nhome()"), graph)
    hint = v[0].problem.split("; ")[1]
    x, y = (float(t) for t in hint.removeprefix("(").split(") ")[0].split(", "))
    assert hint.endswith("is free") and TableBounds().contains(x, y)
    # clear of bottle 2 (half sizes 0.03 x 0.0475 each) and near the requested place
    assert abs(x - 0.35) >= 0.06 or abs(y - 0.35) >= 0.095
    assert ((x - 0.35) ** 2 + (y - 0.35) ** 2) ** 0.5 < 0.2
    swap = parse_plan_text(f"grasp((0.32, -0.33))\nmove(({x}, {y}))\nhome()")
    assert check_plan(swap, graph) == []  # the suggestion itself passes the rules


def test_rules_pass_a_correct_swap_and_catch_sequence_errors(graph):
    swap = parse_plan_text("grasp((0.32,-0.33))\nmove((0.1,0))\ngrasp((0.35,0.35))\nmove((0.32,-0.33))\n"
                           "grasp((0.1,0))\nmove((0.35,0.35))\nhome()")
    assert check_plan(swap, graph) == []
    bad = parse_plan_text("move((0.1, 0.1))\ngrasp((0.0, 0.2))\nmove((0.2, 0.2))\nhome()\n"
                          "grasp((0.32, -0.33))")
    problems = {x.step: x.problem for x in check_plan(bad, graph)}
    assert set(problems) == {1, 2, 5}
    assert "grasped before" in problems[1] and "any object" in problems[2] and "home()" in problems[5]


def test_rules_flag_a_move_that_changes_nothing(graph):
    v = check_plan(parse_plan_text("grasp((0.32, -0.33))\nmove((0.32, -0.33))\nhome()"), graph)
    assert [(x.step, x.problem) for x in v] == [(2, "this move leaves bottle 1 where it already is")]


def test_a_grasp_and_move_that_change_nothing_are_dropped_and_the_rest_kept(graph):
    plan = parse_plan_text("grasp((0.32, -0.33))\nmove((0.1, 0))\ngrasp((0.1, 0))\nmove((0.1, 0))\n"
                           "grasp((0.35, 0.35))\nmove((0.35, 0.35))\nhome()")
    kept, dropped = without_idle_moves(plan, graph)
    assert dropped == 2 and format_plan(kept) == format_plan(plan[:2] + plan[-1:])
    assert check_plan(kept, graph) == []
    fine = parse_plan_text("grasp((0.32, -0.33))\nmove((0.1, 0))\nhome()")
    assert without_idle_moves(fine, graph) == (fine, 0)


def test_a_plan_that_moves_nothing_is_a_violation(graph):
    (v,) = check_plan(parse_plan_text("home()"), graph)
    assert v.step == 1 and "the plan moves no object" in v.problem
    grasp_only = check_plan(parse_plan_text("grasp((0.32, -0.33))\nhome()"), graph)
    assert any("moves no object" in x.problem for x in grasp_only)
    assert check_plan([], graph) == []  # no plan at all is the parser's business


def test_rule_findings_name_the_fix(graph):
    far = check_plan(parse_plan_text("grasp((0.0, 0.0))\nmove((0.3, 0.0))"), graph)
    assert "the nearest object is" in far[0].problem
    out = check_plan(parse_plan_text("grasp((0.32, -0.33))\nmove((0.9, 0.0))"), graph)
    assert "out of bounds" in out[0].problem and out[0].problem.endswith("is free")
    # with the arm's reach test, an unreachable place is refused and a reachable one proposed
    reach = check_plan(parse_plan_text("grasp((0.32, -0.33))\nmove((0.2, 0.0))"), graph,
                       reachable=lambda x, y: x >= 0.25)
    assert "cannot reach (0.2, 0)" in reach[0].problem and reach[0].problem.endswith("is free and reachable")
    spot = reach[0].problem.split("; (")[1].split(")")[0]
    assert float(spot.split(", ")[0]) >= 0.25


def test_a_move_with_z_on_top_of_an_object_stacks_and_the_stack_is_tracked(graph):
    # bottle 2 onto bottle 1 (19 cm high): a z at its top stacks, no z collides
    stack = "grasp((0.35, 0.35))\nmove((0.32, -0.33, 0.2))"
    assert check_plan(parse_plan_text(stack + "\nhome()"), graph) == []
    flat = check_plan(parse_plan_text("grasp((0.35, 0.35))\nmove((0.32, -0.33))"), graph)
    assert "occupied" in flat[0].problem
    # grasping there takes bottle 2 from the top; bottle 1 under it cannot be taken while it is there
    assert check_plan(parse_plan_text(stack + "\ngrasp((0.32, -0.33))\nmove((0.3, 0.0))"), graph) == []
    v = check_plan(parse_plan_text(stack + "\ngrasp((0.32, -0.33, 0.0))\nmove((0.3, 0.0))"), graph)
    assert v == []  # the grasp point names the stack; the top object is taken


def test_a_move_at_exactly_an_objects_top_does_not_stack(graph):
    # bottle 1 is 19 cm high: z = 0.19 is a table-level move onto it (occupied); 0.2 stacks
    at_top = check_plan(parse_plan_text("grasp((0.35, 0.35))\nmove((0.32, -0.33, 0.19))"), graph)
    assert "occupied by bottle 1" in at_top[0].problem
