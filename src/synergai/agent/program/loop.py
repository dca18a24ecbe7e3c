"""Program mode (LLM-TPC): Think -> Program -> check -> run in the sandbox -> reCtify, then a typed answer;
a policy of the turn kernel (:mod:`synergai.agent.kernel`) in the phases of :class:`Phase`, telling the
model :data:`SEND_BACKS`.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from synergai.agent.answer_check import fall_back, settle
from synergai.agent.answer_forms import AnswerForm, answer_schema, normalise_answer, render_answer
from synergai.agent.kernel import DONE, AnswerCheck, Budget, SendBack, StepKind, Turn, TurnKernel
from synergai.agent.program import prompt as P
from synergai.agent.program.check import Finding, check_program, repair_hint
from synergai.agent.program.repairs import applied, repair_program
from synergai.agent.program.sandbox import SandboxLimits, run_program
from synergai.agent.question import Question
from synergai.agent.result import Answered
from synergai.agent.situated import side_answer
from synergai.geometry.frames import Viewpoint
from synergai.llm.base import ChatModel, ChatReply
from synergai.llm.sampling import REPEAT_TEMPERATURE, Resampling
from synergai.scene.model import STRUCTURE_KINDS, SceneGraph
from synergai.scene.serialization import graph_to_dict

API_FACTORY = "synergai.agent.program.api:sandbox_api"
#: The answer when no program ran and the model never answered.
NOT_COMPUTED = "could not be computed"

_ACTION = re.compile(r"^\s*Action\s*:\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE)
_INPUT = re.compile(r"^\s*Action Input\s*:\s*(.*)$", re.MULTILINE | re.IGNORECASE | re.DOTALL)
_THOUGHT = re.compile(r"^\s*Thought\s*:\s*(.*?)(?=^\s*Action\s*:|\Z)",
                      re.MULTILINE | re.IGNORECASE | re.DOTALL)
_CODE = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n(.*?)(?:```|\Z)", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class ProgramLimits:
    """Bounds on one question: 4 rounds allow the first program, two repairs and the answer; ten lines and
    a thought fit in 300 tokens."""

    max_rounds: int = 4
    #: an answer failing its check goes back to the model once (off: the graph's typed answer at once)
    check_sends_back: bool = False
    check_answers: bool = True  #: every answer checked before it is given (off only to test other parts)
    max_tokens: int = 300
    answer_tokens: int = 100  #: tokens of a reply that can only be the Final Answer
    #: After a program prints, the next call asks for the Final Answer only (no further program).
    answer_after_output: bool = True
    sandbox: SandboxLimits = field(default_factory=SandboxLimits)
    #: Object sets index nearest-first (True) or keep LLM-TPC's no-indexing contract (False).
    ordered_sets: bool = True
    static_check: bool = True  #: repair and check programs before the sandbox
    max_observation_chars: int = 1500  #: longest program output shown to the model (longer: cut)
    #: Sampling temperature of the call after the model repeated a failed program (else greedy).
    repeat_temperature: float = REPEAT_TEMPERATURE
    #: A situated direction or "where" question about an object it names is answered from the graph (no call).
    graph_directions: bool = True


@dataclass
class ProgramResult(Answered):
    """What one question produced in program mode, with its repairs."""

    repairs: dict[str, int] = field(default_factory=dict)  # per repair, the programs it was applied to


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
    if (action := _ACTION.search(text)) is None:
        raise ParseError("no 'Action:' line")
    kind = action.group(1).strip().strip("*`").lower()
    thought = match.group(1).strip() if (match := _THOUGHT.search(text)) else ""
    body = match.group(1).strip() if (match := _INPUT.search(text, action.end())) else ""
    if kind.startswith("program"):
        code = _CODE.search(body) or _CODE.search(text)
        if not (code and code.group(1).strip()):
            raise ParseError("Action is Program but no ```Python block follows")
        return TPCStep(thought, "program", code.group(1).strip())
    if not kind.startswith("final"):
        raise ParseError(f"unknown action {action.group(1).strip()!r}")
    if not (answer := body.splitlines()[0].strip().strip('"').strip() if body else ""):
        raise ParseError("Action is Final Answer but Action Input is empty")
    return TPCStep(thought, "final", answer)


def _final_text(text: str) -> str | None:
    """The answer of a text-format Final Answer reply, or None."""
    try:
        step = parse_reply(text)
    except ParseError:
        return None
    return step.content if step.kind == "final" else None


_LOOSE_FINAL = re.compile(r"^\s*\**\s*Final Answer\s*\**\s*:\s*\**\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE)
#: Longest reply (in words) read as a bare answer in the round that asks for the answer only.
BARE_ANSWER_WORDS = 6


def loose_final(text: str, bare: bool = False) -> str | None:
    """The answer of a reply outside the format: a ``Final Answer: X`` line, or (``bare``) a single short
    line such as ``2``; None otherwise. The caller keeps it only when it fits the question's form."""
    if match := _LOOSE_FINAL.search(text):
        return match.group(1).strip().strip('"*').strip() or None
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if bare and len(lines) == 1 and "```" not in text and ":" not in lines[0] \
            and len(lines[0].split()) <= BARE_ANSWER_WORDS:
        return lines[0].strip('"*.').strip() or None
    return None


