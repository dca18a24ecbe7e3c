"""Naming a picture through a model that reads images (llm.vision): the reply cut down to a name, the model
specs, the scripted model recording the pictures."""

from __future__ import annotations

import json

import pytest

from synergai.llm import LLMError
from synergai.llm.vision import NAME_PROMPT, ScriptedImageModel, make_image_model, object_name


@pytest.mark.parametrize(("reply", "name"), [
    ("chair", "chair"),
    ("A wooden Chair.", "wooden chair"),
    ("  the trash can!\n", "trash can"),
    ("It is a monitor", "monitor"),
    ("unknown", None),
    ("Object", None),
    ("", None),
    ("I think this might be some kind of lamp", None),
    ("chair\x1b[31m", None),
    ("<b>sofa</b>", None),
    ("42", None),
])
def test_a_reply_becomes_a_short_name_or_none(reply, name) -> None:
    assert object_name(reply) == name


def test_the_scripted_model_records_each_picture_and_the_prompt(tmp_path) -> None:
    path = tmp_path / "names.json"
    path.write_text(json.dumps(["cup", "unknown"]))
    model = make_image_model(f"scripted:{path}")
    assert isinstance(model, ScriptedImageModel)
    assert model.describe_image(b"\x89PNG one", NAME_PROMPT) == "cup"
    assert model.describe_image(b"\x89PNG two", NAME_PROMPT) == "unknown"
    assert model.images == [b"\x89PNG one", b"\x89PNG two"]
    assert model.requests[0].messages == [{"role": "user", "content": NAME_PROMPT}]
    with pytest.raises(LLMError, match="script exhausted"):
        model.describe_image(b"three", NAME_PROMPT)


@pytest.mark.parametrize(("spec", "message"), [
    ("embedded", "the embedded model reads no images"),
    ("gpt-4o", "bad image model spec"),
    ("openai:", "bad image model spec"),
])
def test_unusable_specs_are_one_line_errors(spec, message) -> None:
    with pytest.raises(LLMError, match=message):
        make_image_model(spec)
