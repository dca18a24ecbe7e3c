"""Goals as data: a task's ``goal`` is a list of predicates, each a JSON list ``[name, arg, ...]``, checked
by one generic checker on the simulator's final state (never on the model's claims).

Tabletop predicates (robot base frame: x forward, y to the arm's left, metres):

* ``["left_of", A, B]``, ``["right_of", A, B]``, ``["in_front_of", A, B]`` (nearer the arm),
  ``["behind", A, B]`` — judged by the scene graph's relation engine for a viewer at the arm's base
  looking along +x (:func:`synergai.scene.build.view_relation`);
* ``["near", A, B, metres]`` — centres at most ``metres`` apart in the table plane;
* ``["at", A, [x, y], tolerance]``; ``["at_start_of", A, B, tolerance]`` — A stands where B started;
* ``["on", A, B]`` — A rests on top of B; ``["in_line", [A, B, C, ...], tolerance]`` (optionally a
  fifth element ``"x"`` or ``"y"``: the line runs along that axis) — every centre within ``tolerance``
  of one straight line, no two closer than 5 cm; ``["unmoved", A]`` — within 2 cm of its start.

Every tabletop goal also needs every object standing upright on the table or on another object.

House predicates: ``["in", ITEM, FURNITURE]``, ``["on", ITEM, FURNITURE]``, ``["open", FURNITURE]``,
``["closed", FURNITURE]``, ``["held_by", ITEM, ROBOT]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from synergai.robots.errors import RobotError
from synergai.robots.tabletop.objects import ObjectState

if TYPE_CHECKING:
    from synergai.robots.team.house import House

States = Mapping[str, ObjectState]
UNMOVED_TOLERANCE = 0.02
MIN_LINE_GAP = 0.05
STACK_TOLERANCE = 0.02

# argument types: obj (an object / item), furn (furniture), robot, num (>= 0), xy ([x, y]),
# objs (a list of >= 2 objects), axis? (optional "x" / "y")
TABLETOP_SIGNATURES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "left_of": ("obj", "obj"), "right_of": ("obj", "obj"), "in_front_of": ("obj", "obj"),
    "behind": ("obj", "obj"), "near": ("obj", "obj", "num"), "at": ("obj", "xy", "num"),
    "at_start_of": ("obj", "obj", "num"), "on": ("obj", "obj"), "in_line": ("objs", "num", "axis?"),
    "unmoved": ("obj",),
})
HOUSE_SIGNATURES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "in": ("obj", "furn"), "on": ("obj", "furn"), "open": ("furn",), "closed": ("furn",),
    "held_by": ("obj", "robot"),
})


@dataclass(frozen=True)
class Predicate:
    """One goal predicate: its name and its (validated) arguments."""

    name: str
    args: tuple[Any, ...]

    def render(self) -> str:
        """The predicate as written in a task file, e.g. ``["near", "cube", "mug", 0.1]``."""
        import json

        return json.dumps([self.name, *self.args])

    def describe(self) -> str:
        """The predicate in words, revealing nothing about the world (e.g. ``ham in fridge``)."""
        words = {"held_by": "held by", "left_of": "left of", "right_of": "right of",
                 "in_front_of": "in front of", "at_start_of": "where this started:"}
        if self.name in ("open", "closed", "unmoved"):
            return f"{self.args[0]} {self.name}"
        if self.name == "in_line":
            return f"{', '.join(self.args[0])} in a line"
        if self.name == "at":
            return f"{self.args[0]} at ({self.args[1][0]:g}, {self.args[1][1]:g})"
        return f"{self.args[0]} {words.get(self.name, self.name)} {self.args[1]}"

    def objects(self) -> list[str]:
        """The object / item names the predicate is about (first argument, and lists)."""
        out: list[str] = []
        for a in self.args:
            if isinstance(a, str):
                out.append(a)
            elif isinstance(a, tuple) and all(isinstance(v, str) for v in a):
                out.extend(a)
        return out


@dataclass(frozen=True)
class GoalCheck:
    """The checker's verdict: success, and a sentence per predicate that failed (or why all hold)."""

    success: bool
    reason: str
    held: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Names:
    """What a goal may name: objects (tabletop objects or house items), furniture, robots."""

    objects: frozenset[str]
    furniture: frozenset[str] = frozenset()
    robots: frozenset[str] = frozenset()


