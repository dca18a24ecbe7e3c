"""A new perception of a stored scene is an update, not a replacement (issue 39).

:func:`plan_update` takes the scene's current graph, the active edits people and robots made (every
actor but perception) and the new perception, and returns one edit by ``perception:<source>``:

- the new objects are matched one-to-one to the stored ones (:mod:`~synergai.scene.object_matching`);
  a matched object keeps its stored id, a new one gets a fresh id, a stored one the new perception lacks
  is removed (unless ``keep_unseen``; an object a person added is always kept);
- people's edits win: what an edit changed (category, attributes, colour, kind ...; not the box, which
  perception measures afresh) is carried onto its matched object, a relation it added is kept and one it
  removed stays removed, an object it removed stays removed (a new perception of it is dropped);
  the new perception's changes to everything else are taken;
- an edit whose object is gone is a conflict ``{"edit", "object", "reason"}``: reported, logged in the
  update's utterance, applied to nothing else.

:func:`update_scene` plans against the committed state and applies the plan as one store edit (one log
entry, one change-feed event; one undo restores the earlier state exactly). When another writer commits
between the plan and the write, the store refuses the stale plan and it is planned again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from synergai.geometry.frames import vec3
from synergai.scene.collector import collector_paused
from synergai.scene.edits import (
    Actor,
    Change,
    EdgeChange,
    EditRecord,
    EditRequest,
    ObjectChange,
    fact_key,
)
from synergai.scene.model import Edge, SceneError, SceneGraph, SceneObject
from synergai.scene.object_matching import MatchGates, match_objects

if TYPE_CHECKING:
    from synergai.scene.store import SceneStore

#: Fields perception measures afresh at every update (people's edits carry everything else).
GEOMETRY_FIELDS = frozenset({"center", "size", "obb", "front", "room"})
#: Below this share of the smaller side matched, the new perception is of another scene.
MIN_MATCHED_SHARE = 0.2
#: How many conflicts the update's log entry lists one by one.
LOGGED_CONFLICTS = 50


class OtherSceneError(SceneError):
    """The new perception matches (almost) nothing stored: it is of another scene."""


@dataclass(frozen=True)
class Conflict:
    """A person's edit whose object the new perception lacks."""

    edit: int
    object: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"edit": self.edit, "object": self.object, "reason": self.reason}


@dataclass(frozen=True)
class UpdatePlan:
    """The update of one scene: its edit (None when nothing changes) and what it did."""

    scene_id: str
    request: EditRequest | None
    matched: int
    added: tuple[str, ...]
    removed: tuple[str, ...]
    carried: int
    conflicts: tuple[Conflict, ...]

    def report(self) -> dict[str, Any]:
        """``{scene, matched, added, removed, carried, conflicts}`` (counts; conflicts as dicts)."""
        return {"scene": self.scene_id, "matched": self.matched, "added": len(self.added),
                "removed": len(self.removed), "carried": self.carried,
                "conflicts": [c.to_dict() for c in self.conflicts]}

    def summary(self) -> str:
        """One line: what matched, came, went, was carried and conflicts."""
        return (f"{self.matched} matched, {len(self.added)} added, {len(self.removed)} removed, "
                f"{self.carried} edit(s) carried, {len(self.conflicts)} conflict(s)")


@dataclass
class _Intent:
    """What people's and robots' active edits say, per object and per fact (later edits win)."""

    fields: dict[str, dict[str, tuple[Any, int]]] = field(default_factory=dict)
    added: set[str] = field(default_factory=set)
    removed: dict[str, SceneObject] = field(default_factory=dict)
    facts: dict[tuple[str, str, str], tuple[Edge, bool]] = field(default_factory=dict)
    touched: dict[int, set[str]] = field(default_factory=dict)
    perceived: dict[str, str] = field(default_factory=dict)  # id -> its category before people renamed it
    merged_into: dict[str, str] = field(default_factory=dict)  # a merged member's id -> the kept object's
    parts: dict[str, SceneObject] = field(default_factory=dict)  # a kept object's box before its merge

    @classmethod
    def of(cls, records: Iterable[EditRecord]) -> _Intent:
        out = cls()
        for rec in records:
            if rec.actor is Actor.PERCEPTION:
                continue
            ids = out.touched.setdefault(rec.seq, set())
            if rec.op == "merge_objects":
                out._merge(rec)
            for ch in rec.changes:
                if isinstance(ch, EdgeChange):
                    e = ch.edge
                    out.facts[fact_key(e.subject, e.relation, e.object)] = (e, ch.added)
                    ids.update((e.subject, e.object))
                else:
                    out._object(ch, rec.seq)
                    ids.add(ch.object_id)
        return out

    def _merge(self, rec: EditRecord) -> None:
        """Remember a merge: each member stands for the kept object, matched by its box before the merge."""
        objs = [ch for ch in rec.changes if isinstance(ch, ObjectChange) and ch.before is not None]
        kept = [ch.before for ch in objs if ch.after is not None]
        keep = kept[0] if kept else objs[0].before
        assert keep is not None
        self.parts.setdefault(keep.id, keep)
        for ch in objs:
            if ch.after is None and ch.before is not None and ch.before.id != keep.id:
                self.merged_into[ch.before.id] = keep.id

    def _object(self, ch: ObjectChange, seq: int) -> None:
        oid = ch.object_id
        if ch.after is None:
            assert ch.before is not None
            self.removed[oid] = ch.before
            self.added.discard(oid)
            self.fields.pop(oid, None)
            return
        self.removed.pop(oid, None)
        if ch.before is None:
            self.added.add(oid)
        if ch.before is not None and ch.before.category != ch.after.category:
            self.perceived.setdefault(oid, ch.before.category)
        mine = self.fields.setdefault(oid, {})
        for f in fields(SceneObject):
            if f.name in GEOMETRY_FIELDS or f.name == "id":
                continue
            value = getattr(ch.after, f.name)
            if ch.before is None or value != getattr(ch.before, f.name):
                mine[f.name] = (value, seq)


