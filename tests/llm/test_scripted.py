"""The scripted model: replay order, recorded requests, script files, exhaustion; the token approximation."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from synergai.llm import ChatModel, LLMError, ScriptedModel, ScriptExhausted, approx_tokens
from synergai.llm.base import ChatReply, check_request

SYSTEM = {"role": "system", "content": "You are a robot."}


def test_replays_in_order_and_records_requests() -> None:
    model = ScriptedModel(["first", '{"broken": '])
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    one = model.chat([SYSTEM, {"role": "user", "content": "hello"}], max_tokens=32)
    two = model.chat([{"role": "user", "content": "json please"}], json_schema=schema, stop=["\n"])
    assert (one.text, two.text) == ("first", '{"broken": ')  # replies are not validated against the schema
    assert one.finish_reason == two.finish_reason == "stop"
    assert one.model == "scripted" and not one.cached
    assert one.completion_tokens == approx_tokens("first")
    assert one.prompt_tokens == approx_tokens("system: You are a robot.\nuser: hello")
    first, second = model.requests
    assert first.messages == [SYSTEM, {"role": "user", "content": "hello"}]
    assert (first.json_schema, first.max_tokens, first.stop) == (None, 32, None)
    assert (second.json_schema, second.max_tokens, second.stop) == (schema, 256, ["\n"])
    assert model.remaining == 0
    assert isinstance(model, ChatModel)


def test_exhaustion_raises_a_script_error_and_still_records() -> None:
    model = ScriptedModel(["only"])
    model.chat([{"role": "user", "content": "a"}])
    with pytest.raises(ScriptExhausted, match="after 1 replies"):
        model.chat([{"role": "user", "content": "b"}])
    assert issubclass(ScriptExhausted, LLMError)
    assert [r.messages[0]["content"] for r in model.requests] == ["a", "b"]


@pytest.mark.parametrize(
    ("messages", "kwargs", "pattern"),
    [
        ([], {}, "non-empty"),
        ("hello", {}, "non-empty"),
        ([{"role": "robot", "content": "x"}], {}, "role 'robot'"),
        ([{"role": "user", "content": 3}], {}, "content must be a str"),
        ([{"role": "user", "content": "x"}], {"max_tokens": 0}, "max_tokens"),
        ([{"role": "user", "content": "x"}], {"temperature": -1.0}, "temperature"),
        ([{"role": "user", "content": "x"}], {"stop": "END"}, "stop"),
        ([{"role": "user", "content": "x"}], {"json_schema": "object"}, "json_schema"),
    ],
)
def test_bad_requests_raise_and_are_not_recorded(messages, kwargs, pattern) -> None:
    model = ScriptedModel(["unused"])
    with pytest.raises(LLMError, match=pattern):
        model.chat(messages, **kwargs)
    assert model.requests == [] and model.remaining == 1


def test_from_json_list(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(["a", {"text": "b", "finish_reason": "length"}]))
    model = ScriptedModel.from_file(path)
    assert model.name == "scripted:script.json"
    assert [model.chat([{"role": "user", "content": "?"}]).finish_reason for _ in range(2)] == [
        "stop",
        "length",
    ]


def test_from_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "script.jsonl"
    path.write_text('"line one"\n\n{"text": "{\\"x\\": 1}"}\n"three"\n')
    model = ScriptedModel.from_file(path)
    texts = [model.chat([{"role": "user", "content": "?"}]).text for _ in range(3)]
    assert texts == ["line one", '{"x": 1}', "three"]


def test_bad_script_files(tmp_path: Path) -> None:
    bad_line = tmp_path / "bad.jsonl"
    bad_line.write_text('"ok"\nnot json\n')
    with pytest.raises(LLMError, match=r"bad\.jsonl:2"):
        ScriptedModel.from_file(bad_line)
    bad_item = tmp_path / "item.json"
    bad_item.write_text(json.dumps(["ok", {"reply": "no text key"}]))
    with pytest.raises(LLMError, match="script item 1"):
        ScriptedModel.from_file(bad_item)
    with pytest.raises(LLMError, match="cannot read script"):
        ScriptedModel.from_file(tmp_path / "missing.json")


def test_threads_consume_each_reply_once() -> None:
    model = ScriptedModel([str(i) for i in range(200)])
    seen: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(25):
            text = model.chat([{"role": "user", "content": "go"}]).text
            with lock:
                seen.append(text)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen, key=int) == [str(i) for i in range(200)]


def test_approx_tokens_is_deterministic_and_piecewise() -> None:
    assert approx_tokens("") == 0
    assert approx_tokens("hello world") == 2
    assert approx_tokens("12345") == 5  # digits one by one, as Qwen's tokenizer does
    assert approx_tokens("internationalization") == 3  # 20 letters: one token per started 8
    assert approx_tokens('{"a": 1}') == approx_tokens('{"a": 1}') == 6
    with pytest.raises(LLMError):
        approx_tokens(None)  # type: ignore[arg-type]


def test_check_request_returns_plain_copies() -> None:
    source = [{"role": "user", "content": "x", "name": "ignored"}]
    clean = check_request(source, json_schema=None, max_tokens=1, temperature=0, stop=None)
    assert clean == [{"role": "user", "content": "x"}]
    clean[0]["content"] = "changed"
    assert source[0]["content"] == "x"


def test_reply_round_trips_through_dict() -> None:
    reply = ChatReply("t", 3, 4, "length", "m", cached=True, seconds=0.5)
    assert ChatReply.from_dict(reply.to_dict()) == reply
    with pytest.raises(LLMError, match="malformed"):
        ChatReply.from_dict({"text": "t"})
