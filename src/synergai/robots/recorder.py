"""What robots do, written to a stored scene: one edit per action that changes the world, by the actor
``robot:<name>``, so that every reader of the store (the GUI, ``synergai ask``) sees the room as the
robots leave it.

A move writes the object's new box; its stored relations are recomputed
(:func:`synergai.scene.edits.move_object`), so its support (on the table, on the plate, in the fridge) changes
with it. Opening or closing writes the state as an attribute (``open`` / ``closed``). An edit is built on the
recorder's copy of the scene; when another writer changed the scene meanwhile and the store refuses the
edit, the recorder reloads the scene and builds the edit once more (a second refusal is an error).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from synergai.scene import edits as E
from synergai.scene.model import SceneError, SceneGraph
from synergai.scene.store import SceneStore, StoreError

OPEN, CLOSED = "open", "closed"


class SceneRecorder:
    """Writes robot actions to one scene of a store (the store must be writable)."""

    def __init__(self, store: SceneStore, scene_id: str, task: str = "") -> None:
        if store.read_only:
            raise StoreError(f"scene store {store.where} cannot be written by this user: the robots' actions "
                             "could not be recorded; nothing was changed")
        self.store, self.scene_id, self.task = store, scene_id, task
        self.graph = store.load(scene_id)
        self._revision = store.revision(scene_id)
        self.records: list[E.EditRecord] = []

    def _utterance(self, action: str) -> str:
        return f"{action} (task: {self.task})" if self.task else action

    def _write(self, build: Callable[[SceneGraph], E.EditRequest]) -> E.EditRecord:
        try:
            record = self.store.apply(self.scene_id, build(self.graph))
        except SceneError:
            if self.store.revision(self.scene_id) == self._revision:
                raise  # not another writer's change: the edit itself is wrong
            self.graph = self.store.load(self.scene_id)  # another writer changed the scene: build anew
            record = self.store.apply(self.scene_id, build(self.graph))
        E.apply_changes(self.graph, record.changes)
        self._revision = self.store.revision(self.scene_id)
        self.records.append(record)
        return record

    def move(self, robot: str, object_id: str, center: Sequence[float], action: str) -> E.EditRecord | None:
        """Record that ``robot`` moved ``object_id``'s box to ``center`` (None when it did not move)."""
        obj = self.graph.get(object_id)
        if all(abs(a - b) < 1e-4 for a, b in zip(obj.center, center, strict=True)):
            return None
        return self._write(lambda g: E.move_object(g, object_id, center, f"{E.ROBOT_PREFIX}{robot}",
                                                   self._utterance(action)))

    def set_open(self, robot: str, object_id: str, is_open: bool, action: str) -> E.EditRecord | None:
        """Record that ``robot`` opened (or closed) ``object_id``: attribute ``open`` / ``closed``."""
        now, before = (OPEN, CLOSED) if is_open else (CLOSED, OPEN)
        attrs = self.graph.get(object_id).attributes
        if now in attrs and before not in attrs:
            return None
        new = [a for a in attrs if a != before]
        if now not in new:
            new.append(now)
        return self._write(lambda g: E.set_attributes(g, object_id, new, f"{E.ROBOT_PREFIX}{robot}",
                                                      self._utterance(action)))
