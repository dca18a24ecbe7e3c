"""The chat turn under way in one browser tab: its current stage, its elapsed time, its cancel request.

The stages are the ones :class:`synergai.agent.progress.StagedModel` reports (the CLI spinner shows the
same); :attr:`TurnStatus.cancel` is the event that model checks, so Cancel stops the turn at its next
model call or before the actions of a reply that arrives after the click.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from synergai.gui.chat import escape


@dataclass
class TurnStatus:
    """What the status line under the chat shows while the agent works."""

    stage: str = ""
    started: float | None = None  # time.monotonic() at the start of the turn; None when idle
    cancel: threading.Event = field(default_factory=threading.Event)

    @property
    def running(self) -> bool:
        """Whether a turn is under way."""
        return self.started is not None

    def start(self, now: float | None = None) -> None:
        """A new turn begins (any earlier cancel request is forgotten)."""
        self.cancel.clear()
        self.stage = "starting"
        self.started = time.monotonic() if now is None else now

    def report(self, stage: str) -> None:
        """The stage now under way (called on the turn's worker thread)."""
        self.stage = stage

    def request_cancel(self) -> bool:
        """Ask the turn to stop; False when no turn is under way."""
        if not self.running:
            return False
        self.cancel.set()
        return True

    def finish(self) -> None:
        """The turn is over (answered, failed or cancelled)."""
        self.started = None
        self.stage = ""

    def elapsed(self, now: float | None = None) -> float:
        """Seconds since the turn started (0 when idle)."""
        if self.started is None:
            return 0.0
        return max((time.monotonic() if now is None else now) - self.started, 0.0)

    def markdown(self, now: float | None = None) -> str:
        """``*step 2: running query_for_objects* · 4 s`` (escaped: the stage may name a model's words)."""
        if not self.running:
            return ""
        cancelling = self.cancel.is_set()
        text = "cancelling: the model finishes its current step first" if cancelling else self.stage
        return f"*{escape(text)}* · {self.elapsed(now):.0f} s"
