"""MHRC's house: furniture with stand poses and open / closed states, objects on or inside furniture,
robots with skills, and the skills' preconditions and feedback.

The house is a kinematic world (no physics): positions are metres in the house frame, the robot's
reach is a distance from its base. A robot sees the objects of a piece of furniture when it stands
within reach of it and the furniture is open (or never closes); Bob, fixed at ``table_0``, sees his
table. Every skill returns :class:`Feedback` in MHRC's wording; a failed precondition changes nothing.
The world's scene graph comes from :func:`synergai.scene.build.build_graph` over the furniture and
object boxes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from synergai.robots.errors import RobotError
from synergai.scene.model import Relation, SceneGraph, SceneObject

SKILLS = ("navigate", "open", "pick", "place", "move", "communicate", "wait")
_ARITY = MappingProxyType({"navigate": (1, 2), "open": (1, 1), "pick": (1, 1), "place": (2, 2),
                           "move": (2, 2), "communicate": (2, 2), "wait": (0, 0)})
Pose = tuple[float, float, float]  # x, y, yaw
Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class Furniture:
    """A piece of furniture: box, where a robot stands to use it, whether it opens, where things go."""

    name: str
    position: Vec3  # box centre
    size: Vec3
    stand_poses: tuple[Pose, ...]
    openable: bool = False
    holds_inside: bool = False  # objects go inside (fridge, drawer, tray) rather than on top

    @property
    def category(self) -> str:
        return re.sub(r"_\d+$", "", self.name).replace("_", " ")

    def slot(self, index: int, height: float) -> Vec3:
        """A resting centre for the ``index``-th object of ``height``: a 3 x 3 grid over the box, the cells
        nearest a stand pose first (so the first objects put there are within reach of a robot there)."""
        cx, cy, cz = self.position
        sx, sy, sz = self.size
        cells = [(cx + (col - 1) * sx / 4, cy + (row - 1) * sy / 4) for row in range(3) for col in range(3)]
        if self.stand_poses:
            cells.sort(key=lambda c: min(math.hypot(c[0] - p[0], c[1] - p[1]) for p in self.stand_poses))
        x, y = cells[index % len(cells)]
        shelf = 0.02 if sz < 0.3 else 0.3 * sz  # tall furniture keeps things on an inner shelf
        bottom = cz - sz / 2 + shelf if self.holds_inside else cz + sz / 2
        return (x, y, bottom + height / 2)


@dataclass
class Item:
    """A small object: where it is (a furniture name, or the robot holding it) and its box."""

    name: str
    location: str
    position: Vec3
    size: Vec3 = (0.08, 0.08, 0.08)

    @property
    def category(self) -> str:
        return re.sub(r"_\d+$", "", self.name).replace("_", " ")


@dataclass(frozen=True)
class RobotSpec:
    """A robot's body: kind, skills, reach (m) and start pose; ``station`` fixes it at a furniture."""

    name: str
    kind: str
    skills: frozenset[str]
    start: Pose
    reach: float = 1.0
    station: str | None = None

    def __post_init__(self) -> None:
        unknown = set(self.skills) - set(SKILLS)
        if unknown:
            raise RobotError(f"robot {self.name}: unknown skills {', '.join(sorted(unknown))}")


@dataclass
class RobotState:
    """Where a robot is and what it holds."""

    pose: Pose
    holding: str | None = None


@dataclass(frozen=True)
class Feedback:
    """What a skill did (MHRC's feedback sentence)."""

    ok: bool
    text: str


@dataclass(frozen=True)
class Command:
    """One skill call: ``navigate(fridge, stand_pose_0)``."""

    skill: str
    args: tuple[str, ...] = ()

    def render(self) -> str:
        return f"{self.skill}({', '.join(self.args)})"


@dataclass(frozen=True)
class Message:
    """A message between robots, delivered at once into the recipient's inbox."""

    sender: str
    recipient: str
    content: str


_CALL = re.compile(r"^\s*([a-z_]+)\s*\((.*)\)\s*\.?\s*$", re.DOTALL)


def parse_command(text: str) -> Command:
    """``navigate(fridge, stand_pose_0)`` -> Command; communicate keeps commas inside its content."""
    m = _CALL.match(text or "")
    if not m:
        raise RobotError(f"not a skill call: {text!r}; use e.g. navigate(fridge, stand_pose_0)")
    skill, body = m.group(1), m.group(2).strip()
    if skill not in SKILLS:
        raise RobotError(f"unknown skill {skill!r}; skills: {', '.join(SKILLS)}")
    if skill == "communicate":
        content, _, robot = body.rpartition(",")
        args: tuple[str, ...] = (content.strip().strip("'\""), robot.strip().strip("'\""))
    else:
        args = tuple(a.strip().strip("'\"") for a in body.split(",")) if body else ()
    return Command(skill, args)


