"""The MultiTalk loop with a scripted model: questions, critique, simulator feedback, rescans, repairs."""

from __future__ import annotations

import json

import pytest

from synergai.llm import ScriptedModel
from synergai.robots.errors import RobotError
from synergai.robots.tabletop.multitalk import MultiTalkConfig, feasible_grasps, run_multitalk
from synergai.robots.tabletop.objects import TableBounds
from synergai.robots.tabletop.perception import PerceptionNoise, TabletopPerception
from synergai.robots.tabletop.places import place_target
from synergai.robots.tabletop.plan import parse_plan_text
from synergai.robots.tabletop.scenes import cube, mustard_bottle
from synergai.robots.tabletop.sim import TabletopSim
from synergai.robots.task_file import packaged_task

EAT = packaged_task("eat", "tabletop")


def plan(*steps: str) -> str:
    out = []
    for s in steps:
        action, _, rest = s.partition("(")
        xyz = [float(v) for v in rest.strip("()").split(",") if v.strip()]
        out.append({"action": action, "xyz": xyz, "why": f"{action} step"})
    return json.dumps({"reply": "plan", "questions": [], "steps": out})


def questions(*qs: str) -> str:
    return json.dumps({"reply": "questions", "questions": list(qs), "steps": []})


def critique(*violations: tuple[int, str]) -> str:
    return json.dumps({"violations": [{"step": s, "problem": p} for s, p in violations]})


GOOD = plan("grasp(0.3, 0.4, 0.05)", "move(0.4, 0.45, 0.05)", "home()")
ONTO_BOTTLE = plan("grasp(0.3, 0.4, 0.05)", "move(0.32, -0.28, 0.05)", "home()")


@pytest.fixture()
def sim():
    with TabletopSim(EAT.objects) as s:
        yield s


def test_questions_then_simulator_collision_then_repair(sim):
    asking = questions("What would you like to eat?", "Where should I put it?")
    model = ScriptedModel([asking, ONTO_BOTTLE, GOOD])
    result = run_multitalk(EAT.text, sim, model, checker=EAT.check, answers=EAT.answers,
                           config=MultiTalkConfig(use_critic=False))
    assert result.success and result.executed and result.rounds == 3
    assert [e["planner"] for e in result.log] == ["questions", "plan", "plan"]
    assert result.log[0]["answers"] == list(EAT.answers)
    assert "collision detected between soup can and mustard bottle" in result.log[1]["simulator"]
    assert result.log[2]["simulator"] == "The plan is feasible!"
    # the answers and the simulator's error reached the planner
    second, third = model.requests[1].messages, model.requests[2].messages
    assert "A: The soup can." in second[1]["content"]
    assert "collision detected" in third[-1]["content"] and third[-2]["role"] == "assistant"
    assert abs(sim.state("soup can").center[0] - 0.4) < 0.01


def test_critic_violation_is_repaired_before_the_simulator_runs(sim):
    to_base = plan("grasp(0.3, 0.4, 0.05)", "move(0.35, 0.1, 0.05)", "home()")
    model = ScriptedModel([
        to_base, critique((2, "assumes a target the user did not give")),
        questions("Where should I put the soup can?"),
        GOOD, critique(),
    ])
    result = run_multitalk(EAT.text, sim, model, checker=EAT.check, answers=["At (0.4, 0.45)."])
    assert result.success, result.log
    assert result.log[0]["critique"] == ["2: assumes a target the user did not give"]
    assert "simulator" not in result.log[0]
    assert result.log[2]["critique"] == ["Feasible Plan!"]
    analyzer_query = model.requests[1].messages[1]["content"]
    assert "Observed semantic relations" in analyzer_query
    assert "(('table', 'soup can'), 'on')" in analyzer_query
    assert "1: grasp((0.3, 0.4, 0.05))" in analyzer_query
    assert model.remaining == 0


