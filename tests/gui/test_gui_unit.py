"""GUI pieces that need no browser: palette, camera math, picking, local graph, chat rendering."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import trimesh

from synergai.agent.loop import AgentResult
from synergai.geometry.mesh import TriMesh
from synergai.gui.camera import CameraPose, overview
from synergai.gui.chat import ChatLog, ChatTurn, escape, model_label
from synergai.gui.labels import LabelSize, place_labels
from synergai.gui.legend import legend_html, legend_rows
from synergai.gui.local_graph import local_graph, to_svg
from synergai.gui.palette import display_color, instance_color
from synergai.gui.picking import ScenePicker
from synergai.gui.scene_view import box_segments, color_groups, label_anchor, label_text
from synergai.scene.builders.demo import demo_scene
from synergai.scene.model import Edge, ObjectKind, Relation, SceneError, SceneGraph, SceneObject


def room() -> SceneGraph:
    """Floor, wall, a table with a cup, two chairs near it, a TV on the wall."""
    objs = [
        SceneObject("0", "floor", (2.0, 2.0, -0.05), (4.0, 4.0, 0.1), kind=ObjectKind.FLOOR),
        SceneObject("1", "wall", (2.0, 4.05, 1.4), (4.0, 0.1, 2.8), kind=ObjectKind.WALL),
        SceneObject("2", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75), color=(120, 80, 50)),
        SceneObject("3", "cup", (2.1, 2.0, 0.8), (0.08, 0.08, 0.1), color=(200, 30, 30)),
        SceneObject("4", "chair", (1.0, 2.0, 0.45), (0.5, 0.5, 0.9)),
        SceneObject("5", "chair", (3.0, 2.0, 0.45), (0.5, 0.5, 0.9)),
        SceneObject("6", "tv", (2.0, 3.95, 1.5), (1.0, 0.08, 0.6)),
        SceneObject("7", "ceiling", (2.0, 2.0, 2.85), (4.0, 4.0, 0.1), kind=ObjectKind.CEILING),
    ]
    edges = [
        Edge("2", Relation.SUPPORTED_BY, "0"),
        Edge("3", Relation.SUPPORTED_BY, "2"),
        Edge("4", Relation.SUPPORTED_BY, "0"),
        Edge("5", Relation.SUPPORTED_BY, "0"),
        Edge("6", Relation.MOUNTED_ON, "1"),
        Edge("4", Relation.NEAR, "2"),
        Edge("5", Relation.NEAR, "2"),
        Edge("2", Relation.HIGHER_THAN, "0"),
    ]
    return SceneGraph("room", objs, edges, levels={"0": 0, "1": 0, "2": 1, "3": 2, "4": 1, "5": 1})


# ----- palette
def test_instance_colours_are_deterministic_distinct_and_saturated():
    ids = [str(k) for k in range(200)]
    first = [instance_color(i) for i in ids]
    assert first == [instance_color(i) for i in ids]
    assert instance_color("42") == instance_color("42") != instance_color("43")
    assert len(set(first)) == len(ids)
    for rgb in first:
        assert all(0 <= c <= 255 for c in rgb)
        assert max(rgb) - min(rgb) >= 40, f"{rgb} is too grey for a segmentation colour"
    # neighbouring ids are far apart in colour
    gaps = [np.abs(np.subtract(first[k], first[k + 1])).sum() for k in range(len(ids) - 1)]
    assert np.median(gaps) > 120


def test_display_colour_prefers_object_then_mesh_colour():
    mesh = TriMesh(np.eye(3), np.array([[0, 1, 2]]), np.array([[10, 20, 30]] * 3, dtype=np.uint8))
    assert display_color(SceneObject("a", "x", (0, 0, 0), (1, 1, 1), color=(1, 2, 3)), mesh) == (1, 2, 3)
    assert display_color(SceneObject("a", "x", (0, 0, 0), (1, 1, 1)), mesh) == (10, 20, 30)
    assert display_color(SceneObject("a", "x", (0, 0, 0), (1, 1, 1))) == (170, 170, 170)


def test_colour_groups_split_a_mesh_by_face_colour_without_losing_faces():
    demo = demo_scene()
    for oid, mesh in demo.meshes.items():
        groups = color_groups(mesh)
        assert sum(len(f) for _, _, f in groups) == mesh.n_faces, oid
        for _, v, f in groups:
            assert f.max() < len(v)
    tv = next(o.id for o in demo.objects if o.category == "tv")
    assert len(color_groups(demo.meshes[tv])) >= 2  # screen and frame keep their own colours


# ----- camera
def test_projection_and_click_ray_are_inverse():
    cam = CameraPose.look_at((4.0, -3.0, 5.0), (2.0, 2.0, 0.5), fov=1.2, width=1000, height=700)
    center, front = cam.project([2.0, 2.0, 0.5])
    assert front[0] and np.allclose(center[0], [500.0, 350.0], atol=1e-6)
    above, _ = cam.project([2.0, 2.0, 1.5])
    assert above[0, 1] < 350.0  # world up is screen up
    rng = np.random.default_rng(1)
    pts = rng.uniform([0, 0, 0], [4, 4, 2], size=(50, 3))
    px, ok = cam.project(pts)
    assert ok.all()
    for p, (u, v) in zip(pts, px, strict=True):
        o, d = cam.ray(u, v)
        assert np.isclose(np.linalg.norm(d), 1.0)
        t = np.dot(p - o, d)
        assert np.linalg.norm(o + t * d - p) < 1e-9
    _, ok = cam.project([[8.0, -10.0, 9.0]])
    assert not ok[0]


def test_camera_viewpoint_and_bad_poses():
    cam = CameraPose.look_at((0.0, 0.0, 1.6), (0.0, 5.0, 1.0))
    vp = cam.viewpoint()
    assert np.allclose(np.array(vp.forward[:2]) / np.linalg.norm(vp.forward[:2]), [0.0, 1.0])
    down = CameraPose.look_at((0.0, 0.0, 5.0), (0.0, 0.0, 0.0), up=(0.0, 1.0, 0.0))
    assert down.viewpoint().forward[1] > 0.99  # looking straight down: screen-up is ahead
    with pytest.raises(SceneError, match="fov"):
        CameraPose((0, 0, 0), (1, 0, 0, 0), 0.0, 10, 10)
    with pytest.raises(SceneError, match="target"):
        CameraPose.look_at((1, 1, 1), (1, 1, 1))


def test_overview_frames_the_whole_scene():
    demo = demo_scene()
    g = SceneGraph("demo", demo.objects)
    boxes = g.box_array()
    lo, hi = boxes.mins.min(axis=0), boxes.maxs.max(axis=0)
    position, target = overview(lo, hi, fov=1.3, aspect=1000 / 850)
    cam = CameraPose.look_at(position, target, fov=1.3, width=1000, height=850)
    corners = lo + np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)]) * (hi - lo)
    px, ok = cam.project(corners)
    assert ok.all()
    assert (px >= 0).all() and (px[:, 0] <= 1000).all() and (px[:, 1] <= 850).all()
    spread = px.max(axis=0) - px.min(axis=0)
    assert spread[0] > 0.6 * 1000  # and it is not a speck in the middle


# ----- picking
def test_click_ray_through_an_objects_pixel_marks_it_on_demo_meshes():
    demo = demo_scene()
    g = SceneGraph("demo", demo.objects)
    cup = next(o for o in demo.objects if o.category == "cup")
    table = next(o for o in demo.objects if o.category == "dining table")
    picker = ScenePicker(g, demo.meshes)
    assert set(picker.box_ids) == set()  # every demo object has a mesh
    cam = CameraPose.look_at(np.add(cup.center, (0.8, -1.2, 1.4)), cup.center, fov=1.0, width=1200,
                             height=800)
    u, v = cam.project(cup.center)[0][0]
    assert picker.pick(*cam.ray(u, v)) == cup.id
    # a pixel on the table top away from anything on it picks the table, not the floor under it
    spot = (table.center[0], table.center[1] - 0.35, table.center[2] + table.size[2] / 2)
    u, v = cam.project(spot)[0][0]
    assert picker.pick(*cam.ray(u, v)) == table.id
    # the sky picks nothing
    assert picker.pick(cam.position, (0.0, 0.0, 1.0)) is None


def test_box_only_scene_pick_first_hit_and_hidden_objects_never_catch_a_click():
    g = room()
    picker = ScenePicker(g, {})
    cam = CameraPose.look_at((2.1, 0.5, 1.2), (2.1, 2.0, 0.8))
    assert picker.pick(*cam.ray(*cam.project((2.1, 2.0, 0.8))[0][0])) == "3"  # cup in front of the table
    # straight down from above: the ceiling is hit first when it is pickable, the cup when it is hidden
    down = ((2.1, 2.0, 5.0), (0.0, 0.0, -1.0))
    assert picker.pick(*down) == "7"
    visible = [o.id for o in g if o.kind is not ObjectKind.CEILING]
    assert ScenePicker(g, {}, visible).pick(*down) == "3"
    # a mixed scene: meshes where given, boxes elsewhere; the nearer hit wins
    cup_mesh = TriMesh.from_trimesh(trimesh.creation.box(extents=(0.08, 0.08, 0.1)))
    move = np.eye(4)
    move[:3, 3] = (2.1, 2.0, 0.8)
    cup_mesh = cup_mesh.transformed(move)
    mixed = ScenePicker(g, {"3": cup_mesh}, visible)
    assert mixed.box_ids == [i for i in visible if i != "3"]
    assert mixed.pick(*down) == "3"
    assert mixed.pick((0.5, 2.0, 5.0), (0.0, 0.0, -1.0)) == "0"  # floor where nothing stands


def test_box_segments_are_the_twelve_edges_of_each_box():
    cup = room().get("3")
    segs = box_segments([cup], pad=0.01)
    assert segs.shape == (12, 2, 3)
    lengths = np.round(np.linalg.norm(segs[:, 1] - segs[:, 0], axis=1), 6)
    assert sorted(set(lengths)) == [0.1, 0.12]
    assert np.allclose(segs.reshape(-1, 3).min(axis=0), np.array(cup.center) - np.array(cup.size) / 2 - 0.01)


# ----- local scene graph
def test_local_graph_of_the_table_lists_neighbours_with_relation_words():
    g = room()
    local = local_graph(g, "2")
    by_id = {n.id: n.relations for n in local.neighbours}
    assert by_id == {"0": ("on", "higher than"), "3": ("supporting",), "4": ("near",), "5": ("near",)}
    # support facts first
    assert [n.id for n in local.neighbours][:2] == ["0", "3"]
    assert local.level == 1 and local.more == 0
    assert "The table (id: 2) is on and higher than the floor (id: 0)." in local.lines()
    cup = local_graph(g, "3")
    assert [(n.id, n.relations) for n in cup.neighbours] == [("2", ("on",))]
    assert [(n.id, n.relations) for n in local_graph(g, "1").neighbours] == [("6", ("supporting",))]
    few = local_graph(g, "2", limit=2)
    assert len(few.neighbours) == 2 and few.more == 2
    with pytest.raises(SceneError, match="unknown object"):
        local_graph(g, "99")


def test_local_graph_svg_draws_every_neighbour_and_escapes_names():
    g = room()
    g.put(g.get("3").with_changes(category="<script>cup</script>"))
    svg = to_svg(local_graph(g, "2"))
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert svg.count("<line ") == 4 and svg.count("<rect ") == 5
    for word in ("on", "higher than", "supporting", "near", "table"):
        assert f">{word}<" in svg
    lonely = to_svg(local_graph(SceneGraph("s", [SceneObject("a", "box", (0, 0, 0), (1, 1, 1))]), "a"))
    assert "no stored relations" in lonely


# ----- chat
def test_chat_markdown_escapes_model_output_and_shows_pending_question():
    g = room()
    log = ChatLog()
    assert "Click an object" in log.markdown()
    result = AgentResult(answer="It is <img src=x onerror=alert(1)> a cup.", objects=["3", "99"],
                         edits=[{"seq": 4, "summary": "agent renamed 3 (cup) -> mug"}], seconds=1.25)
    log.turns.append(ChatTurn.from_result("what is <b>this</b>?", result, g))
    log.pending = "and that?"
    md = log.markdown()
    assert "<img" not in md and "&lt;img src=x" in md and "&lt;b&gt;this&lt;/b&gt;" in md
    assert "objects: cup (id: 3), id 99" in md
    assert "edit #4 agent renamed 3 (cup) -&gt; mug" in md
    assert md.rstrip().endswith("*SynergAI is thinking…*")
    log.pending = None
    assert not log.markdown().rstrip().endswith("---")


def test_chat_shows_model_and_user_words_literally_and_a_cancelled_turn_as_such():
    escaped = "see \\[this\\](http://evil) \\*now\\* \\`x\\` a\\_b"
    assert escape("see [this](http://evil) *now* `x` a_b") == escaped
    assert escape("ok\n# big\n- item\n2. two") == "ok  \n\\# big  \n\\- item  \n2\\. two"
    log = ChatLog([ChatTurn.stopped("rename it", 4.2)])
    md = log.markdown()
    assert "cancelled after 4 s" in md and "SynergAI:" not in md
    assert model_label("qwen2.5-coder-1.5b-instruct-q4_k_m") == "embedded qwen2.5-coder-1.5b-instruct-q4_k_m"
    assert model_label("openai:gpt-4o-mini@http://127.0.0.1:8000/v1") == "openai:gpt-4o-mini@http://127.0.0.1:8000/v1"
    assert model_label("scripted:script.json") == "scripted:script.json"


# ----- labels and legend
def test_labels_that_would_overlap_are_stacked_and_distant_ones_stay():
    size = LabelSize(char_width=0.05, line_height=0.2, padding=0.05)
    table, cup = (2.0, 2.0, 0.8), (2.1, 2.0, 0.9)  # the cup's label would sit on the table's
    far = (5.0, 5.0, 0.9)
    placed = place_labels([table, cup, far], ["table (id: 2)", "cup (id: 3)", "lamp (id: 7)"], size)
    assert placed[0] == table and placed[2] == far  # the first (the mark's) never moves
    assert placed[1][:2] == cup[:2] and placed[1][2] == pytest.approx(table[2] + 0.2)
    # a pile: each label goes above the ones it would cover, whatever the order of their anchors
    pile = place_labels([(0, 0, 1.0), (0.1, 0, 1.05), (0, 0.1, 0.95), (0, 0, 1.25)], ["a" * 10] * 4, size)
    zs = sorted(p[2] for p in pile)
    assert all(b - a >= 0.2 - 1e-9 for a, b in itertools.pairwise(zs))
    assert place_labels([], []) == []
    with pytest.raises(ValueError, match="2 anchors for 1 labels"):
        place_labels([(0, 0, 0), (1, 1, 1)], ["x"])


def test_the_answer_label_does_not_sit_on_the_marked_objects_label():
    from synergai.gui.scene_view import SceneView

    class Scene:
        def __init__(self):
            self.labels = {}

        def add_label(self, name, text, position, anchor):
            self.labels[text] = position
            return self

        def add_line_segments(self, *a, **k):
            return self

        def remove(self):
            pass

    g = room()
    view = SceneView(Scene())
    view.show_mark(g.get("2"))  # the table is marked; the answer names the cup on it
    view.show_answer(g, ["3", "2"])
    table, cup = view.scene.labels[label_text(g.get("2"))], view.scene.labels[label_text(g.get("3"))]
    assert table == label_anchor(g.get("2"))
    assert cup[2] >= table[2] + LabelSize().line_height - 1e-9 and cup[:2] == label_anchor(g.get("3"))[:2]


def test_segmentation_legend_lists_categories_with_instance_colours_escaped():
    g = room()
    g.put(g.get("3").with_changes(category="<b>cup</b>"))
    rows = legend_rows(g, ["4", "5", "3", "2", "missing"])
    assert [name for name, _ in rows] == ["<b>cup</b>", "chair", "table"]  # sorted; "missing" left out
    chairs = dict(rows)["chair"]
    assert chairs == [("4", instance_color("4")), ("5", instance_color("5"))]
    html_text = legend_html(g, ["4", "5", "3", "2"])
    assert "<b>cup" not in html_text and "&lt;b&gt;cup&lt;/b&gt;" in html_text
    r, gg, b = instance_color("4")
    assert f"background:rgb({r}, {gg}, {b})" in html_text and html_text.count("<span title=") == 4
    assert legend_html(g, []) == ""


# ----- the command line
def test_serve_command_binds_loopback_prints_its_url_and_stops_on_ctrl_c(tmp_path):
    import argparse
    import os
    import signal
    import subprocess
    import sys
    import urllib.request

    from child_lines import LineReader
    from synergai.cli import gui_cmd

    parser = argparse.ArgumentParser()
    gui_cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve"])
    assert (args.host, args.port, args.scene) == ("127.0.0.1", 8080, "demo")
    assert args.llm is None  # not given: the config (default embedded) decides when the command runs
    script = tmp_path / "script.json"
    script.write_text("[]")
    # Ctrl-C as a terminal sends it, whatever this test's parent does with SIGINT (a shell's background
    # job ignores it, and a child inherits that)
    code = ("import argparse, signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "from synergai.cli import gui_cmd\np = argparse.ArgumentParser()\n"
            "gui_cmd.register(p.add_subparsers(dest='command'))\na = p.parse_args(sys.argv[1:])\n"
            "sys.exit(a.func(a))\n")
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "serve", "--port", "0", "--db", str(tmp_path / "s.sqlite3"),
         "--llm", f"scripted:{script}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout is not None
        output = LineReader(proc.stdout)  # drains the pipe: a process blocked on a full pipe never exits
        line = output.until("SynergAI GUI: open ", timeout=60)[-1]  # a missing line fails, not hangs
        assert line.startswith("SynergAI GUI: open http://127.0.0.1:"), line
        url = line.split()[3]
        with urllib.request.urlopen(url, timeout=10) as r:
            assert r.status == 200 and b"<html" in r.read(2000).lower()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            rest = output.rest(timeout=5)
            raise AssertionError(f"serve did not stop on Ctrl-C; its output:\n{rest[-3000:]}") from None
        rest = output.rest(timeout=5)
        assert proc.returncode == 0, rest[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_ctrl_c_right_after_the_url_is_printed_stops_the_server_cleanly(tmp_path, monkeypatch, capsys):
    import argparse

    import synergai.gui
    from synergai.cli import gui_cmd

    class Handle:
        url, stopped, waited = "http://127.0.0.1:1/?token=x", 0, 0

        def stop(self) -> None:
            self.stopped += 1

        def wait(self) -> None:
            self.waited += 1

    handle = Handle()
    monkeypatch.setattr(synergai.gui, "serve", lambda *a, **k: handle)

    def interrupted(text: str) -> str:  # the Ctrl-C lands while the second line is being written
        raise KeyboardInterrupt

    monkeypatch.setattr(gui_cmd, "mask_secrets", interrupted)
    script = tmp_path / "script.json"
    script.write_text("[]")
    parser = argparse.ArgumentParser()
    gui_cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", "--port", "0", "--db", str(tmp_path / "s.sqlite3"),
                              "--llm", f"scripted:{script}"])
    try:
        assert args.func(args) == 0
    except KeyboardInterrupt:  # caught here, or pytest would stop the whole run
        pytest.fail("a Ctrl-C after the URL was printed escaped serve")
    assert (handle.stopped, handle.waited) == (1, 0)
    assert "SynergAI GUI: open http://127.0.0.1:1/" in capsys.readouterr().out


def test_serve_refuses_an_unknown_scene_before_binding_a_port(tmp_path):
    from synergai.gui import serve
    from synergai.llm import ScriptedModel
    from synergai.scene.catalog import SceneCatalog
    from synergai.scene.store import SceneStore

    with SceneStore(tmp_path / "s.sqlite3") as store:
        with pytest.raises(SceneError, match="unknown scene 'nope'"):
            serve(SceneCatalog(store), lambda: ScriptedModel([]), port=0, scene_id="nope", block=False)
        assert not store.has_scene("nope")


def test_the_why_fold_lists_steps_and_observations_escaped():
    trace = [{"type": "plan", "plan": ['query_for_objects {"query": "cup"}'], "thought": ""},
             {"type": "action", "action": "query_for_objects", "action_input": {"query": "cup"},
              "observation": "The cup (id: 3) <script>alert(1)</script> is on the table."},
             {"type": "program", "program": "print(1/0)", "ok": False, "error": "ZeroDivisionError"},
             {"type": "error", "error": "repeated action"},
             {"type": "final", "from_graph": True, "short_answer": "on the table"}]
    result = AgentResult(answer="It is on the table.", trace=trace)
    turn = ChatTurn.from_result("where is the cup?", result, room())
    assert turn.why == ('plan: query_for_objects {"query": "cup"}',
                        'query_for_objects {"query": "cup"} → The cup (id: 3) <script>alert(1)</script> '
                        "is on the table.",
                        "program: print(1/0) → ZeroDivisionError", "error: repeated action",
                        "answer from the graph: on the table")
    md = ChatLog([turn]).markdown()
    assert "<details><summary>why?</summary>" in md and "</details>" in md
    assert "<script>" not in md and "&lt;script&gt;" in md
    assert "<details>" not in ChatLog([ChatTurn.stopped("x")]).markdown()
