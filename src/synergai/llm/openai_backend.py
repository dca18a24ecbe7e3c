"""Any OpenAI-compatible chat endpoint (OpenAI itself, vLLM, llama.cpp server, Ollama, ...) via the SDK.

A JSON schema goes out as ``response_format={"type": "json_schema", ...}`` with ``strict: true``, so an
endpoint that enforces schemas cannot send a reply outside it (eg. an edit tool on a question). An
endpoint that rejects that (HTTP 400/422) is asked again with ``strict: false``, then with
``{"type": "json_object"}`` plus a final system message carrying the schema; the fallback is remembered.
An error saying the context is full is a :class:`ContextFullError`. Every failure is an LLMError.
One call has an overall deadline (``timeout``, default :data:`DEFAULT_TIMEOUT_S`): retries, adapted
requests and a server that trickles its reply a byte at a time all count against it; when it passes, the
call ends with a one-line error naming the endpoint (the request is abandoned and its connection closed).
A GBNF ``grammar`` is accepted and not sent (``supports_grammar`` is False): it is no OpenAI field and a
remote server may reject the request for it.
"""

from __future__ import annotations

import base64
import json
import math
import os
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import openai

from synergai.llm.base import (
    ChatReply,
    ContextFullError,
    LLMError,
    approx_tokens,
    check_request,
    prompt_text,
    says_context_full,
)
from synergai.masking import mask_secrets

DUMMY_KEY = "sk-no-key-required"
#: Default overall deadline of one chat call, retries included (seconds).
DEFAULT_TIMEOUT_S = 120.0


