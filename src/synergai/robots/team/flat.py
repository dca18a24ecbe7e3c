"""MHRC's house (the furniture of the paper's scene graph) and tray-filling tasks with their checker.

The seed task is the paper's: put the apple, phone, ham, soap and fork into the tray on ``table_0``.
Two more of the same kind move other objects; each needs exploring, opening a closed container and
handing objects over to Bob. Success is read from the world: every listed object is in the tray and
nothing else is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from synergai.robots.errors import RobotError
from synergai.robots.team.house import Furniture, House, Item, RobotSpec, make_house

_H = math.pi / 2


def _f(name: str, xy: tuple[float, float], size: tuple[float, float, float],
       stands: tuple[tuple[float, ...], ...], *, z0: float = 0.0, openable: bool = False,
       inside: bool = False) -> Furniture:
    center = (xy[0], xy[1], z0 + size[2] / 2)
    return Furniture(name, center, size, tuple((s[0], s[1], s[2]) for s in stands), openable, inside)


def house_furniture() -> list[Furniture]:
    """The paper's furniture list, laid out in a 9 x 12 m flat."""
    return [
        _f("table_0", (1.0, 1.0), (1.6, 1.2, 0.75), ((1.0, 2.0, -_H), (1.0, 0.0, _H))),
        _f("tray", (0.58, 0.6), (0.4, 0.3, 0.12), ((1.0, 0.0, _H),), z0=0.75, inside=True),
        _f("drawer", (4.0, 2.0), (0.6, 0.5, 0.9), ((3.3, 2.0, 0.0),), openable=True, inside=True),
        _f("dishwasher", (4.0, 3.5), (0.6, 0.6, 0.85), ((3.3, 3.5, 0.0),), openable=True, inside=True),
        _f("microwave", (4.0, 5.0), (0.5, 0.4, 0.3), ((3.3, 5.0, 0.0),), z0=0.9, openable=True, inside=True),
        _f("fridge", (4.0, 6.5), (0.7, 0.7, 1.8), ((3.2, 6.5, 0.0),), openable=True, inside=True),
        _f("cabinet_0", (0.3, 4.0), (0.5, 0.8, 0.9), ((1.0, 4.0, math.pi),), openable=True, inside=True),
        _f("cabinet_1", (0.3, 5.5), (0.5, 0.8, 0.9), ((1.0, 5.5, math.pi),), openable=True, inside=True),
        _f("table_1", (2.0, 8.0), (1.2, 0.8, 0.75), ((2.0, 7.3, _H), (2.0, 8.7, -_H))),
        _f("sofa", (6.5, 2.0), (2.0, 0.9, 0.45), ((6.5, 2.9, -_H),)),
        _f("table_2", (6.5, 4.0), (1.0, 0.6, 0.45), ((6.5, 3.3, _H), (6.5, 4.7, -_H))),
        _f("table_3", (6.5, 7.0), (1.2, 0.8, 0.75), ((6.5, 6.3, _H), (6.5, 7.7, -_H))),
        _f("book_case", (8.6, 9.0), (0.4, 1.2, 1.8), ((7.9, 9.0, 0.0),), inside=True),
        _f("tub", (8.3, 11.2), (1.6, 0.8, 0.55), ((8.3, 10.5, _H),), inside=True),
        _f("washbasin", (6.0, 11.4), (0.6, 0.5, 0.85), ((6.0, 10.8, _H),)),
        _f("table_4", (2.0, 11.0), (1.2, 0.8, 0.75), ((2.0, 10.3, _H),)),
    ]


def team_robots() -> list[RobotSpec]:
    """Alice (mobile manipulator), Bob (arm fixed at table_0), David (mobile base, explores only)."""
    return [
        RobotSpec("Alice", "mobile manipulator",
                  frozenset({"navigate", "open", "pick", "place", "move", "communicate", "wait"}),
                  (1.0, 2.0, -_H), reach=1.0),
        RobotSpec("Bob", "table-top arm", frozenset({"pick", "place", "communicate", "wait"}),
                  (1.0, 1.0, 0.0), reach=0.8, station="table_0"),
        RobotSpec("David", "mobile base", frozenset({"navigate", "communicate", "wait"}),
                  (2.55, 10.0, 0.0), reach=1.0),
    ]


