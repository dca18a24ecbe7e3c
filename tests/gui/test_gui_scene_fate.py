"""An open tab follows its scene's drop and registration by another process, and its Undo never
reverts an edit it has not shown (issue 42 item 7), on both store backends; the GUI's watcher says in
one line each that the store went away and came back, without a traceback. A real
:class:`ClientSession` and :class:`GuiApp` on a browserless viser client."""

from __future__ import annotations

import logging
import threading
import time
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from browser import wait_for
from gui_fakes import FakeCamera

from synergai.gui.app import GuiApp, _watch
from synergai.gui.client import ClientSession
from synergai.llm import ScriptedModel
from synergai.scene import edits as E
from synergai.scene.catalog import SceneCatalog
from synergai.scene.model import SceneGraph, SceneObject
from synergai.scene.store import SceneStore
from tcp_proxy import TcpProxy


class Widget(SimpleNamespace):
    """A viser GUI handle: its value / content and flags as plain attributes."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**{"visible": True, "disabled": False, "value": None, "content": "", **kw})
        self.removed = False

    def __getattr__(self, name: str) -> Any:  # on_click, on_update, dock_left, set_width, ...
        return lambda *a, **k: Widget()

    def remove(self) -> None:
        self.removed = True

    def __enter__(self) -> Widget:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class Gui:
    """viser's GUI API: every ``add_*`` makes a :class:`Widget` holding what it was given."""

    main_panel = Widget()

    def __getattr__(self, name: str) -> Any:
        def add(*args: Any, **kw: Any) -> Widget:
            value = kw.pop("initial_value", args[1] if len(args) > 1 else None)
            content = args[0] if name in ("add_markdown", "add_html") and args else ""
            options = args[1] if name == "add_dropdown" else None
            return Widget(**{**kw, "value": value, "content": content, "options": options})
        return add


class Scene:
    """viser's 3D scene API: every node is a handle that can be removed."""

    def __init__(self) -> None:
        self.nodes: list[Widget] = []

    def __getattr__(self, name: str) -> Any:
        if name == "on_click":
            return lambda: (lambda f: f)

        def add(*args: Any, **kw: Any) -> Widget:
            node = Widget(name=args[0] if args else name)
            if name.startswith("add_"):
                self.nodes.append(node)
            return node
        return add

    def drawn(self) -> list[Widget]:
        return [n for n in self.nodes if not n.removed]


def _client() -> SimpleNamespace:
    camera = FakeCamera()
    camera.on_update = lambda cb: None  # type: ignore[attr-defined]
    notes: list[tuple[str, str]] = []
    return SimpleNamespace(gui=Gui(), scene=Scene(), camera=camera, client_id=1, notes=notes,
                           add_notification=lambda title, body, **kw: notes.append((title, body)))


def _tab(store: SceneStore) -> tuple[GuiApp, ClientSession, SimpleNamespace]:
    app = GuiApp(SceneCatalog(store), lambda: ScriptedModel([]), "demo")
    client = _client()
    app.connect(client)
    return app, app.clients[1], client


def _news(store: SceneStore, app: GuiApp, since: int) -> int:
    """Give the app the events after ``since`` (as its watcher does); returns the newest seq."""
    events = store.events(since)
    app.apply_events(events)
    return events[-1].seq if events else since


def _other_scene() -> SceneGraph:
    return SceneGraph("demo", [SceneObject("a", "piano", (1, 1, 0.5), (1.5, 0.6, 1.0)),
                               SceneObject("b", "stool", (1, 0.3, 0.25), (0.4, 0.4, 0.5))])


def test_a_dropped_scene_is_said_so_and_undo_explains_and_a_new_registration_is_shown(
        store_location: Any) -> None:
    with SceneStore(store_location) as store, SceneStore(store_location) as other:
        app, tab, client = _tab(store)
        assert client.scene.drawn() and not tab.dropped
        seen = store.last_event()
        oid = next(o.id for o in store.load("demo") if o.kind.value == "object")
        tab.mark(oid)
        other.drop("demo")
        seen = _news(store, app, seen)
        assert tab.dropped and client.scene.drawn() == []  # nothing of the dropped scene is drawn
        assert client.notes[-1][0] == "Scene dropped" and "was dropped from the store" in client.notes[-1][1]
        assert tab.marked is None and tab.undo_button.disabled
        tab._undo_redo(undo=True)  # a click that was on its way: a clear message, no error
        assert client.notes[-1][0] == "Cannot undo" and "dropped" in client.notes[-1][1]
        assert tab.click((0, 0, 5), (0, 0, -1)) is None
        other.register(_other_scene(), {"builder": "import", "path": "piano.json"})
        _news(store, app, seen)
        assert not tab.dropped and client.notes[-1][0] == "Scene registered again"
        assert "2 objects" in tab.scene_info.content  # the new scene is shown
        assert len(client.scene.drawn()) >= 2
        tab.mark("a")
        assert tab.marked == "a"


