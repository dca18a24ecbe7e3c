"""synergai.llm: one small chat-model interface and its backends (embedded GGUF, OpenAI-compatible,
scripted replay), an on-disk response cache and constrained JSON output. Knows nothing about scenes.
"""

from __future__ import annotations

from pathlib import Path

from synergai.llm.base import (
    ChatModel,
    ChatReply,
    ContextFullError,
    LLMError,
    ScriptExhausted,
    approx_tokens,
    wrapped_attribute,
)
from synergai.llm.cache import CachedModel, default_cache_dir
from synergai.llm.embedded import EmbeddedModel
from synergai.llm.scripted import ScriptedModel, ScriptedRequest
from synergai.llm.weights import locate_gguf

SPEC_FORMS = "'embedded', 'openai:MODEL' (with base_url for a local endpoint), 'scripted:FILE'"

__all__ = [
    "SPEC_FORMS",
    "CachedModel",
    "ChatModel",
    "ChatReply",
    "ContextFullError",
    "EmbeddedModel",
    "LLMError",
    "ScriptExhausted",
    "ScriptedModel",
    "ScriptedRequest",
    "approx_tokens",
    "check_model",
    "locate_gguf",
    "make_model",
]


def make_model(
    spec: str = "embedded", *, base_url: str | None = None, cache: bool | Path = False,
    threads: int | None = None, timeout: float | None = None,
) -> ChatModel:
    """Build a chat model from a spec string; ``cache`` True uses the default cache dir, a Path that dir;
    ``threads`` sets the embedded model's CPU threads (an error for the other kinds); ``timeout`` is the
    overall deadline of one call to an ``openai:`` endpoint (seconds; the other kinds have no endpoint)."""
    if not isinstance(spec, str):
        raise LLMError(f"model spec must be a string, one of {SPEC_FORMS}")
    kind, sep, arg = spec.strip().partition(":")
    model: ChatModel
    if kind == "embedded" and not sep:
        _no_base_url(base_url, kind)
        model = EmbeddedModel(threads=threads)
    elif threads is not None:
        raise LLMError(f"threads applies only to 'embedded', not to {kind!r}")
    elif kind == "openai" and arg.strip():
        from synergai.llm.openai_backend import OpenAIModel  # the SDK takes ~0.8 s to import

        model = (OpenAIModel(arg.strip(), base_url=base_url) if timeout is None
                 else OpenAIModel(arg.strip(), base_url=base_url, timeout=timeout))
    elif kind == "scripted" and arg.strip():
        _no_base_url(base_url, kind)
        model = ScriptedModel.from_file(Path(arg.strip()).expanduser())
    else:
        raise LLMError(f"bad model spec {spec!r}: use {SPEC_FORMS}")
    if cache is False:
        return model
    if cache is True:
        return CachedModel(model, default_cache_dir())
    if isinstance(cache, str | Path):
        return CachedModel(model, Path(cache))
    raise LLMError(f"cache must be a bool or a directory path, got {type(cache).__name__}")


def check_model(model: ChatModel) -> None:
    """Raise a one-line LLMError now if the model's endpoint is unreachable or refuses us (for servers,
    which would otherwise report it as the first answer); models without an endpoint pass."""
    check = wrapped_attribute(model, "check", callable)
    if check is not None:
        check()


def _no_base_url(base_url: str | None, kind: str) -> None:
    if base_url is not None:
        raise LLMError(f"base_url applies only to 'openai:MODEL', not to {kind!r}")
