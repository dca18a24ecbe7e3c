"""The tabletop arm's plan language: ``grasp((x, y, z))``, ``move((x, y, z))``, ``home()`` steps.

Plans come from the model either as JSON step objects ``{"action", "xyz"}`` (a grasp may name its
``"object"`` instead; an optional ``"why"`` is kept as the step's reason) or as MultiTalk's text form
(``1: grasp((0.3, 0.4, 0.04)) # reason``); both parse to :class:`ArmStep` and render back to the text
form, which is what logs and prompts show. A step without a reason is commented with the object it
grasps or moves, when known.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from synergai.robots.errors import RobotError

ARM_ACTIONS = ("grasp", "move", "home")
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)"
_STEP = re.compile(
    rf"^\s*(?:\d+\s*[:.)]\s*)?(grasp|move|home)\s*\(\s*\(?\s*((?:{_NUMBER}\s*,?\s*)*)\)?\s*\)\s*(?:#\s*(.*))?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ArmStep:
    """One arm action; ``xyz`` holds 2 or 3 numbers for grasp / move (z may be omitted) and none for home.
    ``why`` is the model's reason (optional); ``object_name`` the object a grasp named (resolved grasps)."""

    action: str
    xyz: tuple[float, ...] = ()
    why: str = ""
    object_name: str = ""

    def __post_init__(self) -> None:
        if self.action not in ARM_ACTIONS:
            raise RobotError(f"unknown arm action {self.action!r}; legal actions: {', '.join(ARM_ACTIONS)}")
        if self.action == "home":
            if self.xyz:
                raise RobotError("home() takes no coordinates")
        elif len(self.xyz) not in (2, 3):
            raise RobotError(f"{self.action} needs (x, y) or (x, y, z), got {len(self.xyz)} numbers")
        if not all(isinstance(v, float) and math.isfinite(v) for v in self.xyz):
            raise RobotError(f"{self.action} coordinates must be finite numbers, got {self.xyz!r}")

    @property
    def xy(self) -> tuple[float, float]:
        """The table-plane target (the simulator uses the table height for z, as MultiTalk does)."""
        if self.action == "home":
            raise RobotError("home() has no target")
        return self.xyz[0], self.xyz[1]

    def render(self) -> str:
        """``grasp((0.3, 0.4, 0.04))`` / ``home()``."""
        if self.action == "home":
            return "home()"
        return f"{self.action}(({', '.join(_fmt(v) for v in self.xyz)}))"


def _fmt(v: float) -> str:
    text = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0.0" if text in ("-0", "0") else text


def parse_step(text: str) -> ArmStep:
    """Parse one text step (``2: move((0.4, 0.45, 0.04)) # reason``); raises RobotError."""
    m = _STEP.match(text)
    if not m:
        raise RobotError(f"not an arm step: {text.strip()[:80]!r} "
                         "(use grasp((x, y, z)), move((x, y, z)), home())")
    numbers = tuple(float(v) for v in re.findall(_NUMBER, m.group(2)))
    return ArmStep(m.group(1).lower(), numbers, (m.group(3) or "").strip())


def parse_plan_text(text: str) -> list[ArmStep]:
    """Every numbered step line of a MultiTalk text plan (headers and blank lines are skipped)."""
    steps = [parse_step(line) for line in text.splitlines() if re.search(r"\b(grasp|move|home)\s*\(", line)]
    if not steps:
        raise RobotError("the plan has no grasp / move / home step")
    return steps


def step_from_json(item: Mapping[str, Any], index: int) -> ArmStep:
    """One ``{"action", "xyz"}`` object (optional ``"why"``; ``"object"`` kept as the grasped object's
    name); ``home`` ignores any coordinates it was given."""
    if not isinstance(item, Mapping):
        raise RobotError(f"step {index} is a {type(item).__name__}, not an object")
    action = str(item.get("action", "")).strip().lower()
    raw = item.get("xyz", [])
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        raise RobotError(f"step {index}: xyz must be a list of numbers")
    try:
        xyz = tuple(float(v) for v in raw)
    except (TypeError, ValueError):
        raise RobotError(f"step {index}: xyz must be a list of numbers, got {raw!r}") from None
    if action == "home":
        xyz = ()
    try:
        name = str(item.get("object", "")).strip() if action == "grasp" else ""
        return ArmStep(action, xyz, str(item.get("why", "")).strip(), name)
    except RobotError as exc:
        raise RobotError(f"step {index}: {exc}") from None


def steps_from_json(items: Iterable[Mapping[str, Any]]) -> list[ArmStep]:
    """A list of JSON step objects; raises RobotError naming the first bad step."""
    steps = [step_from_json(item, i) for i, item in enumerate(items, start=1)]
    if not steps:
        raise RobotError("the plan has no steps")
    return steps


def format_plan(steps: Sequence[ArmStep], *, reasons: bool = True) -> str:
    """MultiTalk's numbered text form, one step per line. With ``reasons``, a step's comment is its
    ``why`` or else the object it grasps or moves (``1: grasp((0.3, 0.4, 0.05)) # soup can``)."""
    lines = []
    held = ""
    for i, s in enumerate(steps, start=1):
        comment = s.why or (s.object_name if s.action == "grasp" else held if s.action == "move" else "")
        if s.action == "grasp":
            held = s.object_name
        elif s.action == "move":
            held = ""
        lines.append(f"{i}: {s.render()}" + (f" # {comment}" if reasons and comment else ""))
    return "\n".join(lines)