@dataclass
class House:
    """The world: furniture, items, robots, open states, what each robot has seen, inboxes."""

    furniture: dict[str, Furniture]
    items: dict[str, Item]
    robots: dict[str, RobotSpec]
    opened: set[str] = field(default_factory=set)
    states: dict[str, RobotState] = field(default_factory=dict)
    known: dict[str, set[str]] = field(default_factory=dict)
    explored: dict[str, set[str]] = field(default_factory=dict)  # furniture each robot has looked into
    inbox: dict[str, list[Message]] = field(default_factory=dict)
    messages_sent: int = 0

    def __post_init__(self) -> None:
        for item in self.items.values():
            if item.location not in self.furniture:
                raise RobotError(f"item {item.name} is on unknown furniture {item.location!r}")
        for r in self.robots.values():
            if r.station is not None and r.station not in self.furniture:
                raise RobotError(f"robot {r.name} is stationed at unknown furniture {r.station!r}")
            self.states.setdefault(r.name, RobotState(r.start))
            self.known.setdefault(r.name, set())
            self.explored.setdefault(r.name, set())
            self.inbox.setdefault(r.name, [])
        for name in self.robots:
            self._look(name)

    # ----- queries
    def furniture_named(self, name: str) -> Furniture:
        try:
            return self.furniture[name]
        except KeyError:
            raise RobotError(f"no furniture named {name!r}") from None

    def is_open(self, name: str) -> bool:
        f = self.furniture_named(name)
        return not f.openable or name in self.opened

    def items_at(self, furniture: str) -> list[str]:
        return sorted(i.name for i in self.items.values() if i.location == furniture)

    def distance(self, robot: str, point: Sequence[float]) -> float:
        x, y, _ = self.states[robot].pose
        return math.hypot(point[0] - x, point[1] - y)

    def _near(self, robot: str, f: Furniture) -> bool:
        """Within reach of the furniture's box (its nearest point)."""
        x, y, _ = self.states[robot].pose
        cx, cy, _ = f.position
        dx = max(abs(x - cx) - f.size[0] / 2, 0.0)
        dy = max(abs(y - cy) - f.size[1] / 2, 0.0)
        return math.hypot(dx, dy) <= self.robots[robot].reach

    def within_reach(self, robot: str, furniture: str) -> bool:
        """Whether ``robot`` stands within reach of ``furniture``'s box."""
        return self._near(robot, self.furniture_named(furniture))

    def can_pick(self, robot: str, item: str) -> bool:
        """Whether ``pick(item)`` would succeed for ``robot`` now (the same preconditions as the skill)."""
        it = self.items.get(item)
        return (it is not None and self.states[robot].holding is None and it.location in self.furniture
                and self.is_open(it.location) and item in self.known[robot]
                and self.distance(robot, it.position) <= self.robots[robot].reach)

    def can_place(self, robot: str, item: str, furniture: str) -> bool:
        """Whether ``place(item, furniture)`` would succeed for ``robot`` now."""
        if self.states[robot].holding != item or furniture not in self.furniture:
            return False
        if not self.is_open(furniture):
            return False
        return self.distance(robot, self.place_spot(item, furniture)) <= self.robots[robot].reach

    def place_spot(self, item: str, furniture: str) -> Vec3:
        """Where ``item`` would go if placed on or in ``furniture`` now (its next free slot)."""
        return self.furniture[furniture].slot(len(self.items_at(furniture)), self.items[item].size[2])

    def _look(self, robot: str) -> list[str]:
        """Items the robot can now see (and remembers); returns the newly seen ones."""
        new = []
        for f in self.furniture.values():
            if self._near(robot, f) and self.is_open(f.name):
                self.explored[robot].add(f.name)
                for name in self.items_at(f.name):
                    if name not in self.known[robot]:
                        self.known[robot].add(name)
                        new.append(name)
        return new

    def share_knowledge(self) -> None:
        """Give every robot what any robot has seen and looked into (one map for the team)."""
        known = set().union(*self.known.values())
        explored = set().union(*self.explored.values())
        for name in self.robots:
            self.known[name] |= known
            self.explored[name] |= explored

    def in_container(self, container: str) -> list[str]:
        """Items now in (or on) ``container``."""
        return self.items_at(container)

    # ----- skills
    def execute(self, robot: str, command: Command) -> Feedback:
        """Run one skill for one robot; a failed precondition changes nothing."""
        if robot not in self.robots:
            raise RobotError(f"unknown robot {robot!r}; robots: {', '.join(self.robots)}")
        spec = self.robots[robot]
        if command.skill not in spec.skills:
            return Feedback(False, f"{robot} cannot {command.skill}: it has no such skill "
                                   f"(skills: {', '.join(s for s in SKILLS if s in spec.skills)}).")
        low, high = _ARITY[command.skill]
        if not low <= len(command.args) <= high:
            return Feedback(False, f"wrong number of arguments in {command.render()}.")
        return getattr(self, f"_do_{command.skill}")(robot, *command.args)

    def _do_navigate(self, robot: str, target: str, stand_pose: str = "stand_pose_0") -> Feedback:
        if self.robots[robot].station is not None:
            return Feedback(False, f"{robot} is fixed at {self.robots[robot].station} and cannot navigate.")
        if target not in self.furniture:
            return Feedback(False, f"There is no {target} in the scene graph.")
        f = self.furniture[target]
        m = re.fullmatch(r"(?:stand_pose_)?(\d+)", stand_pose.strip())
        if not m or int(m.group(1)) >= len(f.stand_poses):
            poses = ", ".join(f"stand_pose_{i}" for i in range(len(f.stand_poses)))
            return Feedback(False, f"{target} has no {stand_pose}; its stand poses are {poses}.")
        pose = f.stand_poses[int(m.group(1))]
        if self.states[robot].pose == pose:
            text = f"The robot is already at {target}-stand_pose_{m.group(1)}; nothing changed."
        else:
            self.states[robot].pose = pose
            text = f"The robot successfully reached the target {target}-stand_pose_{m.group(1)}."
        return Feedback(True, text + " " + self._observation(robot, f))

    def _get_closer(self, robot: str, furniture: str) -> str:
        """How to bring something out of reach within reach: go there, or (fixed robots) ask a helper."""
        station = self.robots[robot].station
        if station is None:
            return f"Navigate to a stand pose of the {furniture} or move closer."
        helpers = [r.name for r in self.robots.values()
                   if r.name != robot and {"navigate", "pick", "place"} <= r.skills]
        who = " or ".join(helpers) or "a robot that can carry objects"
        return f"{robot} is fixed at {station} and cannot move: ask {who} to bring it within your reach."

    def _observation(self, robot: str, f: Furniture) -> str:
        if not self.is_open(f.name):
            return f"Further open operations are required to know the objects stored in the {f.name}."
        self._look(robot)
        here = self.items_at(f.name)
        where = "in" if f.holds_inside else "on"
        if not here:
            return f"No object was found {where} the {f.name}."
        return f"Found {where} the {f.name}: {', '.join(here)}."

    def _do_open(self, robot: str, target: str) -> Feedback:
        if target not in self.furniture:
            return Feedback(False, f"There is no {target} in the scene graph.")
        f = self.furniture[target]
        if not f.openable:
            return Feedback(False, f"The {target} cannot be opened.")
        if not self._near(robot, f):
            return Feedback(False, f"The {target} is out of reach: navigate to one of its stand poses first.")
        if target in self.opened:
            return Feedback(True, f"The {target} is already open. " + self._observation(robot, f))
        self.opened.add(target)
        opened = f"The robot successfully opened the object {target}. "
        return Feedback(True, opened + self._observation(robot, f))

    def _do_pick(self, robot: str, target: str) -> Feedback:
        state = self.states[robot]
        if state.holding is not None:
            return Feedback(False, f"The gripper already holds {state.holding}; place it first.")
        item = self.items.get(target)
        if item is None or item.location not in self.furniture:
            holder = f" ({item.location} holds it)" if item is not None else ""
            return Feedback(False, f"Cannot pick {target}: it is not on any furniture{holder}.")
        f = self.furniture[item.location]
        if not self.is_open(f.name):
            return Feedback(False, f"Cannot pick {target}: the {f.name} is closed; open it first.")
        if target not in self.known[robot]:
            return Feedback(False, f"Cannot pick {target}: it is not in your scene graph; explore first.")
        d = self.distance(robot, item.position)
        reach = self.robots[robot].reach
        if d > reach:
            return Feedback(False, f"Failed to pick {target}: it is {d:.2f} m away, beyond the reach of "
                                   f"{reach:g} m. {self._get_closer(robot, f.name)}")
        item.location, state.holding = robot, target
        return Feedback(True, f"The robot successfully grasps the object {target}.")

    def _do_place(self, robot: str, target: str, location: str) -> Feedback:
        state = self.states[robot]
        if state.holding != target:
            held = state.holding or "nothing"
            return Feedback(False, f"Cannot place {target}: the gripper holds {held}.")
        if location not in self.furniture:
            return Feedback(False, f"There is no {location} in the scene graph.")
        f = self.furniture[location]
        if not self.is_open(location):
            return Feedback(False, f"Cannot place {target}: the {location} is closed; open it first.")
        item = self.items[target]
        spot = f.slot(len(self.items_at(location)), item.size[2])
        d = self.distance(robot, spot)
        reach = self.robots[robot].reach
        if d > reach:
            return Feedback(False, f"Failed to place {target}: the {location} is {d:.2f} m away, beyond the "
                                   f"reach of {reach:g} m. {self._get_closer(robot, location)}")
        item.location, item.position, state.holding = location, spot, None
        for name in self.robots:
            self._look(name)
        where = "in" if f.holds_inside else "on"
        return Feedback(True, f"The {target} is successfully placed {where} the {location}.")

    def _do_move(self, robot: str, dx: str, dy: str) -> Feedback:
        if self.robots[robot].station is not None:
            return Feedback(False, f"{robot} is fixed at {self.robots[robot].station} and cannot move.")
        try:
            ddx, ddy = float(dx), float(dy)
        except ValueError:
            return Feedback(False, f"move needs two numbers, got move({dx}, {dy}).")
        if not (math.isfinite(ddx) and math.isfinite(ddy)) or math.hypot(ddx, ddy) > 2.0:
            return Feedback(False, "move(delta_x, delta_y) is for small adjustments of at most 2 m.")
        x, y, yaw = self.states[robot].pose
        self.states[robot].pose = (x + ddx, y + ddy, yaw)
        seen = self._look(robot)
        extra = f" Newly seen: {', '.join(seen)}." if seen else ""
        return Feedback(True, f"The robot moved to ({x + ddx:.2f}, {y + ddy:.2f}).{extra}")

    def _do_communicate(self, robot: str, content: str, recipient: str) -> Feedback:
        if recipient not in self.robots or recipient == robot:
            others = ", ".join(n for n in self.robots if n != robot)
            return Feedback(False, f"Cannot send a message to {recipient!r}; robots: {others}.")
        if not content.strip():
            return Feedback(False, "Cannot send an empty message.")
        self.inbox[recipient].append(Message(robot, recipient, content.strip()))
        self.messages_sent += 1
        return Feedback(True, f"The message has been successfully sent to {recipient}.")

    def _do_wait(self, robot: str) -> Feedback:
        return Feedback(True, "The robot waited.")

    # ----- messages
    def take_messages(self, robot: str) -> list[Message]:
        """Empty and return a robot's inbox."""
        got, self.inbox[robot] = self.inbox[robot], []
        return got

    # ----- scene graph
    def scene_graph(self, scene_id: str = "house") -> SceneGraph:
        """Furniture and the items resting somewhere, related by the scene builder."""
        objects = [SceneObject("floor", "floor", (5.0, 6.0, -0.01), (12.0, 14.0, 0.02))]
        for f in self.furniture.values():
            attrs = (("open" if self.is_open(f.name) else "closed"),) if f.openable else ()
            objects.append(SceneObject(f.name, f.category, f.position, f.size, attributes=attrs,
                                       provenance="house"))
        for item in self.items.values():
            if item.location in self.furniture:
                objects.append(SceneObject(item.name, item.category, item.position, item.size,
                                           provenance="house"))
        from synergai.scene.build import build_graph  # scipy: imported when the first graph is built

        return build_graph(scene_id, objects, scene_type="house")

    def holder_of(self, graph: SceneGraph, item: str) -> tuple[str, str] | None:
        """(``on`` / ``in``, furniture) for an item from the graph's support edges."""
        for rel, other in graph.relations_of(item):
            if rel is Relation.SUPPORTED_BY and other != "floor":
                return "on", other
            if rel is Relation.INSIDE:
                return "in", other
        return None


def make_house(furniture: Iterable[Furniture], items: Iterable[tuple[str, str]] | Iterable[Item],
               robots: Iterable[RobotSpec]) -> House:
    """A house from furniture, items (``(name, furniture)`` pairs placed in slots, or Items) and robots."""
    fmap = {f.name: f for f in furniture}
    placed: dict[str, Item] = {}
    counts: dict[str, int] = {}
    for entry in items:
        if isinstance(entry, Item):
            item = replace(entry)  # the house owns its items: tasks can be replayed
        else:
            name, where = entry
            if where not in fmap:
                raise RobotError(f"item {name} is on unknown furniture {where!r}")
            k = counts.get(where, 0)
            counts[where] = k + 1
            item = Item(name, where, fmap[where].slot(k, 0.08))
        if item.name in placed:
            raise RobotError(f"duplicate item {item.name}")
        placed[item.name] = item
    return House(fmap, placed, {r.name: r for r in robots})