def _fresh_ids(used: Iterable[str]) -> Callable[[], str]:
    """A source of ids never used in the scene: numbers after the largest numeric id."""
    taken = set(used)
    counter = [max((int(i) for i in taken if i.isdigit()), default=-1)]

    def fresh() -> str:
        counter[0] += 1
        while str(counter[0]) in taken:
            counter[0] += 1
        taken.add(str(counter[0]))
        return str(counter[0])
    return fresh


def _check_new(current: SceneGraph, new: SceneGraph) -> None:
    if len(new) == 0:
        raise SceneError(f"the new perception of scene {current.scene_id} has no objects; "
                         "nothing was changed")
    ids = new.ids
    if len(set(ids)) != len(ids):
        raise SceneError(f"the new perception of scene {current.scene_id} repeats object ids")


def _union(obj: SceneObject, members: Sequence[SceneObject]) -> SceneObject:
    """``obj`` with its box grown over the members' boxes (a merged object seen again in parts)."""
    lo = np.min([m.min_corner for m in (obj, *members)], axis=0)
    hi = np.max([m.max_corner for m in (obj, *members)], axis=0)
    return obj.with_changes(center=vec3((lo + hi) / 2.0), size=vec3(hi - lo), obb=None)


def plan_update(current: SceneGraph, records: Sequence[EditRecord], new: SceneGraph, *, source: str,
                keep_unseen: bool = False, gates: MatchGates | None = None) -> UpdatePlan:
    """The update that puts ``new`` (a fresh perception, its own ids) into ``current`` with people's and
    robots' edits (``records``: the scene's active ones) carried over it. Raises :class:`SceneError` for
    an empty perception and :class:`OtherSceneError` when it matches too little of the stored scene."""
    _check_new(current, new)
    intent = _Intent.of(records)
    pool = [intent.parts.get(o.id, o) for o in current] + [o for oid, o in intent.removed.items()
                                                          if oid not in current]
    new_objs = new.objects
    labels = [intent.perceived.get(o.id, o.category) for o in pool]
    pairs = match_objects(pool, new_objs, gates, labels)
    live = [(a, b) for a, b in pairs if a < len(current)]
    if len(current) and len(live) < max(1.0, MIN_MATCHED_SHARE * min(len(current), len(new))):
        raise OtherSceneError(f"the new perception matches {len(live)} of the {len(current)} stored "
                              f"objects of scene {current.scene_id}: it looks like another scene")
    new_to_old = {b: pool[a].id for a, b in pairs}
    used = [*current.ids, *intent.removed, *(i for ids in intent.touched.values() for i in ids)]
    fresh = _fresh_ids(used)
    rooms = {r.id for r in current.rooms}
    merged: dict[str, SceneObject] = {}
    id_of: dict[str, str] = {}  # new perception's id -> id in the merged graph
    grown: dict[str, list[SceneObject]] = {}  # a merged object -> its members seen again
    for k, obj in enumerate(new_objs):
        old = new_to_old.get(k)
        if old is not None and old not in current:  # a person removed this object: it stays removed,
            if intent.merged_into.get(old) in current:  # or merged it into another
                grown.setdefault(intent.merged_into[old], []).append(obj)
            continue
        oid = old if old is not None else fresh()
        room = obj.room if obj.room in rooms else (current.get(old).room if old is not None else None)
        id_of[obj.id] = oid
        mine = {k: v for k, (v, _) in intent.fields.get(oid, {}).items()}
        moved = obj if (oid, room) == (obj.id, obj.room) else obj.with_id(oid, room)
        merged[oid] = moved.with_changes(**mine) if mine else moved
    for oid, members in grown.items():
        if oid in merged:
            merged[oid] = _union(merged[oid], members)
    seen = set(id_of.values())
    unseen = [o for o in current if o.id not in seen]
    kept = [o for o in unseen if keep_unseen or o.id in intent.added]
    for o in kept:
        merged[o.id] = o
    gone = {o.id for o in unseen} - {o.id for o in kept}
    facts = _facts(current, new, id_of, {o.id for o in kept}, merged)
    carried, conflicts = _carry_facts(current, intent, facts, merged, gone)
    request = _request(current, merged, facts, source, carried, conflicts, len(live))
    added = tuple(i for i in merged if i not in current)
    return UpdatePlan(current.scene_id, request, len(live), added, tuple(sorted(gone)), carried,
                      tuple(conflicts))


