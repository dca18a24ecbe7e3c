"""What a person sees while robots work (``synergai robots tabletop|team``): one line per round or action
on stderr as it happens (``-q``: none; ``--json`` leaves stdout's document as it was), and on a
terminal the spinner of ``synergai ask`` naming the stage under way (:mod:`synergai.cli.progress`:
``live`` on a terminal's stderr, off with ``--json``, ``-q`` or when stderr is not a terminal)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.text import Text

from synergai.cli.progress import StageDisplay, progress_mode
from synergai.cli.safe_text import visible


class TerminalTalk:
    """The robots' :class:`~synergai.robots.talk.Talk` on stderr (see the module doc-string)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.quiet = bool(getattr(args, "quiet", 0))
        self.display = StageDisplay(progress_mode(args))

    def stage(self, text: str) -> None:
        """The spinner's text (on a terminal only)."""
        self.display.stage(visible(text))

    def line(self, text: str) -> None:
        """One line on stderr, printed literally (never wrapped, never read as markup)."""
        if not self.quiet:
            self.display.console.print(Text(visible(text)), soft_wrap=True)

    @contextmanager
    def running(self, text: str) -> Iterator[None]:
        """The spinner, while the episode runs."""
        with self.display.running(visible(text)):
            yield

    def asking(self, ask: Callable[[str], str | None]) -> Callable[[str], str | None]:
        """``ask`` with the spinner stopped while the person answers on the terminal."""
        def paused(question: str) -> str | None:
            with self.display.paused():
                return ask(question)
        return paused
