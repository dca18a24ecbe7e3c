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
