"""The web GUI server: a viser server whose every browser tab gets its own :class:`ClientSession`.

``serve(catalog, llm_factory)`` binds 127.0.0.1 by default (viser's own default is 0.0.0.0). viser itself
answers only same-origin requests that carry the session's token (see :mod:`synergai.gui.gate`; the URL
printed at start holds the token). Tabs share
the catalog, its store and the scene assets (meshes, ray pickers); each tab keeps its own marked object,
chat and viewpoint. Edits go through the store and every tab on the edited scene is refreshed, also when
another process or another server on the same store (``synergai chat``, a robot, a second ``serve`` on
one PostgreSQL database) made the edit: a watcher thread follows the store's change feed
(:mod:`synergai.scene.feed`), which also brings scenes stored since the start (``synergai scene build``,
``import``) into every tab's drop-down, and tells a tab when its scene is dropped (it says so and draws
nothing of it) or registered again (the new scene is shown). A store that cannot be reached is one
line in the server's log when it goes away and one when it is back.
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from synergai.geometry.mesh import TriMesh
from synergai.geometry.raycast import RayPicker
from synergai.gui.client import ClientSession
from synergai.gui.gate import (
    AccessPolicy,
    PolicySlot,
    check_bindable,
    guarded_serving,
    new_token,
    quiet_malformed_messages,
)
from synergai.gui.picking import ScenePicker
from synergai.llm.base import ChatModel
from synergai.scene.model import SceneError, SceneGraph
from synergai.scene.store_db import StoreError

if TYPE_CHECKING:
    from synergai.scene.catalog import SceneCatalog
    from synergai.scene.store import StoreEvent

log = logging.getLogger(__name__)

LLMFactory = Callable[[], ChatModel]
MAX_PICKERS = 16
#: How often :meth:`GuiHandle.wait` looks whether the GUI was stopped (seconds).
WAIT_POLL_SECONDS = 0.2


class GuiApp:
    """What all tabs share: the catalog, the model factory, cached scene assets and the open tabs."""

    def __init__(self, catalog: SceneCatalog, llm_factory: LLMFactory, scene_id: str) -> None:
        self.catalog = catalog
        self.llm_factory = llm_factory
        self.default_scene = scene_id
        self._lock = threading.Lock()
        self._meshes: dict[str, Mapping[str, TriMesh]] = {}
        self._pickers: dict[tuple[str, frozenset[str]], RayPicker] = {}
        self._listed: list[str] = []
        self._stamps: dict[str, tuple[str, int]] = {}
        self.clients: dict[int, ClientSession] = {}

    # ----- shared assets
    def scene_ids(self) -> list[str]:
        """The drop-down's scenes: the demo, the objects file's and every scene in the store, read now."""
        ids = list(self.catalog.scene_ids())
        if self.default_scene not in ids:
            ids.insert(0, self.default_scene)
        return ids

    def meshes(self, scene_id: str) -> Mapping[str, TriMesh]:
        """The scene's per-object meshes (built once; empty for box-only scenes)."""
        with self._lock:
            if scene_id not in self._meshes:
                self._meshes[scene_id] = dict(self.catalog.meshes(scene_id))
            return self._meshes[scene_id]

    def _ray_picker(self, scene_id: str, ids: frozenset[str]) -> RayPicker:
        key = (scene_id, ids)
        with self._lock:
            picker = self._pickers.get(key)
        if picker is None:
            meshes = self.meshes(scene_id)
            picker = RayPicker({i: meshes[i] for i in sorted(ids)})
            with self._lock:
                if len(self._pickers) >= MAX_PICKERS:
                    self._pickers.pop(next(iter(self._pickers)))
                self._pickers[key] = picker
        return picker

    def picker(self, scene_id: str, graph: SceneGraph, ids: Iterable[str]) -> ScenePicker:
        """A picker over the given (visible) objects of the scene; mesh pickers are cached."""
        return ScenePicker(graph, self.meshes(scene_id), ids,
                           ray_picker=lambda meshed: self._ray_picker(scene_id, meshed))

    # ----- tabs
    def connect(self, client: Any) -> None:
        """A new browser tab: its own session on the default scene."""
        try:
            session = ClientSession(self, client, self.default_scene)
        except Exception:  # a tab that fails to set up must not take the server down
            log.exception("could not set up browser tab %s", getattr(client, "client_id", "?"))
            return
        with self._lock:
            self.clients[client.client_id] = session

    def disconnect(self, client: Any) -> None:
        """A tab closed."""
        with self._lock:
            self.clients.pop(client.client_id, None)

    def sessions(self) -> list[ClientSession]:
        """The open tabs' sessions."""
        with self._lock:
            return list(self.clients.values())

    def newest_event(self) -> int:
        """The store's newest event (0 when its log cannot be read)."""
        try:
            return self.catalog.store.last_event()
        except SceneError:
            return 0

    def forget(self, scene_id: str) -> None:
        """Drop the cached meshes and pickers of a scene (it was dropped or registered again)."""
        with self._lock:
            self._meshes.pop(scene_id, None)
            self._pickers = {k: v for k, v in self._pickers.items() if k[0] != scene_id}

    def scene_changed(self, scene_id: str) -> None:
        """Refresh every tab showing ``scene_id`` (after an edit, undo or redo)."""
        try:
            self._stamps.update(self._read_stamps([scene_id]))
        except SceneError as exc:  # the store away: the feed says so once
            log.debug("could not read the scenes' stamps: %s", exc)
        for s in self.sessions():
            if s.scene_id == scene_id:
                try:
                    s.refresh()
                except SceneError as exc:  # the scene dropped (the feed tells the tab), the store away
                    log.info("could not refresh a browser tab on scene %s: %s", scene_id, exc)
                except Exception:  # one broken tab must not keep the others stale
                    log.exception("could not refresh browser tab")

    # ----- watching the store for other processes' edits and new scenes
    def update_scene_lists(self) -> bool:
        """Give every tab's drop-down the scenes there are now, when they changed; True if they did."""
        ids = self.scene_ids()
        with self._lock:
            if ids == self._listed:
                return False
            self._listed = ids
        for s in self.sessions():
            try:
                s.set_scene_list(ids)
            except Exception:  # one broken tab must not keep the others stale
                log.exception("could not update the scene list of a browser tab")
        return True

    def _read_stamps(self, only: Iterable[str] | None = None) -> dict[str, tuple[str, int]]:
        wanted = None if only is None else set(only)
        return {info.id: (info.updated_at, info.n_active_edits) for info in self.catalog.store.scenes()
                if wanted is None or info.id in wanted}

    def apply_events(self, events: Iterable[StoreEvent]) -> list[str]:
        """Bring the tabs up to date with committed events: the scenes on screen that changed are
        refreshed (each once); registrations and drops update every drop-down. Returns the refreshed."""
        events = list(events)
        fates = {e.scene: e for e in events if e.kind in ("register", "drop")}  # each scene's last one
        if fates:
            self.update_scene_lists()
        for sid in fates:
            self.forget(sid)
        for s in self.sessions():
            fate = fates.get(s.scene_id)
            if fate is not None:
                try:
                    s.scene_event(fate)
                except Exception:  # one broken tab must not keep the others stale
                    log.exception("could not tell a browser tab about scene %s", fate.scene)
        shown = {s.scene_id for s in self.sessions()}
        changed = sorted({e.scene for e in events if e.kind not in ("register", "drop")} & shown - set(fates))
        for sid in changed:
            self.scene_changed(sid)
        return changed

    def poll(self) -> list[str]:
        """Scenes on screen whose stored state changed since last seen; their tabs are refreshed (and
        every tab's drop-down lists the scenes stored since)."""
        self.update_scene_lists()
        shown = {s.scene_id for s in self.sessions()}
        if not shown:
            return []
        stamps = self._read_stamps(shown)
        changed = [sid for sid, st in stamps.items() if sid in self._stamps and self._stamps[sid] != st]
        for sid, st in stamps.items():
            self._stamps.setdefault(sid, st)
        for sid in changed:
            self.scene_changed(sid)
        return changed


