"""The chat log of one browser tab, rendered as markdown for the chat panel.

Everything typed by the user or written by the model is HTML-escaped: viser's markdown renders raw
HTML unsanitised, and model output is untrusted.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from synergai.agent.loop import AgentResult
from synergai.scene.model import SceneGraph


def escape(text: str) -> str:
    """Text safe to put in viser markdown (no raw HTML; line breaks kept)."""
    return html.escape(text, quote=False).replace("\n", "  \n")


@dataclass(frozen=True)
class ChatTurn:
    """One exchange: the question, the answer (or the error), the named objects and the edits made."""

    question: str
    answer: str
    objects: tuple[str, ...] = ()  # "name (id: X)" labels
    edits: tuple[str, ...] = ()  # edit summaries
    seconds: float = 0.0
    error: bool = False

    @classmethod
    def from_result(cls, question: str, result: AgentResult, graph: SceneGraph) -> ChatTurn:
        """A turn from the agent's result (object labels from ``graph``)."""
        labels = tuple(f"{graph.get(i).name} (id: {i})" if i in graph else f"id {i}" for i in result.objects)
        edits = tuple(f"#{e.get('seq', '?')} {e.get('summary', '')}".strip() for e in result.edits)
        return cls(question, result.answer, labels, edits, result.seconds)


@dataclass
class ChatLog:
    """The tab's dialogue and the question being worked on, if any."""

    turns: list[ChatTurn] = field(default_factory=list)
    pending: str | None = None
    max_shown: int = 30

    def markdown(self) -> str:
        """The chat history as markdown, oldest first, with the pending question at the end."""
        if not self.turns and self.pending is None:
            return ("*Click an object in the 3D view to mark it, then ask about it — e.g. "
                    "\"What is the marked object on?\" or correct it: \"This is a stool, not a chair.\"*")
        out = []
        for t in self.turns[-self.max_shown:]:
            out.append(f"**You:** {escape(t.question)}")
            if t.error:
                out.append(f"**Error:** {escape(t.answer)}")
            else:
                out.append(f"**SynergAI:** {escape(t.answer)}")
            if t.objects:
                out.append("<small>objects: " + escape(", ".join(t.objects)) + "</small>")
            for e in t.edits:
                out.append(f"<small>✎ edit {escape(e)}</small>")
            if not t.error and t.seconds:
                out.append(f"<small>{t.seconds:.1f} s</small>")
            out.append("---")
        if self.pending is not None:
            out.append(f"**You:** {escape(self.pending)}")
            out.append("*SynergAI is thinking…*")
        elif out and out[-1] == "---":
            out.pop()
        return "\n\n".join(out)
