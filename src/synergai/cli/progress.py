"""What a person waiting at a terminal sees: a spinner naming the agent's stage, and word of the slow
first-time stages of the embedded model (assembling the weights with a bar, loading, first prompt).

Three modes: ``live`` (a spinner on a terminal's stderr), ``lines`` (one line per new stage, for the
GUI commands whose terminal shows a log) and ``off`` (``--json``, ``-q``, or stderr is not a terminal).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

from rich.console import Console

from synergai.llm.base import supports_grammar

if TYPE_CHECKING:
    from rich.status import Status

    from synergai.llm import ChatModel, ChatReply

Mode = Literal["live", "lines", "off"]
BAR_WIDTH = 24


def progress_mode(args: Any, *, default: Mode = "live") -> Mode:
    """``off`` with --json or -q or when stderr is not a terminal, else ``default``."""
    if getattr(args, "json", False) or getattr(args, "quiet", 0) or not sys.stderr.isatty():
        return "off"
    return default


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
        with self.console.status(text) as status:
            self._status = status
            try:
                yield
            finally:
                self._status = None

    def stage(self, text: str) -> None:
        """The stage now under way."""
        if self.mode == "off":
            return
        if self._status is not None:
            self._status.update(text, spinner="dots")  # naming the spinner redraws now, not at the next tick
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


def action_of(reply_text: str) -> str | None:
    """The action an agent reply names: JSON ``action`` (or its plan's first), or program mode's
    ``Action: Program`` line ("the program"); None if it names none."""
    try:
        data = json.loads(reply_text)
    except RecursionError:  # nested too deeply: the agent tells the model so; the display names nothing
        return None
    except ValueError:
        line = re.search(r"^Action:\s*(Program|Final Answer)\s*$", reply_text, re.MULTILINE)
        return None if line is None else {"Program": "the program", "Final Answer": "final answer"}[line[1]]
    if not isinstance(data, dict):
        return None
    action = data.get("action")
    if isinstance(action, str):
        return action
    plan = data.get("plan")
    first = plan[0] if isinstance(plan, list) and plan else None
    return first["action"] if isinstance(first, dict) and isinstance(first.get("action"), str) else None


class StagedModel:
    """A chat model that reports each agent step to a :class:`StageDisplay` (the model is unchanged)."""

    def __init__(self, inner: ChatModel, display: StageDisplay) -> None:
        self.inner = inner
        self.name = inner.name
        self.display = display
        self.calls = 0
        self.last_action: str | None = None

    @property
    def supports_grammar(self) -> bool:
        """The wrapped model's capability (a grammar passes through)."""
        return supports_grammar(self.inner)

    def new_turn(self) -> None:
        """Count steps from 1 again (a new question)."""
        self.calls, self.last_action = 0, None

    def chat(self, messages: Sequence[Mapping[str, str]], **kwargs: Any) -> ChatReply:
        """Report the step, delegate, report the action the reply chose."""
        self.calls += 1
        after = f" (after {self.last_action})" if self.last_action else ""
        self.display.stage(f"step {self.calls}: the model is thinking{after}")
        reply = self.inner.chat(messages, **kwargs)
        self.last_action = action_of(reply.text)
        if self.last_action:
            self.display.stage(f"step {self.calls}: running {self.last_action}")
        return reply

    def count_tokens(self, text: str) -> int:
        """As the wrapped model counts."""
        return self.inner.count_tokens(text)
