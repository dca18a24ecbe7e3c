"""How robots say what they are doing while they work: the stage under way (a terminal's spinner shows
it) and one line per finished round or action (the CLI prints them on stderr). The robot loops only call
these two methods; what is shown, and where, is the face's choice."""

from __future__ import annotations

from typing import Protocol


class Talk(Protocol):
    """Hears the robots at work."""

    def stage(self, text: str) -> None:
        """What is under way now, e.g. "round 2: Alice is thinking" (shown until the next stage)."""

    def line(self, text: str) -> None:
        """One finished round or action, e.g. "round 2, Alice: pick(bowl) ok: ..."."""


class Silent:
    """A :class:`Talk` that says nothing (the default)."""

    def stage(self, text: str) -> None:
        """Nothing."""

    def line(self, text: str) -> None:
        """Nothing."""
