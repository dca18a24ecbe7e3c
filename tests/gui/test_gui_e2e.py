"""End to end in a real headless Chromium: load the GUI, click an object, chat (its stage, elapsed
seconds and Cancel while it works), see edits in every tab, the segmentation legend, switch scenes. The
server runs in-process with a slowed scripted model; the browser talks to it over loopback.

Needs Debian's ``chromium`` at /usr/bin/chromium and the ``playwright`` Python package (no downloaded
browser). A screenshot of each main state goes to the test's temporary directory (its path is printed
with ``-s``); each is checked to show something and to differ from the state before.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from browser import wait_for

from synergai.gui import GuiHandle, serve
from synergai.gui.palette import ANSWER_COLOR, MARK_COLOR
from synergai.gui.scene_view import box_segments
from synergai.llm import ScriptedModel
from synergai.scene.catalog import SceneCatalog
from synergai.scene.edits import set_attributes
from synergai.scene.model import SceneGraph, SceneObject
from synergai.scene.store import SceneStore

pytestmark = pytest.mark.slow  # a real browser on software WebGL: 35-40 s on this machine

VIEWPORT = {"width": 1400, "height": 850}
BIG_SCENE = "scene0208_00"  # the largest scene of objects_gt.json (107 objects)


def act(action: str, action_input: dict, plan: list[str] | None = None) -> str:
    d: dict[str, Any] = {"plan": plan} if plan else {}
    d.update({"thought": "Next step.", "action": action, "action_input": action_input})
    return json.dumps(d)


class SlowModel:
    """The scripted model, taking ``delay`` seconds per reply (so the busy state can be observed); the
    reply to call ``held`` (0-based) also waits until the test sets ``release`` (so a stage shown while
    it runs is seen however busy the machine is)."""

    name = "scripted-slow"

    def __init__(self, replies: list[str], delay: float, held: int) -> None:
        self.inner = ScriptedModel(replies)
        self.delay = delay
        self.held = held
        self.release = threading.Event()
        self.threads: list[str] = []

    def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
        self.threads.append(threading.current_thread().name)
        time.sleep(self.delay)
        if len(self.threads) - 1 == self.held:
            self.release.wait(timeout=120)
        return self.inner.chat(messages, **kw)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


def tidy(page: Any) -> None:
    """Close viser's "software WebGL" notice and move the mouse off any tooltip (for screenshots)."""
    close = page.locator(".mantine-Notification-closeButton")
    for k in range(close.count()):
        close.nth(k).click()
    page.mouse.move(VIEWPORT["width"] / 2, VIEWPORT["height"] - 5)


