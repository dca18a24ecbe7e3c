"""The OpenAI-compatible backend against a tiny fake chat-completions server on 127.0.0.1 (no network)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from synergai.llm import ChatModel, ContextFullError, LLMError
from synergai.llm.openai_backend import DUMMY_KEY, OpenAIModel

USER = [{"role": "user", "content": "Which colour is the mug?"}]
SCHEMA = {"title": "Colour", "type": "object", "properties": {"colour": {"enum": ["red", "blue"]}}}


class FakeServer(ThreadingHTTPServer):
    """Records requests; ``mode`` picks the canned behaviour."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.mode = "ok"
        self.requests: list[dict[str, Any]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class Handler(BaseHTTPRequestHandler):
    server: FakeServer

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
        )
        mode = self.server.mode
        if mode == "error500":
            return self._send(500, {"error": {"message": "model crashed", "type": "server_error"}})
        if mode == "reject_schema" and body.get("response_format", {}).get("type") == "json_schema":
            return self._send(400, {"error": {"message": "response_format json_schema is not supported"}})
        if mode == "reject_strict" and body.get("response_format", {}).get("json_schema", {}).get("strict"):
            return self._send(400, {"error": {"message": "strict schemas are not supported"}})
        if mode == "context_full":
            return self._send(400, {"error": {"message": "This model's maximum context length is 4096 tokens",
                                              "code": "context_length_exceeded"}})
        if mode == "error401":
            return self._send(401, {"error": {"message": "invalid api key", "type": "auth_error"}})
        if mode == "slow":
            time.sleep(1.5)
        if mode == "never":  # holds the connection and never answers
            time.sleep(30)
            return None
        if mode == "trickle":  # a byte every 0.2 s, never the whole reply
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(150):
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    return None
                time.sleep(0.2)
            return None
        reply: dict[str, Any] = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "fake-model-v1",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": '{"colour": "blue"}'},
                    "finish_reason": "length" if mode == "length" else "stop",
                }
            ],
        }
        if mode != "no_usage":
            reply["usage"] = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
        return self._send(200, reply)

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture()
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    fake = FakeServer()
    thread = threading.Thread(target=fake.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield fake
    fake.shutdown()
    fake.server_close()


def test_plain_chat_parses_usage_and_sends_a_dummy_key(server: FakeServer) -> None:
    model = OpenAIModel("fake-model", base_url=server.url)
    reply = model.chat(USER, max_tokens=20, stop=["\n\n"])
    assert reply.text == '{"colour": "blue"}'
    assert (reply.prompt_tokens, reply.completion_tokens) == (11, 7)
    assert (reply.finish_reason, reply.model, reply.cached) == ("stop", "fake-model-v1", False)
    assert reply.seconds > 0
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["auth"] == f"Bearer {DUMMY_KEY}"
    body = request["body"]
    assert (body["model"], body["messages"], body["max_tokens"], body["temperature"]) == (
        "fake-model",
        USER,
        20,
        0.0,
    )
    assert body["stop"] == ["\n\n"] and "response_format" not in body
    assert isinstance(model, ChatModel) and model.name == f"openai:fake-model@{server.url}"
    model.close()


def test_key_comes_from_the_named_env_var(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYNERGAI_TEST_KEY", "sk-secret-123")
    OpenAIModel("fake-model", base_url=server.url, api_key_env="SYNERGAI_TEST_KEY").chat(USER)
    assert server.requests[0]["auth"] == "Bearer sk-secret-123"


def test_json_schema_goes_out_as_response_format(server: FakeServer) -> None:
    OpenAIModel("fake-model", base_url=server.url).chat(USER, json_schema=SCHEMA)
    sent = server.requests[0]["body"]["response_format"]
    assert sent == {
        "type": "json_schema",
        "json_schema": {"name": "Colour", "schema": SCHEMA, "strict": True},
    }


def test_rejected_strict_schema_falls_back_to_a_loose_one_and_remembers(server: FakeServer) -> None:
    server.mode = "reject_strict"
    model = OpenAIModel("fake-model", base_url=server.url)
    model.chat(USER, json_schema=SCHEMA)
    model.chat(USER, json_schema=SCHEMA)
    stricts = [r["body"]["response_format"]["json_schema"]["strict"] for r in server.requests]
    assert stricts == [True, False, False]


def test_rejected_schema_falls_back_to_json_object_and_remembers(server: FakeServer) -> None:
    server.mode = "reject_schema"
    model = OpenAIModel("fake-model", base_url=server.url)
    assert json.loads(model.chat(USER, json_schema=SCHEMA).text) == {"colour": "blue"}
    model.chat(USER, json_schema=SCHEMA)
    kinds = [r["body"]["response_format"]["type"] for r in server.requests]
    assert kinds == ["json_schema", "json_schema", "json_object", "json_object"]
    fallback = server.requests[2]["body"]["messages"]
    assert fallback[:-1] == USER  # the caller's prefix is kept, the schema comes last
    assert fallback[-1]["role"] == "system" and '"enum": ["red", "blue"]' in fallback[-1]["content"]


def test_http_500_is_an_llm_error_after_bounded_retries(server: FakeServer) -> None:
    server.mode = "error500"
    model = OpenAIModel("fake-model", base_url=server.url, max_retries=1)
    with pytest.raises(LLMError, match="HTTP 500: model crashed"):
        model.chat(USER)
    assert len(server.requests) == 2


def test_timeout_is_an_llm_error(server: FakeServer) -> None:
    server.mode = "slow"
    model = OpenAIModel("fake-model", base_url=server.url, timeout=0.3, max_retries=0)
    with pytest.raises(LLMError, match="timed out"):
        model.chat(USER)


def test_finish_reason_length_passes_through(server: FakeServer) -> None:
    server.mode = "length"
    assert OpenAIModel("fake-model", base_url=server.url).chat(USER).finish_reason == "length"


def test_missing_usage_falls_back_to_the_approximation(server: FakeServer) -> None:
    server.mode = "no_usage"
    model = OpenAIModel("fake-model", base_url=server.url)
    reply = model.chat(USER)
    assert reply.completion_tokens == model.count_tokens('{"colour": "blue"}') > 0
    assert reply.prompt_tokens == model.count_tokens("user: Which colour is the mug?")


def test_no_key_and_no_endpoint_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(LLMError, match="set OPENAI_API_KEY"):
        OpenAIModel("gpt-4o-mini")


def test_unreachable_endpoint_is_an_llm_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    closed = FakeServer()
    url = closed.url
    closed.server_close()  # nothing listens on that port any more
    with pytest.raises(LLMError, match=r"cannot connect: .*refused") as caught:
        OpenAIModel("fake-model", base_url=url, max_retries=0).chat(USER)
    assert url in str(caught.value) and "\n" not in str(caught.value)


def test_only_an_explicit_full_context_is_a_context_full_error(server: FakeServer) -> None:
    server.mode = "context_full"
    with pytest.raises(ContextFullError, match="maximum context length"):
        OpenAIModel("fake-model", base_url=server.url).chat(USER, json_schema=SCHEMA)
    server.mode = "error401"
    with pytest.raises(LLMError, match="HTTP 401: invalid api key") as caught:
        OpenAIModel("fake-model", base_url=server.url).chat(USER)
    assert not isinstance(caught.value, ContextFullError)


def test_check_names_the_endpoint_and_the_cause(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from synergai.llm import check_model

    check_model(OpenAIModel("fake-model", base_url=server.url))  # /models is 404 here: the server is up
    closed = FakeServer()
    url = closed.url
    closed.server_close()
    with pytest.raises(LLMError, match=r"cannot connect: .*refused") as caught:
        check_model(OpenAIModel("fake-model", base_url=url))
    assert url in str(caught.value)


def test_a_grammar_is_not_sent_to_an_openai_endpoint(server: FakeServer) -> None:
    model = OpenAIModel("fake-model", base_url=server.url)
    assert model.supports_grammar is False
    model.chat(USER, grammar='root ::= "blue"')
    body = server.requests[0]["body"]
    assert "grammar" not in body and "response_format" not in body


@pytest.mark.parametrize("mode", ["never", "trickle"])
def test_a_stalled_endpoint_ends_at_the_overall_deadline_retries_included(
    server: FakeServer, mode: str
) -> None:
    """An endpoint that never answers, or sends a byte every 0.2 s (the issue's byte every 20 s, scaled),
    ends at the deadline of the whole call, not after 3 x the timeout or never."""
    server.mode = mode
    model = OpenAIModel("fake-model", base_url=server.url, timeout=1.0, max_retries=2)
    start = time.monotonic()
    with pytest.raises(LLMError, match="timed out: no reply within the 1 s deadline") as err:
        model.chat(USER)
    assert time.monotonic() - start < 2.0
    assert server.url in str(err.value) and "\n" not in str(err.value)


def test_ask_with_a_stalled_endpoint_is_a_one_line_error(
    server: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from synergai.cli.main import main
    from synergai.scene.model import ObjectKind, SceneGraph, SceneObject
    from synergai.scene.store import SceneStore

    server.mode = "trickle"
    db = tmp_path / "s.sqlite3"
    floor = SceneObject("0", "floor", (2.0, 2.0, -0.05), (4.0, 4.0, 0.1), kind=ObjectKind.FLOOR)
    with SceneStore(db) as s:
        s.register(SceneGraph("room", [floor], []), {"builder": "test"})
    start = time.monotonic()
    code = main(["ask", "What is here?", "--scene", "room", "--db", str(db), "--llm", "openai:fake-model",
                 "--base-url", server.url, "--timeout", "1", "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2 and time.monotonic() - start < 3.0
    assert len(err.strip().splitlines()) == 1 and server.url in err and "deadline" in err
