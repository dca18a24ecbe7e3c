"""The system prompt's KV cache survives the process: a new model instance skips its prompt processing,
and answers exactly as the instance that computed it; the slow first-time stages (loading, processing the
system prompt) are told to the user once each."""

from __future__ import annotations

import pytest

from synergai.llm import EmbeddedModel
from synergai.llm.embedded import LOAD_STAGE, PROMPT_STAGE
from synergai.llm.weights import ASSEMBLY_STAGE

pytestmark = pytest.mark.slow


def test_second_instance_restores_the_system_prompt_and_only_loading_is_told(tmp_path):
    """Two instances, as two processes: the first computes and saves the system prompt (stages: loading,
    then the prompt, once however often it is asked), the second restores it (stage: loading only)."""
    system = "You are a careful assistant in a room with a table, two chairs and a lamp. " * 12
    messages = [{"role": "system", "content": system}, {"role": "user", "content": "How many chairs?"}]
    heard: list[list[str]] = [[], []]
    with EmbeddedModel(threads=2, prefix_cache=tmp_path,
                       progress=lambda stage, _done, _total: heard[0].append(stage)) as first:
        a = first.chat(messages, max_tokens=24)
        processed_first = first.last_timings["prompt_n"]
        first.chat(messages, max_tokens=24)  # asked again: no stage is told again
    assert list(tmp_path.glob("*.bin")), "the slot was not saved"
    with EmbeddedModel(threads=2, prefix_cache=tmp_path,
                       progress=lambda stage, _done, _total: heard[1].append(stage)) as second:
        b = second.chat(messages, max_tokens=24)
        processed_second = second.last_timings["prompt_n"]
        second.chat(messages, max_tokens=24)
    # both requests met the system prompt already cached (computed alone, or restored): same work, same text
    assert processed_first == processed_second < a.prompt_tokens - 100
    assert b.text == a.text
    told = [[stage for stage in h if stage != ASSEMBLY_STAGE] for h in heard]
    assert told == [[LOAD_STAGE, PROMPT_STAGE], [LOAD_STAGE]]
