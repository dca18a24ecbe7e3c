"""An on-disk response cache in front of any chat model, used only for deterministic calls: greedy
(temperature 0) ones, and sampled ones of a model that draws with a known seed (``draw_seed``).

Key: sha256 of the canonical JSON of (model name, messages, schema, max_tokens, stop and, when one is sent,
the grammar); a sampled reply's key adds the temperature and the seed. Value: the reply as
a JSON file ``<dir>/<key[:2]>/<key>.json``, written atomically. A hit comes back with ``cached=True`` and
``seconds`` set to the lookup time; an unreadable entry counts as a miss and is overwritten.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import platformdirs

from synergai.llm.base import (
    ChatModel,
    ChatReply,
    LLMError,
    check_request,
    supports_grammar,
    wrapped_attribute,
)


def default_cache_dir() -> Path:
    """``<user cache>/synergai/responses``."""
    return Path(platformdirs.user_cache_dir("synergai")) / "responses"


def cache_key(
    model: str,
    messages: Sequence[Mapping[str, str]],
    json_schema: dict | None,
    max_tokens: int,
    stop: Sequence[str] | None,
    grammar: str | None = None,
    json_format: str | None = None,
) -> str:
    """Hex sha256 identifying one deterministic request (a request without a grammar or a model's own
    ``json_format`` keeps the key it had before those existed)."""
    record: dict[str, Any] = {
        "model": model,
        "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
        "schema": json_schema,
        "max_tokens": max_tokens,
        "stop": list(stop) if stop else None,
    }
    if grammar is not None:
        record["grammar"] = grammar
    if json_format is not None and json_schema is not None:
        record["json_format"] = json_format
    try:
        canonical = json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise LLMError(f"request is not JSON-serialisable, cannot cache it: {exc}") from exc
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def json_format(model: object) -> str | None:
    """How ``model`` (or the model it wraps) writes JSON replies, when it says (e.g. "compact")."""
    found = wrapped_attribute(model, "json_format")
    return found if isinstance(found, str) else None


class CachedModel:
    """Wraps ``inner``; temperature-0 replies are stored on disk and replayed with ``cached=True``."""

    def __init__(self, inner: ChatModel, cache_dir: str | Path | None = None):
        self.inner = inner
        self.name = inner.name
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.hits = 0
        self.misses = 0
        self._draws = threading.Lock()

    @property
    def supports_grammar(self) -> bool:
        """The inner model's capability."""
        return supports_grammar(self.inner)

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
        """A stored reply for this exact request, or the inner model's (then stored)."""
        clean = check_request(messages, json_schema=json_schema, max_tokens=max_tokens,
                              temperature=temperature, stop=stop, grammar=grammar)
        draws = _seeded_draws(self.inner) if temperature != 0 else None
        # a sampled request's key names its draw: the draw is counted and taken under one lock, so that
        # threads sampling the same request store each reply under the draw that made it
        with self._draws if draws is not None else contextlib.nullcontext():
            return self._chat(clean, json_schema, max_tokens, float(temperature), stop, grammar, draws)

    def _chat(self, clean: list[dict[str, str]], json_schema: dict | None, max_tokens: int,
              temperature: float, stop: Sequence[str] | None, grammar: str | None,
              draws: tuple[Callable[[str], int], Callable[[str], None]] | None) -> ChatReply:
        extra: dict[str, Any] = {"grammar": grammar} if grammar is not None else {}
        if temperature != 0 and draws is None:  # sampled without a known seed: never stored
            return self.inner.chat(clean, json_schema=json_schema, max_tokens=max_tokens,
                                   temperature=temperature, stop=stop, **extra)
        started = time.perf_counter()
        key = cache_key(self.name, clean, json_schema, max_tokens, stop, grammar, json_format(self.inner))
        if draws is not None:  # the request's next draw: its key names the temperature and the seed
            request = cache_key(self.name, clean, json_schema, max_tokens, stop, grammar)
            key = hashlib.sha256(f"{key}|{temperature!r}|{draws[0](request)}".encode()).hexdigest()
        path = self.path_for(key)
        stored = _read(path)
        if stored is not None:
            self.hits += 1
            if draws is not None:
                draws[1](request)
            return replace(stored, cached=True, seconds=time.perf_counter() - started)
        self.misses += 1
        reply = self.inner.chat(clean, json_schema=json_schema, max_tokens=max_tokens,
                                temperature=temperature, stop=stop, **extra)
        _write(path, replace(reply, cached=False).to_dict())
        return reply

    def path_for(self, key: str) -> Path:
        """Where the entry for ``key`` lives."""
        return self.cache_dir / key[:2] / f"{key}.json"

    def count_tokens(self, text: str) -> int:
        """The inner model's count."""
        return self.inner.count_tokens(text)

    def close(self) -> None:
        """Close the inner model if it can be closed."""
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()


def _seeded_draws(model: object) -> tuple[Callable[[str], int], Callable[[str], None]] | None:
    """``(draw_seed, skip_draw)`` of a model that samples with a known seed per draw of a request (the
    embedded model), so that its sampled replies can be stored; None for any other."""
    seed, skip = (wrapped_attribute(model, name, callable) for name in ("draw_seed", "skip_draw"))
    return (seed, skip) if seed is not None and skip is not None else None


def _read(path: Path) -> ChatReply | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return ChatReply.from_dict(data) if isinstance(data, dict) else None
    except (OSError, ValueError, LLMError):
        return None


def _write(path: Path, record: dict[str, Any]) -> None:
    """Write ``record`` as JSON via a temp file and an atomic rename (a failure warns and loses the entry)."""
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem[:16]}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(record, out, ensure_ascii=False)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        warnings.warn(f"cannot write cache entry {path}: {exc.strerror or exc}", RuntimeWarning, stacklevel=3)
