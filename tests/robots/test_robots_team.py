"""The MHRC team with a scripted model: turns, messages between robots, feedback, failure and repair."""

from __future__ import annotations

import json

from synergai.llm import ScriptedModel
from synergai.robots.task_file import packaged_task, parse_tasks
from synergai.robots.team.house import parse_command
from synergai.robots.team.prompts import command_schema
from synergai.robots.team.team import Team, TeamConfig, run_team


def say(skill: str, **args: object) -> str:
    return json.dumps({"analysis": f"I will {skill}.", "reasoning": "it moves the task on",
                       "command": {"skill": skill, **args}})


WAIT = say("wait")
TASK = parse_tasks([{"name": "apple and ham", "text": "Put the apple and the ham into the tray",
                     "scene": "house",
                     "goal": [["in", "apple", "tray"], ["in", "ham", "tray"]]}], "house")[0]


def test_failure_repair_and_messages_until_the_world_satisfies_the_task():
    script = [
        # round 1: Bob, Alice, David
        say("communicate", content="Please bring the ham", robot_name="Alice"),
        say("pick", target="ham"), WAIT,
        say("pick", target="apple"), say("navigate", target="drawer", stand_pose="stand_pose_0"), WAIT,
        say("place", target="apple", location="tray"), say("open", target="drawer"), WAIT,
        # from round 4 Bob has nothing the task names within reach: he waits without a model call
        say("pick", target="ham"), WAIT,
        say("navigate", target="table_0", stand_pose="stand_pose_1"), WAIT,
        say("place", target="ham", location="tray"),
    ]
    model = ScriptedModel(script)
    team = Team(TASK.make_house(), model, TASK)
    result = team.run()
    assert result.success and result.stop_reason == "task done"
    assert model.remaining == 0 and result.rounds == 6 and result.steps == len(script) + 3
    assert [e["robot"] for e in result.log if e.get("auto")] == ["Bob"] * 3
    assert result.messages == 1 and result.failed_actions == 1
    first_alice = result.log[1]
    assert first_alice["robot"] == "Alice" and not first_alice["ok"]
    assert "the drawer is closed" in first_alice["feedback"]
    # Alice's next prompt carries Bob's message and her failure; Bob's carries the task list
    alice_r1, alice_r2 = (model.requests[i].messages[1]["content"] for i in (1, 4))
    assert "Latest received messages: Please bring the ham (from Bob)" in alice_r1
    assert "Received message history: Please bring the ham (from Bob)" in alice_r2
    assert "Latest feedback: Cannot pick ham" in alice_r2
    assert "The objects it names: ['apple', 'ham']" in model.requests[0].messages[1]["content"]
    assert "You are Alice." in model.requests[1].messages[0]["content"]
    assert "You are Bob." in model.requests[0].messages[0]["content"]
    # the shared part of every system prompt is identical (prefix reuse)
    systems = [r.messages[0]["content"] for r in model.requests[:3]]
    assert len({s.split("\n\nYou are ")[0] for s in systems}) == 1
    assert team.memory["Alice"].actions[-1] == "place(ham, tray)"
    assert team.memory["Bob"].actions[0] == "communicate(Please bring the ham, Alice)"


def test_no_feedback_ablation_hides_outcomes_but_keeps_messages():
    model = ScriptedModel([say("communicate", content="hello", robot_name="Alice"), say("pick", target="ham"),
                           WAIT, WAIT, WAIT, WAIT])
    cfg = TeamConfig(max_rounds=2, use_feedback=False)
    result = run_team(TASK, model, cfg)
    assert not result.success
    alice_r2 = model.requests[4].messages[1]["content"]
    assert "feedback" not in alice_r2.lower()
    assert "hello (from Bob)" in alice_r2 and "Action history: pick(ham)" in alice_r2


