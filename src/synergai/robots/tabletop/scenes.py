"""MultiTalk's tabletop scenes and tasks, each with a checker that judges the simulator's final state.

The three tasks of the MultiTalk supplement ("Give me something to eat", "Interchange the locations of
two pairs of objects on the table", "Arrange the objects on the table such that they form a straight
line") on its scenes (YCB-like mustard bottles and soup cans at the paper's coordinates). ``answers``
are what the simulated person says when the planner asks (one answer per question, in order).
Success is never the model's claim: a checker compares the objects' start and end boxes.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from synergai.robots.errors import RobotError
from synergai.robots.tabletop.sim import ObjectSpec, ObjectState

States = Mapping[str, ObjectState]

_YELLOW, _RED = (230, 190, 30), (190, 30, 30)


def mustard_bottle(name: str, xy: tuple[float, float]) -> ObjectSpec:
    """A YCB-sized mustard bottle (5.8 x 9.5 x 19 cm box)."""
    return ObjectSpec(name, "mustard bottle", xy, "box", (0.058, 0.095, 0.19), _YELLOW, mass=0.4)


def soup_can(name: str, xy: tuple[float, float]) -> ObjectSpec:
    """A YCB-sized soup can (6.6 cm diameter, 10 cm high cylinder)."""
    return ObjectSpec(name, "soup can", xy, "cylinder", (0.066, 0.066, 0.10), _RED, mass=0.35)


#: Scenes by name: the first MultiTalk example's two objects, the two pairs of the others, and a few
#: pybullet_data models.
SCENES: Mapping[str, tuple[ObjectSpec, ...]] = MappingProxyType({
    "snack": (mustard_bottle("mustard bottle", (0.32, -0.33)), soup_can("soup can", (0.3, 0.4))),
    "pairs": (
        mustard_bottle("mustard bottle 1", (0.32, -0.33)),
        mustard_bottle("mustard bottle 2", (0.35, 0.35)),
        soup_can("soup can 1", (0.38, -0.51)),
        soup_can("soup can 2", (0.4, 0.51)),
    ),
    "toys": (  # pybullet_data models; the mug is wider than the open gripper
        ObjectSpec("mug", "mug", (0.3, 0.2), "urdf", urdf="objects/mug.urdf", color=(235, 235, 235)),
        ObjectSpec("cube", "cube", (0.35, -0.2), "urdf", urdf="cube_small.urdf", color=(40, 90, 200)),
        soup_can("soup can", (0.3, -0.45)),
    ),
})


@dataclass(frozen=True)
class CheckResult:
    """A checker's verdict and why."""

    success: bool
    reason: str


Checker = Callable[[States, States], CheckResult]


@dataclass(frozen=True)
class TabletopTask:
    """A task: its words, its scene, the person's answers and its success checker."""

    key: str
    text: str
    scene: str
    answers: tuple[str, ...]
    check: Checker
    preference: str = ""  # the person's whole intent: answers any question beyond ``answers``

    @property
    def objects(self) -> tuple[ObjectSpec, ...]:
        return SCENES[self.scene]


def _all_upright(final: States) -> CheckResult | None:
    fallen = [n for n, s in final.items() if not s.upright or s.center[2] < 0]
    return CheckResult(False, f"not standing on the table: {', '.join(fallen)}") if fallen else None


def delivered(name: str, target: tuple[float, float], tol: float = 0.06) -> Checker:
    """``name`` ends within ``tol`` (m, in the table plane) of ``target``."""

    def check(initial: States, final: States) -> CheckResult:
        bad = _all_upright(final)
        if bad:
            return bad
        d = math.dist(final[name].center[:2], target)
        ok = d <= tol
        text = f"{name} is {d:.2f} m from the hand-over point {target}"
        return CheckResult(ok, text + ("" if ok else " (too far)"))

    return check


def swapped(pairs: tuple[tuple[str, str], ...], tol: float = 0.05) -> Checker:
    """Each pair ends in each other's start places (within ``tol`` m)."""

    def check(initial: States, final: States) -> CheckResult:
        bad = _all_upright(final)
        if bad:
            return bad
        wrong = []
        for a, b in pairs:
            for x, y in ((a, b), (b, a)):
                d = math.dist(final[x].center[:2], initial[y].center[:2])
                if d > tol:
                    wrong.append(f"{x} is {d:.2f} m from where {y} was")
        return CheckResult(not wrong, "; ".join(wrong) or "both pairs swapped")

    return check


def in_line(axis: str = "x", tol: float = 0.03, min_gap: float = 0.07) -> Checker:
    """All objects on one line parallel to ``axis`` (the other coordinate within ±``tol`` of its mean),
    at least ``min_gap`` m apart."""
    other = {"x": 1, "y": 0}[axis]

    def check(initial: States, final: States) -> CheckResult:
        bad = _all_upright(final)
        if bad:
            return bad
        values = [s.center[other] for s in final.values()]
        mean = sum(values) / len(values)
        spread = max(abs(v - mean) for v in values)
        if spread > tol:
            return CheckResult(False, f"not in a line along {axis}: off the line by up to {spread:.2f} m")
        for (n1, s1), (n2, s2) in itertools.combinations(final.items(), 2):
            if math.dist(s1.center[:2], s2.center[:2]) < min_gap:
                return CheckResult(False, f"{n1} and {n2} are closer than {min_gap} m")
        return CheckResult(True, f"in a line along {axis} (within {spread:.2f} m)")

    return check


#: The MultiTalk supplement's three tasks.
SEED_TASKS: Mapping[str, TabletopTask] = MappingProxyType({
    t.key: t
    for t in (
        TabletopTask("eat", "Give me something to eat", "snack",
                     ("The soup can.", "Put it at (0.4, 0.45, 0.04), where I can pick it up."),
                     delivered("soup can", (0.4, 0.45)),
                     "I want the soup can, put at (0.4, 0.45, 0.04) where I can pick it up."),
        TabletopTask("interchange", "Interchange the locations of two pairs of objects on the table", "pairs",
                     ("The mustard bottles with each other and the soup cans with each other.",),
                     swapped((("mustard bottle 1", "mustard bottle 2"), ("soup can 1", "soup can 2"))),
                     "Swap mustard bottle 1 with mustard bottle 2 and soup can 1 with soup can 2; "
                     "use any free spot on the table for the temporary move."),
        TabletopTask("line", "Arrange the objects on the table such that they form a straight line", "pairs",
                     ("Along the x-axis.", "Any order works."), in_line("x"),
                     "Put the four objects in one line along the x-axis (same y for all), about 0.1 m apart, "
                     "in any order."),
    )
})


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def find_task(text: str) -> TabletopTask | None:
    """The seed task named by key or by its exact words (case and punctuation ignored), else None."""
    t = _norm(text)
    for task in SEED_TASKS.values():
        if t in (task.key, _norm(task.text)):
            return task
    return None


def scene_objects(scene: str) -> tuple[ObjectSpec, ...]:
    """A scene's objects by name; RobotError lists the known scenes."""
    try:
        return SCENES[scene]
    except KeyError:
        raise RobotError(f"unknown tabletop scene {scene!r}; scenes: {', '.join(SCENES)}") from None
