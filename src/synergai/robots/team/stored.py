"""A stored scene as the team's house, and the house's changes written back to the scene.

The mapping (only stored objects and their stored ``supported_by`` / ``inside`` edges are read):

* **furniture**: every object that stands on the floor (or on nothing stored, its bottom within 0.3 m of
  z = 0; not one hung or mounted on a wall, nor one a gripper still holds up), holds another object,
  opens or is a receptacle (``scene.vocabulary``: a microwave on the counter, a tray on the table). It
  opens when its attributes say ``open`` / ``closed`` or its category is one that opens (closed unless
  ``open``); things go inside it when it opens, is a receptacle or something is stored ``inside`` it.
  Stand poses are the middles of its four sides, 0.3 m out, facing it, that are on a floor of the scene
  (when it has floors) and clear of other furniture; the two on its longest sides first.
* **items**: every other object resting on or inside a piece of furniture and holding nothing itself.
* **names**: the stored id when it reads as a name of the object's current label (``table_0`` for a
  table, ``fridge`` for a fridge: letters, digits and ``_``, starting with a letter); the others (numeric
  ids, and ids a person's rename has made wrong: ``tray`` now labelled "cutting board") by their current
  label with ``_`` for spaces, numbered from 0 in id order when the label repeats (``cup_0``, ``cup_1``).
  So the robots' prompts name every object as people last labelled it.
* **robots**: Bob is fixed at the furniture that holds the most items (his arm at its centre), Alice starts
  at its first stand pose, David at the first stand pose of the furniture farthest from it.

:class:`HouseChanges` compares the house after each action with before and writes, by ``robot:<name>``,
each item's new box (a picked item rises to the robot's gripper at its base, 1 m up; a placed one rests in
its new place, its relations recomputed) and each opened or closed piece's state; :meth:`HouseChanges.renamed`
tells the team which objects people have renamed since the episode began. When an episode stops
early (an error, the round limit, Ctrl-C), :meth:`HouseChanges.settle` sets every item still held in a
gripper back down where it was picked from, so no object is left in mid-air in the stored scene.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from synergai.robots.errors import EpisodeStopped, RobotError
from synergai.robots.recorder import CLOSED, OPEN, SceneRecorder
from synergai.robots.team.flat import team_robots
from synergai.robots.team.house import Command, Feedback, Furniture, House, Item, Pose
from synergai.scene.model import SUPPORT_RELATIONS, ObjectKind, Relation, SceneError, SceneGraph, SceneObject
from synergai.scene.verification import category_in
from synergai.scene.vocabulary import OPENABLE_WORDS, RECEPTACLE_WORDS

STAND_OFF = 0.3  # metres from a furniture's side to its stand pose
GRIPPER_HEIGHT = 1.0  # where a held item is recorded (metres above the floor)
FLOOR_BAND = 0.3  # an object with no stored support stands on the floor when its bottom is this low
_HOLDS = (Relation.SUPPORTED_BY, Relation.INSIDE)


@dataclass(frozen=True)
class StoredHouse:
    """The house a stored scene gives and the stored id of each furniture and item name."""

    scene_id: str
    house: House
    ids: Mapping[str, str]  # furniture or item name -> stored object id


def _holders(graph: SceneGraph) -> dict[str, tuple[Relation, str]]:
    """Object id -> (supported_by | inside, holder id) from the stored edges (the first one)."""
    out: dict[str, tuple[Relation, str]] = {}
    for e in graph.edges:
        if e.relation in _HOLDS and e.subject in graph and e.object in graph:
            out.setdefault(e.subject, (e.relation, e.object))
    return out


def _names(objects: Sequence[SceneObject]) -> dict[str, str]:
    """Stored id -> house name (see the module doc-string)."""
    def slug(text: str) -> str:
        return "_".join(text.split())

    def reads_as_name(o: SceneObject) -> bool:
        """``table_0`` for a table: the id reads as a name of the object's current label."""
        label = re.sub(r"_\d+$", "", o.id).replace("_", " ").lower()
        return re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", o.id) is not None and label == o.category.lower()

    count: dict[str, int] = {}
    for o in objects:
        count[o.category] = count.get(o.category, 0) + 1
    seen: dict[str, int] = {}
    names: dict[str, str] = {}
    taken = {o.id for o in objects if reads_as_name(o)}
    for o in sorted(objects, key=lambda o: (len(o.id), o.id)):
        if o.id in taken:
            names[o.id] = o.id
            continue
        while True:
            k = seen.get(o.category, 0)
            seen[o.category] = k + 1
            name = slug(o.category) if count[o.category] == 1 else f"{slug(o.category)}_{k}"
            if name not in taken:
                break
        taken.add(name)
        names[o.id] = name
    return names


