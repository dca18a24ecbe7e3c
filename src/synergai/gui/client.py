"""One browser tab: its GUI panels, its 3D view, its agent session (own mark and dialogue).

Layout after SynergAI Fig. A.2: a left panel with the scene drop-down, view switches (reconstruction /
segmentation with its legend, walls, ceiling), the marked object and its local scene graph (neighbours
clickable); the right panel with the chat (the model in use, history, input; while the agent works its
stage, the seconds elapsed and a Cancel button) and the edit history (undo / redo). Undoing a robot's
action asks first (the robot moved the thing in the room; undo changes only the record) and the undo is
logged as confirmed (:data:`CONFIRMED_ROBOT_UNDO`).

Threading: viser runs callbacks on its thread pool; a question runs on a worker thread of its own, so
the page stays responsive, and a ticker thread refreshes the status line every half second while it
runs. Every state change of the tab happens under ``self.lock``.
"""

from __future__ import annotations

import html
import logging
import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from synergai.agent.intent import InputTooLong, check_length
from synergai.agent.progress import StagedModel, TurnCancelled
from synergai.agent.session import AgentSession
from synergai.geometry.frames import vec3
from synergai.gui.camera import CameraPose, overview
from synergai.gui.chat import ChatLog, ChatTurn, escape, model_label
from synergai.gui.legend import legend_html
from synergai.gui.local_graph import local_graph, to_svg
from synergai.gui.rooms import rooms_html
from synergai.gui.scene_view import SceneView
from synergai.gui.turn import TurnStatus
from synergai.llm.base import LLMError
from synergai.masking import mask_secrets
from synergai.scene.edits import Actor, EditRecord
from synergai.scene.model import ObjectKind, SceneError, SceneGraph

if TYPE_CHECKING:
    from synergai.gui.app import GuiApp
    from synergai.scene.store import StoreEvent

log = logging.getLogger(__name__)

MAX_EDITS_SHOWN = 12
#: Who the event log names for an undo of a robot's physical action the person confirmed.
CONFIRMED_ROBOT_UNDO = "user (confirmed undo of a robot's action)"
TICK_SECONDS = 0.5  # how often the status line's elapsed seconds are refreshed
#: Characters of a refused (too long) chat line that the chat shows.
TOO_LONG_SHOWN = 80
#: The 3D canvas's width / height assumed when the browser has not reported its camera: the canvas is the
#: space between the side panels (612 x 850 pixels in a 1400 x 850 window), narrower than it is high.
GUESSED_ASPECT = 0.72
GUESSED_FOV = 1.3
#: A canvas whose width / height changed by more than this share since the scene was framed is reframed.
ASPECT_CHANGE = 0.02


