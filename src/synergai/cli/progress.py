"""What a person waiting at a terminal sees: a spinner naming the agent's stage (as
:class:`synergai.agent.progress.StagedModel` reports it), and word of the slow first-time stages of the
embedded model (assembling the weights with a bar, loading, first prompt).

Three modes: ``live`` (a spinner, or the benchmarks' bar with an ETA, on a terminal's stderr),
``lines`` (one line per new stage, for the GUI commands whose terminal shows a log) and ``off``
(``--json``, ``-q``, or stderr is not a terminal).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from rich.status import Status

Mode = Literal["live", "lines", "off"]
BAR_WIDTH = 24


def progress_mode(args: Any, *, default: Mode = "live") -> Mode:
    """``off`` with --json or -q or when stderr is not a terminal, else ``default``."""
    if getattr(args, "json", False) or getattr(args, "quiet", 0) or not sys.stderr.isatty():
        return "off"
    return default


def shows_bar(args: Any) -> bool:
    """Whether a long run (``synergai eval ...``) shows its progress bar with the ETA: on a terminal's
    stderr, without --json or -q."""
    return progress_mode(args) == "live"


def bar(done: int, total: int) -> str:
    """``[#####.....]  45 % of 1.07 GB``."""
    share = min(max(done / total, 0.0), 1.0) if total > 0 else 0.0
    filled = round(share * BAR_WIDTH)
    return f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {100 * share:3.0f} % of {total / 1e9:.2f} GB"


class StageDisplay:
    """Shows the current stage in the chosen mode; every method is a no-op when the mode is ``off``."""

    def __init__(self, mode: Mode, console: Console | None = None) -> None:
        self.mode = mode
        self.console = console or Console(stderr=True, highlight=False)
        self._status: Status | None = None
        self._last_line = ""

    @contextmanager
    def running(self, text: str) -> Iterator[None]:
        """A spinner showing ``text`` (updated by :meth:`stage`) while the block runs."""
        if self.mode != "live":
            yield
            return
        with self.console.status(Text(text)) as status:
            self._status = status
            try:
                yield
            finally:
                self._status = None

    @contextmanager
    def paused(self) -> Iterator[None]:
        """The spinner stopped while the block runs (e.g. a question asked on the terminal)."""
        status = self._status
        if status is None:
            yield
            return
        status.stop()
        try:
            yield
        finally:
            status.start()

    def stage(self, text: str) -> None:
        """The stage now under way."""
        if self.mode == "off":
            return
        if self._status is not None:
            # Text: a model's words are shown literally, never read as markup; naming the spinner
            # redraws now, not at the next tick
            self._status.update(Text(text), spinner="dots")
        elif text != self._last_line:
            self._last_line = text
            self.console.print(text, markup=False)

    def model_progress(self, stage: str, done: int, total: int) -> None:
        """The embedded model's first-time stages (``synergai.llm.weights.Progress``)."""
        if total <= 0:
            self.stage(stage)
        elif self.mode == "lines":  # a line per tenth, not per megabyte
            self.stage(f"{stage} {bar(done - done % max(total // 10, 1), total)}")
        else:
            self.stage(f"{stage} {bar(done, total)}")
