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

from synergai.robots.arm_plan import ArmStep
from synergai.robots.perception import movable_objects
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


def check_plan(steps: Sequence[ArmStep], graph: SceneGraph,
               tolerance: float = GRASP_TOLERANCE) -> list[Violation]:
    """Every rule violation of ``steps`` against the objects of ``graph`` (empty: no rule broken)."""
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
            out.append(Violation(i, f"({x:g}, {y:g}) is occupied by {blocked[0]} at this point of the plan"))
        where[holding] = (x, y)
        holding = None
    return out


def _name(held: str) -> str:
    return "an object" if held == _UNKNOWN else held