def test_a_team_that_only_waits_stops_and_bad_replies_are_fed_back():
    model = ScriptedModel(["not json", "not json", WAIT, WAIT, WAIT, WAIT, WAIT, WAIT])
    result = run_team(TASK, model, TeamConfig(max_rounds=10, retries=0))
    assert result.stop_reason.startswith("no robot acted") and result.rounds == 2
    assert result.log[0]["command"] is None and "could not be used" in result.log[0]["feedback"]
    assert "could not be used" in model.requests[3].messages[1]["content"]


def variants_of(schema: dict) -> list[dict]:
    return schema["properties"]["command"]["anyOf"]


def test_reply_schemas_offer_only_feasible_commands():
    house = packaged_task("seed", "house").make_house()

    def skills(robot: str) -> set[str]:
        schema = command_schema(house, robot, sorted(house.known[robot]))
        return {v["properties"]["skill"]["const"] for v in variants_of(schema)}

    assert skills("David") == {"navigate", "communicate", "wait"}
    assert skills("Bob") == {"pick", "communicate", "wait"}  # fixed: no navigate, nothing held: no place
    assert "move" not in skills("Alice") and "open" not in skills("Alice")  # no closed furniture in reach
    # Bob reaches the apple, phone and fork; the banana lies beyond his 0.8 m
    bob_pick = next(v for v in variants_of(command_schema(house, "Bob", sorted(house.known["Bob"])))
                    if v["properties"]["skill"]["const"] == "pick")
    assert bob_pick["properties"]["target"]["enum"] == ["apple", "fork", "phone"]
    # Alice, at table_0's stand pose 0, is not offered that pose again
    alice = variants_of(command_schema(house, "Alice", sorted(house.known["Alice"])))
    table = next(v for v in alice if v["properties"].get("target") == {"const": "table_0"})
    assert table["properties"]["stand_pose"]["enum"] == ["stand_pose_1"]
    apple = next(v for v in alice if v["properties"]["skill"]["const"] == "pick")["properties"]["target"]
    assert "apple" not in apple["enum"]  # 1.13 m away from where she stands


def test_a_just_failed_action_is_not_offered_again_and_holding_narrows_place():
    from synergai.robots.team.house import Command

    house = packaged_task("seed", "house").make_house()
    house.execute("Alice", Command("navigate", ("drawer", "stand_pose_0")))
    opened = variants_of(command_schema(house, "Alice", sorted(house.known["Alice"])))
    assert next(v for v in opened if v["properties"]["skill"]["const"] == "open")["properties"]["target"][
        "enum"] == ["drawer"]
    failed = Command("open", ("drawer",))
    again = variants_of(command_schema(house, "Alice", [], failed))
    assert all(v["properties"]["skill"]["const"] != "open" for v in again)
    assert house.execute("Alice", Command("open", ("drawer",))).ok
    assert house.execute("Alice", Command("pick", ("ham",))).ok
    held = variants_of(command_schema(house, "Alice", sorted(house.known["Alice"])))
    place = next(v for v in held if v["properties"]["skill"]["const"] == "place")
    assert place["properties"]["target"] == {"const": "ham"} and place["properties"]["location"]["enum"] == [
        "drawer"]
    assert all(v["properties"]["skill"]["const"] != "pick" for v in held)


def offered(schema: dict, command: dict) -> bool:
    """Whether ``command`` is one of the schema's variants (const / enum / string checks)."""
    for v in variants_of(schema):
        props = v["properties"]
        if set(v["required"]) != set(command):
            continue
        ok = True
        for key, value in command.items():
            rule = props[key]
            ok &= (rule.get("const", value) == value and value in rule.get("enum", [value]))
        if ok:
            return True
    return False


