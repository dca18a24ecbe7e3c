"""A browser tab without a browser: a ClientSession whose panels and 3D view are plain records."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

from synergai.agent.progress import StagedModel
from synergai.agent.session import AgentSession
from synergai.gui.chat import ChatLog
from synergai.gui.client import ClientSession
from synergai.gui.turn import TurnStatus
from synergai.llm.base import ChatModel
from synergai.scene.store import SceneStore


class FakeCamera:
    """viser's camera handle: fov and aspect fail until the browser has reported its canvas."""

    def __init__(self) -> None:
        self.reported: tuple[float, float] | None = None
        self.position: Any = None
        self.look_at: Any = None
        self.up_direction: Any = None

    @property
    def fov(self) -> float:
        assert self.reported is not None, "no camera reported yet"
        return self.reported[0]

    @property
    def aspect(self) -> float:
        assert self.reported is not None, "no camera reported yet"
        return self.reported[1]


class Tab(ClientSession):
    """The chat, status and camera logic of a tab; ``shown`` keeps every status line it showed."""

    def __init__(self, store: SceneStore, scene_id: str, llm: ChatModel, marked: str | None = None) -> None:
        self.status = TurnStatus()
        self.model = StagedModel(llm, self._on_stage, self.status.cancel)
        self.session = AgentSession(store, scene_id, self.model, marked=marked)
        self.chat, self.lock, self.busy = ChatLog(), threading.RLock(), False
        self._ticker_stop = threading.Event()
        self._framed = None
        self.status_md = SimpleNamespace(content="", visible=False)
        self.cancel_button = SimpleNamespace(disabled=True, visible=False)
        self.view = SimpleNamespace(show_answer=lambda graph, ids: None)
        self.client = SimpleNamespace(camera=FakeCamera())
        self.app = SimpleNamespace(catalog=SimpleNamespace(store=store), scene_changed=lambda scene_id: None)
        self.shown: list[str] = []
        self.dropped, self._reload_after_turn = False, False
        self.edits_md = SimpleNamespace(content="")
        self.undo_button, self.redo_button = SimpleNamespace(disabled=True), SimpleNamespace(disabled=True)
        self._undoable: int | None = None
        self._redoable: int | None = None

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy

    def _show_status(self) -> None:
        super()._show_status()
        self.shown.append(self.status_md.content)

    def start(self) -> None:
        """What submit() does before the worker runs (here the test's thread runs ``_work``)."""
        self.busy = True
        self.status.start()
        self.model.new_turn()
