"""The real embedded model (Qwen2.5-Coder-1.5B Q4_K_M on xllamacpp, CPU): one load shared by the session's
slow tests; loading itself and the prefix cache across instances: test_prefix_cache_slow.py."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from synergai.llm import CachedModel, ChatModel, EmbeddedModel, LLMError

pytestmark = pytest.mark.slow

COLOUR_SCHEMA = {
    "type": "object",
    "properties": {"colour": {"type": "string", "enum": ["red", "green", "blue"]}},
    "required": ["colour"],
    "additionalProperties": False,
}


@pytest.fixture
def model(embedded_model: EmbeddedModel) -> EmbeddedModel:
    """The session's loaded model (tests/conftest.py)."""
    return embedded_model


def test_chat_reply(model: EmbeddedModel) -> None:
    messages = [
        {"role": "system", "content": "You answer with one word."},
        {"role": "user", "content": "Is water wet? Answer yes or no."},
    ]
    reply = model.chat(messages, max_tokens=8)
    assert reply.text.strip().lower().rstrip(".") == "yes"
    assert reply.finish_reason == "stop"
    assert reply.prompt_tokens > model.count_tokens(
        "You answer with one word. Is water wet? Answer yes or no."
    )
    assert 0 < reply.completion_tokens <= 8
    assert reply.model == "qwen2.5-coder-1.5b-instruct-q4_k_m" and not reply.cached
    assert isinstance(model, ChatModel) and model.load_seconds is not None
    again = model.chat(
        messages, max_tokens=8
    )  # greedy: byte-identical, and the prefix comes from the KV cache
    assert again.text == reply.text
    assert model.last_timings is not None and model.last_timings["cache_n"] > 0


def test_json_schema_reply_parses_and_matches_the_enum(model: EmbeddedModel) -> None:
    messages = [{"role": "user", "content": "What colour is a clear daytime sky? Reply as JSON."}]
    reply = model.chat(messages, json_schema=COLOUR_SCHEMA, max_tokens=24)
    assert reply.finish_reason == "stop"
    assert set(json.loads(reply.text)) == {"colour"}
    assert json.loads(reply.text)["colour"] in {"red", "green", "blue"}


def test_tiny_max_tokens_ends_with_length(model: EmbeddedModel) -> None:
    reply = model.chat([{"role": "user", "content": "Count from 1 to 100, comma separated."}], max_tokens=3)
    assert reply.finish_reason == "length"
    assert reply.completion_tokens == 3


def test_count_tokens_uses_the_model_tokenizer(model: EmbeddedModel) -> None:
    assert model.count_tokens("") == 0
    assert model.count_tokens("Hello world, how are you? 12345") == 13  # Qwen2.5 splits digits one by one
    assert model.count_tokens(" chair" * 50) == 50  # one token per word with its leading space


def test_backend_errors_become_llm_errors(model: EmbeddedModel) -> None:
    with pytest.raises(LLMError, match="context"):
        model.chat([{"role": "user", "content": "hi " * 12000}], max_tokens=4)
    with pytest.raises(LLMError, match="bogus"):
        model.chat([{"role": "user", "content": "x"}], json_schema={"type": "bogus"}, max_tokens=4)
    assert model.chat([{"role": "user", "content": "Say OK."}], max_tokens=4).text  # still usable afterwards


def test_a_sampled_reply_is_the_same_for_the_same_seed(model: EmbeddedModel) -> None:
    ask = [{"role": "user", "content": "Write one short sentence about a chair."}]
    first = model.chat(ask, max_tokens=12, temperature=0.9).text
    model._sampled.clear()  # as in a new process: the request's first draw again
    assert first and model.chat(ask, max_tokens=12, temperature=0.9).text == first


def test_a_cached_sampled_reply_replays_and_the_next_draw_is_new(model: EmbeddedModel, tmp_path: Path):
    ask = [{"role": "user", "content": "Write one short sentence about a table."}]
    first = CachedModel(model, tmp_path).chat(ask, max_tokens=12, temperature=0.9)
    model._sampled.clear()  # a new process
    replay = CachedModel(model, tmp_path)
    again = replay.chat(ask, max_tokens=12, temperature=0.9)
    assert (again.text, again.cached, first.cached) == (first.text, True, False)
    assert not replay.chat(ask, max_tokens=12, temperature=0.9).cached  # the second draw: not stored


def test_threads_share_one_model(model: EmbeddedModel) -> None:
    texts: list[str] = []

    def ask() -> None:
        texts.append(model.chat([{"role": "user", "content": "Name one primary colour."}], max_tokens=6).text)

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(texts) == 3 and len(set(texts)) == 1 and texts[0]


def test_closed_model_refuses() -> None:
    other = EmbeddedModel(gguf_path=None, threads=1)
    other.close()
    with pytest.raises(LLMError, match="closed"):
        other.chat([{"role": "user", "content": "hi"}])
    with pytest.raises(LLMError, match="n_ctx"):
        EmbeddedModel(n_ctx=16)

