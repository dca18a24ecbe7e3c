"""A scripted chat model for tests and demos: replays fixed replies in order and records every request.

Script files (:meth:`ScriptedModel.from_file`) come in two forms:

* a JSON list, each item a reply string or an object ``{"text": ..., "finish_reason": ...}``;
* JSON Lines, one item per non-blank line, each a JSON string or such an object.

``finish_reason`` defaults to ``"stop"``; set it to ``"length"`` to simulate a truncated reply.
Replies are never checked against the request's ``json_schema`` or ``grammar``: tests feed broken replies
on purpose. ``supports_grammar`` (default False) lets a test play a backend that enforces grammars; the
grammar sent is recorded either way.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synergai.llm.base import ChatReply, LLMError, ScriptExhausted, approx_tokens, check_request, prompt_text


@dataclass(frozen=True)
class ScriptedRequest:
    """What the scripted model was asked."""

    messages: list[dict[str, str]]
    json_schema: dict | None
    max_tokens: int
    temperature: float
    stop: list[str] | None
    grammar: str | None = None


class ScriptedModel:
    """Replays ``responses`` one per :meth:`chat` call; raises ScriptExhausted when they run out."""

    def __init__(self, responses: Sequence[str | Mapping[str, Any]], name: str = "scripted", *,
                 supports_grammar: bool = False):
        if isinstance(responses, str | bytes) or not isinstance(responses, Sequence):
            raise LLMError("responses must be a sequence of strings or {'text': ...} objects")
        self._script: list[tuple[str, str]] = [_entry(item, index) for index, item in enumerate(responses)]
        self.name = name
        self.supports_grammar = bool(supports_grammar)
        self.requests: list[ScriptedRequest] = []
        self._next = 0
        self._lock = threading.Lock()

    @classmethod
    def from_file(cls, path: str | Path, name: str | None = None) -> ScriptedModel:
        """Load a script from a JSON list or a JSON Lines file (see the module doc-string)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise LLMError(f"cannot read script {path}: {exc.strerror or exc}") from exc
        try:
            whole = json.loads(text)
        except ValueError:
            whole = None
        if isinstance(whole, list):
            items: list[Any] = whole
        else:
            items = []
            for number, line in enumerate(text.splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    items.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise LLMError(f"{path}:{number}: not a JSON value ({exc.msg})") from exc
        return cls(items, name=name or f"scripted:{path.name}")

    @property
    def remaining(self) -> int:
        """Replies not yet played."""
        return len(self._script) - self._next

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
        """Record the request and return the next scripted reply."""
        clean = check_request(messages, json_schema=json_schema, max_tokens=max_tokens,
                              temperature=temperature, stop=stop, grammar=grammar)
        with self._lock:
            stops = list(stop) if stop else None
            self.requests.append(
                ScriptedRequest(clean, json_schema, max_tokens, float(temperature), stops, grammar)
            )
            if self._next >= len(self._script):
                played = len(self._script)
                raise ScriptExhausted(f"{self.name}: script exhausted after {played} replies")
            text, finish_reason = self._script[self._next]
            self._next += 1
            previous = self.requests[-2].messages if len(self.requests) > 1 else []
        return ChatReply(
            text=text,
            prompt_tokens=approx_tokens(prompt_text(clean)),
            completion_tokens=approx_tokens(text),
            finish_reason=finish_reason,
            model=self.name,
            cached_tokens=_shared_prefix_tokens(previous, clean),
        )

    def count_tokens(self, text: str) -> int:
        """The documented approximation :func:`synergai.llm.base.approx_tokens`."""
        return approx_tokens(text)

    def close(self) -> None:
        """Nothing to free."""


def _shared_prefix_tokens(
    previous: Sequence[Mapping[str, str]], messages: Sequence[Mapping[str, str]]
) -> int:
    """Tokens of the leading messages this request shares with the previous one: what a one-slot prefix
    (KV) cache such as llama.cpp's would not process again."""
    shared = 0
    while shared < min(len(previous), len(messages)) and previous[shared] == messages[shared]:
        shared += 1
    return approx_tokens(prompt_text(messages[:shared])) if shared else 0


def _entry(item: Any, index: int) -> tuple[str, str]:
    """(text, finish_reason) of one script item."""
    if isinstance(item, str):
        return item, "stop"
    if isinstance(item, Mapping) and isinstance(item.get("text"), str):
        finish_reason = item.get("finish_reason", "stop")
        if not isinstance(finish_reason, str) or not finish_reason:
            raise LLMError(f"script item {index}: finish_reason must be a non-empty string")
        return item["text"], finish_reason
    raise LLMError(f"script item {index} must be a string or an object with a string 'text'")
