"""The chat log of one browser tab, rendered as markdown for the chat panel.

Everything typed by the user or written by the model is escaped (:func:`escape`): viser's markdown renders
raw HTML unsanitised, and model output is untrusted, so neither HTML nor markdown in it takes effect.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from synergai.agent.loop import AgentResult
from synergai.masking import mask_secrets
from synergai.scene.model import SceneGraph

#: Markdown characters that could make links, images, emphasis, code or tables out of someone's words.
_MARKDOWN = re.compile(r"([\\`*_\[\]~|])")
#: What starts a heading, list, rule or setext underline at the beginning of a line.
#: (The indent is spaces and tabs of that line only: a run of blank lines is not read again from each of
#: its line starts, so escaping stays linear in the text's length.)
_LINE_START = re.compile(r"^([^\S\n]*)(#{1,6}(?=\s|$)|[=+-](?=\s|$|[=-]*\s*$)|\d+(?=[.)](?:\s|$)))",
                         re.MULTILINE)


def escape(text: str) -> str:
    """Text shown literally in viser markdown (no raw HTML, no markdown of its own; line breaks kept)."""
    text = _MARKDOWN.sub(r"\\\1", html.escape(text, quote=False))
    text = _LINE_START.sub(lambda m: m[1] + (m[2] + "\\" if m[2][0].isdigit() else "\\" + m[2]), text)
    return text.replace("\n", "  \n")


@dataclass(frozen=True)
class ChatTurn:
    """One exchange: the question, the answer (or the error), the named objects and the edits made."""

    question: str
    answer: str
    objects: tuple[str, ...] = ()  # "name (id: X)" labels
    edits: tuple[str, ...] = ()  # edit summaries
    seconds: float = 0.0
    error: bool = False
    cancelled: bool = False  # the user stopped the turn: no answer, nothing changed
    why: tuple[str, ...] = ()  # the steps taken and what they observed (:func:`why_lines`)

    @classmethod
    def stopped(cls, question: str, seconds: float = 0.0) -> ChatTurn:
        """A turn the user cancelled."""
        return cls(question, "", seconds=seconds, cancelled=True)

    @classmethod
    def from_result(cls, question: str, result: AgentResult, graph: SceneGraph) -> ChatTurn:
        """A turn from the agent's result (object labels from ``graph``)."""
        labels = tuple(f"{graph.get(i).name} (id: {i})" if i in graph else f"id {i}" for i in result.objects)
        edits = tuple(f"#{e.get('seq', '?')} {e.get('summary', '')}".strip() for e in result.edits)
        return cls(question, result.answer, labels, edits, result.seconds, why=why_lines(result.trace))


#: Longest observation shown in a "why?" fold (characters).
WHY_CHARS = 300


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= WHY_CHARS else text[:WHY_CHARS] + " …"


def why_lines(trace: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    """A turn's steps as people read them: the plan, each action with what it observed, each program
    with its output or error, errors, and where the answer came from."""
    out = []
    for step in trace:
        kind = step.get("type")
        if kind == "plan":
            out.append("plan: " + "; ".join(str(p) for p in step.get("plan", [])))
        elif kind == "action":
            out.append(f"{step.get('action')} {_short(step.get('action_input', {}))} → "
                       f"{_short(step.get('observation', ''))}")
        elif kind == "program":
            result = step.get("stdout") if step.get("ok") else step.get("error")
            out.append(f"program: {_short(step.get('program', ''))} → {_short(result or '')}")
        elif kind == "skipped":
            out.append(f"skipped {step.get('action')}: {_short(step.get('reason', ''))}")
        elif kind == "error":
            out.append(f"error: {_short(step.get('error', ''))}")
        elif kind == "final":
            source = "from the graph" if step.get("from_graph") else "forced" if step.get("forced") else ""
            out.append(f"answer{' ' + source if source else ''}: {_short(step.get('short_answer', ''))}")
    return tuple(out)


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
            if t.cancelled:
                out.append(f"*cancelled after {t.seconds:.0f} s: no answer, nothing was changed*")
                out.append("---")
                continue
            if t.error:
                out.append(f"**Error:** {escape(t.answer)}")
            else:
                out.append(f"**SynergAI:** {escape(t.answer)}")
            if t.objects:
                out.append("<small>objects: " + escape(", ".join(t.objects)) + "</small>")
            for e in t.edits:
                out.append(f"<small>✎ edit {escape(e)}</small>")
            if t.why:  # one HTML block (no blank line inside), so its text is HTML-escaped, not markdown
                steps = "<br>".join(html.escape(w, quote=False).replace("\n", "<br>") for w in t.why)
                out.append(f"<details><summary>why?</summary><small>{steps}</small></details>")
            if not t.error and t.seconds:
                out.append(f"<small>{t.seconds:.1f} s</small>")
            out.append("---")
        if self.pending is not None:
            out.append(f"**You:** {escape(self.pending)}")
            out.append("*SynergAI is thinking…*")
        elif out and out[-1] == "---":
            out.pop()
        return "\n\n".join(out)


def model_label(name: str) -> str:
    """How the chat panel names the model: ``embedded qwen2.5-coder-1.5b-…``, ``openai:MODEL@URL``, …"""
    name = mask_secrets(name.strip()) or "unknown"
    if name.startswith(("openai:", "scripted")):  # remote endpoints and test scripts name themselves
        return name
    return f"embedded {name}"  # the embedded model is named by its GGUF file