def parse_goal(raw: object, mode: str, names: Names) -> tuple[Predicate, ...]:
    """Validate a goal list for ``mode`` (``tabletop`` / ``house``); RobotError names the first problem."""
    signatures = TABLETOP_SIGNATURES if mode == "tabletop" else HOUSE_SIGNATURES
    if not isinstance(raw, list) or not raw:
        raise RobotError("goal must be a non-empty list of predicates such as [\"on\", \"A\", \"B\"]")
    out = []
    for item in raw:
        if not isinstance(item, list) or not item or not isinstance(item[0], str):
            raise RobotError(f"goal predicate {item!r} must be a list starting with its name")
        name = item[0]
        if name not in signatures:
            raise RobotError(f"unknown {mode} predicate {name!r}; predicates: {', '.join(signatures)}")
        sig = signatures[name]
        required = [s for s in sig if not s.endswith("?")]
        args = item[1:]
        if not len(required) <= len(args) <= len(sig):
            raise RobotError(f"predicate {name} takes {len(required)} arguments ({', '.join(sig)}), "
                             f"got {len(args)} in {item!r}")
        out.append(Predicate(name, tuple(_argument(kind.rstrip("?"), a, name, names)
                                         for kind, a in zip(sig, args, strict=False))))
    return tuple(out)


def _argument(kind: str, value: object, predicate: str, names: Names) -> Any:
    def bad(what: str) -> RobotError:
        return RobotError(f"predicate {predicate}: {what}, got {value!r}")

    def known(v: object, pool: frozenset[str], what: str) -> str:
        if not isinstance(v, str) or v not in pool:
            raise RobotError(f"predicate {predicate} names unknown {what} {v!r}; known: "
                             f"{', '.join(sorted(pool)) or 'none'}")
        return v

    if kind == "obj":
        return known(value, names.objects, "object")
    if kind == "furn":
        return known(value, names.furniture, "furniture")
    if kind == "robot":
        return known(value, names.robots, "robot")
    if kind == "num":
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value < math.inf:
            raise bad("expected a number >= 0")
        return float(value)
    if kind == "xy":
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)):
            raise bad("expected a point [x, y]")
        return (float(value[0]), float(value[1]))
    if kind == "objs":
        if not isinstance(value, list) or len(value) < 2:
            raise bad("expected a list of at least two objects")
        return tuple(known(v, names.objects, "object") for v in value)
    if value not in ("x", "y"):
        raise bad("the axis must be \"x\" or \"y\"")
    return value


# ----- tabletop
def _xy(st: ObjectState) -> np.ndarray:
    return np.asarray(st.center[:2], dtype=float)


def _view(relation_name: str) -> Callable[[States, States, Predicate], tuple[bool, str]]:
    def check(initial: States, final: States, p: Predicate) -> tuple[bool, str]:
        from synergai.geometry.frames import Viewpoint
        from synergai.robots.tabletop.perception import tabletop_graph
        from synergai.scene.build import view_relation
        from synergai.scene.model import Relation

        a, b = p.args
        graph = tabletop_graph({a: final[a], b: final[b]})
        base = Viewpoint((0.0, 0.0, final[b].center[2]), (1.0, 0.0, 0.0))
        ok = bool(view_relation(graph, [a], b, Relation(relation_name), base))
        word = relation_name.replace("_", " ")
        return ok, f"{a} is {'' if ok else 'not '}{word} {b} (seen from the arm's base)"

    return check


def _near(initial: States, final: States, p: Predicate) -> tuple[bool, str]:
    a, b, limit = p.args
    d = float(np.linalg.norm(_xy(final[a]) - _xy(final[b])))
    return d <= limit, f"{a} is {d:.2f} m from {b} (near: at most {limit:g} m)"


def _at(initial: States, final: States, p: Predicate) -> tuple[bool, str]:
    a, point, tol = p.args
    d = float(np.linalg.norm(_xy(final[a]) - np.asarray(point)))
    return d <= tol, f"{a} is {d:.2f} m from ({point[0]:g}, {point[1]:g}) (tolerance {tol:g} m)"


