"""Task files: robot tasks as data (JSON).

A file is ``{"mode": "tabletop" | "house", "tasks": [TASK, ...]}`` (``mode`` may be left out; a bare list
of tasks is accepted too). A TASK is::

    {"name": "eat", "text": "Give me something to eat",
     "scene": "snack"  |  {"objects": [{"name": "soup can 1", "kind": "soup can", "xy": [0.38, -0.51]}]}
              |  "house"  |  {"items": [{"name": "apple", "on": "table_0"}, {"name": "ham", "in": "fridge"}]},
     "answers": ["The soup can.", "..."],
     "goal": [["at", "soup can", [0.4, 0.45], 0.06]]}

``answers`` are what the simulated person replies to clarifying questions, in order (optional). The goal's
predicates are listed in :mod:`synergai.robots.goals`. Any problem (unknown scene, kind, object or
predicate, a malformed entry) raises :class:`RobotError` with one line naming the file and the task.
The paper tasks and a suite ship with the package: :func:`packaged_task_file`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from synergai.robots.errors import RobotError
from synergai.robots.goals import GoalCheck, Names, Predicate, States, check_tabletop, parse_goal
from synergai.robots.tabletop.objects import ObjectSpec, TableBounds
from synergai.robots.tabletop.scenes import object_from_entry, scene_objects
from synergai.robots.team.flat import ROBOT_NAMES, HouseTask, furniture_names, scene_items

MODES = ("tabletop", "house")
#: What the simulated person says to a question once the task's answers are used up.
NOTHING_TO_ADD = "I have nothing to add: do what I asked as you understand it."
_TASK_KEYS = frozenset({"name", "text", "scene", "answers", "goal"})


@dataclass(frozen=True)
class TabletopTask:
    """A tabletop task: what the person says, the objects on the table, the answers, the goal."""

    name: str
    text: str
    objects: tuple[ObjectSpec, ...]
    goal: tuple[Predicate, ...]
    answers: tuple[str, ...] = ()
    scene: str = "inline"

    def check(self, initial: States, final: States) -> GoalCheck:
        """The goal checker's verdict on the start and final object states."""
        return check_tabletop(self.goal, initial, final)


def packaged_task_file(name: str) -> Path:
    """A task file shipped in ``synergai/robots/tasks/`` (e.g. ``tabletop_paper.json``)."""
    path = Path(str(resources.files("synergai.robots").joinpath("tasks", name)))
    if not path.is_file():
        raise RobotError(f"no packaged task file {name!r}; files: {', '.join(packaged_task_files())}")
    return path


def packaged_task_files() -> list[str]:
    folder = Path(str(resources.files("synergai.robots").joinpath("tasks")))
    return sorted(p.name for p in folder.glob("*.json"))


def load_task_file(path: Path | str, mode: str) -> list[Any]:
    """Every task of a file for ``mode`` (``tabletop`` / ``house``): TabletopTask or HouseTask objects."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RobotError(f"cannot read task file {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RobotError(f"{path}: not valid JSON ({exc})") from None
    return parse_tasks(data, mode, str(path))


def parse_tasks(data: object, mode: str, source: str = "task file") -> list[Any]:
    """Tasks from decoded JSON; RobotError names the source and the task that is wrong."""
    if mode not in MODES:
        raise RobotError(f"unknown task mode {mode!r}; modes: {', '.join(MODES)}")
    if isinstance(data, Mapping):
        declared = data.get("mode", mode)
        if declared != mode:
            raise RobotError(f"{source}: the file holds {declared!r} tasks, not {mode!r} tasks")
        unknown = set(data) - {"mode", "tasks"}
        if unknown:
            raise RobotError(f"{source}: unknown keys {', '.join(sorted(unknown))} (use mode and tasks)")
        data = data.get("tasks")
    if not isinstance(data, list) or not data:
        raise RobotError(f"{source}: expected a non-empty list of tasks")
    tasks, seen = [], set()
    for index, entry in enumerate(data, start=1):
        label = entry.get("name", f"#{index}") if isinstance(entry, Mapping) else f"#{index}"
        try:
            task = _tabletop_task(entry) if mode == "tabletop" else _house_task(entry)
        except RobotError as exc:
            raise RobotError(f"{source}: task {label}: {exc}") from None
        if task.name in seen:
            raise RobotError(f"{source}: two tasks are named {task.name!r}")
        seen.add(task.name)
        tasks.append(task)
    return tasks


def _common(entry: object) -> tuple[str, str, tuple[str, ...]]:
    if not isinstance(entry, Mapping):
        raise RobotError(f"a task must be an object with name, text, scene, answers and goal, got {entry!r}")
    unknown = set(entry) - _TASK_KEYS
    if unknown:
        raise RobotError(f"unknown keys {', '.join(sorted(unknown))}; keys: {', '.join(sorted(_TASK_KEYS))}")
    for key in ("name", "text", "scene", "goal"):
        if key not in entry:
            raise RobotError(f"missing {key!r}")
    name, text = entry["name"], entry["text"]
    if not isinstance(name, str) or not name.strip():
        raise RobotError("name must be a non-empty string")
    if not isinstance(text, str) or not text.strip():
        raise RobotError("text must be a non-empty string")
    answers = entry.get("answers", [])
    if not isinstance(answers, list) or not all(isinstance(a, str) and a.strip() for a in answers):
        raise RobotError("answers must be a list of non-empty strings")
    return name.strip(), text.strip(), tuple(a.strip() for a in answers)


def _tabletop_task(entry: Any) -> TabletopTask:
    name, text, answers = _common(entry)
    scene = entry["scene"]
    if isinstance(scene, str):
        label, objects = scene, scene_objects(scene)
    elif isinstance(scene, Mapping) and set(scene) == {"objects"} and isinstance(scene["objects"], list):
        label, objects = "inline", tuple(object_from_entry(o) for o in scene["objects"])
        if not objects:
            raise RobotError("the scene has no objects")
    else:
        raise RobotError("a tabletop scene is a name or {\"objects\": [{\"name\", \"kind\", \"xy\"}, ...]}")
    names = [o.name for o in objects]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise RobotError(f"duplicate objects in the scene: {', '.join(dup)}")
    bounds = TableBounds()  # the simulator's table: checked here, so a suite never stops half-way
    off = [o for o in objects if not bounds.contains(*o.position)]
    if off:
        raise RobotError(f"object {off[0].name} at {list(off[0].position)} is off the table "
                         f"({bounds.describe()})")
    goal = parse_goal(entry["goal"], "tabletop", Names(frozenset(names)))
    return TabletopTask(name, text, objects, goal, answers, label)


def _house_task(entry: Any) -> HouseTask:
    name, text, answers = _common(entry)
    label, items = scene_items(entry["scene"])
    names = Names(frozenset(i.name for i in items), frozenset(furniture_names()), frozenset(ROBOT_NAMES))
    goal = parse_goal(entry["goal"], "house", names)
    return HouseTask(name, text, items, goal, answers, label)


def packaged_task(name: str, mode: str, file: str | None = None) -> Any:
    """One packaged task by name (from ``<mode>_suite.json`` unless ``file`` is given)."""
    tasks = {t.name: t for t in load_task_file(packaged_task_file(file or f"{mode}_suite.json"), mode)}
    try:
        return tasks[name]
    except KeyError:
        raise RobotError(f"no packaged {mode} task {name!r}; tasks: {', '.join(tasks)}") from None
