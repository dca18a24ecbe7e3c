"""The one sampling policy of the loops: greedy, except the call after the model repeated itself.

Greedy decoding given the same prompt writes the same reply again; after a repeated (or looping) reply
the next call is sampled at ``temperature`` (0.7 by default), and the one after it is greedy again.
Program mode and the tabletop planner both follow it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The temperature of a call after a repeated reply.
REPEAT_TEMPERATURE = 0.7


@dataclass
class Resampling:
    """Which temperature the next call takes (:meth:`next`), once told of a repeat (:meth:`repeated`)."""

    temperature: float = REPEAT_TEMPERATURE
    pending: bool = False

    def repeated(self) -> None:
        """The model repeated itself: the next call is sampled."""
        self.pending = True

    def next(self) -> float:
        """The next call's temperature (sampled once after a repeat, else 0)."""
        value, self.pending = (self.temperature if self.pending else 0.0), False
        return value