def _at_start_of(initial: States, final: States, p: Predicate) -> tuple[bool, str]:
    a, b, tol = p.args
    d = float(np.linalg.norm(_xy(final[a]) - _xy(initial[b])))
    return d <= tol, f"{a} is {d:.2f} m from where {b} started (tolerance {tol:g} m)"


def resting_on(top: ObjectState, below: ObjectState, tol: float = STACK_TOLERANCE) -> bool:
    """Whether ``top``'s bottom touches ``below``'s top and its centre lies over ``below``'s footprint."""
    bottom = top.center[2] - top.size[2] / 2
    lid = below.center[2] + below.size[2] / 2
    over = all(abs(top.center[k] - below.center[k]) <= below.size[k] / 2 for k in (0, 1))
    return over and abs(bottom - lid) <= tol


def _on(initial: States, final: States, p: Predicate) -> tuple[bool, str]:
    a, b = p.args
    ok = resting_on(final[a], final[b])
    return ok, f"{a} is {'' if ok else 'not '}on {b}"


def _in_line(initial: States, final: States, p: Predicate) -> tuple[bool, str]:
    names, tol, *axis = p.args
    pts = np.array([_xy(final[n]) for n in names])
    if axis:
        k = 1 if axis[0] == "x" else 0  # along x: the y values agree
        off = float(np.max(np.abs(pts[:, k] - pts[:, k].mean())))
        where = f"along {axis[0]}"
    else:
        centred = pts - pts.mean(axis=0)
        direction = np.linalg.svd(centred, full_matrices=False)[2][0]
        off = float(np.max(np.abs(centred @ np.array([-direction[1], direction[0]]))))
        where = "on one line"
    if off > tol:
        return False, f"{', '.join(names)} are not {where}: up to {off:.2f} m off (tolerance {tol:g} m)"
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            if float(np.linalg.norm(pts[i] - pts[j])) < MIN_LINE_GAP:
                return False, f"{names[i]} and {names[j]} are closer than {MIN_LINE_GAP:g} m"
    return True, f"{', '.join(names)} are {where} (within {off:.2f} m)"


def _unmoved(initial: States, final: States, p: Predicate) -> tuple[bool, str]:
    (a,) = p.args
    d = math.dist(final[a].center, initial[a].center)
    return d <= UNMOVED_TOLERANCE, f"{a} moved {d:.2f} m" + (" (unmoved)" if d <= UNMOVED_TOLERANCE else "")


_TABLETOP: Mapping[str, Callable[[States, States, Predicate], tuple[bool, str]]] = MappingProxyType({
    "left_of": _view("left_of"), "right_of": _view("right_of"), "in_front_of": _view("in_front_of"),
    "behind": _view("behind"), "near": _near, "at": _at, "at_start_of": _at_start_of, "on": _on,
    "in_line": _in_line, "unmoved": _unmoved,
})


def check_tabletop(goal: Sequence[Predicate], initial: States, final: States) -> GoalCheck:
    """Judge a tabletop goal on the start and final object states."""
    fallen = [n for n, s in final.items() if not s.upright or s.center[2] - s.size[2] / 2 < -0.01]
    sentences = [_TABLETOP[p.name](initial, final, p) for p in goal]
    if fallen:
        sentences.append((False, f"not standing upright: {', '.join(fallen)}"))
    return _verdict(sentences)


# ----- house
def _house_predicate(house: House, p: Predicate) -> tuple[bool, str]:
    if p.name in ("open", "closed"):
        (f,) = p.args
        is_open = house.is_open(f)
        ok = is_open == (p.name == "open")
        return ok, f"the {f} is {'open' if is_open else 'closed'}"
    item, where = p.args
    loc = house.items[item].location
    ok = loc == where
    word = "held by" if p.name == "held_by" else p.name
    return ok, f"{item} is {word} {where}" if ok else f"{item} is not {word} {where} (it is at {loc})"


def check_house(goal: Sequence[Predicate], house: House) -> GoalCheck:
    """Judge a house goal on the house's current state."""
    return _verdict([_house_predicate(house, p) for p in goal])


def _verdict(sentences: Sequence[tuple[bool, str]]) -> GoalCheck:
    held = tuple(s for ok, s in sentences if ok)
    failed = tuple(s for ok, s in sentences if not ok)
    return GoalCheck(not failed, "; ".join(failed) if failed else "; ".join(held), held, failed)