class ClientSession:
    """The state and panels of one viser client (browser tab)."""

    def __init__(self, app: GuiApp, client: Any, scene_id: str) -> None:
        self.app = app
        self.client = client
        self.lock = threading.RLock()
        self.busy = False
        self.chat = ChatLog()
        self.status = TurnStatus()
        self.model = StagedModel(app.llm_factory(), self._on_stage, self.status.cancel)
        self.session = AgentSession(app.catalog.store, scene_id, self.model)
        self.view = SceneView(client.scene)
        self.worker: threading.Thread | None = None
        self._ticker_stop = threading.Event()
        self._framed: tuple[float, np.ndarray] | None = None  # canvas aspect framed for, camera position set
        self._nb_buttons: list[Any] = []
        self._since_event = 0  # the store's newest event when the scene was loaded: later ones are news
        self.dropped = False  # the scene was dropped from the store (by any process) while shown
        self._reload_after_turn = False
        self._undoable: int | None = None  # the newest active edit shown (what Undo means), and
        self._redoable: int | None = None  # the oldest undone one (what Redo means)
        self._build_gui()
        self._wire_scene()
        with self.lock:
            self._load_scene(scene_id)

    # ----- properties
    @property
    def scene_id(self) -> str:
        return self.session.scene_id

    @property
    def marked(self) -> str | None:
        return self.session.marked

    def graph(self) -> SceneGraph:
        """The current graph of this tab's scene (from the shared store)."""
        return self.app.catalog.store.load(self.scene_id)

    # ----- layout
    def _build_gui(self) -> None:
        gui = self.client.gui
        gui.configure_theme(control_width="large", show_logo=False, show_share_button=False)
        gui.set_panel_label("SynergAI")
        left = gui.add_panel()
        with left.add_tab("Scene"):
            self.scene_dropdown = gui.add_dropdown("Scene", self.app.scene_ids(), initial_value=self.scene_id)
            self.scene_info = gui.add_markdown("")
            self.seg_checkbox = gui.add_checkbox("Segmentation", False, hint="instance colours per object")
            self.legend = gui.add_html("", visible=False)
            self.walls_checkbox = gui.add_checkbox("Walls", True)
            self.ceiling_checkbox = gui.add_checkbox("Ceiling", False)
            self.rooms_checkbox = gui.add_checkbox("Rooms", True, hint="each room's floor in its colour",
                                                   visible=False)
            self.rooms_html = gui.add_html("", visible=False)
            self.reset_button = gui.add_button("Reset view")
            with gui.add_folder("Marked object"):
                self.marked_md = gui.add_markdown("")
                self.clear_button = gui.add_button("Clear mark", disabled=True)
            with gui.add_folder("Local scene graph"):
                self.graph_html = gui.add_html("")
                self.nb_folder = gui.add_folder(None)
        left.dock_left()
        left.set_width(380)
        main = gui.main_panel
        main.dock_right()
        main.set_width(400)
        with gui.add_folder("Chat"):
            self.model_md = gui.add_markdown(f"<small>model: {escape(model_label(self.model.name))}</small>")
            self.chat_md = gui.add_markdown(self.chat.markdown())
            self.busy_bar = gui.add_progress_bar(100.0, animated=True, visible=False)
            self.status_md = gui.add_markdown("", visible=False)
            self.cancel_button = gui.add_button("Cancel", visible=False, color="red",
                                                hint="stop this turn; nothing it did is kept")
            with gui.add_form(None) as form:
                self.form = form
                self.input = gui.add_text("Message", "", hint="Enter sends")
                self.send_button = gui.add_button("Send")
        with gui.add_folder("Edit history"):
            self.edits_md = gui.add_markdown("")
            self.undo_button = gui.add_button("Undo")
            self.redo_button = gui.add_button("Redo")
        self.scene_dropdown.on_update(lambda _e: self._on_scene_selected())
        self.seg_checkbox.on_update(lambda _e: self._on_view_switch())
        self.walls_checkbox.on_update(lambda _e: self._on_view_switch())
        self.ceiling_checkbox.on_update(lambda _e: self._on_view_switch())
        self.rooms_checkbox.on_update(lambda _e: self._on_rooms_switch())
        self.reset_button.on_click(lambda _e: self.reset_camera())
        self.cancel_button.on_click(lambda _e: self.cancel())
        self.clear_button.on_click(lambda _e: self.mark(None))
        self.send_button.on_click(lambda _e: self.form.submit())
        self.form.on_submit(lambda _e: self.submit(self.input.value))
        self.undo_button.on_click(lambda _e: self._undo_redo(undo=True))
        self.redo_button.on_click(lambda _e: self._undo_redo(undo=False))

    def _wire_scene(self) -> None:
        self.client.scene.set_up_direction("+z")
        self.client.scene.configure_default_lights(True, cast_shadow=False)
        self.client.camera.on_update(lambda _cam: self._on_camera_report())

        @self.client.scene.on_click()
        def _(event: Any) -> None:
            self.click(event.ray_origin, event.ray_direction)

    # ----- scene
    def _load_scene(self, scene_id: str, *, registered: bool = False) -> None:
        """Open ``scene_id`` (caller holds the lock): draw it, reset mark, chat and camera.
        ``registered``: the store has just registered it (read as it is, not built from its source)."""
        graph = self.app.catalog.store.load(scene_id) if registered else self.app.catalog.open(scene_id)
        since = self.app.newest_event()  # opening it may have registered it: not news for this tab
        if scene_id != self.session.scene_id:
            self.session.switch_scene(scene_id)
        self.session.mark(None)
        self._since_event, self.dropped, self._reload_after_turn = since, False, False
        self.chat = ChatLog()
        self.view.segmentation = bool(self.seg_checkbox.value)
        self.view.show_walls = bool(self.walls_checkbox.value)
        self.view.show_ceiling = bool(self.ceiling_checkbox.value)
        self.view.draw(graph, self.app.meshes(scene_id))
        n_mesh = sum(1 for i in self.view.drawn if i in self.app.meshes(scene_id))
        what = "meshes" if n_mesh else "boxes (no meshes in this source)"
        kind = graph.scene_type or "scene"
        self.scene_info.content = (f"**{escape(scene_id)}** · {escape(kind)} · {len(graph)} objects, "
                                   f"{len(graph.edges)} relations · drawn as {what}")
        self.reset_camera(graph)
        self._show_mark_panels(graph)
        self._show_legend(graph)
        self._show_rooms(graph)
        self.chat_md.content = self.chat.markdown()
        self._show_edits()

    def _on_scene_selected(self) -> None:
        new = self.scene_dropdown.value
        with self.lock:
            if new == self.scene_id and not self.dropped:
                return
            if self.busy:
                self.scene_dropdown.value = self.scene_id
                self.notify("Busy", "Wait for the answer before switching scenes.")
                return
            try:
                self._load_scene(new)
            except SceneError as exc:
                self.scene_dropdown.value = self.scene_id
                self.notify("Cannot open scene", str(exc))

    def scene_event(self, event: StoreEvent) -> None:
        """This tab's scene was registered or dropped (by any process): say so; show a new scene under
        its id, or that it is gone."""
        with self.lock:
            if event.scene != self.scene_id or event.seq <= self._since_event:
                return  # an event this tab has seen (its own opening of the scene registered it)
            self._since_event = event.seq
            if event.kind == "drop":
                self._show_dropped(event.actor)
            elif self.busy:
                self._reload_after_turn = True
                self.notify("Scene registered again", f"Scene {self.scene_id} was registered again by "
                                                      f"{event.actor}; it is shown when this answer is done.")
            else:
                self._reload(f"Scene {self.scene_id} was registered again by {event.actor}: "
                             "the new scene is shown.")

    def _reload(self, why: str) -> None:
        """Show the scene the store now holds under this tab's id (caller holds the lock)."""
        try:
            self._load_scene(self.scene_id, registered=True)
        except SceneError as exc:
            self._show_dropped("", why=str(exc))
            return
        self.notify("Scene registered again", why)

    def _show_dropped(self, actor: str, why: str = "") -> None:
        """The scene is no longer in the store: nothing of it is drawn or offered (caller holds the lock)."""
        self.dropped = True
        self.view.clear()
        self.session.mark(None)
        who = f" by {actor}" if actor else ""
        text = why or f"Scene {self.scene_id} was dropped from the store{who}."
        self.scene_info.content = f"**{escape(self.scene_id)}** · {escape(text)} Choose another scene."
        self.marked_md.content = ""
        self.graph_html.content = ""
        for b in self._nb_buttons:
            b.remove()
        self._nb_buttons = []
        self.edits_md.content = "*The scene and its edits are no longer in the store.*"
        self.undo_button.disabled = self.redo_button.disabled = self.clear_button.disabled = True
        self._undoable = self._redoable = None
        self.notify("Scene dropped", text)

    def set_scene_list(self, ids: list[str]) -> None:
        """The scenes the drop-down offers (this tab's scene stays listed)."""
        with self.lock:
            self.scene_dropdown.options = ids if self.scene_id in ids else [self.scene_id, *ids]

    def reset_camera(self, graph: SceneGraph | None = None) -> None:
        """Frame the whole scene (walls and floor included, ceiling excluded) in the 3D canvas, which is
        the space between the side panels (its shape as the browser last reported it, else guessed)."""
        graph = graph if graph is not None else self.graph()
        ids = [o.id for o in graph if o.kind is not ObjectKind.CEILING] or graph.ids
        if not ids:
            return
        boxes = graph.box_array(ids)
        cam = self.client.camera
        try:
            fov, aspect = float(cam.fov), float(cam.aspect)
        except (AssertionError, ZeroDivisionError):  # the browser has not reported its camera yet
            fov, aspect = GUESSED_FOV, GUESSED_ASPECT
        position, target = overview(boxes.mins.min(axis=0), boxes.maxs.max(axis=0), fov=fov, aspect=aspect)
        cam.up_direction = (0.0, 0.0, 1.0)
        cam.position = tuple(position)
        cam.look_at = tuple(target)
        self._framed = (aspect, position)

    def _on_camera_report(self) -> None:
        """The browser reported its camera. When the canvas changed shape since the scene was framed
        (the first report comes before the side panels are docked and take their room; a panel was
        collapsed) and the user has not moved the camera since, the scene is framed again."""
        with self.lock:
            if self._framed is None:
                return
            aspect, position = self._framed
            cam = self.client.camera
            try:
                now, where = float(cam.aspect), np.asarray(cam.position, dtype=np.float64)
            except (AssertionError, ZeroDivisionError):
                return
            if abs(now - aspect) > ASPECT_CHANGE * aspect and np.allclose(where, position, atol=1e-3):
                self.reset_camera()

    def camera_pose(self) -> CameraPose:
        """The browser's current camera (as last reported by the client)."""
        cam = self.client.camera
        w, x, y, z = (float(v) for v in cam.wxyz)
        return CameraPose(vec3(cam.position), (w, x, y, z), float(cam.fov), int(cam.image_width),
                          int(cam.image_height))

    def _on_view_switch(self) -> None:
        with self.lock:
            if self.dropped:
                return
            self.view.segmentation = bool(self.seg_checkbox.value)
            graph = self.graph()
            self.view.set_structure(graph, self.walls_checkbox.value, self.ceiling_checkbox.value)
            self._show_legend(graph)

    def _show_rooms(self, graph: SceneGraph) -> None:
        """The rooms panel and toggle, shown when the scene has rooms (caller holds the lock)."""
        self.rooms_html.content = rooms_html(graph)
        self.rooms_html.visible = self.rooms_checkbox.visible = bool(graph.rooms)

    def _on_rooms_switch(self) -> None:
        with self.lock:
            self.view.set_rooms(bool(self.rooms_checkbox.value))

    def _show_legend(self, graph: SceneGraph) -> None:
        """The segmentation legend of the visible objects, shown while that view is on (caller holds
        the lock)."""
        on = bool(self.seg_checkbox.value)
        self.legend.content = legend_html(graph, self.view.pickable()) if on else ""
        self.legend.visible = on

    # ----- marking
    def click(self, origin: Any, direction: Any) -> str | None:
        """A click ray from the browser: mark the first visible object it hits (None: nothing hit)."""
        with self.lock:
            if self.dropped:
                return None
            graph = self.graph()
            picker = self.app.picker(self.scene_id, graph, self.view.pickable())
            hit = picker.pick(origin, direction)
            if hit is not None:
                self.mark(hit)
            return hit

    def mark(self, object_id: str | None) -> None:
        """Mark an object (or clear the mark): the session, the yellow box and the panels follow."""
        with self.lock:
            try:
                self.session.mark(object_id)
            except SceneError as exc:
                self.notify("Cannot mark", str(exc))
                return
            graph = self.graph()
            self._show_mark_panels(graph)

    def _show_mark_panels(self, graph: SceneGraph) -> None:
        """Yellow box, marked-object text, local graph and neighbour buttons (caller holds the lock)."""
        oid = self.session.marked
        if oid is not None and oid not in graph:
            self.session.mark(None)
            oid = None
        self.view.show_mark(None if oid is None else graph.get(oid))
        if self.view.answer_ids:  # labels of the answer's objects depend on what is marked
            self.view.show_answer(graph, self.view.answer_ids)
        for b in self._nb_buttons:
            b.remove()
        self._nb_buttons = []
        self.clear_button.disabled = oid is None
        if oid is None:
            self.marked_md.content = "*Nothing marked. Click an object in the 3D view.*"
            self.graph_html.content = ""
            return
        obj = graph.get(oid)
        attrs = ", ".join(obj.attributes) or "no attributes"
        level = graph.levels.get(oid)
        self.marked_md.content = (f"**{escape(obj.name)} (id: {escape(oid)})** — {escape(attrs)}"
                                  + (f" · level {level}" if level is not None else ""))
        local = local_graph(graph, oid)
        self.graph_html.content = to_svg(local)
        with self.nb_folder:
            for nb in local.neighbours:
                b = self.client.gui.add_button(f"{nb.label} · {', '.join(nb.relations)}",
                                               hint=f"mark the {nb.name}")
                b.on_click(lambda _e, target=nb.id: self.mark(target))
                self._nb_buttons.append(b)

    # ----- chat
    def submit(self, text: str) -> bool:
        """Ask the agent (on a worker thread); False when empty or already busy."""
        question = (text or "").strip()
        with self.lock:
            if not question or self.busy:
                return False
            try:
                check_length(question)
            except InputTooLong as exc:  # refused at once, in the chat; nothing runs
                self.input.value = ""
                self.chat.turns.append(ChatTurn(question[:TOO_LONG_SHOWN] + " …", f"Not asked: {exc}.",
                                                error=True))
                self.chat_md.content = self.chat.markdown()
                return False
            self.chat.pending = question
            self.input.value = ""
            self.status.start()
            self.model.new_turn()
            self._set_busy(True)
            self.busy = True  # after the widgets: a reader without the lock never sees one without the other
            try:
                self.session.viewpoint = self.camera_pose().viewpoint()
            except (SceneError, ValueError, AssertionError):
                self.session.viewpoint = None
            self.worker = threading.Thread(target=self._work, args=(question,), name="synergai-gui-ask",
                                           daemon=True)
            self._ticker_stop = threading.Event()
            threading.Thread(target=self._tick, args=(self._ticker_stop,), name="synergai-gui-tick",
                             daemon=True).start()
            self.worker.start()
        return True

    def cancel(self) -> bool:
        """Stop the turn under way (cooperatively: see :mod:`synergai.agent.progress`); False when idle."""
        with self.lock:
            if not self.busy or not self.status.request_cancel():
                return False
            self.cancel_button.disabled = True
            self._show_status()
        return True

    def _on_stage(self, stage: str) -> None:
        """The agent's stage (reported on the worker thread)."""
        with self.lock:
            self.status.report(stage)
            self._show_status()

    def _show_status(self) -> None:
        """The status line: stage and elapsed seconds (caller holds the lock)."""
        self.status_md.content = self.status.markdown()

    def _tick(self, stop: threading.Event) -> None:
        """Refresh the elapsed seconds until the turn is over."""
        while not stop.wait(TICK_SECONDS):
            with self.lock:
                if stop.is_set():
                    return
                self._show_status()

    def _set_busy(self, busy: bool) -> None:
        self.busy_bar.visible = busy
        self.status_md.visible = busy
        self._show_status()
        self.cancel_button.visible = busy
        self.cancel_button.disabled = not busy
        self.send_button.disabled = busy
        self.input.disabled = busy
        self.scene_dropdown.disabled = busy
        self.chat_md.content = self.chat.markdown()

    def _work(self, question: str) -> None:
        scene_id = self.scene_id
        edited = False
        try:
            result = self.session.ask(question)
            graph = self.graph()
            turn = ChatTurn.from_result(question, result, graph)
            edited = bool(result.edits)
            with self.lock:
                self.view.show_answer(graph, result.objects)
        except TurnCancelled:  # nothing the turn did was kept (its edits are only written at its end)
            turn = ChatTurn.stopped(question, self.status.elapsed())
        except Exception as exc:  # the GUI boundary: any failure is shown in the chat, never lost
            expected = isinstance(exc, SceneError | ValueError | LLMError)  # no traceback for these
            log.warning("question failed: %s", exc, exc_info=not expected)
            turn = ChatTurn(question, f"{type(exc).__name__}: {mask_secrets(exc)}", error=True)
        with self.lock:
            self._ticker_stop.set()
            self.status.finish()
            self.chat.pending = None
            self.chat.turns.append(turn)
            self._set_busy(False)
            self.busy = False
            if self._reload_after_turn:
                self._reload(f"Scene {scene_id} was registered again while the agent answered: "
                             "the new scene is shown.")
                return
        if edited:
            self.app.scene_changed(scene_id)

    # ----- edits
    def _undo_redo(self, undo: bool) -> None:
        """Undo the newest active edit shown (Redo: the oldest undone one); when another writer has
        changed the log since it was shown, nothing is changed and the tab says which edit is first now."""
        store, verb = self.app.catalog.store, "undo" if undo else "redo"
        with self.lock:
            if self.busy:
                self.notify("Busy", f"Wait for the answer before you {verb}.")
                return
            if self.dropped:
                self.notify(f"Cannot {verb}", f"Scene {self.scene_id} was dropped from the store: its edits "
                                              "are gone. Choose another scene.")
                return
            expect = self._undoable if undo else self._redoable
            robot = [e for e in store.edits(self.scene_id) if e.seq == expect] if undo else []
            if robot and robot[-1].actor is Actor.ROBOT:  # a robot's physical action: ask first
                self._confirm_robot_undo(robot[-1])
                return
            try:
                if expect is None:
                    record = None
                else:
                    record = (store.undo if undo else store.redo)(self.scene_id, expect=expect)
            except SceneError as exc:  # superseded by another writer, the scene gone, the store away
                self.notify(f"Not {verb}ne", str(exc))
                record = None
        if record is None and expect is None:
            self.notify(f"Nothing to {verb}", "")
        self.app.scene_changed(self.scene_id)

    def _confirm_robot_undo(self, record: EditRecord) -> None:
        """A dialog: undo the robot's action ``record`` (:meth:`undo_robot_action`) or keep it."""
        gui = self.client.gui
        with gui.add_modal("Undo a robot's action?") as modal:
            gui.add_markdown(escape(f"Edit {record.seq}: {record.summary()}. The robot did this in the room: "
                                    "undoing it changes the scene graph, not the room."))
            yes = gui.add_button("Undo it", color="red")
            no = gui.add_button("Keep it")

        def undo_it(_event: Any) -> None:
            modal.close()
            self.undo_robot_action(record.seq)

        yes.on_click(undo_it)
        no.on_click(lambda _e: modal.close())

    def undo_robot_action(self, seq: int) -> None:
        """Undo robot edit ``seq``, confirmed by the person (logged as :data:`CONFIRMED_ROBOT_UNDO`);
        nothing is undone when another edit has become the newest meanwhile."""
        with self.lock:
            try:
                record = self.app.catalog.store.undo(self.scene_id, actor=CONFIRMED_ROBOT_UNDO, expect=seq)
            except SceneError as exc:  # another edit became the newest meanwhile, or the scene is gone
                self.notify("Not undone", str(exc))
                return
        if record is None:
            self.notify("Not undone", f"edit {seq} is no longer the newest edit; look at the history again")
            return
        log.info("scene %s: undo of robot edit #%d confirmed (%s)", self.scene_id, seq, record.summary())
        self.app.scene_changed(self.scene_id)

    def _show_edits(self) -> None:
        records = self.app.catalog.store.edits(self.scene_id, include_undone=True)
        if not records:
            self.edits_md.content = "*No edits yet. Corrections you make in the chat appear here.*"
        else:
            newest = records[::-1][:MAX_EDITS_SHOWN]
            lines = [f"{r.seq}. {escape(r.summary())}" for r in newest]
            more = len(records) - len(newest)
            self.edits_md.content = "\n".join(f"- {line}" for line in lines) + (
                f"\n\n<small>and {more} older</small>" if more else "")
        active = [r.seq for r in records if r.state.value == "active"]
        undone = [r.seq for r in records if r.state.value == "undone"]
        self._undoable, self._redoable = max(active, default=None), min(undone, default=None)
        self.undo_button.disabled = self._undoable is None
        self.redo_button.disabled = self._redoable is None

    def refresh(self) -> None:
        """Re-read the scene after an edit (by any tab or process): drawing, mark, local graph, edits."""
        with self.lock:
            if self.dropped:
                return
            graph = self.graph()
            self.view.update(graph)
            self._show_mark_panels(graph)
            self._show_legend(graph)
            self._show_edits()

    def notify(self, title: str, body: str) -> None:
        """A toast in this tab."""
        try:
            self.client.add_notification(title=title, body=html.escape(mask_secrets(body)),
                                         auto_close_seconds=5.0)
        except Exception as exc:  # a closed tab cannot be notified; nothing else to do
            log.debug("notification failed: %s", exc)
