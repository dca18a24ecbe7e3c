"""synergai.robots: robot modes over scene graphs.

* MultiTalk (tabletop arm): :func:`~synergai.robots.multitalk.run_multitalk` with a Planner, an Analyzer
  (critic) and a headless pybullet :class:`~synergai.robots.sim_tabletop.TabletopSim` whose scene graphs
  come from :class:`~synergai.robots.perception.TabletopPerception`; tasks in ``tabletop_tasks``.
* MHRC (heterogeneous team): :class:`~synergai.robots.team.Team` of Alice, Bob and David acting in a
  :class:`~synergai.robots.house.House`; tasks in ``house_tasks``.

Knows nothing about the GUI.
"""

from __future__ import annotations

from synergai.robots.arm_plan import ArmStep, format_plan, parse_plan_text
from synergai.robots.errors import RobotError
from synergai.robots.house import Command, Feedback, House, parse_command
from synergai.robots.house_tasks import HouseTask, house_task, task_from_text
from synergai.robots.multitalk import MultiTalkConfig, MultiTalkResult, run_multitalk
from synergai.robots.perception import PerceptionNoise, TabletopPerception
from synergai.robots.sim_tabletop import ObjectSpec, TableBounds, TabletopSim
from synergai.robots.tabletop_tasks import SEED_TASKS, TabletopTask, find_task
from synergai.robots.team import Team, TeamConfig, TeamResult, run_team

__all__ = [
    "SEED_TASKS",
    "ArmStep",
    "Command",
    "Feedback",
    "House",
    "HouseTask",
    "MultiTalkConfig",
    "MultiTalkResult",
    "ObjectSpec",
    "PerceptionNoise",
    "RobotError",
    "TableBounds",
    "TabletopPerception",
    "TabletopSim",
    "TabletopTask",
    "Team",
    "TeamConfig",
    "TeamResult",
    "find_task",
    "format_plan",
    "house_task",
    "parse_command",
    "parse_plan_text",
    "run_multitalk",
    "run_team",
    "task_from_text",
]
