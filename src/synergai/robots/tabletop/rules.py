"""The Analyzer's rule checks: run a plan symbolically over the perceived scene graph.

These are the MultiTalk Analyzer's restrictions that need no judgement: a grasp must hit an object
of the environment (and only one), one object in the gripper at a time, grasp before move, nothing
after ``home()``, no object set down where another one stands, no move that leaves an object where
it is. Objects are tracked as the plan moves them, so "grasp the second bottle where the first one was
just put" is caught. Out-of-bounds and reachability are the simulator's business, not the Analyzer's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from synergai.robots.tabletop.objects import TableBounds
from synergai.robots.tabletop.perception import movable_objects
from synergai.robots.tabletop.plan import ArmStep
from synergai.scene.model import SceneGraph

GRASP_TOLERANCE = 0.03  # metres around an object's footprint that still count as grasping it
_UNKNOWN = "\0unknown"  # held after a grasp that matched no single object


@dataclass(frozen=True)
class Violation:
    """One fault of one step (1-based), and who found it (``rules`` or ``llm``)."""

    step: int
    problem: str
    source: str = "rules"

    def line(self) -> str:
        return f"{self.step}: {self.problem}"


def check_plan(steps: Sequence[ArmStep], graph: SceneGraph, tolerance: float = GRASP_TOLERANCE,
               bounds: TableBounds | None = None) -> list[Violation]:
    """Every rule violation of ``steps`` against the objects of ``graph`` (empty: no rule broken).

    A move onto an occupied place names the nearest free place inside ``bounds`` (MultiTalk's workspace).
    """
    bounds = bounds or TableBounds()
    objects = movable_objects(graph)
    where = {o.id: (o.center[0], o.center[1]) for o in objects}
    half = {o.id: (o.size[0] / 2, o.size[1] / 2) for o in objects}
    holding: str | None = None
    homed = False
    out: list[Violation] = []
    for i, step in enumerate(steps, start=1):
        if homed:
            out.append(Violation(i, "no action can follow home()"))
            continue
        if step.action == "home":
            if holding:
                out.append(Violation(i, f"home() while still holding {_name(holding)}; "
                                        "move it to a place first"))
            homed = True
            continue
        x, y = step.xy
        if step.action == "grasp":
            if holding:
                out.append(Violation(i, f"already holding {_name(holding)}: "
                                        "only one object can be grasped at a time"))
                continue
            hits = [n for n, (cx, cy) in where.items()
                    if abs(x - cx) <= half[n][0] + tolerance and abs(y - cy) <= half[n][1] + tolerance]
            if not hits:
                out.append(Violation(i, f"({x:g}, {y:g}) does not belong to any object in the environment"))
            elif len(hits) > 1:
                out.append(Violation(i, f"({x:g}, {y:g}) is where {' and '.join(hits)} "
                                        "would both be at this point"))
            holding = hits[0] if len(hits) == 1 else _UNKNOWN
            continue
        if holding is None:
            out.append(Violation(i, "no object is grasped: an object must be grasped before it is moved"))
            continue
        if holding == _UNKNOWN:  # already reported at its grasp
            holding = None
            continue
        here = where[holding]
        if abs(x - here[0]) < 0.01 and abs(y - here[1]) < 0.01:
            out.append(Violation(i, f"this move leaves {holding} where it already is"))
        blocked = [n for n, (cx, cy) in where.items()
                   if n != holding and abs(x - cx) < half[n][0] + half[holding][0]
                   and abs(y - cy) < half[n][1] + half[holding][1]]
        if blocked:
            spot = free_spot((x, y), holding, where, half, bounds)
            hint = f"; ({spot[0]:g}, {spot[1]:g}) is free" if spot else ""
            out.append(Violation(i, f"({x:g}, {y:g}) is occupied by {blocked[0]} "
                                    f"at this point of the plan{hint}"))
        where[holding] = (x, y)
        holding = None
    return out


def free_spot(target: tuple[float, float], holding: str, where: dict[str, tuple[float, float]],
              half: dict[str, tuple[float, float]], bounds: TableBounds,
              step: float = 0.05, clearance: float = 0.03) -> tuple[float, float] | None:
    """The grid point (``step`` apart) nearest ``target`` where ``holding`` fits inside ``bounds`` without
    touching another object, or None when the table is full."""
    hx, hy = half[holding]
    xs = np.arange(bounds.x[0] + hx + clearance, bounds.x[1] - hx - clearance + 1e-9, step)
    ys = np.arange(bounds.y[0] + hy + clearance, bounds.y[1] - hy - clearance + 1e-9, step)
    if not len(xs) or not len(ys):
        return None
    grid = np.stack(np.meshgrid(np.round(xs, 3), np.round(ys, 3)), axis=-1).reshape(-1, 2)
    free = np.ones(len(grid), dtype=bool)
    for name, (cx, cy) in where.items():
        if name != holding:
            free &= ~((np.abs(grid[:, 0] - cx) < half[name][0] + hx + clearance)
                      & (np.abs(grid[:, 1] - cy) < half[name][1] + hy + clearance))
    if not free.any():
        return None
    options = grid[free]
    best = options[int(np.argmin(np.linalg.norm(options - np.asarray(target), axis=1)))]
    return float(best[0]), float(best[1])


def _name(held: str) -> str:
    return "an object" if held == _UNKNOWN else held
