"""Shared fixtures of the robot tests."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from synergai.llm import ChatReply, ScriptedModel


class CountedModel(ScriptedModel):
    """A scripted model whose n-th reply (1-based) costs 100 + n prompt tokens, 40 of them from the cache,
    and 7 completion tokens, whatever its text: token sums become easy to predict."""

    def chat(self, messages: Any, **kwargs: Any) -> ChatReply:
        reply = super().chat(messages, **kwargs)
        return replace(reply, prompt_tokens=100 + len(self.requests), cached_tokens=40, completion_tokens=7)


@pytest.fixture()
def counted() -> type[CountedModel]:
    """The :class:`CountedModel` class (build it with a script)."""
    return CountedModel
