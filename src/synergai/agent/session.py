"""A conversation with the agent about one scene: marked object, viewpoint and dialogue history."""

from __future__ import annotations

from dataclasses import dataclass, field

from synergai.agent.context import TurnContext
from synergai.agent.intent import check_length, is_question
from synergai.agent.kernel import AnswerCheck
from synergai.agent.loop import AgentLoop, AgentResult, LoopLimits
from synergai.geometry.frames import Viewpoint
from synergai.llm.base import ChatModel
from synergai.scene.model import SceneError
from synergai.scene.store import SceneStore

#: What an earlier answer reads once the user has corrected the graph.
OUTDATED = "(an answer from before the user's correction; ask the tools again)"


@dataclass
class AgentSession:
    """One user's session (a CLI chat, a browser tab): its own mark and dialogue, the shared store."""

    store: SceneStore
    scene_id: str
    llm: ChatModel
    marked: str | None = None
    viewpoint: Viewpoint | None = None
    history: list[tuple[str, str]] = field(default_factory=list)
    limits: LoopLimits = field(default_factory=LoopLimits)
    max_history: int = 3
    check_answer: AnswerCheck | None = None  # every answer checked before it is given (the kernel's hook)

    def __post_init__(self) -> None:
        self._loop = AgentLoop(self.llm, self.limits, self.check_answer)
        if self.marked is not None:
            self.mark(self.marked)

    def mark(self, object_id: str | None) -> None:
        """Mark an object (a click in the GUI, ``--mark`` / ``/mark`` in the CLI); None clears it."""
        self.marked = None if object_id is None else self.store.load(self.scene_id).get(object_id).id

    def switch_scene(self, scene_id: str) -> None:
        """Talk about another (registered) scene: the mark and the dialogue start afresh."""
        if not self.store.has_scene(scene_id):
            raise SceneError(f"unknown scene {scene_id!r} in the scene store")
        self.scene_id, self.marked, self.history = scene_id, None, []

    def session_note(self) -> str:
        """What the agent is told about the session besides the question."""
        notes = {"The user has marked an object (use find_marked_object).": self.marked is not None,
                 "Left, right, front and behind are from the user's viewpoint.": self.viewpoint is not None}
        return " ".join(n for n, said in notes.items() if said)

    def ask(self, question: str) -> AgentResult:
        """Answer one user input (and apply any correction it contains)."""
        if not question.strip():
            raise ValueError("the question is empty")
        check_length(question)  # refused before any work (an InputTooLong, a ValueError)
        ctx = TurnContext(self.store, self.scene_id, question.strip(), marked=self.marked,
                          viewpoint=self.viewpoint, read_only=is_question(question))
        result = self._loop.run(ctx, question.strip(), self.history[-self.max_history:], self.session_note())
        if result.edits:  # answers given before a correction may be wrong now; a small model repeats them
            self.history = [(u, OUTDATED) for u, _ in self.history]
        self.history.append((question.strip(), result.answer))
        return result
