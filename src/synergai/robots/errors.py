"""The robot layer's errors: bad robot-mode input (a malformed plan, an unknown skill, a bad world spec),
and an episode stopped because the stored scene changed under the robots."""

from __future__ import annotations


class RobotError(ValueError):
    """Bad input to a robot mode (one-line message naming the problem)."""


class EpisodeStopped(RobotError):
    """The stored scene the robots act on changed so that their next action cannot be written (the scene
    was dropped or registered again, or a person removed the object): the episode stops there, and what
    was written before stays (one-line message naming the action and why)."""
