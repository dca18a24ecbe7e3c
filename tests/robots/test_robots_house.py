"""MHRC's house: skills' preconditions and feedback, discovery, messages, the scene graph and the checker."""

from __future__ import annotations

import pytest

from synergai.robots.errors import RobotError
from synergai.robots.task_file import packaged_task
from synergai.robots.team.house import Command, parse_command
from synergai.scene.model import Relation


@pytest.fixture()
def house():
    return packaged_task("seed", "house").make_house()


def do(house, robot, text):
    return house.execute(robot, parse_command(text))


def test_cannot_pick_from_a_closed_drawer_until_it_is_opened(house):
    assert do(house, "Alice", "navigate(drawer, stand_pose_0)").ok
    fb = do(house, "Alice", "pick(ham)")
    assert not fb.ok and "closed" in fb.text and house.items["ham"].location == "drawer"
    opened = do(house, "Alice", "open(drawer)")
    assert opened.ok and "ham" in opened.text and "ham" in house.known["Alice"]
    assert do(house, "Alice", "pick(ham)").ok
    assert house.states["Alice"].holding == "ham" and house.items["ham"].location == "Alice"


def test_cannot_pick_or_open_when_not_at_the_stand_pose(house):
    fb = do(house, "Alice", "open(drawer)")  # Alice starts at table_0
    assert not fb.ok and "out of reach" in fb.text and "drawer" not in house.opened
    assert do(house, "Alice", "navigate(drawer, stand_pose_0)").ok and do(house, "Alice", "open(drawer)").ok
    assert do(house, "Alice", "navigate(table_0, stand_pose_0)").ok
    fb = do(house, "Alice", "pick(ham)")  # seen, drawer open, but 2+ m away
    assert not fb.ok and "beyond the reach" in fb.text and house.states["Alice"].holding is None
    assert "Navigate to a stand pose of the drawer" in fb.text  # a mobile robot is told to go there


def test_david_cannot_pick_and_bob_cannot_navigate(house):
    fb = do(house, "David", "pick(apple)")
    assert not fb.ok and "no such skill" in fb.text and house.items["apple"].location == "table_0"
    assert not do(house, "Bob", "navigate(fridge, stand_pose_0)").ok
    assert house.states["Bob"].pose == (1.0, 1.0, 0.0)


def test_bob_reaches_only_part_of_his_table(house):
    fb = do(house, "Bob", "pick(banana)")
    assert not fb.ok and "0.87 m away" in fb.text
    assert do(house, "Bob", "pick(apple)").ok
    assert not do(house, "Bob", "pick(fork)").ok  # one object at a time
    placed = do(house, "Bob", "place(apple, tray)")
    assert placed.ok and house.in_container("tray") == ["apple"]


def test_a_fixed_arm_out_of_reach_is_told_who_can_bring_the_object(house):
    fb = do(house, "Bob", "pick(banana)")
    assert not fb.ok and "cannot move" in fb.text and "Alice" in fb.text
    assert "David" not in fb.text  # David cannot pick or place
    assert "Navigate" not in fb.text


def test_navigating_to_where_the_robot_stands_says_so(house):
    first = do(house, "David", "navigate(sofa, stand_pose_0)")
    assert first.ok and "already" not in first.text
    again = do(house, "David", "navigate(sofa, stand_pose_0)")
    assert again.ok and "already at sofa-stand_pose_0" in again.text
    assert "nothing changed" in again.text


def test_navigation_reveals_open_furniture_and_bad_targets_fail(house):
    fb = do(house, "David", "navigate(washbasin, stand_pose_0)")
    assert fb.ok and "soap" in fb.text and "soap" in house.known["David"]
    assert "Further open operations" in do(house, "David", "navigate(fridge, stand_pose_0)").text
    assert not do(house, "David", "navigate(garage, stand_pose_0)").ok
    assert not do(house, "David", "navigate(sofa, stand_pose_3)").ok
    assert not do(house, "David", "move(5, 5)").ok


def test_messages_are_delivered_to_the_named_robot_only(house):
    fb = do(house, "Bob", "communicate(Hi Alice, please bring the ham, the soap, Alice)")
    assert fb.ok and "sent to Alice" in fb.text
    got = house.take_messages("Alice")
    assert [(m.sender, m.content) for m in got] == [("Bob", "Hi Alice, please bring the ham, the soap")]
    assert house.take_messages("Alice") == [] and house.take_messages("David") == []
    assert not do(house, "Bob", "communicate(hello, Carol)").ok
    assert house.messages_sent == 1


def test_the_checker_reads_the_world(house):
    task = packaged_task("seed", "house")
    for name in ("apple", "phone", "fork"):
        assert do(house, "Bob", f"pick({name})").ok and do(house, "Bob", f"place({name}, tray)").ok
    verdict = task.check(house)
    assert not verdict.success and "ham is not in tray" in verdict.reason and "soap" in verdict.reason
    for name in ("ham", "soap"):
        item = house.items[name]
        item.location, item.position = "tray", house.furniture["tray"].slot(3, 0.08)
    assert task.check(house).success
    assert do(house, "Alice", "navigate(table_0, stand_pose_1)").ok and do(house, "Alice", "pick(apple)").ok
    assert task.check(house).success is False


def test_scene_graph_comes_from_the_builder(house):
    graph = house.scene_graph()
    assert graph.has_edge("ham", Relation.INSIDE, "drawer")
    assert graph.has_edge("apple", Relation.SUPPORTED_BY, "table_0")
    assert graph.has_edge("tray", Relation.SUPPORTED_BY, "table_0")
    assert "closed" in graph.get("drawer").attributes


def test_wrong_argument_counts_are_feedback_not_crashes(house):
    fb = house.execute("Alice", Command("place", ("apple",)))
    assert not fb.ok and "wrong number of arguments" in fb.text
    assert not house.execute("Bob", Command("wait", ("now",))).ok


def test_commands_and_tasks_parse():
    assert parse_command("navigate(fridge, stand_pose_0)") == Command("navigate", ("fridge", "stand_pose_0"))
    assert parse_command("communicate(a, b, c, Bob)").args == ("a, b, c", "Bob")
    assert parse_command("wait()") == Command("wait")
    with pytest.raises(RobotError):
        parse_command("fly(away)")
    assert packaged_task("seed", "house").targets == ("apple", "phone", "ham", "soap", "fork")
    with pytest.raises(RobotError, match="no packaged house task"):
        packaged_task("make me a sandwich", "house")
