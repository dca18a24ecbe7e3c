"""The embedded local model: a GGUF file run in-process by xllamacpp (llama.cpp's server, no HTTP hop).

One model per instance, loaded lazily on first use; calls are serialised by a lock, so many threads may
share it. Requests are sent exactly as the caller built them (nothing is injected before the messages),
so llama.cpp reuses the KV cache of a shared prefix: keep system prompts stable between calls.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import platformdirs

from synergai.llm.base import ChatReply, ContextFullError, LLMError, check_request, says_context_full
from synergai.llm.cache import cache_key
from synergai.llm.weights import ENV_VAR, QWEN_CODER_1_5B, REQUIREMENTS_HINT, Progress, locate_gguf

_HOST_CACHE_MIB = 1024  # llama.cpp's host-RAM prompt cache (its default, 8 GiB, is too much for a laptop)
_TOKENIZE_TIMEOUT_S = 30.0
_KV_KEEP = 6  # system prompts whose KV cache stays on disk
_GRAMMARS_KEPT = 256  # checked schemas remembered by one model
LOAD_STAGE = "loading the model into memory (once per process)"
PROMPT_STAGE = ("processing the instructions the model reads first (once per prompt: the result is saved "
                "on disk, so later runs skip this)")
THREADS_ENV = "SYNERGAI_THREADS"  # CPU threads for the model (default: all cores)


def compact_json_grammar(schema: Mapping[str, Any]) -> str:
    """The llguidance grammar of JSON under ``schema`` with no whitespace between tokens: the model's own
    pretty-printing (newlines, indents, spaces) took about half the tokens of its JSON replies."""
    compact = {**schema, "x-guidance": {"whitespace_flexible": False}}
    return f"%llguidance {{}}\nstart: %json {json.dumps(compact)}"


def check_json_schema(schema: Mapping[str, Any]) -> None:
    """LLMError unless ``schema`` is a JSON schema (llama.cpp drops a grammar it cannot read and generates
    unconstrained text)."""
    from jsonschema import Draft202012Validator, SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise LLMError(f"invalid JSON schema: {_one_line(exc.message)}") from None


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


class EmbeddedModel:
    """Chat with a local GGUF model through xllamacpp (greedy at temperature 0, seeded above it)."""

    #: How JSON replies are written (part of the response cache's key: other writers, other replies).
    json_format = "compact"

    #: llama.cpp enforces GBNF grammars (``chat(..., grammar=...)``).
    supports_grammar = True

    def __init__(self, gguf_path: str | Path | None = None, n_ctx: int = 8192, threads: int | None = None,
                 prefix_cache: str | Path | bool | None = True, progress: Progress | None = None,
                 seed: int = 0):
        if isinstance(n_ctx, bool) or not isinstance(n_ctx, int) or n_ctx < 256:
            raise LLMError(f"n_ctx must be an int >= 256, got {n_ctx!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32 - 1:
            raise LLMError(f"seed must be an int in 0..2**32-2, got {seed!r}")
        if threads is None:
            env = os.environ.get(THREADS_ENV, "").strip()
            try:
                threads = int(env) if env else (os.cpu_count() or 1)
            except ValueError:
                raise LLMError(f"{THREADS_ENV} must be a positive int, got {env!r}") from None
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise LLMError(f"threads must be a positive int, got {threads!r}")
        self._gguf_path = Path(gguf_path).expanduser() if gguf_path is not None else None
        if self._gguf_path is not None and not self._gguf_path.is_file():
            raise LLMError(f"GGUF file {self._gguf_path} does not exist")
        self.n_ctx = n_ctx
        self.threads = threads
        #: Seed of the sampled (temperature > 0) replies: a request sampled for the n-th time in this
        #: process gets ``seed + n - 1``, so a benchmark run that samples (program mode's repair after a
        #: repeated program) reproduces, and asking the same again still draws a new reply.
        self.seed = seed
        self._sampled: dict[str, int] = {}  # request (llm.cache.cache_key) -> times sampled
        self.name = _model_name(self._gguf_path)
        self.load_seconds: float | None = None
        #: Hears of the slow first-time stages (assembly, loading, prompt processing); see weights.Progress.
        self.progress = progress
        self.last_timings: Mapping[str, Any] | None = None
        self._server: Any = None
        self._api_key = secrets.token_hex(16)
        self._lock = threading.Lock()
        self._closed = False
        if prefix_cache is True:
            prefix_cache = Path(platformdirs.user_cache_dir("synergai")) / "kv"
        self._kv_dir = Path(prefix_cache) if prefix_cache else None
        self._kv_done: set[str] = set()  # system prompts restored or saved in this process
        self._valid_grammars: set[str] = set()  # schemas already checked (check_json_schema)

    @property
    def loaded(self) -> bool:
        """Whether the weights are in memory."""
        return self._server is not None

    def load(self) -> None:
        """Load the model now (otherwise the first call does); assembles the default weights if needed."""
        with self._lock:
            self._ensure_server()

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
        """One chat completion; ``json_schema`` becomes a grammar constraint (valid syntax, not an end);
        ``grammar`` (GBNF) goes out as the request's ``grammar`` field, which llama.cpp's chat completions
        accept in place of a schema."""
        clean = check_request(messages, json_schema=json_schema, max_tokens=max_tokens,
                              temperature=temperature, stop=stop, grammar=grammar)
        request: dict[str, Any] = {
            "messages": clean,
            "max_tokens": max_tokens,
            "temperature": float(temperature),
            "cache_prompt": True,
        }
        if stop:
            request["stop"] = list(stop)
        if json_schema is not None:  # never with a grammar (check_request)
            request["grammar"] = compact_json_grammar(json_schema)
            if request["grammar"] not in self._valid_grammars:
                check_json_schema(json_schema)
                if len(self._valid_grammars) >= _GRAMMARS_KEPT:
                    self._valid_grammars.clear()
                self._valid_grammars.add(request["grammar"])
        if grammar is not None:
            request["grammar"] = grammar
        if temperature == 0:
            request["top_k"] = 1
        with self._lock:
            if temperature != 0:
                key = cache_key(self.name, clean, json_schema, max_tokens, stop, grammar)
                request["seed"] = self.draw_seed(key)
                self.skip_draw(key)
                # a prompt continued from whatever the slot held earlier sums in another order: a sampled
                # reply is drawn after processing its whole prompt, so one seed gives one reply in any state
                request["cache_prompt"] = False
            server = self._ensure_server()
            started = time.perf_counter()
            slot = self._kv_file(clean)
            if slot is not None and not self._kv_restore(slot):
                self._tell(PROMPT_STAGE)
                self._kv_warm(server, clean[0])
                self._kv_save(slot)
            try:
                raw = server.handle_chat_completions(request)
            except (ValueError, RuntimeError) as exc:
                raise LLMError(f"{self.name}: {_one_line(exc)}") from exc
            reply = self._reply(raw, time.perf_counter() - started)
        if json_schema is not None and reply.finish_reason == "stop" and not _is_json(reply.text):
            raise LLMError(f"{self.name}: the reply ignored the JSON schema's grammar")
        return reply

    def draw_seed(self, key: str) -> int:
        """The seed of the next sampled reply to the request ``key`` (:func:`synergai.llm.cache.cache_key`
        of this model's name and the request, without ``json_format``)."""
        return (self.seed + self._sampled.get(key, 0)) % (2**32 - 1)

    def skip_draw(self, key: str) -> None:
        """Count a sampled reply to ``key`` as drawn (a reply cache served it): the next is drawn anew."""
        self._sampled[key] = self._sampled.get(key, 0) + 1

    # ----- the KV cache of a system prompt, kept on disk so a new process skips its prompt processing
    def _kv_file(self, messages: Sequence[Mapping[str, str]]) -> str | None:
        """The slot file name for this request's system prompt, if it was not handled in this process."""
        if self._kv_dir is None or not messages or messages[0]["role"] != "system":
            return None
        # the thread count changes the arithmetic's order, so a slot computed on other threads would give
        # other greedy replies than a fresh prompt processing: it is part of the key
        spec = f"{self.name}|{self.n_ctx}|{self.threads}|{messages[0]['content']}"
        key = hashlib.sha256(spec.encode()).hexdigest()[:24]
        return None if key in self._kv_done else key

    def _slot_action(self, action: str, key: str) -> bool:
        address = self._server.listening_address
        body = json.dumps({"filename": f"{key}.bin"}).encode("utf-8")
        request = urllib.request.Request(
            f"{address}/slots/0?action={action}", data=body,
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self._api_key}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=_TOKENIZE_TIMEOUT_S) as response:
                return response.status == 200
        except (OSError, urllib.error.URLError):
            return False  # a missing or unreadable file only costs the prompt processing

    def _kv_warm(self, server: Any, system: Mapping[str, str]) -> None:
        """Process the system prompt alone, so the slot saved holds it and nothing of the first request.

        A request then meets the same cached prefix whether the slot was just computed or restored from
        disk, so greedy output does not depend on what the cache directory held.
        """
        warm = {"messages": [dict(system), {"role": "user", "content": ""}], "max_tokens": 1,
                "temperature": 0.0, "top_k": 1, "cache_prompt": True}
        try:
            server.handle_chat_completions(warm)
        except (ValueError, RuntimeError) as exc:
            raise LLMError(f"{self.name}: {_one_line(exc)}") from exc

    def _kv_restore(self, key: str) -> bool:
        self._kv_done.add(key)
        assert self._kv_dir is not None
        return (self._kv_dir / f"{key}.bin").is_file() and self._slot_action("restore", key)

    def _kv_save(self, key: str) -> None:
        """Save the slot, keeping only the most recent ``_KV_KEEP`` files (each is tens of MB)."""
        self._kv_done.add(key)
        if self._slot_action("save", key):
            assert self._kv_dir is not None
            files = sorted(self._kv_dir.glob("*.bin"), key=lambda f: f.stat().st_mtime, reverse=True)
            for old in files[_KV_KEEP:]:
                old.unlink(missing_ok=True)

    def count_tokens(self, text: str) -> int:
        """Exact token count with the model's own tokenizer (llama.cpp's ``/tokenize``, no special tokens)."""
        if not isinstance(text, str):
            raise LLMError(f"count_tokens needs a str, got {type(text).__name__}")
        if not text:
            return 0
        with self._lock:
            address = self._ensure_server().listening_address
        body = json.dumps({"content": text, "add_special": False}).encode("utf-8")
        request = urllib.request.Request(
            f"{address}/tokenize",
            data=body,
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self._api_key}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=_TOKENIZE_TIMEOUT_S) as response:
                tokens = json.loads(response.read())["tokens"]
        except (OSError, ValueError, KeyError, urllib.error.URLError) as exc:
            raise LLMError(f"{self.name}: tokenize failed: {_one_line(exc)}") from exc
        return len(tokens)

    def close(self) -> None:
        """Free the model; a later call raises LLMError."""
        with self._lock:
            self._server = None
            self._closed = True

    def __enter__(self) -> EmbeddedModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def check(self) -> None:
        """Raise a one-line LLMError now when the model could not load: xllamacpp missing, no weights."""
        try:
            import xllamacpp  # noqa: F401 - only whether it imports
        except ImportError as exc:
            raise LLMError(f"xllamacpp is not installed: run `{REQUIREMENTS_HINT}`") from exc
        if self._gguf_path is None:
            locate_gguf(progress=self.progress)  # assembles the weights the first time

    def _ensure_server(self) -> Any:
        """The xllamacpp server, built on first use (caller holds the lock)."""
        if self._closed:
            raise LLMError(f"{self.name}: model is closed")
        if self._server is not None:
            return self._server
        try:
            import xllamacpp
        except ImportError as exc:
            raise LLMError(f"xllamacpp is not installed: run `{REQUIREMENTS_HINT}`") from exc
        path = self._gguf_path if self._gguf_path is not None else locate_gguf(progress=self.progress)
        self._tell(LOAD_STAGE)
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = self.n_ctx
        params.n_parallel = 1
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.threads
        params.cache_ram_mib = _HOST_CACHE_MIB
        params.api_keys = [self._api_key]  # the HTTP side listens on 127.0.0.1: keep other processes out
        params.verbosity = -1
        if self._kv_dir is not None:
            self._kv_dir.mkdir(parents=True, exist_ok=True)
            params.slot_save_path = f"{self._kv_dir}{os.sep}"
        started = time.perf_counter()
        try:
            self._server = xllamacpp.Server(params)
        except (ValueError, RuntimeError) as exc:
            raise LLMError(f"cannot load {path}: {_one_line(exc)}") from exc
        self.load_seconds = time.perf_counter() - started
        return self._server

    def _tell(self, stage: str) -> None:
        if self.progress is not None:
            self.progress(stage, 0, 0)

    def _reply(self, raw: Any, seconds: float) -> ChatReply:
        """Turn llama.cpp's OpenAI-style dict into a ChatReply (LLMError on an error dict)."""
        if not isinstance(raw, Mapping):
            raise LLMError(f"{self.name}: unexpected reply of type {type(raw).__name__}")
        if "error" in raw:
            error = raw["error"]
            message = error.get("message", error) if isinstance(error, Mapping) else error
            kind = error.get("type", "") if isinstance(error, Mapping) else ""
            full = says_context_full(f"{kind} {message}")
            raise (ContextFullError if full else LLMError)(f"{self.name}: {_one_line(message)}")
        try:
            choice = raw["choices"][0]
            text = choice["message"].get("content") or ""
            usage = raw["usage"]
            timings = raw.get("timings") or {}
            details = usage.get("prompt_tokens_details") or {}
            cached = timings.get("cache_n", details.get("cached_tokens", 0)) or 0
            reply = ChatReply(
                text=text,
                prompt_tokens=int(usage["prompt_tokens"]),
                completion_tokens=int(usage["completion_tokens"]),
                finish_reason=str(choice.get("finish_reason") or "stop"),
                model=self.name,
                cached=False,
                seconds=seconds,
                cached_tokens=int(cached),
            )
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            raise LLMError(f"{self.name}: malformed reply: {_one_line(exc)}") from exc
        self.last_timings = dict(raw.get("timings") or {})
        return reply


def _model_name(gguf_path: Path | None) -> str:
    """The model's name: the GGUF file name without extension (it keys the response cache)."""
    if gguf_path is None:
        override = os.environ.get(ENV_VAR)
        gguf_path = Path(override) if override else Path(QWEN_CODER_1_5B.filename)
    return gguf_path.name.removesuffix(".gguf")


def _one_line(value: object) -> str:
    return " ".join(str(value).split())
