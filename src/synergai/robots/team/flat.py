"""MHRC's flat: the furniture of the paper's scene graph, the three robots, the seed task's item placement
(the named scene ``house``) and inline item lists; a house task (words, items, goal) builds its house.

Tasks themselves are data (``synergai/robots/tasks/house_*.json``, read by
:mod:`synergai.robots.task_file`); success is the generic goal checker's verdict on the house.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from synergai.robots.errors import RobotError
from synergai.robots.goals import GoalCheck, Predicate, check_house
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
    """A house task: what the person says, where every item starts, the answers, the goal."""

    name: str
    text: str
    items: tuple[Item, ...]
    goal: tuple[Predicate, ...]
    answers: tuple[str, ...] = ()
    scene: str = "inline"

    @property
    def targets(self) -> tuple[str, ...]:
        """The items the goal names, in order."""
        items = {i.name for i in self.items}
        return tuple(dict.fromkeys(n for p in self.goal for n in p.objects() if n in items))

    def make_house(self) -> House:
        return make_house(house_furniture(), self.items, team_robots())

    def check(self, house: House) -> GoalCheck:
        """The goal checker's verdict on the house."""
        return check_house(self.goal, house)


def _on(name: str, furniture: str, xy: tuple[float, float], top: float, h: float = 0.08) -> Item:
    return Item(name, furniture, (xy[0], xy[1], top + h / 2))


def _in(name: str, f: Furniture, index: int) -> Item:
    return Item(name, f.name, f.slot(index, 0.08))


def seed_items() -> tuple[Item, ...]:
    """The named scene ``house``: the MHRC seed task's placement of thirteen items."""
    fur = {f.name: f for f in house_furniture()}
    t0 = 0.75
    return (_on("apple", "table_0", (0.75, 0.9), t0), _on("phone", "table_0", (1.4, 1.0), t0),
            _on("fork", "table_0", (1.2, 0.75), t0), _on("banana", "table_0", (1.75, 1.45), t0),
            _on("remote", "sofa", (6.2, 2.0), 0.45), _in("book", fur["book_case"], 0),
            _on("towel", "tub", (8.0, 11.2), 0.55), _in("ham", fur["drawer"], 0),
            _on("soap", "washbasin", (6.0, 11.4), 0.85), _in("cup", fur["dishwasher"], 0),
            _in("mug", fur["microwave"], 0))


#: Named house scenes.
HOUSE_SCENES = ("house",)


def scene_items(scene: object) -> tuple[str, tuple[Item, ...]]:
    """A house scene's label and items: the name ``house`` or ``{"items": [{"name", "on" | "in"}, ...]}``."""
    if isinstance(scene, str):
        if scene not in HOUSE_SCENES:
            raise RobotError(f"unknown house scene {scene!r}; scenes: {', '.join(HOUSE_SCENES)} "
                             "or an inline {\"items\": [...]}")
        return scene, seed_items()
    if not isinstance(scene, Mapping) or set(scene) != {"items"} or not isinstance(scene["items"], list):
        raise RobotError("a house scene is a name or "
                         "{\"items\": [{\"name\": ..., \"on\"|\"in\": furniture}, ...]}")
    furniture = {f.name: f for f in house_furniture()}
    counts: dict[str, int] = {}
    items = []
    for entry in scene["items"]:
        name, where = _item_entry(entry, furniture)
        k = counts.get(where, 0)
        counts[where] = k + 1
        items.append(Item(name, where, furniture[where].slot(k, 0.08)))
    names = [i.name for i in items]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise RobotError(f"duplicate items in the scene: {', '.join(dup)}")
    if not items:
        raise RobotError("the house scene has no items")
    return "inline", tuple(items)


def _item_entry(entry: object, furniture: Mapping[str, Furniture]) -> tuple[str, str]:
    if not isinstance(entry, Mapping):
        raise RobotError(f"a house item must be an object like {{\"name\": \"apple\", \"on\": \"table_0\"}}, "
                         f"got {entry!r}")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip() or name.strip() in ROBOT_NAMES:
        raise RobotError(f"a house item needs a name (not a robot's): {dict(entry)!r}")
    places = [k for k in ("on", "in") if k in entry]
    unknown = set(entry) - {"name", "on", "in"}
    if len(places) != 1 or unknown:
        raise RobotError(f"item {name}: give exactly one of \"on\" / \"in\" and nothing else")
    where = entry[places[0]]
    if where not in furniture:
        raise RobotError(f"item {name}: unknown furniture {where!r}; furniture: {', '.join(furniture)}")
    return name.strip(), str(where)


ROBOT_NAMES = ("Alice", "Bob", "David")


def furniture_names() -> Sequence[str]:
    return [f.name for f in house_furniture()]