def test_rule_violations_skip_the_model_critic_and_a_refused_plan_cannot_run_again(sim):
    nothing_there = plan("grasp(0.0, 0.3, 0.05)", "move(0.4, 0.45, 0.05)", "home()")
    model = ScriptedModel([nothing_there, nothing_there, GOOD, critique()])
    result = run_multitalk("Give me the soup can at (0.4, 0.45)", sim, model,
                           config=MultiTalkConfig(max_rounds=3))
    first = result.log[0]["critique"][0]
    assert "does not belong to any object" in first
    assert "the nearest object is soup can at (0.30, 0.40)" in first
    # the same plan again: refused without the critic or the simulator, with the earlier findings
    assert result.log[1].get("repeat") is True and "critique" not in result.log[1]
    assert "simulator" not in result.log[1]
    assert "already rejected" in model.requests[2].messages[-1]["content"]
    assert "nearest object is soup can" in model.requests[2].messages[-1]["content"]
    # greedy decoding would repeat it again: the reply after a repeat is sampled, the others are greedy
    assert [r.temperature for r in model.requests[:3]] == [0.0, 0.0, MultiTalkConfig().repeat_temperature]
    assert MultiTalkConfig().repeat_temperature > 0
    assert result.success and result.rounds == 3
    assert [c["by"] for c in result.caught] == ["rules"]


def test_a_plan_the_model_critic_rejected_may_be_resubmitted_and_reaches_the_simulator(sim):
    model = ScriptedModel([GOOD, critique((2, "puts the object in the wrong place")), GOOD])
    result = run_multitalk(EAT.text, sim, model, checker=EAT.check)
    assert result.success and result.rounds == 2
    assert [c["by"] for c in result.caught] == ["llm"]
    assert "trusts the planner" in result.log[1]["critique"][0]


def test_the_model_critic_names_one_of_the_listed_problems_for_a_step_of_the_plan(sim):
    from synergai.robots.tabletop.prompts import ANALYZER_PROBLEMS

    free_text, no_such_step = (2, "the soup can is already on the table"), (9, ANALYZER_PROBLEMS[0])
    model = ScriptedModel([GOOD, critique(free_text, no_such_step)])
    result = run_multitalk(EAT.text, sim, model, checker=EAT.check)
    # a free-text objection and a step the plan does not have are not objections: the plan runs
    assert result.success and result.rounds == 1 and result.log[0]["critique"] == ["Feasible Plan!"]
    item = model.requests[1].json_schema["properties"]["violations"]["items"]["properties"]
    assert item["problem"] == {"enum": list(ANALYZER_PROBLEMS)} and item["step"]["maximum"] == 3


def test_grasps_by_object_name_and_only_feasible_objects_in_the_schema():
    task = packaged_task("stack", "tabletop")  # toys: the mug is too wide to grip
    by_name = json.dumps({"reply": "plan", "questions": [], "steps": [
        {"action": "grasp", "object": "cube"}, {"action": "move", "xyz": [0.3, -0.45, 0.11]},
        {"action": "home"}]})
    with TabletopSim(task.objects) as s:
        model = ScriptedModel([by_name, critique()])
        result = run_multitalk(task.text, s, model, checker=task.check)
    grasp = model.requests[0].json_schema["properties"]["steps"]["items"]["anyOf"][0]
    assert grasp["properties"]["object"]["enum"] == ["cube", "soup can"]
    assert result.log[0]["plan"][0].startswith("1: grasp((0.35, -0.2")
    # no "why" asked for: the plan's comments name the object grasped and moved
    assert result.log[0]["plan"][0].endswith(" # cube") and result.log[0]["plan"][1].endswith(" # cube")
    assert result.log[0]["plan"][2] == "3: home()"
    assert "1: grasp((0.35, -0.2, 0.025)) # cube" in model.requests[1].messages[1]["content"]
    assert result.success, result.check_reason


def test_a_step_has_no_why_and_one_given_is_still_accepted(sim):
    schema_steps = []
    model = ScriptedModel([GOOD, critique()])  # GOOD's steps still carry a "why": accepted
    result = run_multitalk(EAT.text, sim, model, checker=EAT.check)
    assert result.success
    for variant in model.requests[0].json_schema["properties"]["steps"]["items"]["anyOf"]:
        assert "why" not in variant["required"] and "why" not in variant["properties"]
        schema_steps.append(variant["properties"]["action"]["const"])
    assert schema_steps == ["grasp", "move", "move", "home"]  # a move by xyz, or by relation and anchor
    system = model.requests[0].messages[0]["content"]
    assert '"why"' not in system and '{"action": "home"}' in system
    assert result.log[0]["plan"][0] == "1: grasp((0.3, 0.4, 0.05)) # grasp step"  # a given why is kept