def test_the_tabs_own_opening_of_a_scene_does_not_reload_it(store_location: Any) -> None:
    with SceneStore(store_location) as store:
        app, tab, client = _tab(store)  # opening the demo registered it: event 1
        tab.mark(next(o.id for o in store.load("demo") if o.kind.value == "object"))
        _news(store, app, 0)
        assert tab.marked is not None and client.notes == []


def test_undo_refuses_an_edit_another_writer_superseded_and_says_which(store_location: Any) -> None:
    with SceneStore(store_location) as store, SceneStore(store_location) as robot:
        _, tab, client = _tab(store)
        graph = store.load("demo")
        first, second = [o.id for o in graph if o.kind.value == "object"][:2]
        store.apply("demo", E.rename_object(graph, first, "thing", "user", "mine"))
        tab.refresh()  # the tab shows edit #1 as the newest
        robot.apply("demo", E.rename_object(robot.load("demo"), second, "gadget", "user", "a gadget"))
        tab._undo_redo(undo=True)  # the feed has not brought edit #2 to this tab yet
        title, body = client.notes[-1]
        assert title == "Not undone" and "edit #2 (user, active" in body
        assert [r.state.value for r in store.edits("demo", include_undone=True)] == ["active", "active"]
        assert store.load("demo").get(second).category == "gadget"  # the newer edit stands
        assert "gadget" in tab.edits_md.content  # and the tab shows it now
        tab._undo_redo(undo=True)  # what the tab shows as newest is undone
        assert [r.state.value for r in store.edits("demo", include_undone=True)] == ["active", "undone"]


def _told(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What the GUI's store watcher has logged so far."""
    return [r.getMessage() for r in list(caplog.records) if r.name == "synergai.gui.app"]


def test_the_watcher_says_once_that_the_store_went_away_and_once_that_it_is_back(
        pg_location: str, caplog: pytest.LogCaptureFixture) -> None:
    parts = urlsplit(pg_location)
    proxy = TcpProxy("127.0.0.1", int(parts.port or 5432))
    proxied = urlunsplit(parts._replace(netloc=f"{parts.username}:{parts.password}@127.0.0.1:{proxy.port}"))
    applied: list[tuple[int, str]] = []
    app = SimpleNamespace(catalog=SimpleNamespace(store=SimpleNamespace(location=proxied)),
                          apply_events=lambda batch: applied.extend((e.seq, e.kind) for e in batch))
    stop = threading.Event()
    caplog.set_level(logging.INFO)
    with SceneStore(pg_location) as store:
        store.register(_other_scene(), {"b": 1})
        proxy.down()  # away from the start: the watcher cannot even open the store
        watcher = threading.Thread(target=_watch, args=(app, stop, 0.1))
        watcher.start()
        try:
            wait_for(lambda: len(_told(caplog)) >= 1, 20, "the watcher to say the store is away")
            time.sleep(1.0)  # ~10 more tries, not told again
            proxy.up()
            wait_for(lambda: len(_told(caplog)) >= 2, 20, "the watcher to say the store is back")
            time.sleep(0.5)  # following the feed now
            proxy.down()  # away again while following the feed
            wait_for(lambda: len(_told(caplog)) >= 3, 20, "the watcher to say the store is away again")
            time.sleep(1.0)  # ~10 more tries, not told again
            store.apply("demo", E.rename_object(store.load("demo"), "a", "organ", "user"))
            proxy.up()
            deadline = time.monotonic() + 20
            while not applied and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            stop.set()
            watcher.join(timeout=10)
            proxy.down()
    assert applied == [(2, "edit")]  # committed while the store was away: not lost
    assert all(r.exc_info is None for r in caplog.records if r.name == "synergai.gui.app")  # no traceback
    said = _told(caplog)
    assert len(said) == 4, said
    assert "the GUI tries again every 0.1 s" in said[0] and ":***@" in said[0]
    assert "reachable again" in said[1] and "trying again" in said[2] and "reachable again" in said[3]
