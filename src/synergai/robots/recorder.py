"""What robots do, written to a stored scene: one edit per action that changes the world, by the actor
``robot:<name>``, so that every reader of the store (the GUI, ``synergai ask``) sees the room as the
robots leave it.

A move writes the object's new box; its stored relations are recomputed
(:func:`synergai.scene.edits.move_object`), so its support (on the table, on the plate, in the fridge) changes
with it. Opening or closing writes the state as an attribute (``open`` / ``closed``).

Every edit names the registration of the scene the robots planned on (read when the recorder opens it):
a scene dropped, or dropped and registered again under the same id, is never written to
(:class:`~synergai.robots.errors.EpisodeStopped`). An edit is built on the recorder's copy of the scene;
when another writer changed the scene meanwhile and the store refuses the edit, the recorder reloads the
scene and builds the edit once more: when the object is already as the action leaves it (another robot
made the same move), nothing is written and :attr:`SceneRecorder.notes` says so; when the object is gone
(a person deleted it) or the second try is refused too, :class:`EpisodeStopped` names the action and the
edit that changed it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from synergai.robots.errors import EpisodeStopped
from synergai.scene import edits as E
from synergai.scene.model import SceneError, SceneGraph
from synergai.scene.store import SceneReplacedError, SceneStore, StoreError

OPEN, CLOSED = "open", "closed"
#: Builds an action's edit on a graph (None: the graph is already as the action leaves it).
Build = Callable[[SceneGraph], E.EditRequest | None]


class SceneRecorder:
    """Writes robot actions to one scene of a store (the store must be writable)."""

    def __init__(self, store: SceneStore, scene_id: str, task: str = "") -> None:
        if store.read_only:
            raise StoreError(f"scene store {store.where} cannot be written by this user: the robots' actions "
                             "could not be recorded; nothing was changed")
        self.store, self.scene_id, self.task = store, scene_id, task
        self.graph, self._revision = store.snapshot(scene_id)
        #: the registration id of the scene the robots plan on
        self.registration = self._revision[0]
        self.records: list[E.EditRecord] = []
        #: actions that needed no edit because another writer had already made the change
        self.notes: list[str] = []
        #: why nothing more can be written (the scene was dropped or registered again), once known
        self.gone: str | None = None

    def _utterance(self, action: str) -> str:
        return f"{action} (task: {self.task})" if self.task else action

    def refresh(self) -> SceneGraph:
        """The scene as it is now: read again when another writer changed it (EpisodeStopped when it was
        dropped or registered again)."""
        try:
            now = self.store.revision(self.scene_id)
        except StoreError:
            raise
        except SceneError:
            self.gone = f"scene {self.scene_id} was dropped while the robots worked on it"
            raise EpisodeStopped(self.gone) from None
        if now != self._revision:
            self._reload()
        return self.graph

    def _reload(self) -> None:
        self.graph, self._revision = self.store.snapshot(self.scene_id)
        if self._revision[0] != self.registration:
            self.gone = (f"scene {self.scene_id} was dropped and registered again (another scene under that "
                         "id) while the robots worked on it; nothing more is written")
            raise EpisodeStopped(self.gone)

    def _write(self, object_id: str, action: str, build: Build) -> E.EditRecord | None:
        if object_id not in self.graph:  # seen gone when the scene was last read
            raise self._gone(object_id, action)
        request = build(self.graph)
        if request is None:
            return None
        record: E.EditRecord | None
        try:
            record = self.store.apply(self.scene_id, request, registration=self.registration)
        except SceneReplacedError as exc:
            self.gone = str(exc)
            raise EpisodeStopped(f"{action} was not recorded: {exc}") from None
        except StoreError:
            raise
        except SceneError as exc:
            if self.store.revision(self.scene_id) == self._revision:
                raise  # not another writer's change: the edit itself is wrong
            record = self._again(object_id, action, build, exc)
        if record is None:
            return None
        E.apply_changes(self.graph, record.changes)
        self._revision = self.store.revision(self.scene_id)
        self.records.append(record)
        return record

    def _again(self, object_id: str, action: str, build: Build, refused: SceneError) -> E.EditRecord | None:
        """Another writer changed the scene: build the edit on its new state (None when nothing is left
        to write)."""
        self._reload()
        if object_id not in self.graph:
            raise self._gone(object_id, action, refused)
        request = build(self.graph)
        if request is None:
            self.notes.append(f"{action}: nothing to write, another writer had already made this change "
                              f"({refused})")
            return None
        try:
            return self.store.apply(self.scene_id, request, registration=self.registration)
        except StoreError:
            raise
        except SceneError as exc:
            raise EpisodeStopped(f"{action} was not recorded: {exc}") from None

    def _gone(self, object_id: str, action: str, refused: SceneError | None = None) -> EpisodeStopped:
        """The stop for an action on an object no longer in the scene, naming the edit that deleted it (the
        newest active one that removes it), else the store's refusal."""
        for record in reversed(self.store.edits(self.scene_id)):
            for ch in record.changes:
                if isinstance(ch, E.ObjectChange) and ch.after is None and ch.before is not None \
                        and ch.before.id == object_id:
                    what = f"object {object_id} ({ch.before.category})"
                    edit = f"edit #{record.seq} ({record.who}, {record.timestamp}: {record.summary()})"
                    return EpisodeStopped(f"{action} was not recorded: {what} was deleted by {edit} while "
                                          "the robots worked")
        why = refused or f"object {object_id} is no longer in scene {self.scene_id}"
        return EpisodeStopped(f"{action} was not recorded: {why}")

    def move(self, robot: str, object_id: str, center: Sequence[float], action: str) -> E.EditRecord | None:
        """Record that ``robot`` moved ``object_id``'s box to ``center`` (None when it did not move)."""
        actor = f"{E.ROBOT_PREFIX}{robot}"

        def build(graph: SceneGraph) -> E.EditRequest | None:
            obj = graph.get(object_id)
            if all(abs(a - b) < 1e-4 for a, b in zip(obj.center, center, strict=True)):
                return None
            return E.move_object(graph, object_id, center, actor, self._utterance(action))
        return self._write(object_id, action, build)

    def set_open(self, robot: str, object_id: str, is_open: bool, action: str) -> E.EditRecord | None:
        """Record that ``robot`` opened (or closed) ``object_id``: attribute ``open`` / ``closed``."""
        now, before = (OPEN, CLOSED) if is_open else (CLOSED, OPEN)
        actor = f"{E.ROBOT_PREFIX}{robot}"

        def build(graph: SceneGraph) -> E.EditRequest | None:
            attrs = graph.get(object_id).attributes
            if now in attrs and before not in attrs:
                return None
            new = [a for a in attrs if a != before]
            if now not in new:
                new.append(now)
            return E.set_attributes(graph, object_id, new, actor, self._utterance(action))
        return self._write(object_id, action, build)