def _facts(current: SceneGraph, new: SceneGraph, id_of: dict[str, str], kept: set[str],
           merged: dict[str, SceneObject]) -> dict[tuple[str, str, str], Edge]:
    """The new perception's relations (in merged ids) and the kept unseen objects' stored ones."""
    out: dict[tuple[str, str, str], Edge] = {}
    for e in new.edges:
        s, o = id_of.get(e.subject), id_of.get(e.object)
        if s is not None and o is not None:
            out.setdefault(fact_key(s, e.relation, o), Edge(s, e.relation, o, e.provenance))
    for e in current.edges:
        if (e.subject in kept or e.object in kept) and e.subject in merged and e.object in merged:
            out.setdefault(fact_key(e.subject, e.relation, e.object), e)
    return out


def _carry_facts(current: SceneGraph, intent: _Intent, facts: dict[tuple[str, str, str], Edge],
                 merged: dict[str, SceneObject], gone: set[str]) -> tuple[int, list[Conflict]]:
    """Apply people's relation edits to ``facts``; count the edits carried and list the conflicts."""
    for key, (edge, present) in intent.facts.items():
        if edge.subject in merged and edge.object in merged:
            if present:
                facts[key] = edge
            else:
                facts.pop(key, None)
    carried, conflicts = 0, []
    for seq, ids in intent.touched.items():
        lost = sorted(i for i in ids if i in gone)
        if lost:
            conflicts += [Conflict(seq, i, f"object {i} ({current.get(i).category}) is not in the new "
                                           "perception") for i in lost]
        elif any(i in current for i in ids):
            carried += 1
    return carried, conflicts


def _request(current: SceneGraph, merged: dict[str, SceneObject], facts: dict[tuple[str, str, str], Edge],
             source: str, carried: int, conflicts: list[Conflict], matched: int) -> EditRequest | None:
    """The one edit from ``current`` to the merged state (None when they are the same). Relations are
    compared as facts (:func:`fact_key`): a stored fact the merged state holds stays as it is stored,
    whichever reading the new perception states it in (only what changed is written)."""
    stored: set[tuple[str, str, str]] = set()
    changes: list[Change] = []
    for e in current.edges:
        key = fact_key(e.subject, e.relation, e.object)
        stored.add(key)
        if key not in facts:
            changes.append(EdgeChange(e, False))
    changes += [ObjectChange(current.get(i) if i in current else None, o) for i, o in merged.items()
                if i not in current or current.get(i) != o]
    changes += [ObjectChange(o, None) for o in current if o.id not in merged]
    changes += [EdgeChange(e, True) for key, e in facts.items() if key not in stored]
    if not changes:
        return None
    added = sum(1 for i in merged if i not in current)
    removed = len(current) - (len(merged) - added)
    why = (f"re-perception: {matched} matched, {added} added, {removed} removed, {carried} edit(s) carried, "
           f"{len(conflicts)} conflict(s)")
    listed = [f"edit #{c.edit} on {c.object}" for c in conflicts[:LOGGED_CONFLICTS]]
    if listed:
        more = f" and {len(conflicts) - len(listed)} more" if len(conflicts) > len(listed) else ""
        why += f" ({', '.join(listed)}{more}: their objects are not in the new perception)"
    return EditRequest(Actor.PERCEPTION, "update_perception", tuple(changes), why, source)


def update_scene(store: SceneStore, new: SceneGraph, *, source: str, keep_unseen: bool = False,
                 gates: MatchGates | None = None, attempts: int = 3,
                 before_write: Callable[[UpdatePlan], None] | None = None) -> UpdatePlan:
    """Plan the update of the stored scene ``new.scene_id`` by ``new`` against the committed state and
    write it as one edit; when another writer committed meanwhile the store refuses the stale plan and
    it is planned again (at most ``attempts`` times). ``before_write`` is called with each plan just
    before it is written (tests use it to commit a competing edit)."""
    with collector_paused():
        return _update(store, new, source, keep_unseen, gates, attempts, before_write)


def _update(store: SceneStore, new: SceneGraph, source: str, keep_unseen: bool, gates: MatchGates | None,
            attempts: int, before_write: Callable[[UpdatePlan], None] | None) -> UpdatePlan:
    scene_id = new.scene_id
    for attempt in range(attempts):
        revision = store.revision(scene_id)
        current = store.load(scene_id)
        plan = plan_update(current, store.edits(scene_id, perception=False), new, source=source,
                           keep_unseen=keep_unseen, gates=gates)
        if plan.request is None:
            return plan
        if before_write is not None:
            before_write(plan)
        try:
            store.apply(scene_id, plan.request)
        except SceneError:
            if attempt + 1 < attempts and store.revision(scene_id) != revision:
                continue  # another writer committed first: plan again on its state
            raise
        return plan
    raise AssertionError("unreachable")  # pragma: no cover
