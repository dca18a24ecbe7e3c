"""A GBNF grammar through every backend: sent by the embedded model (to a stand-in llama.cpp server, no
weights loaded), recorded by the scripted model, kept out of OpenAI requests, part of the cache key.
The embedded model's sampled requests carry its seed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from synergai.agent.progress import StagedModel
from synergai.llm import CachedModel, EmbeddedModel, LLMError, ScriptedModel
from synergai.llm.base import check_request, supports_grammar
from synergai.llm.cache import cache_key, json_format
from synergai.llm.embedded import compact_json_grammar

USER = [{"role": "user", "content": "Is there a chair?"}]
GRAMMAR = 'root ::= "yes" | "no"\n'


class StandIn:
    """Plays llama.cpp's in-process server: records each request, answers "yes"."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def handle_chat_completions(self, request: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(request)
        return {"choices": [{"message": {"content": "yes"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1}}


def test_the_embedded_model_sends_the_grammar_in_its_request() -> None:
    model = EmbeddedModel(prefix_cache=False)
    stand_in = StandIn()
    model._server = stand_in  # nothing is loaded: the stand-in takes the requests
    assert supports_grammar(model)
    assert model.chat(USER, grammar=GRAMMAR, max_tokens=4).text == "yes"
    model.chat(USER, max_tokens=4)
    with_grammar, without = stand_in.requests
    assert with_grammar["grammar"] == GRAMMAR and "response_format" not in with_grammar
    assert "grammar" not in without


def test_the_embedded_model_sends_a_schema_as_compact_json_and_caches_it_apart(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "y"]}},
              "required": ["a"]}
    model = EmbeddedModel(prefix_cache=False)
    stand_in = StandIn()
    model._server = stand_in
    # llama.cpp drops a grammar it cannot read and generates freely: a reply that is not JSON is an error
    with pytest.raises(LLMError, match="ignored the JSON schema's grammar"):
        model.chat(USER, json_schema=schema, max_tokens=4)  # the stand-in answers "yes"
    (sent,) = stand_in.requests
    assert "response_format" not in sent and sent["grammar"] == compact_json_grammar(schema)
    head, body = sent["grammar"].split("start: %json ")
    assert head == "%llguidance {}\n"
    assert json.loads(body) == {**schema, "x-guidance": {"whitespace_flexible": False}}
    # a reply written another way is another cache entry: the model's format is part of the key
    assert json_format(CachedModel(model, tmp_path)) == "compact"
    assert cache_key("m", USER, schema, 4, None, None, "compact") != cache_key("m", USER, schema, 4, None)
    assert cache_key("m", USER, None, 4, None, None, "compact") == cache_key("m", USER, None, 4, None)
    # and a schema that is not one is refused before anything is sent
    with pytest.raises(LLMError, match="invalid JSON schema: 'bogus'"):
        model.chat(USER, json_schema={"type": "bogus"}, max_tokens=4)
    assert len(stand_in.requests) == 1


def test_the_embedded_model_seeds_its_sampled_requests_only() -> None:
    model = EmbeddedModel(prefix_cache=False, seed=7)
    stand_in = StandIn()
    model._server = stand_in
    model.chat(USER, max_tokens=4, temperature=0.7)
    model.chat(USER, max_tokens=4)
    model.chat(USER, max_tokens=4, temperature=0.7)  # the same again: the next seed, a new draw
    model.chat(USER, max_tokens=5, temperature=0.7)  # another request: its first draw
    sampled, greedy, again, other = stand_in.requests
    assert sampled["seed"] == 7 and sampled["temperature"] == 0.7 and "top_k" not in sampled
    assert "seed" not in greedy and greedy["top_k"] == 1
    assert again["seed"] == 8 and other["seed"] == 7
    assert EmbeddedModel(prefix_cache=False).seed == 0
    for bad in (-1, 2**32, 1.5, True):
        with pytest.raises(LLMError, match="seed must be"):
            EmbeddedModel(prefix_cache=False, seed=bad)  # type: ignore[arg-type]


def test_a_grammar_and_a_schema_never_go_together_and_a_grammar_is_text() -> None:
    with pytest.raises(LLMError, match="cannot both"):
        check_request(USER, json_schema={"type": "object"}, max_tokens=4, temperature=0.0, stop=None,
                      grammar=GRAMMAR)
    for bad in ("", "  ", 3):
        with pytest.raises(LLMError, match="grammar must be"):
            check_request(USER, json_schema=None, max_tokens=4, temperature=0.0, stop=None, grammar=bad)


def test_the_scripted_model_records_the_grammar_and_says_whether_it_enforces_one() -> None:
    plain, enforcing = ScriptedModel(["yes"]), ScriptedModel(["maybe"], supports_grammar=True)
    plain.chat(USER)
    assert enforcing.chat(USER, grammar=GRAMMAR).text == "maybe"  # replies are never checked
    assert plain.requests[0].grammar is None and enforcing.requests[0].grammar == GRAMMAR
    assert not supports_grammar(plain) and supports_grammar(enforcing)


def test_the_cache_key_holds_the_grammar_and_a_request_without_one_keeps_its_old_key(tmp_path: Path) -> None:
    assert cache_key("m", USER, None, 5, None) == cache_key("m", USER, None, 5, None, None)
    assert cache_key("m", USER, None, 5, None, GRAMMAR) != cache_key("m", USER, None, 5, None)
    assert cache_key("m", USER, None, 5, None, GRAMMAR) != cache_key("m", USER, None, 5, None, 'root ::= "x"')
    inner = ScriptedModel(["one", "two", "three"], supports_grammar=True)
    model = CachedModel(inner, tmp_path)
    assert supports_grammar(model)
    assert model.chat(USER, grammar=GRAMMAR).text == "one"
    assert model.chat(USER).text == "two"  # another request
    assert model.chat(USER, grammar=GRAMMAR).cached  # the same request
    assert [r.grammar for r in inner.requests] == [GRAMMAR, None]
    assert not supports_grammar(CachedModel(ScriptedModel([]), tmp_path))


def test_the_progress_wrapper_passes_the_grammar_through() -> None:
    stages: list[str] = []
    inner = ScriptedModel(["yes"], supports_grammar=True)
    StagedModel(inner, stages.append).chat(USER, grammar=GRAMMAR)
    assert inner.requests[0].grammar == GRAMMAR and stages


def test_a_saved_prompt_slot_is_only_reused_on_the_same_thread_count(tmp_path) -> None:
    """Another thread count sums in another order: its slot would change greedy replies, so it has its
    own file (a slot written by a 1-thread benchmark once changed a 2-thread test's reading)."""
    system = [{"role": "system", "content": "You read sentences."}, {"role": "user", "content": "x"}]
    one, two = (EmbeddedModel(prefix_cache=tmp_path, threads=n) for n in (1, 2))
    assert one._kv_file(system) and two._kv_file(system)
    assert one._kv_file(system) != two._kv_file(system)
    assert one._kv_file(system) == EmbeddedModel(prefix_cache=tmp_path, threads=1)._kv_file(system)
