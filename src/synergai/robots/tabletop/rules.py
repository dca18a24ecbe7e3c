"""The Analyzer's rule checks: run a plan symbolically over the perceived scene graph.

These are the MultiTalk Analyzer's restrictions that need no judgement: a grasp must hit an object
of the environment (and only one), one object in the gripper at a time, grasp before move, nothing
after ``home()``, no object set down where another one stands, no move that leaves an object where
it is, no grasp of an object with another one on top of it (:func:`without_idle_moves` drops such a
grasp-and-move pair before the check). Objects are tracked as the plan moves them, so
"grasp the second bottle where the first one was just put" is caught. A move whose z reaches the top of
the object under it stacks on that object (allowed). Every finding names the fix: the nearest object for a
grasp that hits nothing, the nearest free place for a move onto an occupied, out-of-bounds or (given the
arm's ``reachable`` test) unreachable place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from synergai.robots.tabletop.objects import STACK_MARGIN, TableBounds
from synergai.robots.tabletop.perception import movable_objects
from synergai.robots.tabletop.plan import ArmStep
from synergai.scene.model import SceneGraph

GRASP_TOLERANCE = 0.03  # metres around an object's footprint that still count as grasping it
_UNKNOWN = "\0unknown"  # held after a grasp that matched no single object
Reachable = Callable[[float, float], bool]


@dataclass(frozen=True)
class Violation:
    """One fault of one step (1-based), and who found it (``rules`` or ``llm``)."""

    step: int
    problem: str
    source: str = "rules"
    idle: bool = False  # a move that leaves the object where it is

    def line(self) -> str:
        return f"{self.step}: {self.problem}"


def check_plan(steps: Sequence[ArmStep], graph: SceneGraph, tolerance: float = GRASP_TOLERANCE,
               bounds: TableBounds | None = None, reachable: Reachable | None = None) -> list[Violation]:
    """Every rule violation of ``steps`` against the objects of ``graph`` (empty: no rule broken). Every
    instruction of this mode rearranges the table, so a plan without a move is a violation too.

    A move onto an occupied, out-of-bounds or unreachable place names the nearest free place inside
    ``bounds`` (MultiTalk's workspace) that ``reachable`` accepts.
    """
    check = _PlanCheck(graph, tolerance, bounds or TableBounds(), reachable)
    for i, step in enumerate(steps, start=1):
        check.step(i, step)
    if steps and not any(step.action == "move" for step in steps):
        check.out.append(Violation(1, "the plan moves no object, but the instruction asks for a change on "
                                      "the table: give the grasp and move steps it needs"))
    return check.out


class _PlanCheck:
    """The objects as a plan moves them, step by step, and the violations found so far."""

    def __init__(self, graph: SceneGraph, tolerance: float, bounds: TableBounds,
                 reachable: Reachable | None) -> None:
        objects = movable_objects(graph)
        self.tolerance, self.bounds, self.reachable = tolerance, bounds, reachable
        self.where = {o.id: (o.center[0], o.center[1]) for o in objects}
        self.half = {o.id: (o.size[0] / 2, o.size[1] / 2) for o in objects}
        self.height = {o.id: o.size[2] for o in objects}
        self.base = {o.id: o.center[2] - o.size[2] / 2 for o in objects}  # bottom above the table
        self.under: dict[str, str] = {}  # stacked object -> the object it rests on
        self.holding: str | None = None
        self.homed = False
        self.out: list[Violation] = []

    def step(self, i: int, step: ArmStep) -> None:
        """Check step ``i`` and follow what it does."""
        if self.homed:
            self.out.append(Violation(i, "no action can follow home()"))
        elif step.action == "home":
            if self.holding:
                self.out.append(Violation(i, f"home() while still holding {_name(self.holding)}; "
                                             "move it to a place first"))
            self.homed = True
        elif step.action == "grasp":
            self.grasp(i, step.xy)
        elif self.holding is None:
            self.out.append(Violation(i, "no object is grasped: an object must be grasped before it is "
                                         "moved"))
        elif self.holding == _UNKNOWN:  # already reported at its grasp
            self.holding = None
        else:
            self.move(i, step, self.holding)

    def grasp(self, i: int, xy: tuple[float, float]) -> None:
        """A grasp at ``xy``: it must hit one object, with nothing on top, while the gripper is empty."""
        if self.holding:
            self.out.append(Violation(i, f"already holding {_name(self.holding)}: "
                                         "only one object can be grasped at a time"))
            return
        x, y = xy
        where, half, tol = self.where, self.half, self.tolerance
        hits = [n for n, (cx, cy) in where.items()
                if abs(x - cx) <= half[n][0] + tol and abs(y - cy) <= half[n][1] + tol]
        tops = [n for n in hits if self.under.get(n) in hits]
        if len(hits) == 2 and len(tops) == 1:  # a stack: the gripper takes the top object
            hits = tops
        if not hits:
            near = min(where, key=lambda n: (where[n][0] - x) ** 2 + (where[n][1] - y) ** 2, default=None)
            hint = ""
            if near is not None:
                hint = f"; the nearest object is {near} at ({where[near][0]:.2f}, {where[near][1]:.2f})"
            self.out.append(Violation(i, f"({x:g}, {y:g}) does not belong to any object in the environment"
                                         + hint))
        elif len(hits) > 1:
            self.out.append(Violation(i, f"({x:g}, {y:g}) is where {' and '.join(hits)} "
                                         "would both be at this point"))
        elif any(self.under.get(t) == hits[0] for t in where):
            top = next(t for t in where if self.under.get(t) == hits[0])
            self.out.append(Violation(i, f"{top} stands on {hits[0]}: move {top} first"))
        self.holding = hits[0] if len(hits) == 1 else _UNKNOWN

    def move(self, i: int, step: ArmStep, holding: str) -> None:
        """A move of the held object to the step's place: inside the bounds, free (or a stack), reachable."""
        x, y = step.xy
        where, half = self.where, self.half
        here = where[holding]
        if abs(x - here[0]) < 0.01 and abs(y - here[1]) < 0.01:
            self.out.append(Violation(i, f"this move leaves {holding} where it already is", idle=True))
        blocked = [n for n, c in where.items()
                   if n != holding and overlaps((x, y), half[holding], c, half[n], clearance=0.0)]
        support = _stack_target(step, blocked, where, half, self.height, self.base)
        problem = ""
        if not self.bounds.contains(x, y):
            problem = f"({x:g}, {y:g}) is out of bounds ({self.bounds.describe()})"
        elif blocked and support is None:
            problem = f"({x:g}, {y:g}) is occupied by {blocked[0]} at this point of the plan"
        elif self.reachable is not None and not self.reachable(x, y):
            problem = f"the arm cannot reach ({x:g}, {y:g})"
        if problem:
            spot = free_spot((x, y), holding, where, half, self.bounds, reachable=self.reachable)
            hint = f"; ({spot[0]:g}, {spot[1]:g}) is free" if spot else ""
            hint += " and reachable" if spot and self.reachable is not None else ""
            self.out.append(Violation(i, problem + hint))
        self.under.pop(holding, None)
        if support is not None:
            self.under[holding] = support
            self.base[holding] = self.base[support] + self.height[support]
        else:
            self.base[holding] = 0.0
        where[holding] = (x, y)
        self.holding = None


def without_idle_moves(steps: Sequence[ArmStep], graph: SceneGraph) -> tuple[list[ArmStep], int]:
    """``steps`` without the grasp-and-move pairs whose move leaves the object where it already is (they
    change nothing, so dropping them has one meaning), and how many pairs were dropped."""
    kept, dropped = list(steps), 0
    while True:
        idle = [v.step for v in check_plan(kept, graph) if v.idle]
        if not idle or idle[0] < 2 or kept[idle[0] - 2].action != "grasp":
            return kept, dropped
        del kept[idle[0] - 2:idle[0]]
        dropped += 1


def _stack_target(step: ArmStep, blocked: list[str], where: dict[str, tuple[float, float]],
                  half: dict[str, tuple[float, float]], height: dict[str, float],
                  base: dict[str, float]) -> str | None:
    """The object a move stacks onto: the only object under the target, whose footprint holds the target's
    centre, and whose top the move's z reaches (a move without z never stacks)."""
    if len(step.xyz) < 3 or len(blocked) != 1:
        return None
    below = blocked[0]
    x, y, z = step.xyz
    inside = abs(x - where[below][0]) <= half[below][0] and abs(y - where[below][1]) <= half[below][1]
    return below if inside and z >= base[below] + height[below] + STACK_MARGIN else None


def overlaps(a: tuple[float, float], ha: tuple[float, float], b: tuple[float, float],
             hb: tuple[float, float], clearance: float = 0.03) -> bool:
    """Whether footprints centred at ``a`` and ``b`` (half sizes ``ha``, ``hb``) come closer than
    ``clearance``."""
    return abs(a[0] - b[0]) < ha[0] + hb[0] + clearance and abs(a[1] - b[1]) < ha[1] + hb[1] + clearance


def free_spot(target: tuple[float, float], holding: str, where: Mapping[str, tuple[float, float]],
              half: Mapping[str, tuple[float, float]], bounds: TableBounds,
              step: float = 0.05, clearance: float = 0.03,
              reachable: Reachable | None = None,
              keep_clear: Sequence[tuple[tuple[float, float], tuple[float, float]]] = ()
              ) -> tuple[float, float] | None:
    """The point nearest ``target`` (the target itself, or a grid point ``step`` apart) where ``holding``
    fits inside ``bounds`` without touching another object or a place in ``keep_clear`` ((centre, half
    size) pairs another object is about to take), and that ``reachable`` accepts; None when there is
    none. ``clearance`` is kept from objects; the workspace's edge is no obstacle: the footprint only has
    to stay inside it."""
    hx, hy = half[holding]
    xs = np.arange(bounds.x[0] + hx + clearance, bounds.x[1] - hx + 1e-9, step)
    ys = np.arange(bounds.y[0] + hy + clearance, bounds.y[1] - hy + 1e-9, step)
    if not len(xs) or not len(ys):
        return None
    grid = np.stack(np.meshgrid(np.round(xs, 3), np.round(ys, 3)), axis=-1).reshape(-1, 2)
    tx, ty = round(float(target[0]), 3), round(float(target[1]), 3)
    if bounds.x[0] + hx <= tx <= bounds.x[1] - hx and bounds.y[0] + hy <= ty <= bounds.y[1] - hy:
        grid = np.vstack([[tx, ty], grid])
    free = np.ones(len(grid), dtype=bool)
    taken = [(c, half[name]) for name, c in where.items() if name != holding]
    for (cx, cy), (ox, oy) in (*taken, *keep_clear):
        free &= ~((np.abs(grid[:, 0] - cx) < ox + hx + clearance)
                  & (np.abs(grid[:, 1] - cy) < oy + hy + clearance))
    if not free.any():
        return None
    options = grid[free]
    for k in np.argsort(np.linalg.norm(options - np.asarray(target), axis=1), kind="stable")[:60]:
        x, y = float(options[k][0]), float(options[k][1])
        if reachable is None or reachable(x, y):
            return x, y
    return None


def _name(held: str) -> str:
    return "an object" if held == _UNKNOWN else held
