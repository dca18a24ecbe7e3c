"""Re-make an edit on a newer state: the retry after another writer committed first.

An edit records each object as it was (``before``) and as the edit leaves it (``after``). Rebasing
carries the fields the edit changes onto the object as it is now; the other writer's changes to other
fields are kept. When the other writer changed one of the same fields to a different value, or removed
an object the edit changes, the edit cannot be re-made: :class:`RebaseError` says which object.
A relation the edit adds that is already there (or removes that is already gone) is left out.
An edit is never carried across a registration of its scene: when the graph it would be re-made on
belongs to another registration than the one it was planned on (the scene was dropped and registered
again under the same id), :class:`~synergai.scene.store.SceneReplacedError`.
"""

from __future__ import annotations

from dataclasses import fields, replace

from synergai.scene.edits import Change, EdgeChange, EditRequest, ObjectChange, apply_changes
from synergai.scene.model import SceneError, SceneGraph, SceneObject
from synergai.scene.store import SceneReplacedError


class RebaseError(SceneError):
    """The edit changes what another writer changed differently."""


def _merged(before: SceneObject, after: SceneObject, now: SceneObject) -> SceneObject:
    changed = {}
    for f in fields(SceneObject):
        was, wanted, current = getattr(before, f.name), getattr(after, f.name), getattr(now, f.name)
        if wanted == was:
            continue
        if current not in (was, wanted):
            raise RebaseError(f"object {now.id}: its {f.name} was changed to {current!r} meanwhile")
        changed[f.name] = wanted
    return replace(now, **changed)


def _rebased_change(change: Change, graph: SceneGraph) -> Change | None:
    if isinstance(change, EdgeChange):
        there = graph.edge(change.edge.key()) is not None
        if there == change.added:
            return None  # already as the edit wants it
        if not change.added:
            stored = graph.edge(change.edge.key())
            return EdgeChange(stored if stored is not None else change.edge, added=False)
        return change
    oid = change.object_id
    now = graph.get(oid) if oid in graph else None
    if change.before is None:
        if now is not None:
            raise RebaseError(f"object {oid} was added meanwhile")
        return change
    if now is None:
        if change.after is None:
            return None  # removed meanwhile, as this edit wanted
        raise RebaseError(f"object {oid} was removed meanwhile")
    if change.after is None:
        return ObjectChange(now, None)
    merged = _merged(change.before, change.after, now)
    return None if merged == now else ObjectChange(now, merged)


def rebase(requests: list[EditRequest], graph: SceneGraph, *, planned_on: str | None = None,
           registration: str | None = None) -> list[EditRequest]:
    """``requests`` re-made in order on ``graph`` (a working copy, changed here); an edit left with no
    change is dropped. ``planned_on`` and ``registration``: the registration ids of the scene the edits
    were planned on and of the one ``graph`` is (:meth:`~synergai.scene.store.SceneStore.snapshot`).
    Raises :class:`RebaseError` (or the check's :class:`SceneError`), :class:`SceneReplacedError` when
    the two registrations differ."""
    if planned_on is not None and registration != planned_on:
        raise SceneReplacedError(f"scene {graph.scene_id} was dropped and registered again since these "
                                 "edits were planned on it: they are not carried over; nothing was written")
    out = []
    for request in requests:
        changes = []
        for change in request.changes:
            rebased = _rebased_change(change, graph)
            if rebased is not None:
                apply_changes(graph, (rebased,))
                changes.append(rebased)
        if changes:
            out.append(replace(request, changes=tuple(changes)))
    return out