def test_a_scripted_suite_episode_uses_only_offered_commands():
    task = packaged_task("ham_to_fridge", "house")
    # the fridge is the goal's: offered first; then the drawer, found by exploring
    alice = [{"skill": "navigate", "target": "fridge", "stand_pose": "stand_pose_0"},
             {"skill": "open", "target": "fridge"},
             {"skill": "navigate", "target": "drawer", "stand_pose": "stand_pose_0"},
             {"skill": "open", "target": "drawer"}, {"skill": "pick", "target": "ham"},
             {"skill": "navigate", "target": "fridge", "stand_pose": "stand_pose_0"},
             {"skill": "place", "target": "ham", "location": "fridge"}]
    script = [WAIT]  # Bob's first turn; then nothing the task names is within his reach: no more calls
    for cmd in alice:
        script += [json.dumps({"analysis": "a", "reasoning": "b", "command": cmd}), WAIT]
    model = ScriptedModel(script[:-1])
    result = run_team(task, model, TeamConfig(max_rounds=8))
    assert result.success and result.failed_actions == 0, result.check_reason
    alice_requests = [r for r in model.requests if "You are Alice." in r.messages[0]["content"]]
    for request, cmd in zip(alice_requests, alice, strict=True):
        assert offered(request.json_schema, cmd), cmd
    # once she holds the ham, pick is gone and place names only the ham
    assert not offered(alice_requests[5].json_schema, {"skill": "pick", "target": "ham"})
    first = alice_requests[0].messages[1]["content"]
    assert "To do: ham in fridge." in first and "drawer" not in first.split("Task (")[1].split("Your part")[0]
    last_alice = alice_requests[-1].messages[1]["content"]  # before she places the ham
    assert "done: nothing yet" in last_alice and "The gripper holds ham." in last_alice


def test_a_robot_with_nothing_to_do_and_nothing_to_read_waits_without_a_call():
    task = parse_tasks([{"name": "milk", "text": "Put the milk on table_1", "scene": {"items": [
        {"name": "milk", "in": "fridge"}]}, "goal": [["on", "milk", "table_1"]]}], "house")[0]
    hello = say("communicate", content="I cannot help from table_0", robot_name="Alice")
    nav = say("navigate", target="fridge", stand_pose="stand_pose_0")
    model = ScriptedModel([hello, nav, WAIT, WAIT, WAIT, WAIT])  # round 2: Bob is skipped
    result = run_team(task, model, TeamConfig(max_rounds=2))
    bob = [e for e in result.log if e["robot"] == "Bob"]
    assert bob[0]["llm_calls"] == 1 and bob[1]["llm_calls"] == 0 and bob[1].get("auto") is True
    assert model.remaining == 1 and result.usage.calls == 5


def test_token_counts_sum_every_reply_and_a_skipped_turn_costs_nothing(counted):
    task = parse_tasks([{"name": "milk", "text": "Put the milk on table_1", "scene": {"items": [
        {"name": "milk", "in": "fridge"}]}, "goal": [["on", "milk", "table_1"]]}], "house")[0]
    hello = say("communicate", content="I cannot help from table_0", robot_name="Alice")
    nav = say("navigate", target="fridge", stand_pose="stand_pose_0")
    cut_off = {"text": '{"analysis": "', "finish_reason": "length"}
    model = counted([hello, cut_off, nav, WAIT, WAIT, WAIT, WAIT])  # Alice's first reply is retried
    result = run_team(task, model, TeamConfig(max_rounds=2))
    assert result.usage.calls == 6 and model.remaining == 1
    # replies cost 101..106 prompt tokens, 40 cached each, 7 completion tokens each
    u = result.usage
    assert (u.prompt_tokens, u.new_prompt_tokens, u.completion_tokens, u.calls) == (621, 381, 42, 6)
    alice = result.log[1]
    assert alice["llm_calls"] == 2 and (alice["prompt_tokens"], alice["new_prompt_tokens"],
                                        alice["completion_tokens"]) == (205, 125, 14)
    skipped = next(e for e in result.log if e.get("auto"))
    assert (skipped["prompt_tokens"], skipped["new_prompt_tokens"], skipped["completion_tokens"]) == (0, 0, 0)
    assert result.to_dict()["new_prompt_tokens"] == 381


