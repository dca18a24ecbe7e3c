"""Frames, quaternions (x, y, z, w order, scalar last) and viewpoints."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

UP = np.array([0.0, 0.0, 1.0])
#: SQA3D stores the agent's orientation as a quaternion that turns this body axis into its facing.
SQA3D_FACING = (-1.0, 0.0, 0.0)


def vec3(values: Iterable[Any]) -> tuple[float, float, float]:
    """The three values of a 3-vector (numbers, numpy scalars, an array) as a tuple of floats."""
    x, y, z = values
    return float(x), float(y), float(z)


def quat_to_matrix(q: tuple[float, float, float, float] | np.ndarray) -> np.ndarray:
    """3x3 rotation matrix of a unit quaternion given as (x, y, z, w)."""
    x, y, z, w = (float(v) for v in q)
    n = x * x + y * y + z * z + w * w
    if n < 1e-12:
        raise ValueError("zero quaternion")
    s = 2.0 / n
    return np.array(
        [
            [1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
            [s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w)],
            [s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y)],
        ]
    )


@dataclass(frozen=True)
class Viewpoint:
    """A person or agent at ``position`` looking along ``forward`` (projected on the floor plane).

    Allocentric relations (left, right, in front of, behind, clock directions) are computed in
    this frame: x = right, y = forward, z = up.
    """

    position: tuple[float, float, float]
    forward: tuple[float, float, float]

    def __post_init__(self) -> None:
        numbers = np.asarray([*self.position, *self.forward], dtype=float)
        if numbers.shape != (6,) or not np.all(np.isfinite(numbers)):
            raise ValueError("viewpoint position and facing direction must be 3 finite numbers each")
        f = np.asarray(self.forward, dtype=float)
        f = np.array([f[0], f[1], 0.0])
        if np.linalg.norm(f) < 1e-9:
            raise ValueError("viewpoint facing direction must not be vertical or zero")

    @classmethod
    def parse(cls, text: str) -> Viewpoint:
        """Parse ``"x,y,z,fx,fy,fz"``."""
        try:
            v = [float(t) for t in text.split(",")]
        except ValueError as exc:
            raise ValueError(f"viewpoint must be 6 numbers x,y,z,fx,fy,fz, got {text!r}") from exc
        if len(v) != 6:
            raise ValueError(f"viewpoint must be 6 numbers x,y,z,fx,fy,fz, got {len(v)}")
        return cls((v[0], v[1], v[2]), (v[3], v[4], v[5]))

    @classmethod
    def from_pose(
        cls, position: tuple[float, float, float], quat_xyzw: tuple[float, float, float, float],
        facing_local: tuple[float, float, float] = (1.0, 0.0, 0.0),
    ) -> Viewpoint:
        """Viewpoint of a body at ``position`` rotated by ``quat_xyzw``, facing ``R(q) @ facing_local``."""
        f = quat_to_matrix(quat_xyzw) @ np.asarray(facing_local, dtype=float)
        return cls(vec3(position), vec3(f))

    def axes(self) -> tuple[np.ndarray, np.ndarray]:
        """Unit (right, forward) vectors in the floor plane."""
        f = np.array([self.forward[0], self.forward[1], 0.0])
        f /= np.linalg.norm(f)
        right = np.cross(f, UP)
        return right, f

    def to_local(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) to viewer coordinates (right, forward, up)."""
        p = np.asarray(points, dtype=float).reshape(-1, 3) - np.asarray(self.position, dtype=float)
        right, fwd = self.axes()
        return np.stack([p @ right, p @ fwd, p[:, 2]], axis=1)
