"""A log of every model call: one JSON line per call, written by a wrapper around any chat model.

``synergai ... --trace FILE.jsonl`` (or ``SYNERGAI_TRACE``) wraps the command's model in
:class:`TracedModel`. Each line holds the process's run id and the turn it belongs to (the loops mark
where a turn begins with :func:`begin_turn`), the step within the turn, the messages (a system prompt
already written to the file by this process is replaced by a reference to it), the name of the JSON
schema or GBNF grammar that constrained the reply (its text written once, the first time), the reply,
the finish reason, the tokens, the seconds and whether the reply came from the cache. A call that fails
is written too, with its error. The file is only ever appended to, on this machine; nothing is sent
anywhere; credentials are masked (:func:`synergai.masking.mask_secrets`). Off by default.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import stat
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synergai.llm.base import ChatModel, ChatReply, supports_grammar
from synergai.masking import mask_secrets

log = logging.getLogger(__name__)

#: The version of the line format (``trace show`` reads lines without one as far as it can).
TRACE_VERSION = 1
#: Environment variable naming the trace file when ``--trace`` is not given.
TRACE_ENV = "SYNERGAI_TRACE"


def check_trace_path(path: Path) -> None:
    """Raise a one-line ValueError when ``path`` cannot be appended to (before any model call): a trace
    file is a regular file or a new one, never a directory, pipe, FIFO or device."""
    os.close(_open_append(path))


def _open_append(path: Path) -> int:
    """A descriptor appending to ``path`` (created if missing), which must be a regular file. The open
    never waits (a FIFO without a reader is refused, not waited on) and nothing is read from the file."""
    if path.is_dir():
        raise ValueError(f"cannot write the trace file {path}: it is a directory")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads
            raise ValueError(_NOT_REGULAR.format(path=path)) from None
        raise ValueError(f"cannot write the trace file {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(_NOT_REGULAR.format(path=path))
    return fd


_NOT_REGULAR = ("cannot write the trace file {path}: it is not a regular file (a pipe, FIFO or device); "
                "give the path of a file")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def _ends_a_line(path: Path, size: int) -> bool:
    """Whether the file (``size`` bytes) is empty or its last byte is a newline (one byte read)."""
    if size == 0:
        return True
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return True
    try:
        return os.pread(fd, 1, size - 1) == b"\n"
    except OSError:
        return True
    finally:
        os.close(fd)


def _append(fd: int, data: bytes) -> None:
    """Append ``data`` as one piece: under an exclusive lock on the file, so that the lines of two
    processes tracing into one file never interleave inside a line."""
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _masked(value: Any, field: str = "") -> Any:
    """A line's value with secrets masked: an error or a label entirely, a prompt or a reply only where
    it holds a known secret (an API key, a store URL's password; ``key=`` is a program's text there)."""
    if isinstance(value, str):
        return mask_secrets(value, only_known=field not in ("error", "question", "model"))
    if isinstance(value, list):
        return [_masked(v, field) for v in value]
    if isinstance(value, dict):
        return {k: _masked(v, field if field else k) for k, v in value.items()}
    return value


@dataclass
class _Turn:
    number: int
    label: str
    steps: int = 0


class TraceLog:
    """An append-only JSON Lines file of model calls, shared by every model of a process (thread-safe;
    each thread has its own current turn, as the GUI runs turns in worker threads).

    Each process writes under its own ``run`` id and numbers its turns from 1, so processes tracing into
    one file never share a turn (``trace show`` tells the runs apart); the file is never read. A line
    that cannot be written (a full disk) is reported once as a warning naming the file, and the calls
    after it are not traced: the command itself goes on (a correction still lands in the store)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.run = uuid.uuid4().hex[:12]
        self.failed = ""  # why the trace stopped (empty while it is written)
        self._lock = threading.RLock()
        self._turns = 0
        self._local = threading.local()
        self._written: set[str] = set()  # system prompts, schemas and grammars already in the file
        self._fd: int | None = _open_append(path)
        # a cut-off last line stays one line of its own
        self._cut = not _ends_a_line(path, os.fstat(self._fd).st_size)

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
        """Append one call's line (a write that fails is reported once and never raised)."""
        with self._lock:
            if self._fd is None:
                return
            turn = self._current()
            turn.steps += 1
            line: dict[str, Any] = {"v": TRACE_VERSION, "run": self.run, "turn": turn.number,
                                    "step": turn.steps, "question": turn.label, "time": round(time.time(), 3),
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
            text = json.dumps(_masked(line), ensure_ascii=False) + "\n"
            self._put(("\n" if self._cut else "") + text)

    def _put(self, text: str) -> None:
        """Append a line; on failure close the file and warn once (one line naming the file)."""
        assert self._fd is not None
        try:
            _append(self._fd, text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode())
            self._cut = False
        except OSError as exc:
            self.failed = f"cannot write the trace file {self.path}: {exc.strerror or exc}"
            log.warning("%s; the model calls after this one are not traced", self.failed)
            self.close()

    def _message(self, message: Mapping[str, str]) -> dict[str, str]:
        role, content = str(message.get("role", "")), str(message.get("content", ""))
        if role != "system":
            return {"role": role, "content": content}
        name, first = self._once("system", content)
        return {"role": role, "content": content, "ref": name} if first else {"role": role, "ref": name}

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


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