def test_an_out_of_reach_object_is_not_graspable():
    objects = (cube("near cube", (0.3, 0.0)), cube("base cube", (0.1, 0.0)))
    with TabletopSim(objects) as s:
        graph = TabletopPerception(s).scan()
        assert feasible_grasps(graph, s) == ["near cube"]


def test_perception_rerun_rebuilds_the_scene_graph(sim):
    perception = TabletopPerception(sim, PerceptionNoise(missing=("soup can",)))
    rerun = json.dumps({"reply": "perception_rerun", "questions": [], "steps": []})
    model = ScriptedModel([rerun, GOOD])
    result = run_multitalk("Put the soup can at (0.4, 0.45)", sim, model, perception=perception,
                           config=MultiTalkConfig(use_critic=False))
    assert result.success and perception.scans == 2
    assert '"soup can"' not in model.requests[0].messages[1]["content"]
    assert '"soup can"' in result.log[0]["environment"]
    assert '"soup can"' in model.requests[1].messages[1]["content"]


def test_unanswered_questions_end_the_run_unsuccessfully(sim):
    model = ScriptedModel([questions("Which object?", "Where?")])
    result = run_multitalk(EAT.text, sim, model, checker=EAT.check, answers=["The soup can."])
    assert not result.success and result.pending_questions == ["Where?"]
    assert result.stop_reason == "unanswered questions"
    asked = []
    model = ScriptedModel([questions("Which object?", "Where?"), GOOD, critique()])
    result = run_multitalk(EAT.text, sim, model, checker=EAT.check, answers=["The soup can."],
                           ask_user=lambda q: asked.append(q) or "at (0.4, 0.45)")
    assert result.success and asked == ["Where?"]


def test_broken_replies_are_retried_and_questions_are_capped(sim):
    model = ScriptedModel([
        {"text": '{"reply": "plan", "steps": [', "finish_reason": "length"}, "not json",  # round 1: 2 tries
        questions("Which one?"), questions("And where?"),
        GOOD,
    ])
    cfg = MultiTalkConfig(use_critic=False, max_question_rounds=2, retries=1)
    result = run_multitalk(EAT.text, sim, model, checker=EAT.check, answers=EAT.answers, config=cfg)
    assert result.log[0]["planner"] == "invalid" and "not valid JSON" in result.log[0]["problem"]
    assert model.requests[1].max_tokens > model.requests[0].max_tokens
    assert result.success
    # after two question rounds the schema no longer offers questions
    assert model.requests[-1].json_schema["properties"]["reply"]["enum"] == ["plan", "perception_rerun"]
    assert "may not ask more questions" in model.requests[-1].messages[-1]["content"]


def test_multitalk_text_replies_work_without_json(sim):
    perception = TabletopPerception(sim, PerceptionNoise(missing=("soup can",)))
    model = ScriptedModel([
        "Perception Rerun Required",
        "Questions:\n1: Where should I put the soup can?",
        "Step-by-step Instructions:\n1: grasp((0.3, 0.4, 0.05)) # the can\n2: move((0.4, 0.45)) # there\n"
        "3: home() # done",
    ])
    result = run_multitalk(EAT.text, sim, model, perception=perception, checker=EAT.check,
                           answers=["At (0.4, 0.45)."], config=MultiTalkConfig(use_critic=False))
    assert [e["planner"] for e in result.log] == ["perception_rerun", "questions", "plan"]
    assert result.log[1]["questions"] == ["Where should I put the soup can?"]
    assert result.success


def test_a_plan_that_runs_but_misses_the_goal_is_not_a_success(sim):
    wrong_place = plan("grasp(0.3, 0.4, 0.05)", "move(0.35, 0.0, 0.05)", "home()")
    result = run_multitalk(EAT.text, sim, ScriptedModel([wrong_place]), checker=EAT.check,
                           config=MultiTalkConfig(use_critic=False))
    assert result.executed and not result.success and "tolerance" in result.check_reason
    with pytest.raises(RobotError):
        run_multitalk("  ", sim, ScriptedModel([]))