def test_the_reply_asks_for_a_short_analysis_and_one_command_only():
    house = packaged_task("seed", "house").make_house()
    schema = command_schema(house, "Alice", sorted(house.known["Alice"]))
    assert schema["required"] == ["analysis", "command"] and "reasoning" not in schema["properties"]
    assert schema["properties"]["analysis"]["maxLength"] <= 80
    from synergai.robots.team.prompts import robot_system

    system = robot_system(house, "Alice")
    assert '"reasoning"' not in system and "move(" not in system  # move is never offered
    assert "communicate(content, robot_name)" in system and "You are Alice." in system
    # a reply that still carries MHRC's "reasoning" is accepted
    hold = parse_tasks([{"name": "hold", "text": "Bob, hold the apple", "scene": "house",
                         "goal": [["held_by", "apple", "Bob"]]}], "house")[0]
    model = ScriptedModel([json.dumps({"analysis": "a", "reasoning": "b", "command": {
        "skill": "pick", "target": "apple"}})])
    result = run_team(hold, model, TeamConfig(max_rounds=1))
    assert result.success and result.log[0]["command"] == "pick(apple)"


def test_picking_up_what_was_just_placed_and_a_pose_that_shows_nothing_new_are_not_offered():
    from synergai.robots.team.house import Command

    house = packaged_task("seed", "house").make_house()
    assert house.execute("Bob", Command("pick", ("apple",))).ok
    assert house.execute("Bob", Command("place", ("apple", "tray"))).ok
    placed = Command("place", ("apple", "tray"))
    picks = [v for v in variants_of(command_schema(house, "Bob", sorted(house.known["Bob"]), None, placed))
             if v["properties"]["skill"]["const"] == "pick"]
    assert picks and "apple" not in picks[0]["properties"]["target"]["enum"]  # it would undo the step
    assert "apple" in next(v for v in variants_of(command_schema(house, "Bob", sorted(house.known["Bob"])))
                           if v["properties"]["skill"]["const"] == "pick")["properties"]["target"]["enum"]

    # Alice at table_1 (empty, two stand poses) has seen all there is: its other pose is not offered;
    # at table_0 the apple lies out of her reach, so table_0's other pose still is
    assert house.execute("Alice", Command("navigate", ("table_1", "stand_pose_0"))).ok

    def targets() -> set[str]:
        return {v["properties"]["target"]["const"]
                for v in variants_of(command_schema(house, "Alice", sorted(house.known["Alice"])))
                if v["properties"]["skill"]["const"] == "navigate"}
    assert "table_1" not in targets() and "table_0" in targets()
    assert house.execute("Alice", Command("navigate", ("table_0", "stand_pose_0"))).ok
    assert "table_0" in targets() and "table_1" not in targets()  # she has looked at table_1: nothing there


