"""The on-disk response cache: hits and misses, what the key depends on, atomic JSON entries."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from synergai.llm import CachedModel, ChatModel, ChatReply, ScriptedModel, ScriptExhausted
from synergai.llm.cache import cache_key

USER = [{"role": "user", "content": "Where is the mug?"}]


def _model(tmp_path: Path, replies: int = 10) -> tuple[CachedModel, ScriptedModel]:
    inner = ScriptedModel([f"reply {i}" for i in range(replies)])
    return CachedModel(inner, tmp_path / "cache"), inner


def _entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache").rglob("*.json"))


def test_miss_then_hit(tmp_path: Path) -> None:
    model, inner = _model(tmp_path)
    first = model.chat(USER, max_tokens=16)
    second = model.chat(USER, max_tokens=16)
    assert (first.text, first.cached) == ("reply 0", False)
    assert (second.text, second.cached) == ("reply 0", True)
    assert (second.prompt_tokens, second.completion_tokens) == (first.prompt_tokens, first.completion_tokens)
    assert len(inner.requests) == 1
    assert (model.hits, model.misses) == (1, 1)
    assert isinstance(model, ChatModel) and model.name == inner.name


def test_entry_is_plain_json_and_no_temp_files(tmp_path: Path) -> None:
    model, _inner = _model(tmp_path)
    model.chat(USER)
    (entry,) = _entries(tmp_path)
    key = cache_key("scripted", USER, None, 256, None)
    assert entry == tmp_path / "cache" / key[:2] / f"{key}.json"
    record = json.loads(entry.read_text())
    assert record["text"] == "reply 0" and record["cached"] is False
    assert [p.name for p in entry.parent.iterdir()] == [entry.name]


def test_survives_a_new_instance(tmp_path: Path) -> None:
    model, _inner = _model(tmp_path)
    model.chat(USER)
    fresh_inner = ScriptedModel([])  # would raise ScriptExhausted if it were asked
    again = CachedModel(fresh_inner, tmp_path / "cache").chat(USER)
    assert (again.text, again.cached) == ("reply 0", True)
    assert fresh_inner.requests == []


@pytest.mark.parametrize(
    "change",
    [
        {"messages": [{"role": "user", "content": "Where is the cup?"}]},
        {"messages": [{"role": "system", "content": "Where is the mug?"}]},
        {"json_schema": {"type": "object"}},
        {"max_tokens": 17},
        {"stop": ["\n"]},
    ],
)
def test_each_part_of_the_key_matters(tmp_path: Path, change: dict) -> None:
    model, inner = _model(tmp_path)
    base = {"messages": USER, "json_schema": None, "max_tokens": 16, "stop": None}
    model.chat(base["messages"], json_schema=None, max_tokens=16)
    changed = {**base, **change}
    reply = model.chat(
        changed["messages"],
        json_schema=changed["json_schema"],
        max_tokens=changed["max_tokens"],
        stop=changed["stop"],
    )
    assert (reply.text, reply.cached) == ("reply 1", False)
    assert len(_entries(tmp_path)) == 2 and len(inner.requests) == 2


def test_key_depends_on_model_name_not_on_dict_order() -> None:
    schema_a = {"type": "object", "properties": {"x": {"type": "string"}}}
    schema_b = {"properties": {"x": {"type": "string"}}, "type": "object"}
    messages_b = [{"content": "Where is the mug?", "role": "user"}]
    assert cache_key("m", USER, schema_a, 5, None) == cache_key("m", messages_b, schema_b, 5, None)
    assert cache_key("m", USER, None, 5, None) != cache_key("other", USER, None, 5, None)
    assert cache_key("m", USER, None, 5, None) == cache_key("m", USER, None, 5, [])


def test_nonzero_temperature_bypasses_the_cache(tmp_path: Path) -> None:
    model, inner = _model(tmp_path)
    texts = [model.chat(USER, temperature=0.7).text for _ in range(2)]
    assert texts == ["reply 0", "reply 1"]
    assert _entries(tmp_path) == [] and model.hits == 0
    assert inner.requests[0].temperature == 0.7


class _SeededModel(ScriptedModel):
    """Samples as the embedded model does: the n-th draw of a request gets seed + n - 1 (its reply says)."""

    def __init__(self) -> None:
        super().__init__([], name="seeded")
        self.seed, self.sampled, self.asked = 5, {}, []

    def draw_seed(self, key: str) -> int:
        return self.seed + self.sampled.get(key, 0)

    def skip_draw(self, key: str) -> None:
        self.sampled[key] = self.sampled.get(key, 0) + 1

    def chat(self, messages, *, json_schema=None, max_tokens=256, temperature=0.0, stop=None, grammar=None):
        key = cache_key(self.name, messages, json_schema, max_tokens, stop, grammar)
        seed = self.draw_seed(key) if temperature else None
        if temperature:
            self.skip_draw(key)
        self.asked.append((temperature, seed))
        return ChatReply(f"t={temperature} seed={seed}", 3, 2, "stop", self.name)


def test_a_seeded_models_sampled_replies_are_stored_per_draw_and_replayed_in_order(tmp_path: Path) -> None:
    first = CachedModel(_SeededModel(), tmp_path / "cache")
    drawn = [first.chat(USER, temperature=0.7).text for _ in range(2)]
    assert drawn == ["t=0.7 seed=5", "t=0.7 seed=6"] and first.misses == 2
    again = _SeededModel()  # a new process: its draws start over
    replay = CachedModel(again, tmp_path / "cache")
    assert [replay.chat(USER, temperature=0.7).text for _ in range(2)] == drawn
    assert again.asked == [] and replay.hits == 2
    third = replay.chat(USER, temperature=0.7)  # the draws served from the cache were counted
    assert (third.text, third.cached, again.asked) == ("t=0.7 seed=7", False, [(0.7, 7)])
    assert replay.chat(USER, temperature=0.9).text == "t=0.9 seed=8"  # the temperature is in the key
    assert len(_entries(tmp_path)) == 4


class _SlowSeededModel(_SeededModel):
    """Takes its draw only after a while, as a model busy with a prompt does."""

    def chat(self, messages, **request):
        time.sleep(0.3)
        return super().chat(messages, **request)


def test_threads_sampling_one_request_store_each_reply_under_its_own_draw(tmp_path: Path) -> None:
    model = CachedModel(_SlowSeededModel(), tmp_path / "cache")
    start = threading.Barrier(2)

    def sample() -> str:
        start.wait()
        return model.chat(USER, temperature=0.7).text

    with ThreadPoolExecutor(2) as pool:
        drawn = sorted(pool.map(lambda _: sample(), range(2)))
    assert drawn == ["t=0.7 seed=5", "t=0.7 seed=6"] and len(_entries(tmp_path)) == 2
    replay = CachedModel(_SeededModel(), tmp_path / "cache")  # a new process replays the draws in order
    assert [replay.chat(USER, temperature=0.7).text for _ in range(2)] == drawn and replay.hits == 2


def test_corrupt_entry_is_a_miss_and_is_rewritten(tmp_path: Path) -> None:
    model, _inner = _model(tmp_path)
    model.chat(USER)
    (entry,) = _entries(tmp_path)
    entry.write_text("{not json")
    reply = model.chat(USER)
    assert (reply.text, reply.cached) == ("reply 1", False)
    assert json.loads(entry.read_text())["text"] == "reply 1"


def test_inner_failure_stores_nothing(tmp_path: Path) -> None:
    model = CachedModel(ScriptedModel([]), tmp_path / "cache")
    with pytest.raises(ScriptExhausted):
        model.chat(USER)
    assert _entries(tmp_path) == []


def test_unwritable_cache_warns_but_returns_the_reply(tmp_path: Path) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache directory should be")
    model = CachedModel(ScriptedModel(["kept"]), blocker)
    with pytest.warns(RuntimeWarning, match="cannot write cache entry"):
        reply = model.chat(USER)
    assert reply.text == "kept"