def test_token_counts_sum_every_reply_of_the_episode_retries_included(sim, counted):
    nothing_there = plan("grasp(0.0, 0.3, 0.05)", "move(0.4, 0.45, 0.05)", "home()")
    cut_off = {"text": '{"reply": "plan", "steps": [', "finish_reason": "length"}
    # round 1: a cut-off reply, then a plan the rules refuse; round 2: a good plan and the critique
    model = counted([cut_off, nothing_there, GOOD, critique()])
    result = run_multitalk(EAT.text, sim, model, checker=EAT.check, config=MultiTalkConfig(retries=1))
    assert result.success and result.usage.calls == 4 and result.rounds == 2
    # replies cost 101..104 prompt tokens, 40 cached each, 7 completion tokens each
    u = result.usage
    assert (u.prompt_tokens, u.new_prompt_tokens, u.completion_tokens, u.calls) == (410, 250, 28, 4)
    first, second = result.log
    assert (first["prompt_tokens"], first["new_prompt_tokens"], first["completion_tokens"]) == (203, 123, 14)
    assert (second["prompt_tokens"], second["new_prompt_tokens"], second["completion_tokens"]) == (
        207, 127, 14)
    d = result.to_dict()
    assert (d["prompt_tokens"], d["new_prompt_tokens"], d["completion_tokens"], d["llm_calls"]) == (
        410, 250, 28, 4)


def test_token_counts_with_the_scripted_models_own_estimates(sim):
    model = ScriptedModel([GOOD, critique()])
    result = run_multitalk(EAT.text, sim, model, checker=EAT.check)
    u = result.usage
    assert u.completion_tokens > 0 and 0 < u.new_prompt_tokens <= u.prompt_tokens


def _relational(*steps: dict) -> str:
    return json.dumps({"reply": "plan", "questions": [], "steps": list(steps)})


@pytest.mark.parametrize(("task_name", "relation"), [("stack", "on"), ("next_to", "next to")])
def test_a_move_by_relation_and_anchor_is_placed_by_geometry(task_name, relation):
    """The model names the relation and the anchor; the place (free, reachable, on that side) is computed,
    so the packaged tasks that say "on" and "next to" are solved by the same three steps."""
    task = packaged_task(task_name, "tabletop")
    anchor = "soup can"
    reply = _relational({"action": "grasp", "object": "cube"},
                        {"action": "move", "relation": relation, "anchor": anchor}, {"action": "home"})
    model = ScriptedModel([reply, critique()])
    with TabletopSim(task.objects) as s:
        result = run_multitalk(task.text, s, model, checker=task.check)
    assert result.success, result.log
    schema = model.requests[0].json_schema["properties"]["steps"]["items"]["anyOf"]
    by_relation = next(v for v in schema if "relation" in v["properties"])
    assert anchor in by_relation["properties"]["anchor"]["enum"] and "mug" in by_relation["properties"][
        "anchor"]["enum"]
    assert f"# cube {relation} {anchor}" in result.log[0]["plan"][1]


def test_a_place_behind_an_anchor_near_the_workspace_edge_is_found_and_runs():
    task = packaged_task("behind_mug", "tabletop")  # the mug stands 0.15 m from the far edge
    reply = _relational({"action": "grasp", "object": "cube"},
                        {"action": "move", "relation": "behind", "anchor": "mug"}, {"action": "home"})
    with TabletopSim(task.objects) as s:
        result = run_multitalk(task.text, s, ScriptedModel([reply, critique()]), checker=task.check)
    assert result.success and result.rounds == 1, result.log


def test_next_to_places_run_without_the_fingers_hitting_the_anchor():
    task = packaged_task("sort_by_kind", "tabletop")  # before: cube 1 set down beside cube 2 along y collided
    reply = _relational({"action": "grasp", "object": "cube 1"},
                        {"action": "move", "relation": "next to", "anchor": "cube 2"},
                        {"action": "grasp", "object": "soup can 1"},
                        {"action": "move", "relation": "next to", "anchor": "soup can 2"}, {"action": "home"})
    with TabletopSim(task.objects) as s:
        result = run_multitalk(task.text, s, ScriptedModel([reply]), checker=task.check,
                               config=MultiTalkConfig(use_critic=False))
    assert result.success and result.rounds == 1, result.log