@dataclass
class GuiHandle:
    """A running GUI: its URL (with the token), the viser server, the app and its access policy."""

    url: str
    server: Any
    app: GuiApp
    policy: AccessPolicy | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _watcher: threading.Thread | None = None

    def stop(self) -> None:
        """Stop the watcher and the server (idempotent)."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(timeout=5.0)
        self.server.stop()

    def wait(self) -> None:
        """Block until :meth:`stop` or Ctrl-C. It polls with ``time.sleep``: a Ctrl-C that lands inside
        ``Event.wait`` can leave the event's lock held, and :meth:`stop` then hangs on ``set()``."""
        try:
            while not self._stop.is_set():
                time.sleep(WAIT_POLL_SECONDS)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def client_session(self, timeout: float = 30.0, exclude: Iterable[int] = ()) -> ClientSession:
        """The session of a connected tab (the first one not in ``exclude``), waiting up to ``timeout``."""
        skip = set(exclude)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for cid, s in sorted(self.app.clients.items()):
                if cid not in skip:
                    return s
            time.sleep(0.05)
        raise TimeoutError(f"no browser tab connected within {timeout:.0f} s")


def _feed_notice(text: str) -> None:
    """What the change feed says besides events (the store away, back, replaced): one log line each."""
    log.warning("%s", text)


