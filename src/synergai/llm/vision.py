"""Naming what a picture shows through a model that takes images: an OpenAI-compatible endpoint with
image input (a vision model behind vLLM, Ollama, llama.cpp's server, OpenAI), or a scripted one in tests.

The picture goes out as a PNG data URL in one user message beside :data:`NAME_PROMPT`; the reply is cut
down to a short noun by :func:`object_name` (``None`` when it names nothing usable). The embedded model
reads no images, so it is refused here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Protocol

from synergai.llm.base import LLMError
from synergai.llm.scripted import ScriptedModel

NAME_PROMPT = ("What is the one object in the middle of this picture, cut from a camera frame of a room? "
               "Reply with its name only, a short noun such as chair, trash can or monitor; reply unknown "
               "if you cannot tell.")
SPEC_FORMS = "'openai:MODEL' (an endpoint with image input; base_url for a local one) or 'scripted:FILE'"
_ARTICLES = ("a ", "an ", "the ", "this is ", "it is ", "it's ")
_NOT_NAMES = frozenset({"unknown", "none", "nothing", "object", "thing", "unsure", "n/a", "na"})
_NAME = re.compile(r"[a-z][a-z -]{0,38}[a-z]|[a-z]")


class ImageModel(Protocol):
    """A model that says in words what a picture shows."""

    name: str

    def describe_image(self, png: bytes, prompt: str, *, max_tokens: int = 16) -> str:
        """The model's reply to ``prompt`` about the PNG picture (raises LLMError when the call fails)."""
        ...


def object_name(reply: str) -> str | None:
    """The short noun a reply names ("A wooden chair." -> "wooden chair"), or None when it names nothing
    usable (unknown, empty, a sentence, not letters)."""
    text = " ".join(reply.strip().lower().split())
    text = text.strip(" .!\"'`*")
    for _ in range(2):  # "it is a monitor": the phrase, then the article
        for article in _ARTICLES:
            if text.startswith(article):
                text = text[len(article):]
    if not text or text in _NOT_NAMES or len(text.split()) > 3 or not _NAME.fullmatch(text):
        return None
    return text


class ScriptedImageModel(ScriptedModel):
    """A scripted model (:mod:`synergai.llm.scripted`) that also records the pictures it was shown."""

    def __init__(self, responses: Any, name: str = "scripted") -> None:
        super().__init__(responses, name=name)
        self.images: list[bytes] = []

    def describe_image(self, png: bytes, prompt: str, *, max_tokens: int = 16) -> str:
        """Record the picture, then the next scripted reply."""
        self.images.append(bytes(png))
        return self.chat([{"role": "user", "content": prompt}], max_tokens=max_tokens).text


def make_image_model(spec: str, *, base_url: str | None = None, timeout: float | None = None) -> ImageModel:
    """An image model from ``openai:MODEL`` or ``scripted:FILE`` (the embedded model reads no images)."""
    kind, _, arg = spec.strip().partition(":") if isinstance(spec, str) else ("", "", "")
    if kind == "openai" and arg.strip():
        from synergai.llm.openai_backend import DEFAULT_TIMEOUT_S, OpenAIModel

        return OpenAIModel(arg.strip(), base_url=base_url, timeout=timeout or DEFAULT_TIMEOUT_S)
    if base_url is not None:
        raise LLMError(f"base_url applies only to 'openai:MODEL', not to {spec!r}")
    if kind == "scripted" and arg.strip():
        model = ScriptedImageModel.from_file(Path(arg.strip()).expanduser())
        assert isinstance(model, ScriptedImageModel)
        return model
    if kind == "embedded":
        raise LLMError("the embedded model reads no images: name segments with an endpoint that does, "
                       f"{SPEC_FORMS}")
    raise LLMError(f"bad image model spec {spec!r}: use {SPEC_FORMS}")