def test_navigation_offers_unexplored_furniture_and_poses_that_gain_reach_only():
    from synergai.robots.team.house import Command

    task = packaged_task("seed", "house")
    house = task.make_house()

    def poses(robot: str, **kwargs: object) -> dict[str, list[str]]:
        schema = command_schema(house, robot, sorted(house.known[robot]), **kwargs)  # type: ignore[arg-type]
        return {v["properties"]["target"]["const"]: v["properties"]["stand_pose"]["enum"]
                for v in variants_of(schema) if v["properties"]["skill"]["const"] == "navigate"}

    # David (no gripper, cannot open) explores: open furniture he has not looked at, never closed ones
    david = poses("David")
    assert "sofa" in david and "washbasin" in david and "fridge" not in david and "drawer" not in david
    assert house.execute("David", Command("navigate", ("sofa", "stand_pose_0"))).ok
    assert "sofa" not in poses("David")  # looked at: nothing left to see there
    # Alice can open: closed furniture is worth a visit; at table_0 the apple is out of her reach, but
    # only while it is wanted: settled or not named by the goal, the other pose is not offered
    # (known work first: while a wanted item waits at table_0, no exploring trip is offered)
    assert poses("Alice", targets=task.targets) == {"table_0": ["stand_pose_1"]}
    unsettled = poses("Alice", targets=task.targets, settled={"apple", "phone", "fork"})
    assert "table_0" not in unsettled and "fridge" in unsettled
    assert "table_0" not in poses("Alice", targets=("ham",))
    # holding the ham, a pose from which it can go into the tray is offered; settled items are not picked
    assert house.execute("Alice", Command("navigate", ("drawer", "stand_pose_0"))).ok
    assert house.execute("Alice", Command("open", ("drawer",))).ok
    assert house.execute("Alice", Command("pick", ("ham",))).ok
    assert "stand_pose_1" in poses("Alice", targets=task.targets)["table_0"]
    bob = variants_of(command_schema(house, "Bob", sorted(house.known["Bob"]), settled={"apple"}))
    pick = next(v for v in bob if v["properties"]["skill"]["const"] == "pick")["properties"]["target"]["enum"]
    assert "apple" not in pick and "phone" in pick


def test_settled_items_are_those_whose_goal_predicates_all_hold():
    from synergai.robots.team.house import Command

    task = packaged_task("seed", "house")
    team = Team(task.make_house(), ScriptedModel([]), task)
    assert team.settled() == set()
    assert team.house.execute("Bob", Command("pick", ("apple",))).ok
    assert team.settled() == set()  # held, not yet in the tray
    assert team.house.execute("Bob", Command("place", ("apple", "tray"))).ok
    assert team.settled() == {"apple"}


def test_at_closed_furniture_it_has_not_looked_into_a_robot_that_can_open_it_opens_before_leaving():
    from synergai.robots.team.house import Command

    house = packaged_task("seed", "house").make_house()
    assert house.execute("Alice", Command("navigate", ("drawer", "stand_pose_0"))).ok

    def skills() -> set[str]:
        schema = command_schema(house, "Alice", sorted(house.known["Alice"]))
        return {v["properties"]["skill"]["const"] for v in variants_of(schema)}

    assert "open" in skills() and not {"navigate", "wait", "communicate"} & skills()
    assert house.execute("Alice", Command("open", ("drawer",))).ok
    assert "navigate" in skills() and "open" not in skills()


def test_a_goal_item_within_reach_is_picked_and_put_where_the_goal_wants_it_before_walking_away():
    from synergai.robots.team.house import Command

    task = packaged_task("ham_to_fridge", "house")
    team = Team(task.make_house(), ScriptedModel([]), task)
    house = team.house

    def skills() -> set[str]:
        schema = command_schema(house, "Alice", sorted(house.known["Alice"]), settled=team.settled(),
                                targets=task.targets, destinations=team.destinations())
        return {v["properties"]["skill"]["const"] for v in variants_of(schema)}

    def targets() -> set[str]:
        schema = command_schema(house, "Alice", sorted(house.known["Alice"]), settled=team.settled(),
                                targets=task.targets, destinations=team.destinations())
        return {v["properties"]["target"]["const"] for v in variants_of(schema)
                if v["properties"]["skill"]["const"] == "navigate"}

    assert team.destinations() == {"ham": {"fridge"}}
    for command in (Command("navigate", ("drawer", "stand_pose_0")), Command("open", ("drawer",))):
        assert house.execute("Alice", command).ok
    # the ham is within reach: pick it first
    assert "pick" in skills() and not {"navigate", "wait", "communicate"} & skills()
    assert house.execute("Alice", Command("pick", ("ham",))).ok
    assert targets() == {"fridge"}  # holding the ham: only where the goal wants it (or unexplored)
    assert house.execute("Alice", Command("navigate", ("fridge", "stand_pose_0"))).ok
    assert house.execute("Alice", Command("open", ("fridge",))).ok
    assert "place" in skills() and not {"navigate", "wait", "communicate"} & skills()