def _inside(point: Sequence[float], o: SceneObject, margin: float = 0.0) -> bool:
    return all(abs(point[k] - o.center[k]) <= o.size[k] / 2 + margin for k in (0, 1))


def _stand_poses(f: SceneObject, furniture: Sequence[SceneObject], floors: Sequence[SceneObject]) -> tuple[
        Pose, ...]:
    cx, cy, _ = f.center
    hx, hy = f.size[0] / 2, f.size[1] / 2
    sides = [  # (side length, stand point, yaw facing the furniture)
        (f.size[0], (cx, cy - hy - STAND_OFF), math.pi / 2),
        (f.size[0], (cx, cy + hy + STAND_OFF), -math.pi / 2),
        (f.size[1], (cx - hx - STAND_OFF, cy), 0.0),
        (f.size[1], (cx + hx + STAND_OFF, cy), math.pi),
    ]
    good = [s for s in sides
            if (not floors or any(_inside(s[1], fl) for fl in floors))
            and not any(_inside(s[1], o, 0.1) for o in furniture if o.id != f.id)]
    good.sort(key=lambda s: -s[0])
    chosen = good[:2] or sides[:1]
    return tuple((round(p[0], 3), round(p[1], 3), round(yaw, 4)) for _, p, yaw in chosen)


def house_from_scene(graph: SceneGraph) -> StoredHouse:
    """The team's house for a stored scene (see the module doc-string); RobotError when the scene has no
    furniture with an item on or in it."""
    holders = _holders(graph)
    objects = [o for o in graph if o.kind is ObjectKind.OBJECT]
    held_ids = {h for _, h in holders.values()}
    held_things = {oid for oid, (_, h) in holders.items() if graph.get(h).kind is ObjectKind.OBJECT}
    supports = {e.subject: graph.get(e.object).kind for e in graph.edges
                if e.relation in SUPPORT_RELATIONS and e.object in graph}

    def stands_free(o: SceneObject) -> bool:
        """On a floor (not on a wall, a piece or in one), or on nothing stored with its bottom near the
        floor (an item still held up in a gripper is neither furniture nor item)."""
        if o.id in supports:
            return supports[o.id] is ObjectKind.FLOOR
        return float(o.min_corner[2]) < FLOOR_BAND

    def opens(o: SceneObject) -> bool:
        return bool({OPEN, CLOSED} & set(o.attributes)) or category_in(o.category, OPENABLE_WORDS)

    def receptacle(o: SceneObject) -> bool:
        return category_in(o.category, RECEPTACLE_WORDS)

    furn_objs = [o for o in objects if stands_free(o) or o.id in held_ids or opens(o) or receptacle(o)]
    furn_ids = {o.id for o in furn_objs}
    item_objs = [o for o in objects if o.id in held_things and o.id not in furn_ids
                 and holders[o.id][1] in furn_ids]
    if not item_objs:
        raise RobotError(f"scene {graph.scene_id} has no object resting on or in furniture (no stored "
                         "'supported_by' / 'inside' relation between two objects): nothing for the team to "
                         "act on")
    names = _names(furn_objs + item_objs)
    floors = [o for o in graph if o.kind is ObjectKind.FLOOR]
    has_inside = {h for rel, h in holders.values() if rel is Relation.INSIDE}
    furniture: list[Furniture] = []
    opened: set[str] = set()
    for o in furn_objs:
        openable = opens(o)
        name = names[o.id]
        furniture.append(Furniture(name, o.center, o.size, _stand_poses(o, furn_objs, floors), openable,
                                   openable or receptacle(o) or o.id in has_inside))
        if openable and OPEN in o.attributes:
            opened.add(name)
    items = [Item(names[o.id], names[holders[o.id][1]], o.center, o.size) for o in item_objs]
    by_name = {f.name: f for f in furniture}
    count = {f.name: sum(i.location == f.name for i in items) for f in furniture}
    station = max(by_name, key=lambda n: count[n])
    home = by_name[station]
    far = max(furniture, key=lambda f: math.dist(f.position[:2], home.position[:2]))
    starts = {"Alice": home.stand_poses[0], "Bob": (home.position[0], home.position[1], 0.0),
              "David": far.stand_poses[0]}
    robots = [replace(r, start=starts[r.name], station=station if r.station else None) for r in team_robots()]
    clash = sorted({r.name for r in robots} & (set(by_name) | {i.name for i in items}))
    if clash:
        raise RobotError(f"scene {graph.scene_id}: objects are named like the robots: {', '.join(clash)}")
    house = House(by_name, {i.name: i for i in items}, {r.name: r for r in robots}, opened=opened)
    ids = {names[o.id]: o.id for o in furn_objs + item_objs}
    return StoredHouse(graph.scene_id, house, ids)


