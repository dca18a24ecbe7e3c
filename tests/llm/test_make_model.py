"""make_model: the spec forms, the cache option and the errors for everything else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synergai.llm import CachedModel, ChatModel, EmbeddedModel, LLMError, ScriptedModel, make_model
from synergai.llm.openai_backend import OpenAIModel

USER = [{"role": "user", "content": "hi"}]


@pytest.fixture()
def script(tmp_path: Path) -> Path:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps(["one", "two"]))
    return path


def test_scripted_spec(script: Path) -> None:
    model = make_model(f"scripted:{script}")
    assert isinstance(model, ScriptedModel) and isinstance(model, ChatModel)
    assert [model.chat(USER).text for _ in range(2)] == ["one", "two"]


def test_embedded_spec_is_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SYNERGAI_GGUF", raising=False)
    model = make_model()
    assert isinstance(model, EmbeddedModel) and isinstance(model, ChatModel)
    assert not model.loaded  # nothing is assembled or loaded before the first call
    assert model.name == "qwen2.5-coder-1.5b-instruct-q4_k_m"


def test_threads_reach_the_embedded_model_and_nothing_else(script: Path) -> None:
    model = make_model("embedded", threads=3)
    assert isinstance(model, EmbeddedModel) and model.threads == 3 and not model.loaded
    with pytest.raises(LLMError, match="threads applies only to 'embedded'"):
        make_model(f"scripted:{script}", threads=3)


def test_openai_spec_with_local_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = make_model("openai:qwen2.5-7b", base_url="http://127.0.0.1:9/v1")
    assert isinstance(model, OpenAIModel)
    assert (model.model, model.base_url) == ("qwen2.5-7b", "http://127.0.0.1:9/v1")


def test_cache_path_wraps_and_writes_there(script: Path, tmp_path: Path) -> None:
    model = make_model(f"scripted:{script}", cache=tmp_path / "responses")
    assert isinstance(model, CachedModel) and isinstance(model.inner, ScriptedModel)
    first, second = model.chat(USER), model.chat(USER)
    assert (first.text, second.text, second.cached) == ("one", "one", True)
    assert len(list((tmp_path / "responses").rglob("*.json"))) == 1


def test_cache_true_uses_the_user_cache_dir(script: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    model = make_model(f"scripted:{script}", cache=True)
    assert isinstance(model, CachedModel)
    assert model.cache_dir == tmp_path / "xdg" / "synergai" / "responses"


@pytest.mark.parametrize(
    "spec", ["", "gpt-4o", "openai:", "openai:  ", "scripted:", "embedded:model.gguf", "Embedded"]
)
def test_bad_specs_list_the_legal_forms(spec: str) -> None:
    with pytest.raises(LLMError, match=r"'embedded', 'openai:MODEL'.*'scripted:FILE'"):
        make_model(spec)


def test_other_bad_arguments(script: Path, tmp_path: Path) -> None:
    with pytest.raises(LLMError, match="model spec must be a string"):
        make_model(42)  # type: ignore[arg-type]
    with pytest.raises(LLMError, match="base_url applies only"):
        make_model(f"scripted:{script}", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(LLMError, match="cannot read script"):
        make_model(f"scripted:{tmp_path / 'absent.json'}")
    with pytest.raises(LLMError, match="cache must be"):
        make_model(f"scripted:{script}", cache=3)  # type: ignore[arg-type]


def test_embedded_threads_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("SYNERGAI_THREADS", "1")
    assert EmbeddedModel().threads == 1  # nothing is loaded until the first call
    monkeypatch.setenv("SYNERGAI_THREADS", "two")
    with pytest.raises(LLMError, match="SYNERGAI_THREADS"):
        EmbeddedModel()
    monkeypatch.delenv("SYNERGAI_THREADS")
    assert EmbeddedModel(threads=2).threads == 2