def scene_summary(graph: SceneGraph) -> str:
    """"2 chair, 1 table, ..." (structural nodes left out), as LLM-TPC prepends it."""
    counts = Counter(o.category for o in graph if o.kind not in STRUCTURE_KINDS)
    return ", ".join(f"{n} {c}" for c, n in sorted(counts.items()))


class Phase(StrEnum):
    """Where a question is in program mode."""

    PROGRAM = "program"  # ask for a program (or the final answer), repair, check and run it in the sandbox
    ANSWER = "answer"  # a program printed: ask for the final answer only
    FINISH = "finish"  # out of rounds or answers: a JSON answer from the output seen, or give up
    DONE = DONE


#: What the model is told, per occasion (:class:`~synergai.agent.kernel.SendBack`): a repeated program or
#: a reply cut off before its action starts over from the question and samples the next reply.
SEND_BACKS = MappingProxyType({
    "answer-first": SendBack(P.PROGRAM_FIRST, times=1),  # answered before any program ran
    "repeated-program": SendBack(P.REPEATED, times=1, restart=True, resample=True),
    "cut-thought": SendBack(P.CUT_THOUGHT, restart=True, resample=True),  # cut off before its action
    "parse-error": SendBack(P.PARSE_ERROR),
    "check-failed": SendBack(P.CHECK_FAILED),
    "rectify": SendBack(P.RECTIFY),
    "output": SendBack("{observation}"),
    "output-answer-now": SendBack("{observation}\n" + P.ANSWER_NOW)})


@dataclass(kw_only=True)
class _Question(Turn):
    """One question as the loop works on it."""

    question: Question
    result: ProgramResult
    graph: SceneGraph
    api_args: dict[str, Any]
    counts: Counter[str]  # objects per category
    failed: dict[str, str] = field(default_factory=dict)  # program text (whitespace-normalised) -> error
    earlier: list[str] = field(default_factory=list)  # the programs so far (their assignments carry)
    early: TPCStep | None = None  # an answer given before any program ran, sent back once
    last_error: str = ""

    def programs(self, printed: bool = False) -> bool:
        """Whether a program ran without an error (and, with ``printed``, printed)."""
        return any(t["type"] == "program" and t["ok"] and (not printed or t["stdout"].strip())
                   for t in self.result.trace)


