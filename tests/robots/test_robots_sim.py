"""The pybullet tabletop: what it reports (collision, unreachable, out of bounds...) and its perception."""

from __future__ import annotations

import math

import pytest

from synergai.robots.errors import RobotError
from synergai.robots.tabletop.objects import ObjectSpec, TableBounds
from synergai.robots.tabletop.perception import (
    PerceptionNoise,
    TabletopPerception,
    environment_text,
    relations_text,
)
from synergai.robots.tabletop.plan import parse_plan_text
from synergai.robots.tabletop.scenes import SCENES
from synergai.robots.tabletop.sim import TabletopSim
from synergai.robots.task_file import packaged_task
from synergai.scene.model import Relation


@pytest.fixture(scope="module")
def sim():
    with TabletopSim(SCENES["pairs"]) as s:
        yield s


def run(sim: TabletopSim, text: str, commit: bool = False):
    return sim.execute(parse_plan_text(text), commit=commit)


def test_moving_onto_another_object_is_a_collision_and_nothing_changes(sim):
    before = sim.states()
    report = run(sim, "grasp((0.32, -0.33, 0.04))\nmove((0.35, 0.35, 0.04))\nhome()", commit=True)
    assert not report.ok
    assert report.failure.index == 2 and report.failure.error == "collision"
    assert "mustard bottle 1" in report.failure.message and "mustard bottle 2" in report.failure.message
    after = sim.states()
    assert all(math.dist(before[n].center, after[n].center) < 1e-3 for n in before)
    assert sim.holding is None


def test_gripper_collision_with_a_neighbour_is_reported(sim):
    # the soup can fits beside the bottle, but the open fingers (spread along y) hit the bottle
    report = run(sim, "grasp((0.38, -0.51))\nmove((0.32, -0.42))")
    assert report.failure.error == "collision" and "gripper" in report.failure.message


def test_out_of_bounds_target_is_reported(sim):
    report = run(sim, "grasp((0.38, -0.51))\nmove((0.6, 0.1))")
    assert report.failure.index == 2 and report.failure.error == "out_of_bounds"
    assert "-0.15 < x < 0.45" in report.failure.message


def test_unreachable_pose_is_reported():
    # a wide workspace so that the target is in bounds but beyond the Panda's reach (~0.85 m)
    wide = TableBounds(x=(-0.15, 1.5), y=(-1.0, 1.0))
    with TabletopSim(SCENES["snack"], wide) as s:
        assert s.reachable((0.3, 0.4, 0.07)) and not s.reachable((1.3, 0.0, 0.07))
        report = s.execute(parse_plan_text("grasp((0.3, 0.4))\nmove((1.3, 0.0))"))
        assert report.failure.error == "unreachable"
        assert "cannot reach" in report.failure.message


def test_grasping_empty_table_and_sequence_rules(sim):
    assert run(sim, "grasp((0.0, 0.1))").failure.error == "no_object"
    assert run(sim, "move((0.1, 0.1))").failure.error == "invalid"
    two = run(sim, "grasp((0.32, -0.33))\ngrasp((0.35, 0.35))")
    assert two.failure.index == 2 and "only one object" in two.failure.message
    after_home = run(sim, "home()\ngrasp((0.32, -0.33))")
    assert after_home.failure.index == 2 and "home()" in after_home.failure.message


def test_a_feasible_swap_is_committed_and_satisfies_the_checker():
    task = packaged_task("interchange", "tabletop")
    with TabletopSim(task.objects) as s:
        initial = s.states()
        plan = """grasp((0.32, -0.33))
move((0.3, -0.1))
grasp((0.35, 0.35))
move((0.32, -0.33))
grasp((0.3, -0.1))
move((0.35, 0.35))
grasp((0.38, -0.51))
move((0.3, -0.1))
grasp((0.4, 0.51))
move((0.38, -0.51))
grasp((0.3, -0.1))
move((0.4, 0.51))
home()"""
        report = s.execute(parse_plan_text(plan))
        assert report.ok, report.feedback()
        assert report.feedback() == "The plan is feasible!"
        assert report.sim_steps > 0 and s.at_home
        verdict = task.check(initial, s.states())
        assert verdict.success, verdict.reason
        # the line task is not satisfied by this layout
        assert not packaged_task("line", "tabletop").check(initial, s.states()).success


