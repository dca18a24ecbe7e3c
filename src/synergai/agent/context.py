"""What the tools of one agent turn can see and change. A turn's edits are made in its own copy of the
graph and written to the store together when the turn ends (:meth:`TurnContext.commit`): all or nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from synergai.agent.matching import find_objects
from synergai.agent.referents import referred_ids
from synergai.geometry.frames import Viewpoint
from synergai.scene.edits import EditRecord, EditRequest, ObjectChange, apply_changes
from synergai.scene.model import STRUCTURE_KINDS, SceneError, SceneGraph
from synergai.scene.rebase import rebase
from synergai.scene.store import ConflictError, SceneReplacedError, SceneStore


class ToolError(ValueError):
    """A tool was called wrongly (unknown id, bad argument); the message goes back to the model."""


#: The observation an edit tool gives on a question turn.
QUESTION_NEVER_EDITS = ("the user asked a question, and a question never changes the scene graph; "
                        "do not edit, answer with final_answer from what you observed")


@dataclass
class TurnContext:
    """State shared by the tools during one user turn."""

    store: SceneStore
    scene_id: str
    utterance: str
    marked: str | None = None
    viewpoint: Viewpoint | None = None
    highlights: list[str] = field(default_factory=list)
    pending: list[EditRequest] = field(default_factory=list)  # edits made, not yet committed
    edits: list[EditRecord] = field(default_factory=list)  # edits committed (by :meth:`commit`)
    clarification: str | None = None
    tied: tuple[str, ...] = ()  # the objects of a tie the clarification asks about (else empty)
    read_only: bool = False  # a question: every edit is refused, whatever the model replies
    _graph: SceneGraph | None = None
    _referred: frozenset[str] | None = None
    _planned_on: str | None = None  # the registration id of the scene this turn first read

    @property
    def graph(self) -> SceneGraph:
        """The scene's graph as this turn sees it: the store's, with the turn's pending edits applied."""
        if self._graph is None:
            self._graph, (registration, _) = self.store.snapshot(self.scene_id)
            if self._planned_on is None:
                self._planned_on = registration
        return self._graph

    def check_writable(self) -> None:
        """Raise a ToolError when this turn may not edit the graph (it is a question)."""
        if self.read_only:
            raise ToolError(QUESTION_NEVER_EDITS)

    def referred(self) -> frozenset[str]:
        """The objects the utterance refers to, the only ones this turn's edits may touch."""
        if self._referred is None:
            self._referred = referred_ids(self.graph, self.utterance, self.marked)
        return self._referred

    def said_by_people(self, object_id: str) -> frozenset[str]:
        """The attribute words a person gave the object in its last attribute edit (not perception's), of
        those it still has: said back as given, not as the basic term of a perceived shade."""
        for record in reversed(self.store.edits(self.scene_id, perception=False)):
            for c in record.changes:
                if isinstance(c, ObjectChange) and c.before is not None and c.after is not None \
                        and c.after.id == object_id and c.before.attributes != c.after.attributes:
                    now = self.graph.get(object_id).attributes if object_id in self.graph else ()
                    return (frozenset(c.after.attributes) - set(c.before.attributes)) & set(now)
        return frozenset()

    def apply(self, request: EditRequest) -> None:
        """Make one edit in the turn's graph; the store gets it at :meth:`commit`."""
        self.check_writable()
        apply_changes(self.graph, request.changes)  # on an error nothing is changed
        self.pending.append(request)

    def commit(self) -> list[EditRecord]:
        """Write the pending edits to the store in one transaction; returns them as logged. On a conflict
        with another writer they are re-made once on the new state (:func:`synergai.scene.rebase.rebase`).
        Edits planned on a scene dropped since the turn read it are refused."""
        if self.pending:
            planned_on = self._planned_on
            try:
                records = self.store.apply_all(self.scene_id, self.pending, registration=planned_on)
            except SceneReplacedError:
                raise
            except ConflictError as conflict:
                try:
                    graph, (registration, _) = self.store.snapshot(self.scene_id)
                    retry = rebase(self.pending, graph, planned_on=planned_on, registration=registration)
                    records = self.store.apply_all(self.scene_id, retry, registration=planned_on)
                except SceneReplacedError:
                    raise
                except SceneError:
                    raise conflict from None
            self.edits.extend(records)
            self.pending.clear()
            self._graph = None
        return self.edits

    def check_id(self, object_id: object) -> str:
        """A known object id as a string, or a ToolError naming the problem."""
        oid = str(object_id).strip()
        if oid.lower() in {"marked", "marked object", "the marked object"}:
            if self.marked is None:
                raise ToolError("no object is marked; ask the user to click the object they mean")
            return self.marked
        if oid in self.graph:
            return oid
        named = [o.id for o in find_objects(self.graph, oid)] if oid else []
        if len(named) == 1:
            return named[0]
        if named:
            raise ToolError(f"{len(named)} objects match {oid!r} (ids {', '.join(named[:8])}); give one id")
        raise ToolError(f"there is no object with id {oid!r}; use ids from earlier observations")

    def effective_viewpoint(self, anchor_id: str) -> tuple[Viewpoint, str]:
        """The session's viewpoint, or a person at the room centre looking at the anchor."""
        if self.viewpoint is not None:
            return self.viewpoint, "from your viewpoint"
        objs = [o for o in self.graph if o.kind not in STRUCTURE_KINDS]
        centre = np.mean([o.center for o in objs], axis=0) if objs else np.zeros(3)
        facing = np.asarray(self.graph.get(anchor_id).center) - centre
        if np.linalg.norm(facing[:2]) < 0.3:
            facing = np.array([0.0, 1.0, 0.0])
        eye = (float(centre[0]), float(centre[1]), 1.6)
        return Viewpoint(eye, (float(facing[0]), float(facing[1]), 0.0)), "seen from the middle of the room"
