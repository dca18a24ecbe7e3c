"""A failing model endpoint shows in the GUI chat as an error, never as the agent's answer."""

from __future__ import annotations

import threading
from pathlib import Path

from synergai.agent.session import AgentSession
from synergai.gui.chat import ChatLog
from synergai.gui.client import ClientSession
from synergai.llm import LLMError, ScriptedModel
from synergai.scene.catalog import SceneCatalog
from synergai.scene.store import SceneStore


class DeadEndpoint(ScriptedModel):
    def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
        raise LLMError("openai:m@http://127.0.0.1:9/v1: HTTP 401: invalid api key")


class Tab(ClientSession):
    """A browser tab without a browser: only the chat state (no panels, no 3D view)."""

    def __init__(self, session: AgentSession) -> None:
        self.session, self.chat, self.lock, self.busy = session, ChatLog(), threading.RLock(), True

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy


def test_a_failed_model_call_is_an_error_turn(tmp_path: Path) -> None:
    with SceneStore(tmp_path / "s.sqlite3") as store:
        SceneCatalog(store).open("demo")
        tab = Tab(AgentSession(store, "demo", DeadEndpoint([])))
        tab._work("What is on the table?")
        (turn,) = tab.chat.turns
        assert turn.error and "HTTP 401: invalid api key" in turn.answer and "Sorry" not in turn.answer
        assert "**Error:**" in tab.chat.markdown() and not tab.busy
        assert store.edits("demo", include_undone=True) == []