def test_bad_world_specs_are_refused():
    with pytest.raises(RobotError, match="outside the table bounds"):
        TabletopSim([ObjectSpec("cube", "cube", (0.9, 0.0))])
    with pytest.raises(RobotError, match="duplicate"):
        TabletopSim([ObjectSpec("a", "cube", (0.2, 0.0)), ObjectSpec("a", "cube", (0.3, 0.2))])
    with pytest.raises(RobotError, match="shape"):
        ObjectSpec("a", "cube", (0.2, 0.0), shape="cone")


def test_pybullet_data_urdf_objects_load_with_their_box():
    with TabletopSim(SCENES["toys"]) as s:
        st = s.state("mug")
        assert abs(st.center[0] - 0.3) < 0.01 and abs(st.center[1] - 0.2) < 0.01
        assert 0.08 < st.size[2] < 0.13 and st.upright
        assert abs(s.state("cube").size[0] - 0.05) < 0.005
        too_wide = s.execute(parse_plan_text("grasp((0.3, 0.2))"))
        assert too_wide.failure.error == "invalid" and "too wide" in too_wide.failure.message
        assert s.execute(parse_plan_text("grasp((0.35, -0.2))\nmove((0.2, -0.3))\nhome()")).ok
        assert s.step_rate(200) > 100


def test_perception_builds_the_graph_and_a_rescan_finds_the_missed_object(sim):
    perception = TabletopPerception(sim, PerceptionNoise(missing=("soup can 2",)))
    first = perception.scan()
    assert "soup can 2" not in first and "soup can 1" in first
    assert first.has_edge("soup can 1", Relation.SUPPORTED_BY, "table")
    assert "soup can 2" not in environment_text(first)
    second = perception.scan()
    assert "soup can 2" in second and '"soup can 2": ((0.066' in environment_text(second)
    assert "(('table', 'soup can 2'), 'on')" in relations_text(second)


def test_perception_noise_moves_and_drops_objects_reproducibly(sim):
    noisy = [TabletopPerception(sim, PerceptionNoise(position_sigma=0.05, seed=3)).scan() for _ in range(2)]
    a, b = (g.get("soup can 1").center for g in noisy)
    assert a == b and math.dist(a[:2], sim.state("soup can 1").center[:2]) > 1e-4
    dropped = TabletopPerception(sim, PerceptionNoise(drop_rate=0.99, seed=1)).scan()
    assert [o.id for o in dropped if o.id not in ("table", "floor")] == []
    with pytest.raises(RobotError, match="unknown objects"):
        TabletopPerception(sim, PerceptionNoise(missing=("banana",)))


def test_a_move_with_z_at_an_objects_top_stacks_on_it_and_the_goal_sees_it():
    task = packaged_task("stack", "tabletop")
    with TabletopSim(task.objects) as s:
        initial = s.states()
        flat = s.execute(parse_plan_text("grasp((0.35, -0.2))\nmove((0.3, -0.45))\nhome()"))
        assert flat.failure.error == "collision"  # no z: set down on the table, onto the can
        report = s.execute(parse_plan_text("grasp((0.35, -0.2))\nmove((0.3, -0.45, 0.11))\nhome()"))
        assert report.ok and report.steps[1].message.endswith("on soup can")
        assert task.check(initial, s.states()).success
        # the top of the stack is what a grasp there takes
        again = s.execute(parse_plan_text("grasp((0.3, -0.45))\nmove((0.35, -0.2))\nhome()"))
        assert again.ok and again.steps[0].message == "grasped cube"