class ProgramLoop:
    """Runs Think-Program-reCtify for situated questions: a policy of the turn kernel."""

    budgeted: frozenset[str] = frozenset({Phase.PROGRAM, Phase.ANSWER})
    out_of_budget: str = Phase.FINISH
    send_backs: Mapping[str, SendBack] = SEND_BACKS

    def __init__(self, llm: ChatModel, limits: ProgramLimits | None = None,
                 check_answer: AnswerCheck | None = None) -> None:
        self.limits = limits or ProgramLimits()
        self.budget = Budget(self.limits.max_rounds)
        self.check_answer: AnswerCheck | None = check_answer or self._checked
        self.kernel = TurnKernel(llm, self)
        self._system = P.system_prompt(ordered_sets=self.limits.ordered_sets)

    def handlers(self) -> dict[str, Callable[[_Question], str]]:
        """Each phase's handler."""
        return {Phase.PROGRAM: self._program, Phase.ANSWER: self._answer_only, Phase.FINISH: self._finish}

    def _checked(self, at: _Question, may_send_back: bool) -> str | None:
        """The answer check (:func:`~synergai.agent.answer_check.settle`); NOT_COMPUTED is not sent back
        but replaced by the graph's typed answer where it gives one (the program error stays recorded)."""
        if not self.limits.check_answers:
            return None
        if at.result.answer == NOT_COMPUTED:
            fall_back(at.result, at.question, at.graph, "no program printed an answer")
            return None
        return settle(at.result, at.question, at.graph, may_retry=(
            self.limits.check_sends_back and may_send_back and at.model_calls < self.limits.max_rounds))

    def answer_again(self, at: _Question) -> str:
        """After an answer failed its check: the answer only when a program printed, else a program."""
        return Phase.ANSWER if at.programs(printed=True) else Phase.PROGRAM

    def run(self, graph: SceneGraph, question: str, situation: str = "",
            viewpoint: Viewpoint | None = None) -> ProgramResult:
        """Answer one (situated) question about ``graph``; the agent stands at ``viewpoint``. The question's
        state: its parse, prompt and sandbox arguments."""
        start = time.perf_counter()
        counts = Counter(o.category for o in graph)
        asked = Question.parse(question, sorted(counts))
        result = ProgramResult(answer="", answer_form=asked.form.value)
        pose = None if viewpoint is None else {"position": list(viewpoint.position),
                                               "forward": list(viewpoint.forward)}
        api_args: dict[str, Any] = {"graph": graph_to_dict(graph), "viewpoint": pose,
                                    "ordered_sets": self.limits.ordered_sets}
        rooms = [r.name for r in graph.rooms]  # legal strings (room(name)) and answers ("which room")
        prompt = P.user_prompt(scene_summary(graph), situation, question,
                               P.answer_hint(asked.form, asked.options))
        if rooms:
            prompt = f"The scene has rooms: {', '.join(rooms)} (see rooms(), room()).\n{prompt}"
        messages = [{"role": "system", "content": self._system}, {"role": "user", "content": prompt}]
        at = _Question(question=asked, result=result, graph=graph, prompt=prompt, messages=messages,
                       api_args=api_args, counts=counts, phase=Phase.PROGRAM,
                       calls=self.kernel.calls(question, result.usage),
                       sampling=Resampling(self.limits.repeat_temperature))
        if viewpoint is not None and self._direction_from_graph(at, viewpoint):
            at.phase = Phase.DONE  # no program wanted
        self.kernel.run(at)
        result.seconds = time.perf_counter() - start  # the question's setup included
        return result

    def _direction_from_graph(self, at: _Question, viewpoint: Viewpoint) -> bool:
        """Answer "which direction / side is the X" (and "where is the X": the agent stands somewhere) from
        the graph, with no model call (:func:`~synergai.agent.situated.side_answer`); False for another form
        or a question that names no object here."""
        situated = (AnswerForm.DIRECTION, AnswerForm.PLACE)
        if at.question.form not in situated or not self.limits.graph_directions:
            return False
        asked = dataclasses.replace(at.question, form=AnswerForm.DIRECTION)  # "where": "behind me"
        if (side := side_answer(asked, at.graph, viewpoint)) is None:
            return False
        at.question, at.result.answer_form = asked, AnswerForm.DIRECTION.value
        self._answer(at, side.short, {"from_graph": True, "object": side.object, "hour": side.hour})
        return True

    def _call(self, at: _Question, max_tokens: int) -> ChatReply:
        """One round's model call (greedy unless the question asks for a sample)."""
        return self.kernel.call(at, max_tokens, temperature=at.sampling.next(),
                                stop=["\nObservation:", "\nuser:"])

    # ------------------------------------------------------------------ phases
    def _program(self, at: _Question) -> str:
        """PROGRAM: an answer ends the question, a program is run, other replies are sent back."""
        reply = self._call(at, self.limits.max_tokens)
        try:
            step = parse_reply(reply.text)
        except ParseError as exc:  # neither format: a loose answer where one fits, else ask again
            if self._loose(at, loose_final(reply.text)):
                return Phase.DONE
            at.last_error = f"parse error: {exc}"
            self.kernel.record(at, StepKind.ERROR, reply=reply.text[:800], error=at.last_error)
            # cut off before its action: a loop greedy decoding repeats and copies while it can see it
            if reply.finish_reason == "length":
                self.kernel.send_back(at, "cut-thought", tokens=self.limits.max_tokens)
            else:
                self.kernel.send_back(at, "parse-error")
            return Phase.PROGRAM
        if step.kind == "final" and not (at.programs() or at.early) and at.model_calls < self.budget.calls:
            at.early = step
            self.kernel.record(at, StepKind.ERROR, error="answered before a program ran",
                               reply=reply.text[:800])
            self.kernel.send_back(at, "answer-first")  # once: a second answer without a program is taken
            return Phase.PROGRAM
        if step.kind == "final":
            self._answer(at, step.content, {"thought": step.thought})
            return Phase.DONE
        key = " ".join(step.content.split())
        if key in at.failed:  # greedy decoding repeats itself: running it again cannot help
            self.kernel.record(at, StepKind.ERROR, error="repeated program", program=step.content)
            # it copies the failed program it can see: start over from the question, told what failed
            sent = self.kernel.send_back(at, "repeated-program", error=at.failed[key])
            return Phase.PROGRAM if sent else Phase.FINISH
        return self._try(at, step, key, reply.finish_reason == "length")

    def _answer_only(self, at: _Question) -> str:
        """ANSWER: after a program printed, the final answer only (a bare short reply counts)."""
        reply = self._call(at, self.limits.answer_tokens)
        try:
            step: TPCStep | None = parse_reply(reply.text)
        except ParseError as exc:
            step, at.last_error = None, f"parse error: {exc}"
        if step is not None and step.kind == "final":
            self._answer(at, step.content, {"thought": step.thought})
            return Phase.DONE
        if step is None and self._loose(at, loose_final(reply.text, bare=True)):
            return Phase.DONE
        self.kernel.record(at, StepKind.ERROR, reply=reply.text[:800],
                           error="no final answer after the program's output")
        return Phase.FINISH

    def _finish(self, at: _Question) -> str:
        """FINISH: a JSON answer from the output seen, else the answer sent back, else NOT_COMPUTED."""
        result = at.result
        if at.programs(printed=True):
            self._summarize(at)
        elif at.early is not None:
            self._answer(at, at.early.content, {"thought": at.early.thought, "sent_back": True})
        if not result.answer:
            result.answer = result.short_answer = NOT_COMPUTED
            result.error = at.last_error or "no program ran and no answer was given"
            self.kernel.record(at, StepKind.ANSWER, answer=NOT_COMPUTED, forced=True, error=result.error)
        return Phase.DONE

    # ------------------------------------------------------------------ a program
    def _try(self, at: _Question, step: TPCStep, key: str, cut: bool) -> str:
        """Check a program, run it if it passes, and choose the next phase from what happened (a program
        the check stopped: its findings' hints go straight back)."""
        code, done, findings = self._repaired(at, step.content)
        record = {"thought": step.thought, "program": code}
        if findings:  # not run
            error, kinds = f"CheckError: {repair_hint(findings)}", [f.kind for f in findings]
            if cut and "syntax" in kinds:  # "'(' was never closed" misleads; the cut is a loop: sample
                error, kinds = f"CheckError: {P.CUT_OFF.format(tokens=self.limits.max_tokens)}", ["cut-off"]
                at.sampling.repeated()
            self.kernel.record(at, StepKind.ACTION, "program", **record, ok=False, stdout="", error=error,
                               stage="check", findings=kinds, wall_s=0.0, **done)
            at.failed[key] = at.last_error = error
            self.kernel.send_back(at, "check-failed", error=error)
            return Phase.PROGRAM
        outcome = run_program(code, api_factory=API_FACTORY, api_args=at.api_args, limits=self.limits.sandbox)
        self.kernel.record(at, StepKind.ACTION, "program", **record, ok=outcome.ok, stdout=outcome.stdout,
                           error=outcome.error, stage="sandbox", wall_s=round(outcome.wall_s, 3), **done)
        if outcome.ok and outcome.stdout.strip():
            text, cap = outcome.stdout.strip(), self.limits.max_observation_chars
            if len(text) > cap:
                text = text[:cap] + f" ... [{len(text) - cap} more characters cut: print only what you need]"
            observation = f"Observation: {text}"
            self.kernel.observe(at, observation, tell=False)  # said by the send-back below
            now = self.limits.answer_after_output
            self.kernel.send_back(at, "output-answer-now" if now else "output", observation=observation)
            return Phase.ANSWER if now else Phase.PROGRAM
        error = (outcome.error or "") if not outcome.ok else P.EMPTY_OUTPUT
        if cut:  # a cut that still parsed (a line repeated to the budget)
            error = P.CUT_OFF.format(tokens=self.limits.max_tokens)
            at.sampling.repeated()
        at.failed[key] = at.last_error = error
        self.kernel.send_back(at, "rectify", error=error)
        return Phase.PROGRAM

    def _repaired(self, at: _Question, program: str) -> tuple[str, dict[str, Any], list[Finding]]:
        """The program repaired, the repairs done, and the check's findings that keep it from running (as
        written and unchecked without the static check)."""
        limits = self.limits
        if not limits.static_check:
            at.earlier.append(program)
            return program, {"carried": [], "defined": []}, []
        code, done = repair_program(program, at.counts, at.earlier, ordered_sets=limits.ordered_sets)
        for name in applied(done):
            at.result.repairs[name] = at.result.repairs.get(name, 0) + 1
        return code, done, check_program(code, sorted(at.counts), ordered_sets=limits.ordered_sets)

    def _answer(self, at: _Question, text: str, extra: Mapping[str, Any]) -> None:
        """Record ``text`` as the answer, read as the question's form (as written when it does not fit)."""
        result, question = at.result, at.question
        short = normalise_answer(question.form, text, question.options)
        result.answer = text
        result.short_answer = short or " ".join(text.split())
        self.kernel.record(at, StepKind.ANSWER, **extra, answer=text, short_answer=result.short_answer,
                           fits_form=bool(short))

    def _loose(self, at: _Question, loose: str | None) -> bool:
        """Whether an answer given outside the format fits the question's form (then it is the answer)."""
        if loose is None or not normalise_answer(at.question.form, loose, at.question.options):
            return False
        self._answer(at, loose, {"thought": "", "loose": True})
        return True

    def _summarize(self, at: _Question) -> None:
        """After seeing output: one JSON answer under the form's schema."""
        question = at.question
        schema = {"type": "object", "additionalProperties": False, "required": ["thought", "answer"],
                  "properties": {"thought": {"type": "string", "maxLength": 200},
                                 "answer": answer_schema(question.form, sorted(at.counts), question.options)}}
        asked = [*at.messages, {"role": "user", "content": P.SUMMARIZE_JSON}]
        reply = at.calls.json(asked, schema, max_tokens=120, retries=1,
                              accept_text=lambda t: _final_text(t) is not None)  # LLMError: the caller's
        if reply.data is not None:
            value = reply.data.get("answer")
            text = render_answer(question.form, value) or (
                str(value) if isinstance(value, str | int | float) else "")
            if text.strip():
                self._answer(at, text, {"thought": str(reply.data.get("thought", "")), "summarized": True})
                return
        if final := _final_text(reply.text):
            self._answer(at, final, {"summarized": True})
        else:
            self.kernel.record(at, StepKind.ERROR, error=f"summarization failed: {reply.problem}")