def test_a_relational_move_without_a_grasp_or_onto_itself_is_an_invalid_reply(sim):
    bad = _relational({"action": "move", "relation": "next to", "anchor": "soup can"}, {"action": "home"})
    model = ScriptedModel([bad, GOOD, critique()])
    result = run_multitalk(EAT.text, sim, model, answers=EAT.answers, checker=EAT.check)
    assert result.log[0]["planner"] == "invalid"
    assert "needs another object grasped" in result.log[0]["problem"]


def test_a_move_that_trades_the_roles_the_instruction_gives_is_an_invalid_reply_naming_the_fix():
    task = packaged_task("right_of_bottle", "tabletop")  # put the soup can to the right of the mustard bottle
    home = {"action": "home"}
    swapped = _relational({"action": "grasp", "object": "mustard bottle"},
                          {"action": "move", "relation": "right of", "anchor": "soup can"}, home)
    right = _relational({"action": "grasp", "object": "soup can"},
                        {"action": "move", "relation": "right of", "anchor": "mustard bottle"}, home)
    model = ScriptedModel([swapped, right, critique()])
    with TabletopSim(task.objects) as s:
        result = run_multitalk(task.text, s, model, checker=task.check)
    assert result.log[0]["planner"] == "invalid"
    assert ("the instruction puts soup can right of mustard bottle, not mustard bottle right of soup can: "
            "grasp soup can") in result.log[0]["problem"]
    assert result.success, result.log


@pytest.mark.parametrize(("text", "relation", "moved", "anchor", "reversed_"), [
    ("Put the soup can to the right of the mustard bottle", "right of", "mustard bottle", "soup can", True),
    ("Put the soup can to the right of the mustard bottle", "right of", "soup can", "mustard bottle", False),
    ("Put the cube on the mug", "on", "mug", "cube", True),
    ("Put the cube next to the mug", "next to", "mug", "cube", False),  # symmetric: no roles
    ("Move the mug so that the cube is left of it", "left of", "mug", "cube", False),  # not said as X rel Y
    ("Put a soup can left of the other soup can", "left of", "soup can 2", "soup can 1", False),  # one kind
])
def test_roles_reversed_reads_which_object_the_instruction_moves(text, relation, moved, anchor, reversed_):
    from synergai.robots.tabletop.places import roles_reversed

    def words(name: str) -> tuple[str, ...]:
        return (name, name.rstrip(" 12"))

    assert roles_reversed(text, relation, words(moved), words(anchor)) is reversed_


def test_a_side_place_is_beyond_the_anchor_on_that_side_or_none():
    where = {"mug": (0.2, 0.0), "cube": (0.0, -0.4)}
    half = {"mug": (0.04, 0.06), "cube": (0.025, 0.025)}
    top = {"mug": 0.1, "cube": 0.05}
    left = place_target("left of", "mug", "cube", where, half, top, TableBounds())
    assert left is not None and left[1] > 0.06 + 0.025 and abs(left[0] - 0.2) < 0.1
    right = place_target("right of", "mug", "cube", where, half, top, TableBounds())
    assert right is not None and right[1] < -0.06
    front = place_target("in front of", "mug", "cube", where, half, top, TableBounds())
    assert front is not None and front[0] < 0.2 - 0.04
    assert place_target("on", "mug", "cube", where, half, top, TableBounds()) == (0.2, 0.0, 0.11)
    # behind the mug the table ends (x < 0.45) before the cube fits: no place, never one elsewhere
    at_edge = {**where, "mug": (0.38, 0.0)}
    assert place_target("behind", "mug", "cube", at_edge, half, top, TableBounds()) is None