class HouseChanges:
    """After each action, writes what changed in the house to the stored scene (see the module doc-string)."""

    def __init__(self, stored: StoredHouse, recorder: SceneRecorder) -> None:
        self.stored, self.recorder = stored, recorder
        graph = recorder.graph
        self._labels = {name: graph.get(oid).category for name, oid in stored.ids.items() if oid in graph}
        self._items = self._snapshot()
        self._opened = set(stored.house.opened)

    def _snapshot(self) -> dict[str, tuple[str, tuple[float, float, float]]]:
        return {n: (i.location, i.position) for n, i in self.stored.house.items.items()}

    def renamed(self) -> dict[str, str]:
        """House name -> the label a person has given its object since the episode began (read from the
        store now; EpisodeStopped when the scene was dropped or registered again)."""
        graph = self.recorder.refresh()
        return {name: graph.get(oid).category for name, oid in self.stored.ids.items()
                if oid in graph and graph.get(oid).category != self._labels.get(name)}

    def settle(self, why: str) -> list[str]:
        """Set every item a gripper still holds back down where it was picked from (its unfinished
        action rolled back in the stored scene, by the robot holding it); returns what could not be
        written (one line each)."""
        house, problems = self.stored.house, []
        if self.recorder.gone is not None:  # the scene is another one now: nothing of it to set down
            return []
        for name, item in sorted(house.items.items()):
            if item.location not in house.robots or self.stored.ids[name] not in self.recorder.graph:
                continue  # not held, or deleted from the scene meanwhile
            action = f"{item.location}: set {name} back down ({why})"
            try:
                self.recorder.move(item.location, self.stored.ids[name], item.position, action)
            except (SceneError, EpisodeStopped) as exc:  # the store refused, or the object is gone
                problems.append(f"{name} stays where the record has it: {exc}")
        return problems

    def __call__(self, robot: str, command: Command, feedback: Feedback) -> None:
        house, ids = self.stored.house, self.stored.ids
        if not feedback.ok:
            return
        action = f"{robot}: {command.render()}"
        now = self._snapshot()
        for name, (location, position) in now.items():
            if self._items.get(name) == (location, position):
                continue
            if location in house.robots:  # in a gripper: held up at the robot's base
                x, y, _ = house.states[location].pose
                z = max(GRIPPER_HEIGHT, position[2])
                self.recorder.move(robot, ids[name], (x, y, z), action)
            else:
                self.recorder.move(robot, ids[name], position, action)
        for name in sorted(house.opened ^ self._opened):
            self.recorder.set_open(robot, ids[name], name in house.opened, action)
        self._items, self._opened = now, set(house.opened)
