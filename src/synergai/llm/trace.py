"""A log of every model call: one JSON line per call, written by a wrapper around any chat model.

``synergai ... --trace FILE.jsonl`` (or ``SYNERGAI_TRACE``) wraps the command's model in
:class:`TracedModel`. Each line holds the turn it belongs to (the loops mark where a turn begins with
:func:`begin_turn`), the step within the turn, the messages (a system prompt already written to the file
by this process is replaced by a reference to it), the name of the JSON schema or GBNF grammar that
constrained the reply (its text written once, the first time), the reply, the finish reason, the tokens,
the seconds and whether the reply came from the cache. A call that fails is written too, with its error.
The file is only ever appended to, on this machine; nothing is sent anywhere. Off by default.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from synergai.llm.base import ChatModel, ChatReply, supports_grammar

#: The version of the line format (``trace show`` reads lines without one as far as it can).
TRACE_VERSION = 1
#: Environment variable naming the trace file when ``--trace`` is not given.
TRACE_ENV = "SYNERGAI_TRACE"


def check_trace_path(path: Path) -> None:
    """Raise a one-line ValueError when ``path`` cannot be appended to (before any model call)."""
    if path.is_dir():
        raise ValueError(f"cannot write the trace file {path}: it is a directory")
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise ValueError(f"cannot write the trace file {path}: {exc.strerror or exc}") from None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def _last_turn(path: Path) -> int:
    """The highest turn number the file holds already (0 for a new or unreadable file)."""
    last = 0
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    turn = json.loads(line).get("turn")
                except (ValueError, AttributeError):
                    continue
                if isinstance(turn, int):
                    last = max(last, turn)
    except OSError:
        return 0
    return last


def _ends_a_line(path: Path) -> bool:
    """Whether the file's last byte is a newline."""
    with path.open("rb") as f:
        f.seek(-1, 2)
        return f.read(1) == b"\n"


@dataclass
class _Turn:
    number: int
    label: str
    steps: int = 0


class TraceLog:
    """An append-only JSON Lines file of model calls, shared by every model of a process (thread-safe;
    each thread has its own current turn, as the GUI runs turns in worker threads)."""

    def __init__(self, path: Path) -> None:
        check_trace_path(path)
        self.path = path
        self._lock = threading.RLock()
        self._turns = _last_turn(path)
        self._local = threading.local()
        self._written: set[str] = set()  # system prompts, schemas and grammars already in the file
        self._file: IO[str] = path.open("a", encoding="utf-8")
        if self._file.tell() and not _ends_a_line(path):
            self._file.write("\n")  # a cut-off last line stays one line of its own

    def begin_turn(self, label: str) -> int:
        """Start a new turn in the calling thread (``label``: the question or task); its number."""
        with self._lock:
            self._turns += 1
            self._local.turn = _Turn(self._turns, label)
            return self._turns

    def _current(self) -> _Turn:
        turn = getattr(self._local, "turn", None)
        if turn is None:
            self.begin_turn("")
            turn = self._local.turn
        return turn

    def _once(self, kind: str, text: str) -> tuple[str, bool]:
        """A name for a text (system prompt, schema, grammar) and whether this is its first line."""
        name = f"{kind}-{_digest(text)}"
        first = name not in self._written
        self._written.add(name)
        return name, first

    def write(self, messages: Sequence[Mapping[str, str]], request: Mapping[str, Any],
              reply: ChatReply | None, seconds: float, error: str = "") -> None:
        """Append one call's line."""
        with self._lock:
            turn = self._current()
            turn.steps += 1
            line: dict[str, Any] = {"v": TRACE_VERSION, "turn": turn.number, "step": turn.steps,
                                    "question": turn.label, "time": round(time.time(), 3),
                                    "messages": [self._message(m) for m in messages]}
            for kind in ("schema", "grammar"):
                body = request.get(kind)
                if body is not None:
                    text = body if isinstance(body, str) else json.dumps(body, sort_keys=True)
                    line[kind], first = self._once(kind, text)
                    if first:
                        line[f"{kind}_text"] = text
            line.update({k: request[k] for k in ("max_tokens", "temperature") if k in request})
            if reply is not None:
                line.update(reply=reply.text, finish_reason=reply.finish_reason, model=reply.model,
                            prompt_tokens=reply.prompt_tokens, cached_tokens=reply.cached_tokens,
                            completion_tokens=reply.completion_tokens, cache_hit=reply.cached,
                            model_seconds=round(reply.seconds, 3))
            if error:
                line["error"] = error
            line["seconds"] = round(seconds, 3)
            self._file.write(json.dumps(line, ensure_ascii=False).encode("utf-8", "surrogatepass")
                             .decode("utf-8", "replace") + "\n")
            self._file.flush()

    def _message(self, message: Mapping[str, str]) -> dict[str, str]:
        role, content = str(message.get("role", "")), str(message.get("content", ""))
        if role != "system":
            return {"role": role, "content": content}
        name, first = self._once("system", content)
        return {"role": role, "content": content, "ref": name} if first else {"role": role, "ref": name}

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._file.close()


class TracedModel:
    """A chat model that writes every call to a :class:`TraceLog` (the replies are the inner model's)."""

    def __init__(self, inner: ChatModel, log: TraceLog) -> None:
        self.inner = inner
        self.name = inner.name
        self.log = log

    @property
    def supports_grammar(self) -> bool:
        """The inner model's capability."""
        return supports_grammar(self.inner)

    def begin_turn(self, label: str) -> None:
        """A new turn begins (see :func:`begin_turn`)."""
        self.log.begin_turn(label)

    def chat(self, messages: Sequence[Mapping[str, str]], **kwargs: Any) -> ChatReply:
        """Delegate, then write the call (a failed call too, and re-raise)."""
        request = {"schema": kwargs.get("json_schema"), "grammar": kwargs.get("grammar"),
                   "max_tokens": kwargs.get("max_tokens"), "temperature": kwargs.get("temperature", 0.0)}
        start = time.perf_counter()
        try:
            reply = self.inner.chat(messages, **kwargs)
        except Exception as exc:
            self.log.write(messages, request, None, time.perf_counter() - start, error=str(exc) or repr(exc))
            raise
        self.log.write(messages, request, reply, time.perf_counter() - start)
        return reply

    def count_tokens(self, text: str) -> int:
        """As the inner model counts."""
        return self.inner.count_tokens(text)


def begin_turn(model: object, label: str) -> None:
    """Tell a model that a new turn (one question, one task) begins: a :class:`TracedModel`, or a wrapper
    that passes it on, starts a new turn in its log; any other model ignores it."""
    hook = getattr(model, "begin_turn", None)
    if callable(hook):
        hook(label)