class Shots:
    """Screenshots of the page's states, each checked to show something and to differ from the last."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.last: np.ndarray | None = None
        print(f"GUI screenshots in {folder}")

    def take(self, page: Any, name: str) -> np.ndarray:
        from io import BytesIO

        from PIL import Image

        png = page.screenshot(path=str(self.folder / f"{name}.png"))
        a = np.asarray(Image.open(BytesIO(png)).convert("RGB")).astype(np.int16)
        assert a.shape[:2] == (VIEWPORT["height"], VIEWPORT["width"])
        box = canvas_box(page)
        view = a[int(box["y"]):int(box["y"] + box["height"]), int(box["x"]):int(box["x"] + box["width"])]
        assert view.std() > 15, f"{name}: the 3D view looks blank"
        if self.last is not None:
            assert np.abs(a - self.last).mean() > 0.5, f"{name}: the page looks as it did in the last state"
        self.last = a
        return a


def canvas_box(page: Any) -> dict[str, float]:
    """Page position of the 3D canvas (the largest canvas on the page)."""
    boxes = [c.bounding_box() for c in page.locator("canvas").all()]
    boxes = [b for b in boxes if b]
    return max(boxes, key=lambda b: b["width"] * b["height"])


def yellow_pixels(page: Any, x: float, y: float, r: int = 50) -> int:
    """How many marker-yellow pixels the page shows within ``r`` pixels of (x, y)."""
    from io import BytesIO

    from PIL import Image

    png = page.screenshot(clip={"x": x - r, "y": y - r, "width": 2 * r, "height": 2 * r})
    a = np.asarray(Image.open(BytesIO(png)).convert("RGB")).astype(int)
    return int(((a[..., 0] > 200) & (a[..., 1] > 160) & (a[..., 2] < 90)).sum())


@pytest.fixture(scope="module")
def gui(tmp_path_factory: pytest.TempPathFactory, shared_data: Path,
        chromium: Any) -> Iterator[dict[str, Any]]:
    store = SceneStore(tmp_path_factory.mktemp("gui") / "store.sqlite3")
    catalog = SceneCatalog(store, shared_data / "scannet" / "objects_gt.json")
    demo = catalog.open("demo")
    cup = next(o for o in demo.objects if o.category == "cup" and "red" in o.attributes)
    llm = SlowModel([
        act("query_for_objects", {"query": "table"}, plan=["find the table"]),  # the turn to be cancelled
        act("find_marked_object", {}, plan=["look at the marked object", "rename it", "answer"]),
        act("update_name", {"item_id_list": [cup.id], "new_name_list": ["mug"]}),
        act("final_answer", {"answer": "The marked object is a red cup; I renamed it to mug.",
                             "short_answer": "mug", "item_id_list": [cup.id]}),
    ], delay=1.2, held=2)  # step 2 of the correction: its progress line is looked for
    handle: GuiHandle = serve(catalog, lambda: llm, port=0, block=False, poll_seconds=0.5)
    assert handle.url.startswith("http://127.0.0.1:")
    page = chromium.new_page(viewport=VIEWPORT)  # a page in a browser context of its own
    try:
        page.set_default_timeout(30_000)
        page.goto(handle.url)
        session = handle.client_session(timeout=30)
        page.locator("form input").wait_for()
        yield {"handle": handle, "browser": chromium, "page": page, "session": session, "llm": llm,
               "store": store, "catalog": catalog, "cup": cup,
               "shots": Shots(tmp_path_factory.mktemp("gui-screenshots"))}
    finally:
        page.close()
        handle.stop()
        store.close()


def test_page_shows_the_demo_scene_drawn_from_meshes(gui):
    s, page = gui["session"], gui["page"]
    graph = s.graph()
    assert s.scene_id == "demo" and sorted(s.view.drawn) == sorted(graph.ids)
    assert page.get_by_role("combobox", name="Scene").input_value() == "demo"
    assert page.get_by_text("drawn as meshes").count() == 1
    # one tab = one session, bound to 127.0.0.1 only
    assert gui["handle"].server.get_host() == "127.0.0.1"
    assert len(gui["handle"].app.sessions()) == 1
    page.get_by_text("model: scripted-slow").wait_for()
    # the first view is framed again once the browser reports its canvas (the space between the panels):
    # the whole scene box is on the canvas
    cam = s.client.camera
    wait_for(lambda: s._framed is not None and abs(s._framed[0] - cam.aspect) < 0.01 * cam.aspect
             and np.allclose(cam.position, s._framed[1], atol=1e-3), 20,
             "the scene to be framed for the canvas between the panels")
    time.sleep(0.5)
    pose, box = s.camera_pose(), canvas_box(page)
    assert abs(box["width"] - pose.width) <= 2 and box["width"] < VIEWPORT["width"] * 0.6  # panels beside it
    boxes = graph.box_array([o.id for o in graph if o.kind.value != "ceiling"])
    lo, hi = boxes.mins.min(axis=0), boxes.maxs.max(axis=0)
    corners = lo + np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)]) * (hi - lo)
    px, front = pose.project(corners)
    assert front.all() and (px >= 0).all() and (px <= (pose.width, pose.height)).all()
    tidy(page)
    time.sleep(1.0)
    gui["shots"].take(page, "1_scene_loaded")


def test_click_on_an_object_marks_it_and_draws_its_yellow_box(gui):
    s, page, cup = gui["session"], gui["page"], gui["cup"]
    cam = s.client.camera
    seen: list[tuple[float, np.ndarray]] = []
    cam.on_update(lambda c: seen.append((time.monotonic(), np.array(c.position))))
    position = np.add(cup.center, (0.9, -1.3, 1.2))
    t_set = time.monotonic()
    cam.position = tuple(position)
    cam.look_at = tuple(cup.center)
    wait_for(lambda: any(t > t_set and np.allclose(p, position, atol=1e-3) for t, p in seen), 20,
             "the browser to report the camera pose set by the server")
    pose = s.camera_pose()
    px, in_front = pose.project(cup.center)
    assert in_front[0]
    u, v = px[0]
    box = canvas_box(page)
    assert abs(box["width"] - pose.width) <= 2 and abs(box["height"] - pose.height) <= 2
    x, y = box["x"] + u, box["y"] + v
    time.sleep(1.0)  # let the new view render before reading pixels
    before = yellow_pixels(page, x, y)
    page.mouse.click(x, y)
    wait_for(lambda: s.marked == cup.id, 20, f"the click at ({x:.0f}, {y:.0f}) to mark the cup {cup.id}")
    segs = s.view.mark_segments()
    assert segs is not None and np.allclose(segs, box_segments([cup], pad=0.015), atol=1e-5)
    assert (np.asarray(s.view.mark_node.colors).reshape(-1, 3) == MARK_COLOR).all()
    wait_for(lambda: yellow_pixels(page, x, y) >= before + 30, 20, "the yellow box to appear around the cup")
    page.get_by_text(f"cup (id: {cup.id})").first.wait_for()
    # the local scene graph lists the table under the cup; clicking that neighbour marks the table
    table = next(n for n in s.graph().relations_of(cup.id) if n[0].value == "supported_by")[1]
    button = page.get_by_role("button", name=f"dining table (id: {table}) · on")
    tidy(page)
    gui["shots"].take(page, "2_object_marked_with_local_graph")
    button.click()
    wait_for(lambda: s.marked == table, 15, "the neighbour button to mark the table")
    s.mark(cup.id)


def test_chat_runs_off_the_ui_thread_and_its_edit_reaches_every_tab(gui):
    s, page, llm, store, cup = gui["session"], gui["page"], gui["llm"], gui["store"], gui["cup"]
    handle: GuiHandle = gui["handle"]
    s.mark(cup.id)
    other_page = gui["browser"].new_page(viewport=VIEWPORT)
    other_page.goto(handle.url)
    other = handle.client_session(timeout=30, exclude=[s.client.client_id])
    other_page.locator("form input").wait_for()
    assert other is not s and other.marked is None

    box = page.locator("form input")
    # a turn cancelled from the page while the model works: nothing is kept, the chat says so
    box.fill("Which objects are on the table?")
    box.press("Enter")
    page.get_by_text("step 1: the model is thinking").wait_for(timeout=10_000)
    page.get_by_role("button", name="Cancel").click()
    page.get_by_text("cancelled after").wait_for(timeout=20_000)
    assert s.chat.turns[-1].cancelled and store.edits("demo", include_undone=True) == []
    wait_for(lambda: not s.busy, 10, "the cancelled turn to end")

    box.fill("The marked object is a mug, not a cup.")  # a correction: a question never edits
    box.press("Enter")
    # busy is set under the session's lock just before the widgets change: wait for both
    wait_for(lambda: s.busy and s.busy_bar.visible and s.send_button.disabled and s.cancel_button.visible,
             10, "the session to start working and show it")
    try:
        _watch_the_running_turn(gui)
    finally:
        llm.release.set()  # a failed check above must not leave the turn (and the next test) waiting
    # the reply says the edit made, not the model's own words
    page.get_by_text("The cup is now called mug.").first.wait_for(timeout=60_000)
    # a "why?" fold under the answer holds its steps and what they observed, folded until opened
    why = page.locator("details", has_text="why?").last
    steps = why.locator("small")
    assert not steps.is_visible()
    why.locator("summary").click()
    steps.wait_for(timeout=10_000)
    shown = steps.inner_text()
    assert "find_marked_object {} → The marked object is the cup" in shown and "\nupdate_name {" in shown
    why.locator("summary").click()
    assert not s.busy and not s.busy_bar.visible and not s.cancel_button.visible
    assert not s.status_md.visible and not page.get_by_text("step 3:").is_visible()
    assert set(llm.threads) == {"synergai-gui-ask"}
    # the agent was told about the mark and saw the marked cup
    assert f"The marked object is the cup (id: {cup.id})" in llm.inner.requests[2].messages[-1]["content"]
    assert s.view.answer_ids == (cup.id,)
    assert (np.asarray(s.view._answer_nodes[0].colors).reshape(-1, 3) == ANSWER_COLOR).all()
    # the edit went through the store and both tabs list it; the other tab keeps its own (empty) session
    edits = store.edits("demo")
    assert [e.op for e in edits] == ["update_name"] and store.load("demo").get(cup.id).category == "mug"
    other_page.get_by_text("(cup) -> mug").first.wait_for(timeout=20_000)
    assert "mug" in other.edits_md.content and other.marked is None and not other.chat.turns
    page.get_by_role("checkbox", name="Segmentation").uncheck()
    wait_for(lambda: not s.legend.visible, 10, "the legend to go with the segmentation view")
    tidy(page)
    time.sleep(1.5)
    gui["shots"].take(page, "4_chat_answer")

    # undo from the other tab: the store reverts and the first tab's list shows it
    other_page.get_by_role("button", name="Undo").click()
    wait_for(lambda: not store.edits("demo"), 15, "undo from the second tab")
    wait_for(lambda: "\\[undone\\]" in s.edits_md.content, 15, "the first tab to show the undone edit")
    assert store.load("demo").get(cup.id).category == "cup"
    # an edit made outside the GUI (another process on the same store) shows up within the poll interval
    graph = store.load("demo")
    store.apply("demo", set_attributes(graph, cup.id, ["red", "chipped"], utterance="from the CLI"))
    wait_for(lambda: "from the CLI" in s.edits_md.content and "from the CLI" in other.edits_md.content, 10,
             "both tabs to show an edit made outside the GUI")
    other_page.close()


def _watch_the_running_turn(gui: dict[str, Any]) -> None:
    """While the held step runs: the page stays responsive, and shows the stage, elapsed seconds and
    the segmentation legend."""
    s, page = gui["session"], gui["page"]
    # toggling the segmentation view is served at once
    page.get_by_role("checkbox", name="Segmentation").check()
    wait_for(lambda: s.view.segmentation, 10, "the segmentation toggle while the agent works")
    assert s.busy, "the toggle should have been served while the agent was still working"
    page.locator(".synergai-legend").get_by_text("cup", exact=True).first.wait_for(timeout=10_000)
    page.get_by_text(re.compile(r"step 2: the model is thinking \(after find_marked_object\) · \d+ s")
                     ).wait_for(timeout=30_000)
    gui["shots"].take(page, "3_turn_running_with_segmentation_legend")


def test_scene_dropdown_switches_to_a_box_only_scannet_scene(gui):
    s, page = gui["session"], gui["page"]
    # a scene stored while the GUI runs (another process's `scene build`) joins the list
    gui["store"].register(SceneGraph("kitchen-e2e", [SceneObject("1", "cup", (0, 0, 0.5), (0.1, 0.1, 0.1))]),
                          {"builder": "test"})
    wait_for(lambda: "kitchen-e2e" in s.scene_dropdown.options, 10, "the new scene in the drop-down")
    combo = page.get_by_role("combobox", name="Scene")
    combo.click()
    combo.fill(BIG_SCENE[:9])
    page.get_by_role("option", name=BIG_SCENE).click()
    wait_for(lambda: s.scene_id == BIG_SCENE, 20, "the drop-down to switch the scene")
    graph = gui["store"].load(BIG_SCENE)
    wait_for(lambda: len(s.view.drawn) == len(graph), 20, "every object of the new scene to be drawn")
    assert all(d.box is not None for d in s.view._drawn.values()), "a scene without meshes is drawn as boxes"
    assert s.marked is None and not s.chat.turns and s.session.scene_id == BIG_SCENE
    page.get_by_text("drawn as boxes").wait_for()
    tidy(page)
    time.sleep(2.0)
    gui["shots"].take(page, "5_scannet_scene")
