"""What model calls cost, summed: one :class:`Usage` inside every answering path's result (:class:`Outcome`).

The agent, program mode, the tabletop arm and the robot team each return a result that derives from
:class:`Outcome`, so the CLI, the GUI and eval read ``result.usage`` and ``result.seconds`` the same way
whichever path answered.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from synergai.llm.base import ChatReply


@dataclass
class Usage:
    """Model calls and their tokens and seconds, summed over a turn (or an episode)."""

    calls: int = 0
    prompt_tokens: int = 0
    new_prompt_tokens: int = 0  # prompt tokens the model processed (not served from its prefix cache)
    cached_tokens: int = 0  # prompt tokens served from that cache
    completion_tokens: int = 0
    model_seconds: float = 0.0

    def count(self, reply: ChatReply) -> ChatReply:
        """Add one model call; returns the reply."""
        self.calls += 1
        self.prompt_tokens += reply.prompt_tokens
        self.new_prompt_tokens += reply.new_prompt_tokens
        self.cached_tokens += reply.cached_tokens
        self.completion_tokens += reply.completion_tokens
        self.model_seconds += reply.seconds
        return reply

    def count_all(self, replies: Iterable[ChatReply]) -> Usage:
        """Add several model calls; returns the usage of those calls alone."""
        part = Usage()
        for reply in replies:
            self.count(reply)
            part.count(reply)
        return part

    def add(self, other: Usage) -> None:
        """Add another usage (a sub-step's) to this one."""
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def to_dict(self) -> dict[str, Any]:
        """The JSON keys every result carries: ``llm_calls``, the token counts, ``llm_seconds``."""
        d = asdict(self)
        calls, seconds = d.pop("calls"), d.pop("model_seconds")
        return {"llm_calls": calls, **d, "llm_seconds": round(seconds, 3)}

    def line(self) -> str:
        """For people: "3 LLM calls, 1200+80 tokens (300 new), 2.1 s in the model"."""
        return (f"{self.calls} LLM call{'s' if self.calls != 1 else ''}, {self.prompt_tokens}+"
                f"{self.completion_tokens} tokens ({self.new_prompt_tokens} new), "
                f"{self.model_seconds:.1f} s in the model")


@dataclass(kw_only=True)
class Outcome:
    """The shape every answering path's result shares: what the model calls cost and the wall time."""

    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: the result's fields with the usage's keys (:meth:`Usage.to_dict`) at the top."""
        d = asdict(self)
        d.pop("usage")
        return d | self.usage.to_dict()
