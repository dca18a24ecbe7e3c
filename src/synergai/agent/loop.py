"""The SynergAI loop, a policy of the turn kernel (:mod:`synergai.agent.kernel`): a plan, then Action /
Observation steps until final_answer (phases in :class:`Phase`). Short answers are typed by the question's
form, bounded by what was observed and put in a composed sentence; some questions are answered from the
graph with no answer call. An invalid reply gets a corrective observation, never a crash.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, TypeVar

from pydantic import ValidationError

from synergai.agent.answer_check import NO_ANSWER, absent_thing, counted_matches, settle, settle_quotes
from synergai.agent.answer_check import question_subject as named_subject
from synergai.agent.answer_forms import AnswerForm
from synergai.agent.answer_sentence import (
    NOTHING_CHANGED,
    compose_answer,
    copies_error,
    count_sentence,
    edits_sentence,
    kind_phrase,
)
from synergai.agent.context import ToolError, TurnContext
from synergai.agent.evidence import (
    evidence_categories,
    evidence_colours,
    named_at,
    question_subject,
)
from synergai.agent.kernel import DONE, AnswerCheck, Budget, SendBack, StepKind, Turn, TurnKernel
from synergai.agent.observation import Fact, Observed, name_id, render_full_graph
from synergai.agent.prompt import (
    TurnVocabulary,
    action_schema,
    constrain,
    final_schema,
    final_values,
    plan_schema,
    system_prompt,
    turn_vocabulary,
)
from synergai.agent.question import Question
from synergai.agent.result import Answered
from synergai.agent.room_answers import room_answer
from synergai.agent.situated import side_answer
from synergai.agent.tools import MAX_LISTED, TOOLS, FinalArgs, Tool, cannot_succeed, tool_by_name
from synergai.llm.base import ChatModel, ContextFullError
from synergai.scene.attributes import box_shape
from synergai.scene.grounding.place import places
from synergai.scene.model import SceneError, SceneGraph
from synergai.scene.store_db import StoreError
from synergai.scene.vocabulary import COLOR_NAMES, basic_color, with_article, words_of


@dataclass(frozen=True)
class LoopLimits:
    """Bounds on one turn."""

    max_steps: int = 6
    max_retries: int = 2  # consecutive invalid replies before giving up on the step budget
    first_max_tokens: int = 200  # a plan with a two-level typed description is ~150 tokens
    step_max_tokens: int = 140
    answer_max_tokens: int = 48  # a typed short answer (the sentence is composed, not generated)
    #: an answer failing its check goes back to the model once (off: on the ScanQA check half it gained
    #: nothing over the graph's typed answer, +0.1 calls)
    check_sends_back: bool = False
    check_answers: bool = True  #: every answer checked before it is given (off only to test other parts)
    graph_answers: bool = True  #: some forms answered from the graph with no call (off: tests the model's)
    #: a question whose objects tie asks the user which one is meant; off where nobody can answer (batch
    #: runs): the model answers from the observation that lists the tie
    clarify: bool = True


#: The limits of a batch run (a benchmark): every question answered, none asked back.
BATCH_LIMITS = LoopLimits(clarify=False)


@dataclass
class AgentResult(Answered):
    """What one user turn produced (:class:`~synergai.agent.result.Answered`, and the agent's own)."""

    plan: list[str] = field(default_factory=list)
    retrieved_tokens: int = 0
    graph_tokens: int = 0
    edits: list[dict[str, Any]] = field(default_factory=list)
    clarification: bool = False

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
        return super().to_dict() | {"query_ratio": round(self.query_ratio, 5)}


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
    except RecursionError:  # a description nested deeper than the validator's stack
        raise _BadReply(f"bad action_input for {tool.name}: nested too deeply") from None


def _load(text: str) -> tuple[dict[str, Any], list[str], str]:
    """A reply's JSON object, its plan in words and its thought (as a remote model may send them)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _BadReply(f"your reply was not valid JSON ({exc.msg} at column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:  # a number of 4300+ digits, nesting deeper than the stack
        raise _BadReply(f"your reply was not usable JSON ({str(exc)[:80]})") from None
    if not isinstance(data, dict):
        raise _BadReply("your reply must be one JSON object with action and action_input")
    plan, thought = data.get("plan"), data.get("thought")
    words = [str(p) for p in plan] if isinstance(plan, list) else []
    return data, words, thought if isinstance(thought, str) else ""


def parse_action(text: str) -> tuple[list[str], str, Tool, Any]:
    """Parse one step reply into (plan in words, thought, tool, validated arguments)."""
    data, words, thought = _load(text)
    return words, thought, *_step(data.get("action"), data.get("action_input", {}))


def parse_plan(text: str) -> tuple[list[str], str, list[tuple[Tool, Any]]]:
    """Parse the first reply into (plan as text, thought, actions to run in order): a list of actions
    (the embedded model's schema) or a single action object (as remote models may send)."""
    data, words, thought = _load(text)
    plan = data.get("plan")
    if isinstance(plan, list) and plan and all(isinstance(p, dict) for p in plan):
        steps = [_step(p.get("action"), p.get("action_input", {})) for p in plan]
        return [f"{tool.name} {json.dumps(args.model_dump())}" for tool, args in steps], thought, steps
    return words, thought, [_step(data.get("action"), data.get("action_input", {}))]


def _key(tool: Tool, args: Any) -> str:
    """An action with its arguments, to spot repeats."""
    return f"{tool.name} {json.dumps(args.model_dump(), sort_keys=True)}"


def _tie_is_the_users(question: Question, graph: SceneGraph, ids: Sequence[str]) -> bool:
    """Whether a question's tie is the user's to settle: among objects of the category it names first (else
    of any it names), which would answer it differently (a count takes them all; a colour they share is the
    answer). A tie among a category question's anchors is not: the model answers from what each holds."""
    anchors_only = question.form is AnswerForm.CATEGORY and question.kind_at is None
    if question.form is AnswerForm.NUMBER or anchors_only:
        return False
    objs = [graph.get(i) for i in ids if i in graph]
    asked = {graph.get(i).category for i in named_subject(question, graph).ids} or set(question.categories)
    if not {o.category for o in objs} & asked:
        return False
    if question.form is AnswerForm.COLOR:
        shades = {frozenset(basic_color(a) for a in o.attributes if a in COLOR_NAMES) for o in objs}
        return len(shades) > 1 or shades == {frozenset()}
    return True


class Phase(StrEnum):
    """Where a turn is (see the module doc-string)."""

    PLAN = "plan"  # the first reply: a plan of actions
    LOOK = "look"  # nothing found yet: one action of any kind (no edit for a question)
    CORRECT = "correct"  # a correction found what it needs: edit, or answer
    ANSWER = "answer"  # something found: the final answer only
    CLOSE = "close"  # out of steps or retries, or stuck: one last call for the final answer
    DONE = DONE


@dataclass(kw_only=True)
class _Turn(Turn):
    """One user turn as the loop runs it."""

    ctx: TurnContext
    question: Question  # parsed once: a question never edits, and its answer is typed by its form
    result: AgentResult
    final: dict[str, Any]  # this turn's final_answer schema (before anything is observed)
    middle: bool  # the input speaks of a middle / between: the mid-point tool is offered
    vocab: TurnVocabulary  # what replies may name (ids grow as observations show them)
    correcting: bool = False
    edited: bool = False
    done: set[str] = field(default_factory=set)  # actions already run: a repeat means the model is stuck
    facts: list[Fact] = field(default_factory=list)  # what the successful actions observed
    errors: list[str] = field(default_factory=list)  # the tools' error texts (never copied into an answer)
    closing: str = "no-steps"  # the send-back CLOSE says
    graph_answers: bool = True  # some forms are answered from the graph (not after such an answer failed)
    heard: bool = False  # earlier turns of the conversation are in the prompt (what the user said may count)

    @property
    def form(self) -> AnswerForm:
        """The form of this turn's short answer."""
        return self.question.reply_form


_P = TypeVar("_P")

#: The tool that computes a mid point (offered only when the input speaks of a middle or "between").
MID_POINT_TOOL = "calculate_mid_point"

#: An object id as observations write it.
_SEEN_ID = re.compile(r"\(id: ([^)\s]+)\)")

#: Graph renderings whose token counts one loop keeps (one per scene revision).
_GRAPH_TOKENS_KEPT = 8

#: What the model is told when a reply cannot run, when steps run out, when it repeats an action.
SEND_BACKS = MappingProxyType({
    "bad-reply": SendBack("Observation: Error: {error}. Reply with one JSON object as the format says."),
    "no-steps": SendBack("Observation: No steps left. Give final_answer now."),
    "repeated": SendBack("Observation: You already did that; its result is above. Give final_answer now, "
                         "from the observations you have.")})


class AgentLoop:
    """Runs user turns against a chat model and the SynergAI tools: a policy of the turn kernel."""

    budgeted: frozenset[str] = frozenset({Phase.PLAN, Phase.LOOK, Phase.CORRECT, Phase.ANSWER})
    out_of_budget: str = Phase.CLOSE
    send_backs: Mapping[str, SendBack] = SEND_BACKS

    def __init__(self, llm: ChatModel, limits: LoopLimits | None = None,
                 check_answer: AnswerCheck | None = None) -> None:
        self.llm = llm
        self.limits = limits or LoopLimits()
        self.budget = Budget(self.limits.max_steps, self.limits.max_retries)
        checked = self._checked if self.limits.check_answers else None  # off only to test other parts
        self.check_answer: AnswerCheck | None = check_answer or checked
        self.kernel = TurnKernel(llm, self)
        self._system = system_prompt(TOOLS)
        both = (True, False)
        tools = {mid: tuple(t for t in TOOLS if mid or t.name != MID_POINT_TOOL) for mid in both}
        self._plans = {(m, q, mid): plan_schema(tools[mid], marked=m, question=q)
                       for m in both for q in both for mid in both}
        self._lookups = {(q, mid): action_schema(tuple(
            t for t in tools[mid] if t.name != "final_answer" and not (q and t.edits)))
            for q in both for mid in both}
        self._edits = action_schema(tuple(t for t in TOOLS if t.edits))
        self._graph_tokens: dict[tuple[str, tuple[str, int]], int] = {}

    def handlers(self) -> dict[str, Callable[[_Turn], str]]:
        """Each phase's handler."""
        return {Phase.PLAN: self._plan, Phase.LOOK: self._next, Phase.CORRECT: self._next,
                Phase.ANSWER: self._next, Phase.CLOSE: self._close}

    def _checked(self, turn: _Turn, may_send_back: bool) -> str | None:
        """The answer check (:func:`~synergai.agent.answer_check.settle`); not sent back if from the graph."""
        retry = (self.limits.check_sends_back and may_send_back and turn.model_calls < self.limits.max_steps
                 and not any(t.get("from_graph") for t in turn.result.trace))
        if not turn.question.asking:  # a correction's reply: its edits said plainly, else in plain words
            ctx, result = turn.ctx, turn.result
            if ctx.pending and not result.error:  # what was done, from the edits, not the model's account
                result.answer, result.short_answer = edits_sentence(ctx.graph, ctx.pending), ""
                return None
            return settle_quotes(result, NOTHING_CHANGED, may_retry=retry, unchanged=turn.question.text,
                                 graph=ctx.graph)
        if turn.heard:  # the user's earlier words may outweigh the graph: only the tool text is checked
            return settle_quotes(turn.result, NO_ANSWER, may_retry=retry, graph=turn.ctx.graph)
        return settle(turn.result, turn.question, turn.ctx.graph, turn.ctx.marked, may_retry=retry)

    def answer_again(self, turn: _Turn) -> str:
        """After an answer failed its check: the final answer again, from the model."""
        turn.graph_answers = False
        return Phase.ANSWER

    def full_graph_tokens(self, ctx: TurnContext) -> int:
        """Tokens of the whole graph rendered as observations: counted once per scene revision."""
        key = (ctx.scene_id, ctx.store.revision(ctx.scene_id))
        if key not in self._graph_tokens:
            if len(self._graph_tokens) >= _GRAPH_TOKENS_KEPT:
                self._graph_tokens.clear()
            self._graph_tokens[key] = self.llm.count_tokens(render_full_graph(ctx.graph))
        return self._graph_tokens[key]

    def run(self, ctx: TurnContext, question: str, history: Sequence[tuple[str, str]] = (),
            session_note: str = "") -> AgentResult:
        """Answer one user input. Edits are held in ``ctx`` and written to the store when the turn ends;
        a turn that raises (a model failure, :class:`~synergai.agent.progress.TurnCancelled`) writes none."""
        start = time.perf_counter()
        turn = self._turn(ctx, question, history, session_note)
        if turn.question.asking and (found := room_answer(ctx.graph, question)) is not None:  # of rooms
            self._give(turn, found.sentence, found.short, found.objects, rooms=found.kind,
                       short_answer=found.short)
            turn.phase = Phase.DONE
        elif turn.question.asking and self.limits.graph_answers and ctx.viewpoint is not None and (
                side := side_answer(turn.question, ctx.graph, ctx.viewpoint, ctx.marked)) is not None:
            self._give(turn, side.sentence, side.short, [side.object], object=side.object, hour=side.hour)
            turn.phase = Phase.DONE  # a direction from where the user stands: no model call
        self.kernel.run(turn)
        result = turn.result
        if not result.answer:
            result.answer = "Sorry, I could not work out an answer to that. Could you rephrase it?"
            result.trace.append({"type": "final", "forced": True})
        try:
            ctx.commit()
        except StoreError:  # the store cannot be written (no permission, gone, busy): an error, no answer
            raise
        except SceneError as exc:  # another writer changed the scene meanwhile: nothing is written
            result.error = f"the edits were not saved: {exc}"
            result.trace.append({"type": "error", "error": result.error})
            result.answer = (f"Sorry, I could not save that change ({exc}); nothing was changed. "
                             "Please say it again.")
        result.objects = list(ctx.highlights)
        result.edits = [{"seq": r.seq, "op": r.op, "actor": str(r.actor), "utterance": r.utterance,
                         "summary": r.summary()} for r in ctx.edits]
        result.graph_tokens = self.full_graph_tokens(ctx)  # after the answer: linear in the graph's size
        result.seconds = time.perf_counter() - start
        return result

    def _turn(self, ctx: TurnContext, question: str, history: Sequence[tuple[str, str]],
              session_note: str) -> _Turn:
        """A new turn: its call path, question, conversation, answer schema and vocabulary."""
        # Earlier turns go in as context text, not as past final_answer replies: a small model copies
        # such replies and then answers without using any tool.
        earlier = "".join(f"Earlier, the user said: {u}\nYou answered: {a}\n" for u, a in history)
        note = f"\n{session_note}" if session_note else ""
        prompt = f"{earlier}User input: {question}{note}"
        categories = sorted(ctx.graph.categories())
        asked = Question.parse(question, categories)
        form = asked.reply_form
        final = final_schema(form, categories, sentence=form is AnswerForm.PHRASE, options=asked.choices)
        # a question about a middle (or anything not a question) may use the mid point; other questions
        # do not get it: a mid point of one category is filler whose "closest object" misleads the answer
        middle = not asked.asking or "between" in asked.relations
        # the ids the user wrote may be named from the start; others once an observation shows them
        vocab = turn_vocabulary(ctx.graph, list(asked.ids), marked=ctx.marked is not None,
                                said=question if asked.asking else "")  # a correction may name any relation
        result = AgentResult(answer="", answer_form=form.value)
        messages = [{"role": "system", "content": self._system}, {"role": "user", "content": prompt}]
        return _Turn(ctx=ctx, question=asked, result=result, messages=messages, final=final, middle=middle,
                     vocab=vocab, phase=Phase.PLAN, calls=self.kernel.calls(question, result.usage),
                     prompt=prompt, heard=bool(history), graph_answers=self.limits.graph_answers)

    # ------------------------------------------------------------------ states
    def _reply(self, turn: _Turn, schema: dict, max_tokens: int, parse: Callable[[str], _P]) -> _P | Phase:
        """A reply asked for and parsed, or the next phase: DONE when the context is full, else after a
        reply that cannot run the same phase (within the retry bound: it is told why)."""
        try:
            reply = self.kernel.call(turn, max_tokens, json_schema=schema, temperature=0.0)
        except ContextFullError as exc:  # any other model failure is an error, raised to the caller
            self.kernel.record(turn, StepKind.ERROR, error=f"model call failed: {exc}")
            turn.result.answer = "Sorry, I could not finish that: the conversation got too long for my model."
            return Phase.DONE
        try:
            if reply.finish_reason == "length":
                raise _BadReply("your reply was cut off; keep it short and reply again")
            actions = parse(reply.text)
        except _BadReply as exc:
            self.kernel.record(turn, StepKind.ERROR, reply=reply.text[:500], error=str(exc))
            return Phase(self.kernel.bad_reply(turn, "bad-reply", turn.phase, Phase.CLOSE, error=exc))
        turn.retries = 0
        return actions

    def _plan(self, turn: _Turn) -> str:
        """PLAN: ask for a plan and run its steps (filler that cannot succeed is not run)."""
        asking = turn.question.asking
        schema = constrain(self._plans[(turn.ctx.marked is not None, asking, turn.middle)], turn.vocab)
        parsed = self._reply(turn, schema, self.limits.first_max_tokens, parse_plan)
        if isinstance(parsed, Phase):
            return parsed
        plan, thought, actions = parsed
        actions = self._runnable(turn, list({_key(t, a): (t, a) for t, a in actions}.values()))
        turn.result.plan = plan
        self.kernel.record(turn, StepKind.PLAN, plan=plan, thought=thought)
        # the model sees the steps that ran, without any thought it wrote before observing: a small
        # model copies such a guess ("The window is blue.") into its answer over what it observed
        turn.messages[-1]["content"] = json.dumps({"plan": [
            {"action": tool.name, "action_input": args.model_dump(exclude_defaults=True)}
            for tool, args in actions]})
        turn.correcting = not asking or any(tool.edits for tool, _ in actions)
        return self._run(turn, actions)

    def _runnable(self, turn: _Turn, actions: list[tuple[Tool, Any]]) -> list[tuple[Tool, Any]]:
        """A plan's actions without, when it has others, the steps whose arguments cannot succeed."""
        if len(actions) <= 1:
            return actions
        kept = []
        for tool, args in actions:
            if why := cannot_succeed(turn.ctx, tool.name, args):
                self.kernel.record(turn, StepKind.ACTION, "skipped", action=tool.name,
                                   action_input=args.model_dump(), reason=why)
            else:
                kept.append((tool, args))
        return kept or actions[:1]

    def _schema(self, turn: _Turn) -> dict[str, Any]:
        """The reply's schema; the final answer's bounded by the categories or colours observed."""
        if turn.phase is not Phase.ANSWER:  # the actions of the phase (edits in CORRECT), or the answer
            correcting = turn.phase is Phase.CORRECT
            actions = self._edits if correcting else self._lookups[(turn.question.asking, turn.middle)]
            final = final_schema(AnswerForm.PHRASE, sentence=True) if correcting else turn.final
            return {"anyOf": [*constrain(actions, turn.vocab)["anyOf"], *final["anyOf"]]}
        seen = (turn.ctx.graph, turn.facts, turn.question)
        if turn.form is AnswerForm.CATEGORY and (cats := evidence_categories(*seen)):
            return final_schema(turn.form, cats)
        if turn.form is AnswerForm.COLOR and (colours := evidence_colours(
                *seen, subject=named_subject(turn.question, turn.ctx.graph, turn.ctx.marked).ids)):
            return final_schema(turn.form, options=colours)  # the asked object's colours, never another's
        return turn.final

    def _answer_from_graph(self, turn: _Turn) -> bool:
        """Answer from the graph, with no model call: "where" by the observed subject's best place, "what
        shape" by its box, "what colour" by the colour a person gave it, "what type of X" by X's colour,
        material and name, "how many" by the objects the lookups matched. False when there is none."""
        graph, kind = turn.ctx.graph, turn.question.kind_at is not None
        if turn.form is AnswerForm.NUMBER:
            asked = named_subject(turn.question, graph)
            counted = counted_matches(turn.question, asked, turn.facts)
            if counted is None:
                return False
            sentence = count_sentence(len(counted), asked.name)
            return self._give(turn, sentence, str(len(counted)), counted, count=len(counted))
        subject = question_subject(graph, turn.facts, turn.question)
        if subject is None or not (turn.form in (AnswerForm.PLACE, AnswerForm.SHAPE, AnswerForm.COLOR)
                                   or (turn.form is AnswerForm.CATEGORY and kind)):
            return False
        obj, shown, room = graph.get(subject), [subject], ""
        extra: dict[str, Any] = {}
        if turn.form is AnswerForm.COLOR:  # the one colour a person gave it, in their words (else the model)
            colours = [a for a in obj.attributes if " ".join(words_of(a)) in COLOR_NAMES]
            if not colours or subject not in named_subject(turn.question, graph).ids \
                    or absent_thing(turn.question, graph):
                return False
            people = turn.ctx.said_by_people(subject)  # the edit log, read only when it can answer
            given = [a for a in colours if a in people]
            if len(given) != 1:
                return False
            short = given[0]
        elif turn.form is AnswerForm.PLACE:
            if not (found := places(graph, subject)):
                return False
            short, shown = found[0].words(graph), [subject, *found[0].anchors]
            extra["other_places"] = [p.words(graph) for p in found[1:]]
            room = f" in the {graph.room(obj.room).name}" if obj.room is not None else ""
        elif turn.form is AnswerForm.SHAPE:
            short = box_shape(obj.size)
        elif named_at(graph, subject, turn.question) != turn.question.kind_at:
            return False  # "what type of prism is the cabinet": no observed object is the kind asked
        else:
            short = kind_phrase(obj)
        sentence = f"It is {with_article(short)}." if turn.form is AnswerForm.CATEGORY else \
            f"The {obj.name} is {short}{room}."
        return self._give(turn, sentence, short, shown, object=subject, short_answer=short, **extra)

    def _give(self, turn: _Turn, sentence: str, short: str, shown: Sequence[str], **trace: Any) -> bool:
        """An answer the graph gives with no model call (its objects shown unless some already are)."""
        turn.result.answer, turn.result.short_answer = sentence, short
        self.kernel.record(turn, StepKind.ANSWER, from_graph=True, **trace)
        if not turn.ctx.highlights:
            turn.ctx.highlights = list(shown)
        return True

    def _next(self, turn: _Turn) -> str:
        """LOOK, CORRECT or ANSWER: one action (the final answer, in ANSWER)."""
        by_graph = turn.phase is Phase.ANSWER and turn.graph_answers
        if by_graph and self._answer_from_graph(turn):
            return Phase.DONE
        schema = self._schema(turn)  # only for a turn the graph did not answer
        values = final_values(schema) if by_graph else None
        if values is not None and len(values) == 1:
            # the one short answer the schema allows, with no call: a call whose reply the grammar fixes
            # tells nothing
            self.kernel.record(turn, StepKind.ANSWER, from_graph=True, only_value=values[0])
            self._finish(turn, FinalArgs(short_answer=values[0]))
            return Phase.DONE
        typed = turn.phase is Phase.ANSWER and turn.form is not AnswerForm.PHRASE
        budget = self.limits.answer_max_tokens if typed else self.limits.step_max_tokens
        parsed = self._reply(turn, schema, budget, parse_action)
        return parsed if isinstance(parsed, Phase) else self._run(turn, [(parsed[2], parsed[3])])

    def _close(self, turn: _Turn) -> str:
        """CLOSE: ask once for the final answer only; else the turn ends without one."""
        self.kernel.send_back(turn, turn.closing)
        try:
            reply = self.kernel.call(turn, self.limits.step_max_tokens, keep=False, json_schema=turn.final,
                                     temperature=0.0)
            _, _, tool, args = parse_action(reply.text)
            if tool.name == "final_answer":
                self._execute(turn, tool, args)
        except (_BadReply, ContextFullError) as exc:
            self.kernel.record(turn, StepKind.ERROR, error=f"final answer failed: {exc}")
        return Phase.DONE

    # ------------------------------------------------------------------ actions
    def _run(self, turn: _Turn, actions: list[tuple[Tool, Any]]) -> str:
        """Run a reply's actions in order and choose the next phase from what they found."""
        observations, clean = [], False
        for k, (tool, args) in enumerate(actions):
            if tool.name == "final_answer" and k > 0:
                break  # an answer written before seeing the plan's observations is not given
            key = _key(tool, args)
            if key in turn.done and tool.name != "final_answer":
                self.kernel.record(turn, StepKind.ERROR, error="repeated action", action=tool.name)
                turn.closing = "repeated"
                return Phase.CLOSE
            turn.done.add(key)
            finished, observation, ok = self._execute(turn, tool, args)
            if finished:
                return Phase.DONE
            observations.append(f"Observation: {observation}")
            clean = clean or ok
            turn.edited = turn.edited or (ok and tool.edits)
        if turn.correcting and turn.phase is Phase.PLAN and (named := self._named(turn, observations)):
            observations.append(f"Observation: {named}")
        if clean:  # the question again, next to where the answer is written: small models drift
            observations.append(f"Reply to the user input from these observations: {turn.question.text}")
        self.kernel.observe(turn, "\n".join(observations))
        if not clean:
            return Phase.LOOK
        return Phase.CORRECT if turn.correcting and not turn.edited else Phase.ANSWER

    def _named(self, turn: _Turn, observations: Sequence[str]) -> str:
        """For a correction that names a relation: the objects of the categories it names that no observation
        showed, by id ("The user's words name the counter (id: 36)."), for the relation's edit to name."""
        graph = turn.ctx.graph
        if not turn.question.relations:
            return ""
        shown = [*_SEEN_ID.findall(" ".join(observations)), turn.ctx.marked]
        seen = {graph.get(str(i)).category for i in shown if i in graph}
        objs = [o for c in turn.question.categories if c not in seen for o in graph.by_category(c)]
        if not objs:
            return ""
        listed = objs[:MAX_LISTED]
        ids = tuple(dict.fromkeys([*turn.vocab.ids, *(o.id for o in listed)]))
        turn.vocab = dataclasses.replace(turn.vocab, ids=ids)
        return f"The user's words name the {', the '.join(name_id(o) for o in listed)}."

    def _execute(self, turn: _Turn, tool: Tool, args: Any) -> tuple[bool, str, bool]:
        """Run one action: (the turn is over, observation, the action succeeded)."""
        ctx, result = turn.ctx, turn.result
        try:
            returned, ok = tool.func(ctx, args), True
        except ToolError as exc:
            returned, ok = f"Error: {exc}", False
            turn.errors.append(str(exc))
        observed = returned if isinstance(returned, Observed) else Observed(returned)
        observation = observed.text
        failed: dict[str, Any] = {} if ok else {"error": True}
        self.kernel.record(turn, StepKind.ACTION, action=tool.name, action_input=args.model_dump(), **failed,
                           observation=observation)
        if ctx.clarification and ctx.tied and turn.question.asking \
                and not (self.limits.clarify and _tie_is_the_users(turn.question, ctx.graph, ctx.tied)):
            ctx.clarification, ctx.tied = None, ()  # the observation says the tie; the model answers
        if ctx.clarification:
            result.answer = ctx.clarification
            result.clarification = turn.open_question = True
            return True, observation, ok
        if tool.name == "final_answer" and ok:
            self._finish(turn, args)
            return True, observation, ok
        if ok:
            turn.facts.extend(observed.facts)
            seen = [i for i in _SEEN_ID.findall(observation) if i in ctx.graph]
            turn.vocab = dataclasses.replace(turn.vocab, ids=tuple(dict.fromkeys([*turn.vocab.ids, *seen])))
            if tool.retrieves:
                result.retrieved_tokens += self.llm.count_tokens(observation)
        return False, observation, ok

    def _finish(self, turn: _Turn, args: Any) -> None:
        """The answer: the typed short answer, and a sentence composed from it and the facts observed (the
        model's own only for free answers, never when it repeats an error text)."""
        ctx, result = turn.ctx, turn.result
        composed = compose_answer(ctx.graph, turn.form, args.short_answer, turn.facts, turn.question)
        free = args.answer.strip()
        if free and copies_error(free, turn.errors):
            self.kernel.record(turn, StepKind.ERROR, error="the answer repeated an error text; not given")
            free = ""
        short = composed.short or (args.short_answer.strip() if isinstance(args.short_answer, str) else "")
        sentence = composed.sentence or free or (short[0].upper() + short[1:] + "." if short else "")
        result.answer = sentence or NO_ANSWER
        result.short_answer = short
        if not ctx.highlights and composed.ids:
            ctx.highlights = [i for i in composed.ids if i in ctx.graph]
