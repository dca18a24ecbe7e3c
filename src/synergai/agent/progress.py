"""The stages of an agent turn as they happen (:class:`StagedModel` tells a ``report`` callback), and
cooperative cancellation: once ``cancel`` is set, the next check raises :class:`TurnCancelled`; a turn's
edits are held until it ends, so a cancelled turn leaves the store as it was.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from synergai.llm.base import ChatModel, ChatReply
from synergai.llm.trace import begin_turn

Report = Callable[[str], None]


class TurnCancelled(Exception):
    """The user stopped the turn; nothing it did is kept."""


def action_of(reply_text: str) -> str | None:
    """The action an agent reply names (JSON ``action`` or its plan's first, or program mode's ``Action:``
    line); None if it names none."""
    try:
        data = json.loads(reply_text)
    except RecursionError:  # nested too deeply: the agent tells the model so; the display names nothing
        return None
    except ValueError:
        line = re.search(r"^Action:\s*(Program|Final Answer)\s*$", reply_text, re.MULTILINE)
        return None if line is None else {"Program": "the program", "Final Answer": "final answer"}[line[1]]
    if not isinstance(data, dict):
        return None
    plan = data.get("plan")
    first = plan[0] if isinstance(plan, list) and plan and isinstance(plan[0], dict) else {}
    return next((a for a in (data.get("action"), first.get("action")) if isinstance(a, str)), None)


class StagedModel:
    """A chat model that reports each agent step to ``report`` and stops when ``cancel`` is set."""

    def __init__(self, inner: ChatModel, report: Report, cancel: threading.Event | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.report = report
        self.cancel = cancel
        self.calls = 0
        self.last_action: str | None = None

    def new_turn(self) -> None:
        """Count steps from 1 again (a new question)."""
        self.calls, self.last_action = 0, None

    def begin_turn(self, label: str) -> None:
        """Pass the start of a turn on to the wrapped model (a trace log numbers its turns)."""
        begin_turn(self.inner, label)

    def check(self) -> None:
        """Raise :class:`TurnCancelled` when the turn has been cancelled."""
        if self.cancel is not None and self.cancel.is_set():
            raise TurnCancelled("cancelled")

    def chat(self, messages: Sequence[Mapping[str, str]], **kwargs: Any) -> ChatReply:
        """Check for a cancel, report the step, delegate, check again, report the action the reply chose."""
        self.check()
        self.calls += 1
        after = f" (after {self.last_action})" if self.last_action else ""
        self.report(f"step {self.calls}: the model is thinking{after}")
        reply = self.inner.chat(messages, **kwargs)
        self.check()  # a reply that arrives after a cancel is dropped before any of its actions runs
        self.last_action = action_of(reply.text)
        if self.last_action:
            self.report(f"step {self.calls}: running {self.last_action}")
        return reply

    def count_tokens(self, text: str) -> int:
        """As the wrapped model counts."""
        return self.inner.count_tokens(text)