def test_next_to_a_taller_anchor_is_not_behind_it_while_another_side_is_free():
    where = {"mustard bottle": (0.3, 0.4), "cube": (0.35, 0.0)}
    half = {"mustard bottle": (0.029, 0.0475), "cube": (0.025, 0.025)}
    top = {"mustard bottle": 0.19, "cube": 0.05}
    spot = place_target("next to", "mustard bottle", "cube", where, half, top, TableBounds())
    assert spot is not None and spot[0] <= 0.3, spot  # in front, left or right: never behind
    with TabletopSim((mustard_bottle("mustard bottle", (0.3, 0.4)), cube("cube", (0.35, 0.0)))) as sim:
        plan = parse_plan_text(f"grasp((0.35, 0.0, 0.025))\nmove(({spot[0]}, {spot[1]}))\nhome()")
        assert sim.execute(plan).ok
    low = {**top, "mustard bottle": 0.04}  # a lower anchor: behind is a side like the others
    behind = place_target("behind", "mustard bottle", "cube", where, half, low, TableBounds())
    sides = [place_target(s, "mustard bottle", "cube", where, half, low, TableBounds())
             for s in ("in front of", "behind", "left of", "right of")]
    nearest = min((p for p in sides if p), key=lambda p: (p[0] - 0.3) ** 2 + (p[1] - 0.4) ** 2)
    assert place_target("next to", "mustard bottle", "cube", where, half, low, TableBounds()) == nearest
    assert behind is not None


def test_in_place_of_puts_an_object_where_the_anchor_stood_at_the_start():
    task = packaged_task("swap_toys", "tabletop")
    reply = _relational({"action": "grasp", "object": "cube"}, {"action": "move", "xyz": [0.1, -0.3]},
                        {"action": "grasp", "object": "soup can"},
                        {"action": "move", "relation": "in place of", "anchor": "cube"},
                        {"action": "grasp", "object": "cube"},
                        {"action": "move", "relation": "in place of", "anchor": "soup can"},
                        {"action": "home"})
    model = ScriptedModel([reply, critique()])
    with TabletopSim(task.objects) as s:
        result = run_multitalk(task.text, s, model, checker=task.check)
    assert result.success, result.log


def test_a_home_before_the_last_step_is_dropped_from_a_json_plan(sim):
    reply = _relational({"action": "grasp", "object": "soup can"}, {"action": "home"},
                        {"action": "move", "xyz": [0.4, 0.45, 0.05]}, {"action": "home"})
    model = ScriptedModel([reply, critique()])
    result = run_multitalk(EAT.text + " Put the soup can at (0.4, 0.45).", sim, model, checker=EAT.check)
    assert [line.split(":")[1].split("(")[0].strip() for line in result.log[0]["plan"]] == [
        "grasp", "move", "home"]
    assert result.success


@pytest.mark.parametrize("task_name", ["swap_toys", "swap_bottles"])
def test_a_swap_step_exchanges_two_objects_through_a_free_place(task_name):
    """One swap step becomes three grasp / move pairs (one object aside, the other in its place, the first
    in the other's), placed by geometry; the planner is offered it because the instruction says "swap"."""
    task = packaged_task(task_name, "tabletop")
    first, second = task.goal[0].args[0], task.goal[0].args[1]
    reply = _relational({"action": "swap", "object": first, "with": second}, {"action": "home"})
    model = ScriptedModel([reply, critique()])
    with TabletopSim(task.objects) as s:
        result = run_multitalk(task.text, s, model, checker=task.check)
    assert result.success, result.log
    assert len(result.log[0]["plan"]) == 7  # 3 x (grasp, move) and home
    schema = model.requests[0].json_schema
    steps = schema["properties"]["steps"]["items"]["anyOf"]
    swap = next(v for v in steps if v["properties"]["action"] == {"const": "swap"})
    assert first in swap["properties"]["object"]["enum"]
    relational = next(v for v in steps if "relation" in v["properties"])
    assert "in place of" not in relational["properties"]["relation"]["enum"]


def test_a_swap_while_holding_or_of_one_object_is_an_invalid_reply(sim):
    bad = _relational({"action": "swap", "object": "soup can", "with": "soup can"}, {"action": "home"})
    model = ScriptedModel([bad, GOOD, critique()])
    run = run_multitalk(EAT.text, sim, model, answers=EAT.answers, checker=EAT.check)
    assert run.log[0]["planner"] == "invalid" and "two different objects" in run.log[0]["problem"]


