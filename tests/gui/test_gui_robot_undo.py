"""Undo of a robot's physical action from the GUI asks first (the robot moved the thing in the room; undo
changes only the record) and is logged as a confirmed undo; a person's edit is undone at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gui_fakes import Tab

from synergai.gui.client import CONFIRMED_ROBOT_UNDO
from synergai.llm import ScriptedModel
from synergai.scene import edits as E
from synergai.scene.catalog import SceneCatalog
from synergai.scene.store import SceneStore

BOWL = "26"


class Button:
    def __init__(self, label: str) -> None:
        self.label, self.callback = label, None

    def on_click(self, callback: Any) -> None:
        self.callback = callback

    def click(self) -> None:
        assert self.callback is not None
        self.callback(None)


class Modal:
    def __init__(self, title: str) -> None:
        self.title, self.closed = title, False

    def __enter__(self) -> Modal:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def close(self) -> None:
        self.closed = True


class Gui:
    """viser's GUI API as far as the confirmation dialog uses it."""

    def __init__(self) -> None:
        self.modals: list[Modal] = []
        self.texts: list[str] = []
        self.buttons: dict[str, Button] = {}

    def add_modal(self, title: str) -> Modal:
        self.modals.append(Modal(title))
        return self.modals[-1]

    def add_markdown(self, content: str) -> None:
        self.texts.append(content)

    def add_button(self, label: str, **_kw: Any) -> Button:
        self.buttons[label] = Button(label)
        return self.buttons[label]


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with SceneStore(tmp_path / "store.sqlite3") as s:
        SceneCatalog(s).open("demo")
        yield s


def _tab(store: SceneStore) -> tuple[Tab, Gui]:
    tab = Tab(store, "demo", ScriptedModel([]))
    gui = Gui()
    tab.client.gui = gui
    tab._show_edits()  # the tab shows the history: Undo means its newest active edit
    return tab, gui


def _robot_moves_the_bowl(store: SceneStore) -> int:
    graph = store.load("demo")
    bowl = graph.get(BOWL)
    moved = (bowl.center[0] + 0.3, bowl.center[1], bowl.center[2])
    return store.apply("demo", E.move_object(graph, BOWL, moved, "robot:Alice", "Alice: place(bowl)")).seq


def test_undoing_a_robots_action_asks_and_is_logged_as_confirmed(store: SceneStore) -> None:
    seq = _robot_moves_the_bowl(store)
    tab, gui = _tab(store)
    tab._undo_redo(undo=True)
    assert [r.seq for r in store.edits("demo")] == [seq]  # nothing undone yet: asked first
    [modal] = gui.modals
    assert "robot:Alice" in gui.texts[0] and "not the room" in gui.texts[0]
    gui.buttons["Keep it"].click()
    assert modal.closed and [r.seq for r in store.edits("demo")] == [seq]
    tab._undo_redo(undo=True)
    gui.buttons["Undo it"].click()
    assert store.edits("demo") == [] and store.verify("demo")
    undo = store.events()[-1]
    assert (undo.kind, undo.actor) == ("undo", CONFIRMED_ROBOT_UNDO)


def test_a_confirmation_does_not_undo_an_edit_made_meanwhile(store: SceneStore) -> None:
    seq = _robot_moves_the_bowl(store)
    tab, gui = _tab(store)
    tab._undo_redo(undo=True)
    store.apply("demo", E.rename_object(store.load("demo"), BOWL, "basin", "user", "a basin"))
    gui.buttons["Undo it"].click()  # the dialog named edit `seq`; the newest is the person's rename now
    assert [r.seq for r in store.edits("demo")] == [seq, seq + 1]


def test_a_persons_edit_is_undone_at_once(store: SceneStore) -> None:
    store.apply("demo", E.rename_object(store.load("demo"), BOWL, "basin", "user", "a basin"))
    tab, gui = _tab(store)
    tab._undo_redo(undo=True)
    assert gui.modals == [] and store.edits("demo") == []
    assert store.events()[-1].actor == "user"