def test_the_team_shares_one_map_unless_told_not_to():
    task = packaged_task("seed", "house")
    shared = Team(task.make_house(), ScriptedModel([]), task)
    assert "soap" not in shared.house.known["Alice"]
    shared.house.execute("David", parse_command("navigate(washbasin, stand_pose_0)"))
    shared.house.share_knowledge()
    assert "soap" in shared.house.known["Alice"] and "washbasin" in shared.house.explored["Alice"]
    assert "soap: on washbasin" in shared.user_prompt("Alice")
    assert "Objects the team has seen" in shared.user_prompt("Alice")
    # MHRC's own setting: findings travel only by messages
    alone = Team(task.make_house(), ScriptedModel([say("navigate", target="washbasin",
                                                       stand_pose="stand_pose_0")] * 3),
                 task, TeamConfig(shared_map=False))
    alone.step("David", 1)
    assert "soap" in alone.house.known["David"] and "soap" not in alone.house.known["Alice"]
    assert "Objects you have seen" in alone.user_prompt("Alice")


def test_trips_are_offered_by_rank_known_work_then_closed_furniture_then_open_nearest_first():
    from synergai.robots.team.prompts import teammate_delivers, visit_rank

    task = packaged_task("seed", "house")
    team = Team(task.make_house(), ScriptedModel([]), task)
    house = team.house

    def trips(robot: str = "Alice") -> list[str]:
        schema = command_schema(house, robot, sorted(house.known[robot]), settled=team.settled(),
                                targets=task.targets, destinations=team.destinations())
        return [v["properties"]["target"]["const"] for v in variants_of(schema)
                if v["properties"]["skill"]["const"] == "navigate"]

    # the apple, phone and fork are Bob's (he reaches them and the tray without moving); nothing is known
    # elsewhere: Alice, who can open, is offered the closed furniture only, nearest first
    order = trips()
    assert order and all(not house.is_open(n) and visit_rank(house, "Alice", n) == 1 for n in order)
    distances = [min(house.distance("Alice", p) for p in house.furniture[n].stand_poses) for n in order]
    assert distances == sorted(distances)
    assert not teammate_delivers(house, "Alice", "ham", {"tray"})  # in the drawer: nobody reaches it
    # David, who cannot open, explores the open furniture meanwhile
    assert trips("David") and all(house.is_open(n) for n in trips("David"))
    # once David has looked at the washbasin, the soap there is known work: the only trip offered
    house.execute("David", parse_command("navigate(washbasin, stand_pose_0)"))
    house.share_knowledge()
    assert trips() == ["washbasin"] and visit_rank(house, "Alice", "washbasin") == 0
    # furniture the person names is known work too ("the cup from the dishwasher")
    cup = packaged_task("cup_to_table", "house")
    named = Team(cup.make_house(), ScriptedModel([]), cup)
    assert {"dishwasher", "table_1"} <= named._goal_furniture


def test_a_robot_is_offered_to_pick_only_what_the_task_names():
    task = parse_tasks([{"name": "fork", "text": "Put the fork into the tray", "scene": "house",
                         "goal": [["in", "fork", "tray"]]}], "house")[0]
    house = task.make_house()

    def picks(**kwargs: object) -> list[str]:
        schema = command_schema(house, "Bob", sorted(house.known["Bob"]), **kwargs)  # type: ignore[arg-type]
        return next((v["properties"]["target"]["enum"] for v in variants_of(schema)
                     if v["properties"]["skill"]["const"] == "pick"), [])

    assert picks() == ["apple", "fork", "phone"]  # no task given: whatever is within reach
    assert picks(targets=task.targets) == ["fork"]
    assert picks(targets=task.targets, settled={"fork"}) == []
