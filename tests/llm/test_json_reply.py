"""ask_json: a reply nested deeper than Python's stack, or holding a 5000-digit number, is retried."""

from __future__ import annotations

from synergai.llm import ScriptedModel
from synergai.llm.json_reply import ask_json

USER = [{"role": "user", "content": "Plan."}]


def test_unusable_json_replies_are_retried_not_raised() -> None:
    llm = ScriptedModel(["[" * 100_000, "1" * 5000, '{"ok": true}'])
    answer = ask_json(llm, USER, {"type": "object"}, retries=2)
    assert answer.data == {"ok": True} and answer.calls == 3


def test_the_last_problem_is_reported_when_every_reply_is_unusable() -> None:
    answer = ask_json(ScriptedModel(['{"a": ' * 50_000]), USER, {"type": "object"}, retries=0)
    assert answer.data is None and "usable JSON" in answer.problem
