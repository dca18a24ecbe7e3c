"""The system prompt's KV cache survives the process: a new model instance skips its prompt processing,
and answers exactly as the instance that computed it."""

from __future__ import annotations

import pytest

from synergai.llm import EmbeddedModel

pytestmark = pytest.mark.slow


def test_second_instance_restores_the_system_prompt(tmp_path):
    system = "You are a careful assistant in a room with a table, two chairs and a lamp. " * 12
    messages = [{"role": "system", "content": system}, {"role": "user", "content": "How many chairs?"}]
    with EmbeddedModel(threads=2, prefix_cache=tmp_path) as first:
        a = first.chat(messages, max_tokens=24)
        processed_first = first.last_timings["prompt_n"]
    assert list(tmp_path.glob("*.bin")), "the slot was not saved"
    with EmbeddedModel(threads=2, prefix_cache=tmp_path) as second:
        b = second.chat(messages, max_tokens=24)
        processed_second = second.last_timings["prompt_n"]
    # both requests met the system prompt already cached (computed alone, or restored): same work, same text
    assert processed_first == processed_second < a.prompt_tokens - 100
    assert b.text == a.text
