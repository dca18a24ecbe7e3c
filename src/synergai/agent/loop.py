"""The SynergAI loop: plan, then one Thought / Action / Observation per step, until final_answer.

Every reply is JSON constrained by :func:`synergai.agent.prompt.action_schema`. A reply that is not
valid (broken JSON, cut off at the token limit, an unknown action, wrong argument types, an unknown id)
is answered with a corrective observation, never a crash; steps and retries are bounded, and when they
run out the model is asked once more, for a final answer only.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import ValidationError

from synergai.agent.context import ToolError, TurnContext
from synergai.agent.observation import render_full_graph
from synergai.agent.prompt import action_schema, system_prompt
from synergai.agent.tools import TOOLS, Tool, tool_by_name
from synergai.llm.base import ChatModel, ChatReply, LLMError


@dataclass(frozen=True)
class LoopLimits:
    """Bounds on one turn."""

    max_steps: int = 6
    max_retries: int = 2  # consecutive invalid replies before giving up on the step budget
    first_max_tokens: int = 220
    step_max_tokens: int = 180


@dataclass
class AgentResult:
    """What one user turn produced."""

    answer: str
    short_answer: str = ""
    objects: list[str] = field(default_factory=list)
    plan: list[str] = field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retrieved_tokens: int = 0
    graph_tokens: int = 0
    edits: list[dict[str, Any]] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    clarification: bool = False
    seconds: float = 0.0
    llm_seconds: float = 0.0

    def count(self, reply: ChatReply) -> ChatReply:
        """Account for one model call."""
        self.llm_calls += 1
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        self.llm_seconds += reply.seconds
        return reply

    @property
    def query_ratio(self) -> float:
        """Tokens of the retrieved sub-graphs / tokens of the full graph rendered the same way."""
        return self.retrieved_tokens / self.graph_tokens if self.graph_tokens else 0.0

    @property
    def actions(self) -> int:
        """Tool calls executed."""
        return sum(1 for t in self.trace if t["type"] == "action")

    def to_dict(self) -> dict[str, Any]:
        """The `synergai ask --json` document."""
        d = asdict(self)
        d["query_ratio"] = round(self.query_ratio, 5)
        return d


class _BadReply(ValueError):
    """A reply the loop cannot execute; the message is fed back to the model."""


def parse_action(text: str, first: bool) -> tuple[list[str], str, Tool, Any]:
    """Parse one reply into (plan, thought, tool, validated arguments)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _BadReply(f"your reply was not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise _BadReply("your reply must be one JSON object with thought, action and action_input")
    action = data.get("action")
    if not isinstance(action, str):
        raise _BadReply("your reply has no action")
    try:
        tool = tool_by_name(action)
    except ToolError as exc:
        raise _BadReply(str(exc)) from None
    raw_args = data.get("action_input", {})
    if tool.name == "final_answer" and isinstance(raw_args, str):
        raw_args = {"answer": raw_args}
    try:
        args = tool.args.model_validate(raw_args if raw_args is not None else {})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "action_input"
        raise _BadReply(f"bad action_input for {tool.name}: {where}: {err['msg']}") from None
    plan = data.get("plan") if first else None
    plan_list = [str(p) for p in plan] if isinstance(plan, list) else []
    thought = data.get("thought")
    return plan_list, thought if isinstance(thought, str) else "", tool, args


class AgentLoop:
    """Runs user turns against a chat model and the SynergAI tools."""

    def __init__(self, llm: ChatModel, limits: LoopLimits | None = None) -> None:
        self.llm = llm
        self.limits = limits or LoopLimits()
        self._system = system_prompt(TOOLS)
        self._schemas = (action_schema(first=True), action_schema(first=False))
        self._final_schema = action_schema(first=False, tools=(tool_by_name("final_answer"),))

    def _call(
        self, result: AgentResult, messages: list[dict[str, str]], schema: dict, max_tokens: int
    ) -> ChatReply:
        reply = self.llm.chat(messages, json_schema=schema, max_tokens=max_tokens, temperature=0.0)
        return result.count(reply)

    def run(
        self,
        ctx: TurnContext,
        question: str,
        history: Sequence[tuple[str, str]] = (),
        session_note: str = "",
    ) -> AgentResult:
        """Answer one user input; edits go through ``ctx`` (the store)."""
        start = time.perf_counter()
        result = AgentResult(answer="")
        result.graph_tokens = self.llm.count_tokens(render_full_graph(ctx.graph))
        messages: list[dict[str, str]] = [{"role": "system", "content": self._system}]
        # Earlier turns go in as context text, not as past final_answer replies: a small model copies
        # such replies and then answers without using any tool.
        earlier = "".join(f"Earlier, the user said: {u}\nYou answered: {a}\n" for u, a in history)
        note = f"\n{session_note}" if session_note else ""
        messages.append({"role": "user", "content": f"{earlier}User input: {question}{note}"})

        first, retries, steps = True, 0, 0
        while steps < self.limits.max_steps:
            steps += 1
            schema = self._schemas[0] if first else self._schemas[1]
            max_tokens = self.limits.first_max_tokens if first else self.limits.step_max_tokens
            try:
                reply = self._call(result, messages, schema, max_tokens)
            except LLMError as exc:  # e.g. the context is full: no further call can succeed
                result.trace.append({"type": "error", "error": f"model call failed: {exc}"})
                result.answer = "Sorry, I could not finish that: the conversation got too long for my model."
                break
            messages.append({"role": "assistant", "content": reply.text})
            try:
                if reply.finish_reason == "length":
                    raise _BadReply("your reply was cut off; keep the thought short and reply again")
                plan, thought, tool, args = parse_action(reply.text, first)
            except _BadReply as exc:
                result.trace.append({"type": "error", "reply": reply.text[:500], "error": str(exc)})
                messages.append({"role": "user", "content": f"Observation: Error: {exc}. Reply with one JSON "
                                                            "object: thought, action, action_input."})
                retries += 1
                if retries > self.limits.max_retries:
                    break
                continue
            retries = 0
            if first and plan:
                result.plan = plan
                result.trace.append({"type": "plan", "plan": plan})
            first = False
            if self._execute(ctx, result, messages, thought, tool, args):
                break
        if not result.answer:
            self._force_final(ctx, result, messages)
        result.objects = list(ctx.highlights)
        result.edits = [{"seq": r.seq, "op": r.op, "actor": str(r.actor), "utterance": r.utterance,
                         "summary": r.summary()} for r in ctx.edits]
        result.seconds = time.perf_counter() - start
        return result

    def _execute(self, ctx: TurnContext, result: AgentResult, messages: list[dict[str, str]],
                 thought: str, tool: Tool, args: Any) -> bool:
        """Run one action; True when the turn is over."""
        step: dict[str, Any] = {"type": "action", "thought": thought, "action": tool.name,
                                "action_input": args.model_dump()}
        try:
            observation = tool.func(ctx, args)
        except ToolError as exc:
            observation = f"Error: {exc}"
            step["error"] = True
        step["observation"] = observation
        result.trace.append(step)
        if ctx.clarification:
            result.answer = ctx.clarification
            result.clarification = True
            return True
        if tool.name == "final_answer" and not step.get("error"):
            result.answer = args.answer.strip()
            result.short_answer = args.short_answer.strip()
            return True
        if tool.retrieves and not step.get("error"):
            result.retrieved_tokens += self.llm.count_tokens(observation)
        messages.append({"role": "user", "content": f"Observation: {observation}"})
        return False

    def _force_final(self, ctx: TurnContext, result: AgentResult, messages: list[dict[str, str]]) -> None:
        """Out of steps or retries: ask once for final_answer only; fall back to a plain message."""
        messages.append({"role": "user", "content": "Observation: No steps left. Give final_answer now."})
        try:
            reply = self._call(result, messages, self._final_schema, self.limits.step_max_tokens)
            _, thought, tool, args = parse_action(reply.text, first=False)
            if tool.name == "final_answer":
                self._execute(ctx, result, messages, thought, tool, args)
        except (_BadReply, LLMError) as exc:
            result.trace.append({"type": "error", "error": f"final answer failed: {exc}"})
        if not result.answer:
            result.answer = "Sorry, I could not work out an answer to that. Could you rephrase it?"
            result.trace.append({"type": "final", "forced": True})

