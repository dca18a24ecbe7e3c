"""The robot layer's error: bad robot-mode input (a malformed plan, an unknown skill, a bad world spec)."""

from __future__ import annotations


class RobotError(ValueError):
    """Bad input to a robot mode (one-line message naming the problem)."""
