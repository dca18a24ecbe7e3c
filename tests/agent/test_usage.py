"""One Usage per answering path: it sums every model call of a multi-call turn (agent and program mode;
the tabletop and team paths are checked in tests/robots)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent_scripting import room

from synergai.agent.program.loop import ProgramLoop
from synergai.agent.result import Answered
from synergai.agent.session import AgentSession
from synergai.llm import ScriptedModel
from synergai.llm.base import ChatReply
from synergai.llm.usage import Usage


class Recording:
    """A chat model that keeps every reply its inner model gave."""

    def __init__(self, inner: ScriptedModel) -> None:
        self.inner, self.name, self.replies = inner, inner.name, list[ChatReply]()

    def chat(self, messages: Sequence[Mapping[str, str]], **kw: Any) -> ChatReply:
        reply = self.inner.chat(messages, **kw)
        self.replies.append(reply)
        return reply

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


def _sums(replies: list[ChatReply]) -> tuple[int, int, int, int, int]:
    return (len(replies), sum(r.prompt_tokens for r in replies), sum(r.new_prompt_tokens for r in replies),
            sum(r.cached_tokens for r in replies), sum(r.completion_tokens for r in replies))


def _usage(u: Usage) -> tuple[int, int, int, int, int]:
    return u.calls, u.prompt_tokens, u.new_prompt_tokens, u.cached_tokens, u.completion_tokens


def test_the_agent_sums_every_call_of_a_turn(store) -> None:
    plan = json.dumps({"plan": [{"action": "query_for_objects", "action_input": {"query": "lamp"}}]})
    typed = json.dumps({"action": "final_answer", "action_input": {"short_answer": "yes"}})
    llm = Recording(ScriptedModel(["{broken", plan, typed]))
    result = AgentSession(store, "room", llm).ask("Is the lamp white?")
    assert isinstance(result, Answered) and len(llm.replies) == 3
    assert _usage(result.usage) == _sums(llm.replies) and result.usage.cached_tokens > 0
    d = result.to_dict()
    keys = ("llm_calls", "prompt_tokens", "new_prompt_tokens", "cached_tokens", "completion_tokens")
    assert tuple(d[k] for k in keys) == _sums(llm.replies)


def test_program_mode_sums_every_call_of_a_turn() -> None:
    code = "chairs = filter(object_set=scene(), category='chair')\nprint(len(chairs))"
    llm = Recording(ScriptedModel([
        "Thought: count.\nAction: Program\nAction Input:\n```Python\nprint(1 / 0)\n```",
        f"Thought: count.\nAction: Program\nAction Input:\n```Python\n{code}\n```",
        "Thought: done.\nAction: Final Answer\nAction Input: 2",
    ]))
    result = ProgramLoop(llm).run(room(), "How many chairs are there?")
    assert isinstance(result, Answered) and result.short_answer == "2" and len(llm.replies) == 3
    assert _usage(result.usage) == _sums(llm.replies)
    assert result.to_dict()["new_prompt_tokens"] == result.usage.new_prompt_tokens


def test_usages_add_and_read_as_json() -> None:
    one, two = Usage(), Usage()
    one.count(ChatReply("a", 100, 5, "stop", "m", seconds=0.5, cached_tokens=40))
    two.count_all([ChatReply("b", 80, 3, "stop", "m", seconds=0.25)] * 2)
    one.add(two)
    assert _usage(one) == (3, 260, 220, 40, 11) and one.model_seconds == 1.0
    assert one.to_dict() == {"llm_calls": 3, "prompt_tokens": 260, "new_prompt_tokens": 220,
                             "cached_tokens": 40, "completion_tokens": 11, "llm_seconds": 1.0}
    assert one.line().startswith("3 LLM calls, 260+11 tokens (220 new)")