class OpenAIModel:
    """Chat through ``openai.OpenAI`` against ``base_url`` (default: the SDK's, i.e. api.openai.com)."""

    #: Grammars are not sent (see the module doc-string).
    supports_grammar = False

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        max_retries: int = 2,
    ):
        if not isinstance(model, str) or not model.strip():
            raise LLMError("model must be a non-empty model name")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout < math.inf:
            raise LLMError(f"timeout must be a finite number of seconds > 0, got {timeout!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or not 0 <= max_retries <= 10:
            raise LLMError(f"max_retries must be an int in 0..10, got {max_retries!r}")
        key = os.environ.get(api_key_env)
        endpoint = base_url or os.environ.get("OPENAI_BASE_URL")
        if not key:
            if not endpoint:
                raise LLMError(f"no API key: set {api_key_env}, or pass base_url of a local endpoint")
            key = DUMMY_KEY  # local servers usually need no key, the SDK insists on one
        self.model = model
        self.base_url = endpoint
        self.name = f"openai:{model}" if not endpoint else f"openai:{model}@{mask_secrets(endpoint)}"
        self._secrets = (key, endpoint)  # masked in every message, in whatever form a server echoes them
        self.timeout = float(timeout)
        self._client_args: dict[str, Any] = {"api_key": key, "base_url": endpoint, "timeout": self.timeout,
                                             "max_retries": max_retries}
        self._client = openai.OpenAI(**self._client_args)
        self._schema_mode = "strict"  # then "loose" (strict false), then "object" (json_object), as rejected
        self._token_param = "max_tokens"  # becomes max_completion_tokens for endpoints that demand it
        self._lock = threading.Lock()

    def chat(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        json_schema: dict | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: Sequence[str] | None = None,
        grammar: str | None = None,
    ) -> ChatReply:
        """One completion; see the module doc-string for how ``json_schema`` is sent (``grammar`` is not)."""
        clean = check_request(messages, json_schema=json_schema, max_tokens=max_tokens,
                              temperature=temperature, stop=stop, grammar=grammar)
        started = time.perf_counter()
        deadline = time.monotonic() + self.timeout
        mode, token_param = self._schema_mode, self._token_param
        for _attempt in range(4):  # strict -> loose -> json_object, max_tokens -> max_completion_tokens
            kwargs: dict[str, Any] = {
                "model": self.model,
                "messages": clean,
                "temperature": float(temperature),
                token_param: max_tokens,
            }
            if stop:
                kwargs["stop"] = list(stop)
            if json_schema is not None:
                if mode != "object":
                    spec = {"name": _schema_name(json_schema), "schema": json_schema,
                            "strict": mode == "strict"}
                    kwargs["response_format"] = {"type": "json_schema", "json_schema": spec}
                else:
                    kwargs["response_format"] = {"type": "json_object"}
                    kwargs["messages"] = [*clean, _schema_instruction(json_schema)]
            try:
                response = self._create(kwargs, deadline)
            except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
                detail = self._masked(_detail(exc))
                if says_context_full(f"{getattr(exc, 'code', '')} {detail}"):
                    raise ContextFullError(f"{self.name}: {detail}") from exc
                if token_param == "max_tokens" and "max_completion_tokens" in detail:
                    token_param = "max_completion_tokens"
                    continue
                if json_schema is not None and mode != "object":
                    mode = "loose" if mode == "strict" else "object"
                    continue
                raise LLMError(f"{self.name}: request rejected: {detail}") from exc
            except openai.OpenAIError as exc:
                raise self._failure(exc) from exc
            with self._lock:  # remember what this endpoint accepted
                self._token_param = token_param
                if json_schema is not None:
                    self._schema_mode = mode
            return self._reply(response, clean, time.perf_counter() - started)
        raise LLMError(f"{self.name}: request rejected after adapting parameters")  # pragma: no cover

    def describe_image(self, png: bytes, prompt: str, *, max_tokens: int = 16) -> str:
        """The reply to ``prompt`` about a PNG picture, sent as a data URL beside it in one user message
        (for an endpoint with image input); the same deadline and masked one-line errors as :meth:`chat`."""
        url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        content = [{"type": "text", "text": prompt}, {"type": "image_url", "image_url": {"url": url}}]
        kwargs = {"model": self.model, "messages": [{"role": "user", "content": content}],
                  "temperature": 0.0, self._token_param: max_tokens}
        try:
            response = self._create(kwargs, time.monotonic() + self.timeout)
        except openai.OpenAIError as exc:
            raise self._failure(exc) from exc
        try:
            return str(response.choices[0].message.content or "")
        except (AttributeError, IndexError, TypeError) as exc:
            raise LLMError(f"{self.name}: malformed reply: {exc}") from exc

    def _create(self, kwargs: dict[str, Any], deadline: float) -> Any:
        """One ``chat.completions.create`` (with the SDK's retries) that ends by ``deadline`` (monotonic):
        it runs on a worker thread; past the deadline its connection is closed and an LLMError raised."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise self._expired()
        with self._lock:
            client = self._client
        outcome: dict[str, Any] = {}

        def call() -> None:
            try:
                outcome["response"] = client.chat.completions.create(**kwargs, timeout=remaining)
            except BaseException as exc:  # handed to the caller's thread, which handles it
                outcome["error"] = exc

        worker = threading.Thread(target=call, name="synergai-openai-call", daemon=True)
        worker.start()
        worker.join(remaining)
        if worker.is_alive():
            with self._lock:  # later calls get a fresh connection pool; this one is closed under the worker
                if self._client is client:
                    self._client = openai.OpenAI(**self._client_args)
            client.close()
            raise self._expired()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["response"]

    def _failure(self, exc: openai.OpenAIError) -> LLMError:
        """The one-line error for a failed call (HTTP status, deadline, connection, other), secrets masked."""
        if isinstance(exc, openai.APIStatusError):
            return LLMError(f"{self.name}: HTTP {exc.status_code}: {self._masked(_detail(exc))}")
        if isinstance(exc, openai.APITimeoutError):
            return self._expired()
        if isinstance(exc, openai.APIConnectionError):
            return LLMError(f"{self.name}: cannot connect: {self._masked(_cause(exc))}")
        return LLMError(f"{self.name}: {type(exc).__name__}: {self._masked(_detail(exc))}")

    def _masked(self, text: str) -> str:
        """A server's or the network's text with the key and the endpoint's credentials masked (an
        endpoint may echo the key it was sent in its 401 body)."""
        return mask_secrets(text, *self._secrets)

    def _expired(self) -> LLMError:
        return LLMError(f"{self.name}: timed out: no reply within the {self.timeout:g} s deadline (retries "
                        "included; set it with --timeout or the config key timeout)")

    def check(self, timeout: float = 10.0) -> None:
        """Raise a one-line LLMError when the endpoint cannot be reached or refuses us (GET /models)."""
        try:
            self._client.with_options(timeout=timeout, max_retries=0).models.list()
        except openai.APIStatusError as exc:
            if exc.status_code in (404, 405, 501):
                return  # a server without GET /models is still up
            raise LLMError(f"{self.name}: HTTP {exc.status_code}: {self._masked(_detail(exc))}") from exc
        except openai.APITimeoutError as exc:
            raise LLMError(f"{self.name}: timed out after {timeout:.0f} s") from exc
        except openai.APIConnectionError as exc:
            raise LLMError(f"{self.name}: cannot connect: {self._masked(_cause(exc))}") from exc

    def count_tokens(self, text: str) -> int:
        """The documented approximation :func:`synergai.llm.base.approx_tokens` (no tokenizer here)."""
        return approx_tokens(text)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def _reply(self, response: Any, messages: list[dict[str, str]], seconds: float) -> ChatReply:
        try:
            choice = response.choices[0]
            text = choice.message.content or ""
            finish_reason = choice.finish_reason or "stop"
        except (AttributeError, IndexError, TypeError) as exc:
            raise LLMError(f"{self.name}: malformed reply: {exc}") from exc
        usage = getattr(response, "usage", None)
        if usage is not None and usage.prompt_tokens is not None and usage.completion_tokens is not None:
            prompt_tokens, completion_tokens = int(usage.prompt_tokens), int(usage.completion_tokens)
            details = getattr(usage, "prompt_tokens_details", None)
            cached_tokens = int(getattr(details, "cached_tokens", 0) or 0)
        else:  # some compatible servers omit usage: fall back to the approximation
            prompt_tokens, completion_tokens = approx_tokens(prompt_text(messages)), approx_tokens(text)
            cached_tokens = 0
        return ChatReply(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            finish_reason=str(finish_reason),
            model=getattr(response, "model", None) or self.model,
            cached=False,
            seconds=seconds,
            cached_tokens=cached_tokens,
        )


def _schema_name(schema: Mapping[str, Any]) -> str:
    """A name for the schema (OpenAI requires one): its title if it is a plain identifier."""
    title = schema.get("title")
    if isinstance(title, str) and title.replace("_", "").replace("-", "").isalnum() and len(title) <= 64:
        return title
    return "reply"


def _schema_instruction(schema: Mapping[str, Any]) -> dict[str, str]:
    text = "Reply with one JSON object that matches this JSON schema:\n" + json.dumps(schema, sort_keys=True)
    return {"role": "system", "content": text}


def _cause(exc: BaseException) -> str:
    """The innermost reason of a connection failure on one line (eg. "[Errno 111] Connection refused")."""
    inner: BaseException = exc
    while inner.__cause__ is not None or inner.__context__ is not None:
        inner = inner.__cause__ or inner.__context__  # type: ignore[assignment]
    return " ".join(str(inner).split())[:300] or type(inner).__name__


def _detail(exc: openai.OpenAIError) -> str:
    """The server's error message on one line."""
    message: Any = getattr(exc, "message", None) or str(exc)
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and inner.get("message"):
            message = inner["message"]
        elif isinstance(inner, str):
            message = inner
    return " ".join(str(message).split())[:500]
