"""Ask a chat model for one JSON object constrained by a schema, retrying cut-off or broken replies.

Small local models can loop inside a string until ``max_tokens``; the grammar guarantees syntax but
not an end. A reply with ``finish_reason == "length"`` or text that is not a JSON object is retried
with a larger token budget, a bounded number of times.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from synergai.llm.base import ChatModel, ChatReply


@dataclass
class JsonAnswer:
    """The parsed object (None when every attempt failed), the replies it cost and the last problem."""

    data: dict[str, Any] | None
    replies: list[ChatReply] = field(default_factory=list)
    problem: str = ""

    @property
    def calls(self) -> int:
        return len(self.replies)

    @property
    def text(self) -> str:
        """The last reply's raw text ('' when there was none)."""
        return self.replies[-1].text if self.replies else ""


def ask_json(
    model: ChatModel,
    messages: Sequence[Mapping[str, str]],
    schema: dict[str, Any],
    *,
    max_tokens: int = 300,
    retries: int = 2,
    growth: float = 1.5,
    accept_text: Callable[[str], bool] | None = None,
    temperature: float = 0.0,
) -> JsonAnswer:
    """One JSON object from ``model`` under ``schema``; up to ``retries`` extra attempts.

    ``accept_text`` may accept a complete non-JSON reply (a backend that ignores schemas and answers in
    the caller's own text format): it ends the attempts with ``data`` None and the text kept.
    ``temperature`` above 0 samples (e.g. to leave a reply that greedy decoding repeats)."""
    answer = JsonAnswer(None)
    budget = max_tokens
    for _ in range(retries + 1):
        reply = model.chat(messages, json_schema=schema, max_tokens=budget, temperature=temperature)
        answer.replies.append(reply)
        if reply.finish_reason == "length":
            answer.problem = f"reply cut off at {budget} tokens"
            budget = int(budget * growth)
            continue
        try:
            data = json.loads(reply.text)
        except json.JSONDecodeError as exc:
            answer.problem = f"reply is not valid JSON ({exc.msg} at column {exc.colno})"
            if accept_text is not None and accept_text(reply.text):
                return answer
            continue
        except (ValueError, RecursionError) as exc:  # 4300+ digit numbers, nesting deeper than the stack
            answer.problem = f"reply is not usable JSON ({str(exc)[:80]})"
            continue
        if not isinstance(data, dict):
            answer.problem = f"reply is a JSON {type(data).__name__}, not an object"
            continue
        answer.data, answer.problem = data, ""
        return answer
    return answer
