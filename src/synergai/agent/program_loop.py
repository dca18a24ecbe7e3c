"""Program mode (LLM-TPC): Think -> Program -> execute in the sandbox -> reCtify, then a final answer.

The model writes short Python against the scene APIs (:mod:`synergai.agent.program_api`); each program
runs in the sandbox. On an error (its last traceback line) or an empty output the model is asked to
rectify its program; on a malformed reply it gets the parse-error prompt; a program that already failed
is not run again (the model is told so, and a second repeat ends the rounds); after ``max_rounds`` the
summarization prompt forces a final answer. The result and trace use the agent's format.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from synergai.agent import program_prompt as P
from synergai.agent.loop import AgentResult
from synergai.agent.sandbox import SandboxLimits, run_program
from synergai.geometry.frames import Viewpoint
from synergai.llm.base import ChatModel, ChatReply, ContextFullError
from synergai.scene.model import STRUCTURE_KINDS, SceneGraph
from synergai.scene.serialization import graph_to_dict

API_FACTORY = "synergai.agent.program_api:sandbox_api"

_ACTION = re.compile(r"^\s*Action\s*:\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE)
_INPUT = re.compile(r"^\s*Action Input\s*:\s*(.*)$", re.MULTILINE | re.IGNORECASE | re.DOTALL)
_THOUGHT = re.compile(
    r"^\s*Thought\s*:\s*(.*?)(?=^\s*Action\s*:|\Z)", re.MULTILINE | re.IGNORECASE | re.DOTALL
)
_CODE = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n(.*?)(?:```|\Z)", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class ProgramLimits:
    """Bounds on one question."""

    max_rounds: int = 6
    max_tokens: int = 400
    sandbox: SandboxLimits = field(default_factory=SandboxLimits)


@dataclass(frozen=True)
class TPCStep:
    """One parsed reply: a program to run or a final answer."""

    thought: str
    kind: str  # "program" | "final"
    content: str


class ParseError(ValueError):
    """A reply that follows neither the Program nor the Final Answer format."""


def parse_reply(text: str) -> TPCStep:
    """Parse ``Thought: ... Action: Program|Final Answer  Action Input: ...``."""
    action = _ACTION.search(text)
    if action is None:
        raise ParseError("no 'Action:' line")
    kind = action.group(1).strip().strip("*`").lower()
    thought_m = _THOUGHT.search(text)
    thought = thought_m.group(1).strip() if thought_m else ""
    rest = _INPUT.search(text, action.end())
    body = rest.group(1).strip() if rest else ""
    if kind.startswith("program"):
        code = _CODE.search(body) or _CODE.search(text)
        program = code.group(1).strip() if code else ""
        if not program:
            raise ParseError("Action is Program but no ```Python block follows")
        return TPCStep(thought, "program", program)
    if kind.startswith("final"):
        answer = body.splitlines()[0].strip().strip('"').strip() if body else ""
        if not answer:
            raise ParseError("Action is Final Answer but Action Input is empty")
        return TPCStep(thought, "final", answer)
    raise ParseError(f"unknown action {action.group(1).strip()!r}")


def scene_summary(graph: SceneGraph) -> str:
    """"2 chair, 1 table, ..." (structural nodes left out), as LLM-TPC prepends it."""
    counts: dict[str, int] = {}
    for o in graph:
        if o.kind not in STRUCTURE_KINDS:
            counts[o.category] = counts.get(o.category, 0) + 1
    return ", ".join(f"{n} {c}" for c, n in sorted(counts.items()))


class ProgramLoop:
    """Runs Think-Program-reCtify for situated questions."""

    def __init__(self, llm: ChatModel, limits: ProgramLimits | None = None) -> None:
        self.llm = llm
        self.limits = limits or ProgramLimits()
        self._system = P.system_prompt()

    def _call(self, result: AgentResult, messages: list[dict[str, str]]) -> ChatReply:
        return result.count(self.llm.chat(messages, max_tokens=self.limits.max_tokens, temperature=0.0,
                                          stop=["\nObservation:", "\nuser:"]))

    def run(self, graph: SceneGraph, question: str, situation: str = "",
            viewpoint: Viewpoint | None = None) -> AgentResult:
        """Answer one (situated) question about ``graph``; the agent stands at ``viewpoint``."""
        start = time.perf_counter()
        result = AgentResult(answer="")
        pose = None
        if viewpoint is not None:
            pose = {"position": list(viewpoint.position), "forward": list(viewpoint.forward)}
        api_args: dict[str, Any] = {"graph": graph_to_dict(graph), "viewpoint": pose}
        messages = [{"role": "system", "content": self._system},
                    {"role": "user", "content": P.user_prompt(scene_summary(graph), situation, question)}]
        failed: dict[str, str] = {}  # program text (whitespace-normalised) -> its error
        repeats = 0
        for _ in range(self.limits.max_rounds):
            reply = self._call(result, messages)
            messages.append({"role": "assistant", "content": reply.text})
            try:
                step = parse_reply(reply.text)
            except ParseError as exc:
                result.trace.append({"type": "error", "reply": reply.text[:800],
                                     "error": f"parse error: {exc}"})
                messages.append({"role": "user", "content": P.PARSE_ERROR})
                continue
            if step.kind == "final":
                result.answer = result.short_answer = step.content
                result.trace.append({"type": "final", "thought": step.thought, "answer": step.content})
                break
            key = " ".join(step.content.split())
            if key in failed:  # greedy decoding repeats itself: running it again cannot help
                repeats += 1
                result.trace.append({"type": "error", "error": "repeated program", "program": step.content})
                if repeats > 1:
                    break
                messages.append({"role": "user", "content": P.REPEATED.format(error=failed[key])})
                continue
            outcome = run_program(step.content, api_factory=API_FACTORY, api_args=api_args,
                                  limits=self.limits.sandbox)
            result.trace.append({"type": "program", "thought": step.thought, "program": step.content,
                                 "ok": outcome.ok, "stdout": outcome.stdout, "error": outcome.error,
                                 "wall_s": round(outcome.wall_s, 3)})
            if outcome.ok and outcome.stdout.strip():
                messages.append({"role": "user", "content": f"Observation: {outcome.stdout.strip()}"})
            else:
                error = outcome.error if not outcome.ok else P.EMPTY_OUTPUT
                failed[key] = error
                messages.append({"role": "user", "content": P.RECTIFY.format(error=error)})
        if not result.answer:
            self._summarize(result, messages)
        result.seconds = time.perf_counter() - start
        return result

    def _summarize(self, result: AgentResult, messages: list[dict[str, str]]) -> None:
        """Out of rounds: the summarization prompt asks for a final answer."""
        messages.append({"role": "user", "content": P.SUMMARIZE})
        try:
            step = parse_reply(self._call(result, messages).text)
            if step.kind == "final":
                result.answer = result.short_answer = step.content
                result.trace.append({"type": "final", "thought": step.thought, "answer": step.content,
                                     "summarized": True})
                return
        except (ParseError, ContextFullError) as exc:  # any other model failure is an error
            result.trace.append({"type": "error", "error": f"summarization failed: {exc}"})
        result.answer = "unknown"
        result.trace.append({"type": "final", "answer": "unknown", "forced": True})


def program_stats(results: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """LLM-TPC's program figures over results with ``trace`` and ``llm_calls`` (``AgentResult.to_dict()``
    or run records): ``pass_rate`` is the % of questions whose last program ran without error (rectifying
    raises it, as in LLM-TPC Table 4; a question with no program does not pass), ``programs_ok`` the % of
    all programs run that did, ``mean_rounds`` the LLM calls per question."""
    runs = [[t for t in r.get("trace", []) if t.get("type") == "program"] for r in results]
    programs = [t for run in runs for t in run]
    n = len(results)
    return {
        "questions": n,
        "programs": len(programs),
        "pass_rate": 100 * sum(1 for run in runs if run and run[-1]["ok"]) / n if n else 0.0,
        "programs_ok": 100 * sum(1 for t in programs if t["ok"]) / len(programs) if programs else 0.0,
        "mean_rounds": sum(r["llm_calls"] for r in results) / n if n else 0.0,
    }
