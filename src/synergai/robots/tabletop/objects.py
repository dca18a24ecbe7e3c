"""What lies on the tabletop, without the physics: the workspace bounds, an object to place (primitive or
pybullet_data URDF) and an object's observed state. Importing this module does not load pybullet."""

from __future__ import annotations

import math
from dataclasses import dataclass

from synergai.robots.errors import RobotError

SHAPES = ("box", "cylinder", "sphere", "urdf")
STACK_MARGIN = 0.005  # a move stacks on an object when its z is at least this far above that object's top
GRIPPER_OPENING = 0.08  # the Panda's fingers open this wide (metres)


def fits_gripper(size: tuple[float, ...], opening: float = GRIPPER_OPENING) -> bool:
    """Whether a box of ``size`` is narrow enough to grip (to the millimetre: an 8 cm cup fits 8 cm)."""
    return round(min(size[:2]), 3) <= opening


@dataclass(frozen=True)
class TableBounds:
    """The workspace on the table (MultiTalk: -0.15 < x < 0.45, -0.62 < y < 0.62)."""

    x: tuple[float, float] = (-0.15, 0.45)
    y: tuple[float, float] = (-0.62, 0.62)

    def contains(self, x: float, y: float) -> bool:
        return self.x[0] < x < self.x[1] and self.y[0] < y < self.y[1]

    def describe(self) -> str:
        return f"{self.x[0]:g} < x < {self.x[1]:g}, {self.y[0]:g} < y < {self.y[1]:g}, z > 0"


@dataclass(frozen=True)
class ObjectSpec:
    """One object to place on the table: a primitive (size = length, width, height; a cylinder's or
    sphere's diameter is the length) or a pybullet_data URDF (``urdf`` path, size from its box)."""

    name: str
    category: str
    position: tuple[float, float]
    shape: str = "box"
    size: tuple[float, float, float] = (0.05, 0.05, 0.05)
    color: tuple[int, int, int] = (200, 200, 200)
    urdf: str | None = None
    mass: float = 0.3

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise RobotError("object name must not be empty")
        if self.shape not in SHAPES:
            raise RobotError(f"object {self.name}: unknown shape {self.shape!r}; legal: {', '.join(SHAPES)}")
        if self.shape == "urdf" and not self.urdf:
            raise RobotError(f"object {self.name}: shape 'urdf' needs a urdf path")
        if len(self.size) != 3 or not all(math.isfinite(v) and v > 0 for v in self.size):
            raise RobotError(f"object {self.name}: size needs 3 positive numbers")
        if len(self.position) != 2 or not all(math.isfinite(v) for v in self.position):
            raise RobotError(f"object {self.name}: position needs 2 finite numbers")


@dataclass(frozen=True)
class ObjectState:
    """Where an object is: its box (centre, size), whether it stands upright, and its spec."""

    name: str
    category: str
    center: tuple[float, float, float]
    size: tuple[float, float, float]
    upright: bool
    color: tuple[int, int, int]