@dataclass(frozen=True)
class HouseTask:
    """A tray task: the objects to put in, where all objects start, and the task's words."""

    key: str
    targets: tuple[str, ...]
    items: tuple[Item, ...]

    @property
    def text(self) -> str:
        return f"Put the {', '.join(self.targets[:-1])} and {self.targets[-1]} into the tray"

    def make_house(self) -> House:
        return make_house(house_furniture(), self.items, team_robots())

    def check(self, house: House) -> tuple[bool, str]:
        """Success from the world: every target in the tray, nothing else in it."""
        inside = set(house.in_container("tray"))
        missing = [t for t in self.targets if t not in inside]
        extra = sorted(inside - set(self.targets))
        if not missing and not extra:
            return True, "all objects are in the tray"
        parts = [f"missing from the tray: {', '.join(missing)}"] if missing else []
        parts += [f"not on the list but in the tray: {', '.join(extra)}"] if extra else []
        return False, "; ".join(parts)


def _on(name: str, furniture: str, xy: tuple[float, float], top: float, h: float = 0.08) -> Item:
    return Item(name, furniture, (xy[0], xy[1], top + h / 2))


def _in(name: str, f: Furniture, index: int) -> Item:
    return Item(name, f.name, f.slot(index, 0.08))


def _tasks() -> dict[str, HouseTask]:
    fur = {f.name: f for f in house_furniture()}
    t0 = 0.75
    table_items = (_on("apple", "table_0", (0.75, 0.9), t0), _on("phone", "table_0", (1.4, 1.0), t0),
                   _on("fork", "table_0", (1.2, 0.75), t0), _on("banana", "table_0", (1.75, 1.45), t0))
    common = (_on("remote", "sofa", (6.2, 2.0), 0.45), _in("book", fur["book_case"], 0),
              _on("towel", "tub", (8.0, 11.2), 0.55))
    seed = HouseTask("seed", ("apple", "phone", "ham", "soap", "fork"), (
        *table_items, *common, _in("ham", fur["drawer"], 0), _on("soap", "washbasin", (6.0, 11.4), 0.85),
        _in("cup", fur["dishwasher"], 0), _in("mug", fur["microwave"], 0)))
    snack = HouseTask("snack", ("banana", "cup", "remote"), (
        *table_items, *common, _in("ham", fur["fridge"], 0), _on("soap", "washbasin", (6.0, 11.4), 0.85),
        _in("cup", fur["dishwasher"], 0), _in("mug", fur["cabinet_0"], 0)))
    evening = HouseTask("evening", ("book", "mug", "phone"), (
        *table_items, *common, _in("ham", fur["fridge"], 0), _on("soap", "washbasin", (6.0, 11.4), 0.85),
        _in("cup", fur["dishwasher"], 0), _in("mug", fur["microwave"], 0)))
    return {t.key: t for t in (seed, snack, evening)}


def house_task(key: str) -> HouseTask:
    """One of the house tasks: ``seed`` (the paper's), ``snack``, ``evening``."""
    tasks = _tasks()
    try:
        return tasks[key]
    except KeyError:
        raise RobotError(f"unknown house task {key!r}; tasks: {', '.join(tasks)}") from None


def house_task_keys() -> list[str]:
    return list(_tasks())


def task_from_text(text: str) -> HouseTask:
    """The house task a sentence names: a key, or "put the X, Y and Z into the tray" over known objects."""
    import re

    low = text.lower().strip()
    tasks = _tasks()
    if low in tasks:
        return tasks[low]
    for task in tasks.values():
        if low.rstrip(".") == task.text.lower():
            return task
    words = re.findall(r"[a-z_]+", low)
    seed = tasks["seed"]
    known = {i.name for i in seed.items}
    targets = tuple(dict.fromkeys(w for w in words if w in known))
    if not targets or "tray" not in words:
        raise RobotError(f"cannot read a tray task from {text!r}: name objects from "
                         f"{', '.join(sorted(known))} "
                         "and the tray, or one of the tasks " + ", ".join(tasks))
    return HouseTask("custom", targets, seed.items)