def _watch(app: GuiApp, stop: threading.Event, retry: float) -> None:
    """Follow the store's change feed: refresh the tabs on a changed scene once per batch of events,
    and the drop-downs when scenes come or go. A store that cannot be reached is retried every
    ``retry`` seconds (one log line when it goes away, one when it is back; never a traceback)."""
    from synergai.scene.feed import follow_batches
    from synergai.scene.store import SceneStore

    since: int | None = None
    away = False
    while not stop.is_set():
        try:
            store = SceneStore(app.catalog.store.location)
        except StoreError as exc:
            if not away:
                log.warning("%s; the GUI tries again every %g s", exc, retry)
            away = True
            stop.wait(retry)
            continue
        if away:
            log.warning("scene store %s is reachable again", store.where)
        away = False
        try:
            for batch in follow_batches(None, since=since, stop=stop, store=store, reconnect_s=math.inf,
                                        notice=_feed_notice):
                since = batch[-1].seq
                app.apply_events(batch)
        except StoreError as exc:  # no permission to read the log, a store that is not one any more
            log.warning("the store's change feed stopped: %s; the GUI tries again every %g s", exc, retry)
            away = True
            stop.wait(retry)
        except Exception:  # a bug must not kill the watcher
            log.exception("the store's change feed failed; retrying")
            stop.wait(retry)
        finally:
            store.close()


def serve(catalog: SceneCatalog, llm_factory: LLMFactory, host: str = "127.0.0.1", port: int = 8080,
          scene_id: str = "demo", block: bool = True, *, verbose: bool = False,
          poll_seconds: float = 2.0, token: str | None = None) -> GuiHandle:
    """Start the GUI on ``host:port`` (port 0: any free port) showing ``scene_id`` first.

    The scene is opened (and registered) before the server starts, so a bad id fails here with a
    :class:`~synergai.scene.model.SceneError`; an address that cannot be served fails with an OSError.
    ``token`` (default: a random one) is required by every request; ``handle.url`` carries it. With
    ``block`` it runs until Ctrl-C, then stops. ``poll_seconds`` > 0 starts the watcher that follows
    the store's change feed (the value is how long it waits before retrying a failed feed); 0: none.
    """
    import viser

    catalog.open(scene_id)
    app = GuiApp(catalog, llm_factory, scene_id)
    check_bindable(host)
    slot = PolicySlot()  # every request is refused until the policy knows the port bound
    quiet_malformed_messages()
    # viser prints its own banner with the URL but not the token (that page answers 403): only ours
    # (handle.url) is worth printing; ``verbose`` keeps viser's
    banner = contextlib.nullcontext() if verbose else contextlib.redirect_stdout(io.StringIO())
    with guarded_serving(slot), banner:
        server = viser.ViserServer(host=host, port=port, label="SynergAI", verbose=verbose)
    policy = AccessPolicy(token or new_token(), server.get_port(), host)
    slot.policy = policy
    server.on_client_connect(app.connect)
    server.on_client_disconnect(app.disconnect)
    shown_host = "127.0.0.1" if host in ("0.0.0.0", "") else ("[::1]" if host == "::" else host)
    shown_host = f"[{shown_host}]" if ":" in shown_host and not shown_host.startswith("[") else shown_host
    handle = GuiHandle(f"http://{shown_host}:{server.get_port()}/?token={policy.token}", server, app, policy)
    if poll_seconds > 0:
        handle._watcher = threading.Thread(target=_watch, args=(app, handle._stop, poll_seconds),
                                           name="synergai-gui-watch", daemon=True)
        handle._watcher.start()
    if block:
        handle.wait()
    return handle