def test_move_relations_follow_the_instructions_words_and_swap_only_when_asked():
    from synergai.robots.tabletop.places import MOVE_RELATIONS, move_relations_said
    from synergai.robots.tabletop.prompts import planner_schema

    assert move_relations_said("Put the soup can to the right of the mustard bottle") == ("right of",)
    assert move_relations_said("Put the cube behind the mug, seen from the robot") == ("behind",)
    assert move_relations_said("Put the cube on top of the soup can") == ("on",)
    assert "in place of" not in move_relations_said("Interchange the bottles")  # the swap step does it
    assert move_relations_said("Arrange the objects in a straight line") == MOVE_RELATIONS
    # a place said of the person is no object's; a point in numbers needs no relation at all
    assert move_relations_said("Put it at (0.35, 0.0), in front of me.") == ()
    assert move_relations_said("Put the cube to my left") == MOVE_RELATIONS
    assert move_relations_said("Put the cube in front of the mug, at (0.2, 0.1)") == ("in front of",)
    by_point = planner_schema(anchors=["cube", "mug"], graspable=["cube"], relations=())
    assert all("relation" not in v["properties"] for v in by_point["properties"]["steps"]["items"]["anyOf"])
    plain = planner_schema(anchors=["cube", "mug"], graspable=["cube", "mug"])
    assert all(v["properties"]["action"] != {"const": "swap"}
               for v in plain["properties"]["steps"]["items"]["anyOf"])


@pytest.mark.parametrize(("task_name", "axis", "at"), [("line", "x", None), ("line_up_cubes", "y", 0.35)])
def test_a_line_up_step_puts_the_objects_in_a_line_clear_of_the_others(task_name, axis, at):
    """One line_up step becomes a grasp / move pair per object (one set aside first when every place is
    taken), offered because the instruction asks for a line; the goal checker judges the result."""
    task = packaged_task(task_name, "tabletop")
    names = next(p for p in task.goal if p.name == "in_line").args[0]
    step = {"action": "line_up", "objects": list(names), "axis": axis}
    if at is not None:
        step["at"] = at
    model = ScriptedModel([_relational(step, {"action": "home"}), critique()])
    with TabletopSim(task.objects) as s:
        result = run_multitalk(task.text + " " + " ".join(task.answers), s, model, checker=task.check)
    assert result.success, result.log
    steps = model.requests[0].json_schema["properties"]["steps"]["items"]["anyOf"]
    assert any(v["properties"]["action"] == {"const": "line_up"} for v in steps)


def test_line_targets_keep_order_and_gap_and_avoid_other_objects():
    from synergai.robots.tabletop.places import LINE_GAP, line_targets

    where = {"a": (0.3, -0.3), "b": (0.2, 0.1), "c": (0.35, 0.3), "mug": (0.3, 0.0)}
    half = {n: (0.025, 0.025) for n in where} | {"mug": (0.04, 0.04)}
    places = line_targets(["a", "b", "c"], "y", 0.3, where, half, TableBounds())
    assert places is not None and [places[n][1] for n in "abc"] == sorted(places[n][1] for n in "abc")
    assert all(p[0] == 0.3 for p in places.values())
    assert abs((places["b"][1] - places["a"][1]) - (0.05 + LINE_GAP)) < 1e-6
    assert all(abs(p[1] - 0.0) >= 0.025 + 0.04 + 0.03 - 1e-9 for p in places.values())  # clear of the mug
    assert line_targets(["a", "b"], "x", 5.0, where, half, TableBounds()) is None  # off the table


def test_the_same_unusable_reply_twice_makes_the_next_reply_sampled(sim):
    bad = _relational({"action": "move", "relation": "next to", "anchor": "soup can"}, {"action": "home"})
    model = ScriptedModel([bad, bad, GOOD, critique()])
    result = run_multitalk(EAT.text, sim, model, answers=EAT.answers, checker=EAT.check)
    temperatures = [r.temperature for r in model.requests[:3]]
    assert temperatures[:2] == [0.0, 0.0] and temperatures[2] == MultiTalkConfig().repeat_temperature
    assert result.log[1]["repeat"] and not result.log[0]["repeat"] and result.success
