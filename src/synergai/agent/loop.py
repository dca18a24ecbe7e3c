"""The SynergAI loop: plan, then Thought / Action / Observation steps, until final_answer.

The first reply is a thought and a plan whose steps are actions; they all run in order and their
observations (errors included) come back together. When one of them succeeded, the next reply may only
answer (or, for a correction, edit the graph); otherwise it is one action of any kind. Every
reply is JSON constrained by :mod:`synergai.agent.prompt`'s schemas. A reply that is not
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
from synergai.agent.prompt import action_schema, plan_schema, system_prompt
from synergai.agent.tools import EDIT_TOOLS, TOOLS, Tool, tool_by_name
from synergai.llm.base import ChatModel, ChatReply, ContextFullError


@dataclass(frozen=True)
class LoopLimits:
    """Bounds on one turn."""

    max_steps: int = 6
    max_retries: int = 2  # consecutive invalid replies before giving up on the step budget
    first_max_tokens: int = 180
    step_max_tokens: int = 160


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


def _step(action: Any, raw_args: Any) -> tuple[Tool, Any]:
    """One action and its validated arguments."""
    if not isinstance(action, str):
        raise _BadReply("your reply has no action")
    try:
        tool = tool_by_name(action)
    except ToolError as exc:
        raise _BadReply(str(exc)) from None
    if tool.name == "final_answer" and isinstance(raw_args, str):
        raw_args = {"answer": raw_args}
    try:
        return tool, tool.args.model_validate(raw_args if raw_args is not None else {})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "action_input"
        raise _BadReply(f"bad action_input for {tool.name}: {where}: {err['msg']}") from None


def _load(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _BadReply(f"your reply was not valid JSON ({exc.msg} at column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:  # a number of 4300+ digits, nesting deeper than the stack
        raise _BadReply(f"your reply was not usable JSON ({str(exc)[:80]})") from None
    if not isinstance(data, dict):
        raise _BadReply("your reply must be one JSON object with thought, action and action_input")
    return data


def parse_action(text: str, first: bool = False) -> tuple[list[str], str, Tool, Any]:
    """Parse one step reply into (plan, thought, tool, validated arguments)."""
    data = _load(text)
    tool, args = _step(data.get("action"), data.get("action_input", {}))
    plan = data.get("plan") if first else None
    plan_list = [str(p) for p in plan] if isinstance(plan, list) else []
    thought = data.get("thought")
    return plan_list, thought if isinstance(thought, str) else "", tool, args


def parse_plan(text: str) -> tuple[list[str], str, list[tuple[Tool, Any]]]:
    """Parse the first reply into (plan as text, thought, actions to run in order).

    The embedded model's schema gives ``{"thought", "plan": [{"action", "action_input"}, …]}``; a single
    action object (with or without a plan in words) is accepted too, as remote models may send one.
    """
    data = _load(text)
    thought = data.get("thought") if isinstance(data.get("thought"), str) else ""
    plan = data.get("plan")
    if isinstance(plan, list) and plan and all(isinstance(p, dict) for p in plan):
        steps = [_step(p.get("action"), p.get("action_input", {})) for p in plan]
        words = [f"{tool.name} {json.dumps(args.model_dump())}" for tool, args in steps]
        return words, thought, steps
    words, thought, tool, args = parse_action(text, first=True)
    return words, thought, [(tool, args)]


_QUESTION_WORDS = frozenset({"what", "where", "which", "who", "whose", "how", "why", "when", "is", "are",
                             "does", "do", "can", "could", "would", "should", "will", "tell", "describe",
                             "count", "find", "show", "name", "list"})


def is_question(text: str) -> bool:
    """Whether the input asks something (it then never edits the graph) rather than states a correction."""
    words = text.strip().lower().split()
    return text.rstrip().endswith("?") or (bool(words) and words[0].strip(",.!") in _QUESTION_WORDS)


def _key(tool: Tool, args: Any) -> str:
    """An action with its arguments, to spot repeats."""
    return f"{tool.name} {json.dumps(args.model_dump(), sort_keys=True)}"


class AgentLoop:
    """Runs user turns against a chat model and the SynergAI tools."""

    def __init__(self, llm: ChatModel, limits: LoopLimits | None = None) -> None:
        self.llm = llm
        self.limits = limits or LoopLimits()
        self._system = system_prompt(TOOLS)
        self._step_schema = action_schema(first=False)
        both = (True, False)
        self._plans = {(m, q): plan_schema(marked=m, question=q) for m in both for q in both}
        self._final_schema = action_schema(first=False, tools=(tool_by_name("final_answer"),))
        # after actions that all succeeded: answer (or, when the plan was a correction, edit the graph)
        self._answer_schemas = (self._final_schema, action_schema(
            first=False, tools=tuple(t for t in TOOLS if t.name == "final_answer" or t.name in EDIT_TOOLS)))

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

        first, retries, steps, clean, correcting, edited = True, 0, 0, False, False, False
        asking = is_question(question)
        done: set[str] = set()  # actions already run this turn: a repeat means the model is stuck
        closing = "Observation: No steps left. Give final_answer now."
        while steps < self.limits.max_steps:
            steps += 1
            if first:
                schema = self._plans[(ctx.marked is not None, asking)]
            else:
                schema = self._answer_schemas[correcting and not edited] if clean else self._step_schema
            max_tokens = self.limits.first_max_tokens if first else self.limits.step_max_tokens
            try:
                reply = self._call(result, messages, schema, max_tokens)
            except ContextFullError as exc:  # any other model failure is an error, raised to the caller
                result.trace.append({"type": "error", "error": f"model call failed: {exc}"})
                result.answer = "Sorry, I could not finish that: the conversation got too long for my model."
                break
            messages.append({"role": "assistant", "content": reply.text})
            try:
                if reply.finish_reason == "length":
                    raise _BadReply("your reply was cut off; keep the thought short and reply again")
                if first:
                    plan, thought, actions = parse_plan(reply.text)
                    actions = list({_key(t, a): (t, a) for t, a in actions}.values())  # a repeat is padding
                else:
                    _, thought, tool, args = parse_action(reply.text)
                    actions = [(tool, args)]
            except _BadReply as exc:
                result.trace.append({"type": "error", "reply": reply.text[:500], "error": str(exc)})
                messages.append({"role": "user", "content": f"Observation: Error: {exc}. Reply with one JSON "
                                                            "object as the format says."})
                retries += 1
                if retries > self.limits.max_retries:
                    break
                continue
            retries = 0
            if first:
                result.plan = plan
                result.trace.append({"type": "plan", "plan": plan, "thought": thought})
                # the model sees its plan without the thought it wrote before any observation: a small
                # model copies that guess ("The window is blue.") into its answer over what it observed
                messages[-1]["content"] = json.dumps({"plan": [
                    {"action": tool.name, "action_input": args.model_dump()} for tool, args in actions]})
                correcting = not asking or any(tool.name in EDIT_TOOLS for tool, _ in actions)
            # "clean": some action of this reply succeeded, so the next reply answers from what it found;
            # a plan's failed steps (often filler, eg. a name that is no object) still show their errors
            observations, finished, stuck, clean = [], False, False, False
            for k, (tool, args) in enumerate(actions):
                key = _key(tool, args)
                if tool.name == "final_answer" and k > 0:
                    break  # an answer written before seeing the plan's observations is not given
                if key in done and tool.name != "final_answer":
                    stuck = True
                    result.trace.append({"type": "error", "error": "repeated action", "action": tool.name})
                    break
                done.add(key)
                finished, observation, ok = self._execute(ctx, result, thought if k == 0 else "", tool, args)
                observations.append(f"Observation: {observation}")
                clean = clean or ok
                edited = edited or (ok and tool.name in EDIT_TOOLS)
                if finished:
                    break
            first = False
            if finished:
                break
            if stuck:
                closing = ("Observation: You already did that; its result is above. Give final_answer now, "
                           "from the observations you have.")
                break
            if clean:  # the question again, next to where the answer is written: small models drift
                observations.append(f"Reply to the user input from these observations: {question}")
            messages.append({"role": "user", "content": "\n".join(observations)})
        if not result.answer:
            self._force_final(ctx, result, messages, closing)
        result.objects = list(ctx.highlights)
        result.edits = [{"seq": r.seq, "op": r.op, "actor": str(r.actor), "utterance": r.utterance,
                         "summary": r.summary()} for r in ctx.edits]
        result.seconds = time.perf_counter() - start
        return result

    def _execute(self, ctx: TurnContext, result: AgentResult, thought: str, tool: Tool,
                 args: Any) -> tuple[bool, str, bool]:
        """Run one action: (the turn is over, observation, the action succeeded)."""
        step: dict[str, Any] = {"type": "action", "thought": thought, "action": tool.name,
                                "action_input": args.model_dump()}
        try:
            observation = tool.func(ctx, args)
        except ToolError as exc:
            observation = f"Error: {exc}"
            step["error"] = True
        step["observation"] = observation
        result.trace.append(step)
        ok = not step.get("error")
        if ctx.clarification:
            result.answer = ctx.clarification
            result.clarification = True
            return True, observation, ok
        if tool.name == "final_answer" and ok:
            result.answer = args.answer.strip()
            result.short_answer = args.short_answer.strip()
            return True, observation, ok
        if tool.retrieves and ok:
            result.retrieved_tokens += self.llm.count_tokens(observation)
        return False, observation, ok

    def _force_final(self, ctx: TurnContext, result: AgentResult, messages: list[dict[str, str]],
                     closing: str) -> None:
        """Out of steps or retries, or stuck: ask once for final_answer only; else a plain message."""
        messages.append({"role": "user", "content": closing})
        try:
            reply = self._call(result, messages, self._final_schema, self.limits.step_max_tokens)
            _, thought, tool, args = parse_action(reply.text, first=False)
            if tool.name == "final_answer":
                self._execute(ctx, result, thought, tool, args)
        except (_BadReply, ContextFullError) as exc:
            result.trace.append({"type": "error", "error": f"final answer failed: {exc}"})
        if not result.answer:
            result.answer = "Sorry, I could not work out an answer to that. Could you rephrase it?"
            result.trace.append({"type": "final", "forced": True})

