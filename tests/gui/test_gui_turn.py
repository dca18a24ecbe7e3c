"""A chat turn in a tab: its stages and elapsed seconds on the status line, Cancel (which keeps nothing),
the scene framed on the canvas between the panels, and scenes stored later joining the drop-down."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from gui_fakes import Tab

from synergai.gui.app import GuiApp
from synergai.gui.camera import CameraPose
from synergai.gui.client import GUESSED_ASPECT
from synergai.gui.turn import TurnStatus
from synergai.llm import ScriptedModel
from synergai.scene.catalog import SceneCatalog
from synergai.scene.model import SceneGraph, SceneObject
from synergai.scene.serialization import dumps
from synergai.scene.store import SceneStore


def act(action: str, action_input: dict, plan: bool = False) -> str:
    step = {"action": action, "action_input": action_input}
    return json.dumps({"plan": [step]} if plan else {"thought": "t", **step})


@pytest.fixture
def store(tmp_path: Path):
    with SceneStore(tmp_path / "s.sqlite3") as s:
        SceneCatalog(s).open("demo")
        yield s


def _cup(store: SceneStore) -> str:
    return next(o.id for o in store.load("demo") if o.category == "cup" and "red" in o.attributes)


class ClickDuringCall(ScriptedModel):
    """While the model works on reply number ``at``, the user clicks Cancel in ``tab``."""

    tab: Tab
    at = 2

    def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
        if len(self.requests) + 1 == self.at:
            assert self.tab.cancel()
        return super().chat(messages, **kw)


def test_cancel_during_a_correction_keeps_nothing_and_the_chat_says_cancelled(store: SceneStore) -> None:
    cup = _cup(store)
    rename = act("update_name", {"item_id_list": [cup], "new_name_list": ["mug"]}, plan=True)
    answer = act("final_answer",
                 {"answer": "Renamed it to mug.", "short_answer": "mug", "item_id_list": [cup]})
    llm = ClickDuringCall([rename, answer, rename, answer])
    tab = Tab(store, "demo", llm, marked=cup)
    llm.tab = tab
    def state() -> tuple:
        return dumps(store.load("demo")), store.edits("demo", include_undone=True), store.revision("demo")

    before = state()
    tab.start()
    tab._work("The marked object is a mug, not a cup.")
    (turn,) = tab.chat.turns
    assert turn.cancelled and turn.answer == "" and not turn.error
    md = tab.chat.markdown()
    assert "cancelled" in md and "SynergAI:" not in md and "Renamed" not in md
    assert state() == before
    assert not tab.busy and not tab.status.running and tab.session.history == []
    assert any("step 1: running update\\_name" in line for line in tab.shown)  # markdown-escaped
    assert "cancelling" in tab.shown[-1]  # the click shows at once; the call in the model finishes first
    # the next turn runs as usual and its edit is written
    tab.start()
    tab._work("The marked object is a mug, not a cup.")
    assert not tab.chat.turns[-1].cancelled and "mug" in tab.chat.turns[-1].answer
    assert [e.op for e in store.edits("demo")] == ["update_name"]
    assert store.load("demo").get(cup).category == "mug"


def test_the_status_line_reports_stages_in_order_with_the_elapsed_seconds(store: SceneStore) -> None:
    tab = Tab(store, "demo", ScriptedModel([
        act("query_for_objects", {"query": "cup"}, plan=True),
        act("final_answer", {"answer": "Yes, on the table.", "short_answer": "yes", "item_id_list": []}),
    ]))
    tab.start()
    tab._work("Is the cup on the table?")  # yes or no: the model answers in a second call
    stages = [line for line in tab.shown if line]
    assert [s.split("*")[1] for s in stages] == [
        "step 1: the model is thinking", "step 1: running query\\_for\\_objects",
        "step 2: the model is thinking (after query\\_for\\_objects)", "step 2: running final\\_answer"]
    assert all(s.endswith(" s") for s in stages)
    assert tab.cancel() is False  # nothing to cancel once the turn is over


def test_turn_status_elapsed_and_literal_stage() -> None:
    status = TurnStatus()
    assert status.markdown() == "" and status.elapsed() == 0.0 and not status.request_cancel()
    status.start(now=100.0)
    status.report("step 1: running [x](http://evil) <b>")
    md = status.markdown(now=103.4)
    assert md.endswith("· 3 s") and "\\[x\\](http://evil)" in md and "<b>" not in md
    assert status.request_cancel() and status.cancel.is_set() and "cancelling" in status.markdown(now=104)
    status.start(now=200.0)
    assert not status.cancel.is_set() and status.stage == "starting"
    status.finish()
    assert not status.running and status.markdown() == ""


def test_the_ticker_refreshes_the_elapsed_seconds(store: SceneStore) -> None:
    tab = Tab(store, "demo", ScriptedModel([]))
    tab.start()
    tab.status.started = time.monotonic() - 5.0
    stop = threading.Event()
    ticker = threading.Thread(target=tab._tick, args=(stop,))
    ticker.start()
    time.sleep(1.3)
    stop.set()
    ticker.join(5)
    assert len(tab.shown) >= 2 and all(line.endswith((" 5 s", " 6 s")) for line in tab.shown)


def test_reset_view_frames_the_scene_in_the_canvas_between_the_panels(store: SceneStore) -> None:
    tab = Tab(store, "demo", ScriptedModel([]))
    cam = tab.client.camera
    graph = store.load("demo")
    boxes = graph.box_array([o.id for o in graph if o.kind.value != "ceiling"])
    lo, hi = boxes.mins.min(axis=0), boxes.maxs.max(axis=0)
    corners = lo + np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)]) * (hi - lo)

    def inside(width: int, height: int) -> bool:
        pose = CameraPose.look_at(cam.position, cam.look_at, fov=1.3, width=width, height=height)
        px, front = pose.project(corners)
        return bool(front.all() and (px >= 0).all() and (px <= (width, height)).all())

    tab.reset_camera(graph)  # before the browser reports: the canvas between the panels is guessed
    assert tab._framed[0] == GUESSED_ASPECT and inside(612, 850)  # a 1400 x 850 window, both panels docked
    first = cam.position
    cam.reported = (1.3, 900 / 850)  # another shape (a panel collapsed): framed again at the report
    tab._on_camera_report()
    assert cam.position != first and inside(900, 850)
    framed = cam.position
    tab._on_camera_report()  # the same shape again: left alone
    assert cam.position == framed
    cam.position = (9.0, 9.0, 9.0)  # the user moved the camera; then the canvas changes: their view stays
    cam.reported = (1.3, 612 / 850)
    tab._on_camera_report()
    assert cam.position == (9.0, 9.0, 9.0)
    tab.reset_camera()  # the button: framed for the canvas as it is now
    assert inside(612, 850) and tab._framed[0] == pytest.approx(612 / 850)


def test_scenes_stored_after_start_join_every_tab_list(store: SceneStore) -> None:
    app = GuiApp(SceneCatalog(store), lambda: ScriptedModel([]), "demo")
    lists: list[list[str]] = []
    app.clients[1] = SimpleNamespace(set_scene_list=lists.append, scene_id="demo")  # type: ignore[assignment]
    assert app.update_scene_lists() and lists == [["demo", "house"]]
    assert not app.update_scene_lists()  # unchanged: the tabs are left alone
    store.register(SceneGraph("kitchen", [SceneObject("1", "cup", (0, 0, 0.5), (0.1, 0.1, 0.1))]),
                   {"builder": "test"})
    app.poll()
    assert lists[-1] == ["demo", "house", "kitchen"]


def test_a_too_long_chat_line_is_refused_in_the_chat_at_once(store: SceneStore) -> None:
    llm = ScriptedModel([])
    tab = Tab(store, "demo", llm)
    tab.input = SimpleNamespace(value="x")
    tab.chat_md = SimpleNamespace(content="")
    assert tab.submit("What is on the table? " * 5000) is False
    (turn,) = tab.chat.turns
    assert turn.error and "limit is 4000" in turn.answer and "limit is 4000" in tab.chat_md.content
    assert not tab.busy and llm.requests == [] and store.edits("demo", include_undone=True) == []
