"""Rooms in the GUI: each room's floor patch, outline and name in its own colour, the toggle, and the
rooms panel (escaped)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from synergai.gui.rooms import outline, patch, room_color, rooms_html
from synergai.gui.scene_view import SceneView
from synergai.scene.build import build_graph
from synergai.scene.catalog import SceneCatalog
from synergai.scene.model import Room, SceneObject
from synergai.scene.store import SceneStore


class RecordingScene:
    """viser's scene API as records: what was added, with its arguments."""

    def __init__(self) -> None:
        self.added: list[tuple[str, str, dict]] = []

    def _add(self, kind: str, name: str, **kw):
        handle = SimpleNamespace(name=name, removed=False, **{"visible": True, **kw})
        handle.remove = lambda: setattr(handle, "removed", True)
        self.added.append((kind, name, kw))
        return handle

    def add_mesh_simple(self, name, **kw):
        return self._add("mesh", name, **kw)

    def add_box(self, name, **kw):
        return self._add("box", name, **kw)

    def add_line_segments(self, name, points, colors, **kw):
        return self._add("lines", name, points=points, colors=colors, **kw)

    def add_label(self, name, text, **kw):
        return self._add("label", name, text=text, **kw)


@pytest.fixture(scope="module")
def house(tmp_path_factory):
    with SceneStore(tmp_path_factory.mktemp("house") / "s.db") as store:
        return SceneCatalog(store).open("house")


def test_each_room_is_drawn_in_its_colour_with_its_name_and_can_be_hidden(house):
    scene = RecordingScene()
    view = SceneView(scene)
    view.draw(house, {})
    patches = [(n, kw) for kind, n, kw in scene.added if kind == "mesh" and n.startswith("/rooms/")]
    names = [kw["text"] for kind, n, kw in scene.added if kind == "label" and n.startswith("/rooms/")]
    assert len(patches) == 5 and names == [r.name for r in house.rooms]
    colours = {kw["color"] for _, kw in patches}
    assert colours == {room_color(r) for r in house.rooms} and len(colours) == 5
    view.set_rooms(False)
    assert all(not h.visible for h in view._room_nodes)
    view.draw(house, {})  # a redraw replaces the rooms: five patches shown, the old ones removed
    assert sum(1 for h in view._room_nodes if h.name.endswith("/patch")) == 5


def test_a_concave_room_is_triangulated_inside_its_outline():
    room = Room("l", "living room", "living room", ((0, 0), (4, 0), (4, 4), (2, 2), (0, 4)))
    vertices, faces = patch(room, 0.0)
    tri = vertices[faces]
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1).sum()
    assert area == pytest.approx(room.area)  # no triangle covers the notch
    assert outline(room, 0.0).shape == (5, 2, 3)


def test_rooms_panel_lists_rooms_and_escapes_their_names():
    rooms = [Room("a", "bedroom", "<b>Anna's</b> room", ((0, 0), (3, 0), (3, 3), (0, 3)))]
    graph = build_graph("s", [SceneObject("1", "bed", (1.5, 1.5, 0.3), (2.0, 1.6, 0.6))], rooms=rooms)
    text = rooms_html(graph)
    assert "&lt;b&gt;Anna&#x27;s&lt;/b&gt; room" in text and "<b>Anna" not in text
    assert "bedroom · 1 objects · 9.0 m²" in text
    assert rooms_html(build_graph("t", [SceneObject("1", "bed", (0, 0, 0.3), (1, 1, 0.6))])) == ""
