"""A failing model endpoint shows in the GUI chat as an error, never as the agent's answer."""

from __future__ import annotations

from pathlib import Path

from gui_fakes import Tab

from synergai.llm import LLMError, ScriptedModel
from synergai.scene.catalog import SceneCatalog
from synergai.scene.store import SceneStore


class DeadEndpoint(ScriptedModel):
    def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
        raise LLMError("openai:m@http://127.0.0.1:9/v1: HTTP 401: invalid api key")


def test_a_failed_model_call_is_an_error_turn(tmp_path: Path) -> None:
    with SceneStore(tmp_path / "s.sqlite3") as store:
        SceneCatalog(store).open("demo")
        tab = Tab(store, "demo", DeadEndpoint([]))
        tab.start()
        tab._work("What is on the table?")
        (turn,) = tab.chat.turns
        assert turn.error and "HTTP 401: invalid api key" in turn.answer and "Sorry" not in turn.answer
        assert "**Error:**" in tab.chat.markdown() and not tab.busy
        assert store.edits("demo", include_undone=True) == []


class EchoingEndpoint(ScriptedModel):
    """A model whose error holds the endpoint's credentials and the key it echoed (as LiteLLM does)."""

    def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
        raise ValueError("openai:m@http://u:Pw-9x8y7z@127.0.0.1:9/v1?api_key=Qk-5521xyz: HTTP 401: "
                         "Incorrect API key provided: sk-live-abcdef123456")


def test_the_chat_and_the_model_label_mask_credentials(tmp_path: Path) -> None:
    """Issue 42: the GUI shows errors and the model's name through the one masking function."""
    from synergai.gui.chat import model_label

    with SceneStore(tmp_path / "s.sqlite3") as store:
        SceneCatalog(store).open("demo")
        tab = Tab(store, "demo", EchoingEndpoint([]))
        tab.start()
        tab._work("What is on the table?")
        shown = tab.chat.markdown()
        assert tab.chat.turns[0].error and "HTTP 401" in shown
        for secret in ("Pw-9x8y7z", "Qk-5521xyz", "abcdef123456"):
            assert secret not in shown
    label = model_label("openai:m@http://u:Pw-9x8y7z@h/v1?token=Qk-5521xyz")
    assert "Pw-9x8y7z" not in label and "Qk-5521xyz" not in label and label.startswith("openai:m@http://u:")
