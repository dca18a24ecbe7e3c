"""Program mode (LLM-TPC): Think -> Program -> check -> run in the sandbox -> reCtify, then a typed answer.

The model writes short Python against the scene APIs (:mod:`synergai.agent.program.api`). Each program is
first made to parse where one mechanical rewrite does it (:mod:`synergai.agent.program.rewrite`), given back
the assignments of earlier attempts it uses but dropped (:mod:`synergai.agent.program.names`), and checked
statically (:mod:`synergai.agent.program.check`): a program with findings is not run, and the repair prompt
carries the findings' hints at once. A program that never takes any object the question names is sent back
once with a hint that names them (a count of "chairs on my right" that counts every object on the right); if
the repair still takes none, it runs. A program that passes runs in the sandbox; a category it filters that
the scene has none of does not stop it, the hint (the scene's categories) is said beside its output
(:data:`NOTED`). A Final Answer given before any program ran (none yet, or each one failed) is sent back once
for a program; a second is taken, and so is the first when no program runs after it. On an error (its last
traceback line) or an empty output the model is asked to rectify it (a program cut off by the token budget is
told so instead, and the next reply is sampled: the cut is a loop greedy decoding repeats); on a malformed
reply it gets the parse-error prompt (a reply cut off by the token budget before its action, a loop greedy
decoding repeats, starts the conversation over from the question, and the next reply is sampled; a ``Final
Answer: X`` line without ``Action:``, or a bare short reply in the round that asks for the answer only, is
read as the answer when it fits the question's form); a program that already failed is not run again: the
conversation starts over from the question, which now says what failed (the model copies a program it can
see), the next reply is sampled at ``repeat_temperature`` instead of greedily, and a second repeat ends the
rounds. The final answer is read as the question's answer form (:mod:`synergai.agent.answer_forms`). After a
program prints, the next call asks for the Final Answer only, with a small token budget
(``ProgramLimits.answer_after_output``). When the rounds run out, or the model does not answer when asked to,
a model that saw a program's output is asked once for the answer as JSON under the form's schema; one that
never saw a program run answers "could not be computed", and the result records the last error.

The loop is a small phase machine (:class:`Phase`): PROGRAM asks for a program (or the answer), checks
and runs it; ANSWER, after a program printed, asks for the final answer only; FINISH, when the rounds
run out or no answer came when asked, summarises what was seen or gives up. Benchmark figures over
many questions are in :mod:`synergai.eval.program_stats`.

With ``ProgramLimits.constrained`` and a model that enforces grammars (``supports_grammar``, the embedded
llama.cpp model), every reply is generated under the GBNF grammar of :mod:`synergai.agent.program.grammar`:
the format is fixed, the program's strings are legal values or print labels, the answer of a closed form
is one of its values. Other models (OpenAI-compatible endpoints, which may reject the field) get no
grammar and the loop runs as without it.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from synergai.agent.answer_check import settle
from synergai.agent.answer_forms import answer_schema, normalise_answer, render_answer
from synergai.agent.program import prompt as P
from synergai.agent.program.check import Finding, check_program, repair_hint
from synergai.agent.program.grammar import reply_grammar
from synergai.agent.program.names import carry_definitions
from synergai.agent.program.rewrite import define_categories, make_parse
from synergai.agent.program.sandbox import SandboxLimits, run_program
from synergai.agent.question import Question
from synergai.agent.result import Answered
from synergai.geometry.frames import Viewpoint
from synergai.llm.base import ChatModel, ChatReply, supports_grammar
from synergai.llm.json_reply import ask_json
from synergai.llm.sampling import REPEAT_TEMPERATURE, Resampling
from synergai.llm.trace import begin_turn
from synergai.scene.model import STRUCTURE_KINDS, SceneGraph
from synergai.scene.serialization import graph_to_dict

API_FACTORY = "synergai.agent.program.api:sandbox_api"
#: The answer when no program ran and the model never answered.
NOT_COMPUTED = "could not be computed"

_ACTION = re.compile(r"^\s*Action\s*:\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE)
_INPUT = re.compile(r"^\s*Action Input\s*:\s*(.*)$", re.MULTILINE | re.IGNORECASE | re.DOTALL)
_THOUGHT = re.compile(
    r"^\s*Thought\s*:\s*(.*?)(?=^\s*Action\s*:|\Z)", re.MULTILINE | re.IGNORECASE | re.DOTALL
)
_CODE = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n(.*?)(?:```|\Z)", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class ProgramLimits:
    """Bounds on one question.

    The budget (issue 15) keeps a question near 2-3 calls: a program round may generate ``max_tokens``
    (a program of ten lines and its thought fit in 300), the answer round after an output only
    ``answer_tokens`` (a one-line thought and a short answer), and ``max_rounds`` 4 allows the first
    program, two repairs and the answer. ``constrained`` stays off until measured on SQA3D
    (``benchmarks/bench_program.py --variants ordered,constrained``)."""

    max_rounds: int = 4
    max_tokens: int = 300
    #: Tokens of a reply that can only be the Final Answer (the round after a program's output).
    answer_tokens: int = 100
    #: After a program prints, the next call asks for the Final Answer only (no further program).
    answer_after_output: bool = True
    #: Generate replies under the program-mode grammar where the model enforces grammars.
    constrained: bool = False
    sandbox: SandboxLimits = field(default_factory=SandboxLimits)
    #: Object sets index nearest-first (True) or keep LLM-TPC's no-indexing contract (False).
    ordered_sets: bool = True
    #: Check programs statically before the sandbox (False: every program goes to the sandbox).
    static_check: bool = True
    #: Longest program output shown to the model (a longer one is cut, and the model told so).
    max_observation_chars: int = 1500
    #: Sampling temperature of the call after the model repeated a failed program (greedy decoding
    #: given the same prompt would write it again); every other call is greedy.
    repeat_temperature: float = REPEAT_TEMPERATURE
    #: Send back, once, a program that never takes any object the question names (check finding
    #: ``question-object``); the same program given again then runs, and so does one written in the last
    #: round (no round is left for the repair).
    question_objects: bool = True


#: Findings about a program that runs as written, with a result the model may not expect: a category the
#: scene has none of (filter() gives an empty set). The program runs; the hint is said beside its output.
NOTED = frozenset({"category"})


@dataclass
class ProgramResult(Answered):
    """What one question produced in program mode (:class:`~synergai.agent.result.Answered`, and whether
    the replies were generated under the grammar)."""

    constrained: bool = False


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


_LOOSE_FINAL = re.compile(r"^\s*\**\s*Final Answer\s*\**\s*:\s*\**\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE)
#: Longest reply (in words) read as a bare answer in the round that asks for the answer only.
BARE_ANSWER_WORDS = 6


def loose_final(text: str, bare: bool = False) -> str | None:
    """The answer of a reply that gives one outside the format: a ``Final Answer: X`` line without the
    ``Action:`` line, or (``bare``: the round asked for the answer only) a single short line such as ``2``;
    None otherwise. The caller keeps it only when it fits the question's answer form."""
    match = _LOOSE_FINAL.search(text)
    if match:
        return match.group(1).strip().strip('"*').strip() or None
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if bare and len(lines) == 1 and "```" not in text and ":" not in lines[0] \
            and len(lines[0].split()) <= BARE_ANSWER_WORDS:
        return lines[0].strip('"*.').strip() or None
    return None


def scene_summary(graph: SceneGraph) -> str:
    """"2 chair, 1 table, ..." (structural nodes left out), as LLM-TPC prepends it."""
    counts: dict[str, int] = {}
    for o in graph:
        if o.kind not in STRUCTURE_KINDS:
            counts[o.category] = counts.get(o.category, 0) + 1
    return ", ".join(f"{n} {c}" for c, n in sorted(counts.items()))


class Phase(StrEnum):
    """Where a question is in program mode (see the module doc-string)."""

    PROGRAM = "program"  # ask for a program (or the final answer) and check and run it
    ANSWER = "answer"  # a program printed: ask for the final answer only
    FINISH = "finish"  # out of rounds, or no answer when asked: summarise what was seen, or give up
    DONE = "done"


@dataclass
class _Attempt:
    """One question as the loop works on it."""

    question: Question
    result: ProgramResult
    prompt: str  # the question's user prompt (a fresh start repeats it)
    messages: list[dict[str, str]]
    api_args: dict[str, Any]
    counts: Counter[str]  # objects per category
    grammars: dict[Phase, str]  # per phase, when replies are constrained
    phase: Phase = Phase.PROGRAM
    rounds: int = 0
    sampling: Resampling = field(default_factory=Resampling)  # sampled after a repeat or a cut-off reply
    failed: dict[str, str] = field(default_factory=dict)  # program text (whitespace-normalised) -> error
    earlier: list[str] = field(default_factory=list)  # the programs so far (their assignments carry)
    named_asked: bool = False  # a program that ignored the question's objects was sent back once
    sent_back: TPCStep | None = None  # an answer given before any program ran, sent back once
    last_error: str = ""

    @property
    def categories(self) -> list[str]:
        """The scene's categories."""
        return sorted(self.counts)

    @property
    def ran(self) -> bool:
        """Whether a program ran without an error."""
        return any(t["type"] == "program" and t["ok"] for t in self.result.trace)

    @property
    def saw_output(self) -> bool:
        """Whether a program ran and printed."""
        return any(t["type"] == "program" and t["ok"] and t["stdout"].strip() for t in self.result.trace)

    @property
    def repeats(self) -> int:
        """How often the model gave a program that had already failed."""
        return sum(1 for t in self.result.trace if t.get("error") == "repeated program")

    def start_over(self, note: str) -> Phase:
        """The conversation from the question again, told ``note``; the next reply is sampled."""
        self.messages = _start_over(self.messages, self.prompt, note)
        return Phase.PROGRAM

    def say(self, text: str) -> Phase:
        """Tell the model ``text`` and ask for a program again."""
        self.messages.append({"role": "user", "content": text})
        return Phase.PROGRAM


class ProgramLoop:
    """Runs Think-Program-reCtify for situated questions, as a small phase machine."""

    def __init__(self, llm: ChatModel, limits: ProgramLimits | None = None) -> None:
        self.llm = llm
        self.limits = limits or ProgramLimits()
        #: Whether replies go out under the grammar (asked for, and the model enforces grammars).
        self.constrained = self.limits.constrained and supports_grammar(llm)
        self._system = P.system_prompt(ordered_sets=self.limits.ordered_sets, constrained=self.constrained)

    def run(self, graph: SceneGraph, question: str, situation: str = "",
            viewpoint: Viewpoint | None = None) -> ProgramResult:
        """Answer one (situated) question about ``graph``; the agent stands at ``viewpoint``."""
        start = time.perf_counter()
        begin_turn(self.llm, question)
        at = self._attempt(graph, question, situation, viewpoint)
        handlers = {Phase.PROGRAM: self._program, Phase.ANSWER: self._answer_only, Phase.FINISH: self._finish}
        while at.phase is not Phase.DONE:
            at.phase = handlers[at.phase](at)
            if at.phase is Phase.DONE and (back := settle(at.result, at.question, graph, may_retry=(
                    at.result.answer != NOT_COMPUTED and at.rounds < self.limits.max_rounds))):
                at.say(back)
                at.phase = Phase.ANSWER if at.saw_output else Phase.PROGRAM
        at.result.seconds = time.perf_counter() - start
        return at.result

    def _attempt(self, graph: SceneGraph, text: str, situation: str, viewpoint: Viewpoint | None) -> _Attempt:
        """The state of a new question: its parse, prompt, sandbox arguments and grammars."""
        counts = Counter(o.category for o in graph)
        question = Question.parse(text, sorted(counts))
        pose = None if viewpoint is None else {"position": list(viewpoint.position),
                                               "forward": list(viewpoint.forward)}
        api_args: dict[str, Any] = {"graph": graph_to_dict(graph), "viewpoint": pose,
                                    "ordered_sets": self.limits.ordered_sets}
        rooms = [r.name for r in graph.rooms]  # legal strings (room(name)) and answers ("which room")
        grammars = {phase: reply_grammar([*sorted(counts), *rooms], question.form, question.options,
                                         program=phase is Phase.PROGRAM)
                    for phase in (Phase.PROGRAM, Phase.ANSWER)} if self.constrained else {}
        prompt = P.user_prompt(scene_summary(graph), situation, text,
                               P.answer_hint(question.form, question.options))
        if rooms:
            prompt = f"The scene has rooms: {', '.join(rooms)} (see rooms(), room()).\n{prompt}"
        messages = [{"role": "system", "content": self._system}, {"role": "user", "content": prompt}]
        result = ProgramResult(answer="", answer_form=question.form.value, constrained=self.constrained)
        return _Attempt(question, result, prompt, messages, api_args, counts, grammars,
                        sampling=Resampling(self.limits.repeat_temperature))

    def _call(self, at: _Attempt, max_tokens: int) -> ChatReply:
        """One round's model call (greedy unless the attempt asks for a sample); the reply joins the
        conversation."""
        at.rounds += 1
        grammar = at.grammars.get(at.phase)
        extra: dict[str, Any] = {"grammar": grammar} if grammar is not None else {}
        reply = at.result.usage.count(self.llm.chat(at.messages, max_tokens=max_tokens,
                                                    temperature=at.sampling.next(),
                                                    stop=["\nObservation:", "\nuser:"], **extra))
        at.messages.append({"role": "assistant", "content": reply.text})
        return reply

    # ------------------------------------------------------------------ phases
    def _program(self, at: _Attempt) -> Phase:
        """PROGRAM: a reply that answers ends the question; a program is checked and run; a malformed
        reply or a repeated program gets its prompt."""
        if at.rounds >= self.limits.max_rounds:
            return Phase.FINISH
        budget = self.limits.max_tokens
        reply = self._call(at, budget)
        try:
            step = parse_reply(reply.text)
        except ParseError as exc:
            return self._unparsed(at, reply, budget, f"parse error: {exc}")
        if step.kind == "final" and not (at.ran or at.sent_back) and at.rounds < self.limits.max_rounds:
            at.sent_back = step
            at.result.trace.append({"type": "error", "error": "answered before a program ran", "reply":
                                    reply.text[:800]})
            return at.say(P.PROGRAM_FIRST)  # once: a second answer without a program that ran is taken
        if step.kind == "final":
            self._answer(at.result, at.question, step.content, {"thought": step.thought})
            return Phase.DONE
        key = " ".join(step.content.split())
        if key in at.failed:  # greedy decoding repeats itself: running it again cannot help
            at.result.trace.append({"type": "error", "error": "repeated program", "program": step.content})
            if at.repeats > 1:
                return Phase.FINISH
            # it copies the failed program it can see: start over from the question, told what failed
            at.sampling.repeated()
            return at.start_over(P.REPEATED.format(error=at.failed[key]))
        return self._try(at, step, key, reply.finish_reason == "length", budget)

    def _unparsed(self, at: _Attempt, reply: ChatReply, budget: int, error: str) -> Phase:
        """A reply in neither format: read a loose answer where one fits, else ask again."""
        loose = loose_final(reply.text)
        if loose is not None and normalise_answer(at.question.form, loose, at.question.options):
            self._answer(at.result, at.question, loose, {"thought": "", "loose": True})
            return Phase.DONE
        at.last_error = error
        at.result.trace.append({"type": "error", "reply": reply.text[:800], "error": error})
        if reply.finish_reason == "length":
            # cut off before its action: a loop greedy decoding repeats ("then the blanket on the bed, then
            # the blanket on the bed, ...") and copies while it can see it: start over and sample
            at.sampling.repeated()
            return at.start_over(P.CUT_THOUGHT.format(tokens=budget))
        return at.say(P.PARSE_ERROR)

    def _answer_only(self, at: _Attempt) -> Phase:
        """ANSWER: after a program printed, the final answer only (a bare short reply counts)."""
        if at.rounds >= self.limits.max_rounds:
            return Phase.FINISH
        reply = self._call(at, self.limits.answer_tokens)
        try:
            step: TPCStep | None = parse_reply(reply.text)
        except ParseError as exc:
            step, at.last_error = None, f"parse error: {exc}"
        if step is not None and step.kind == "final":
            self._answer(at.result, at.question, step.content, {"thought": step.thought})
            return Phase.DONE
        loose = loose_final(reply.text, bare=True) if step is None else None
        if loose is not None and normalise_answer(at.question.form, loose, at.question.options):
            self._answer(at.result, at.question, loose, {"thought": "", "loose": True})
            return Phase.DONE
        at.result.trace.append({"type": "error", "reply": reply.text[:800],
                                "error": "no final answer after the program's output"})
        return Phase.FINISH

    def _finish(self, at: _Attempt) -> Phase:
        """FINISH: one JSON answer when a program's output was seen; else the answer sent back when no
        program ran after it; else "could not be computed"."""
        result = at.result
        if at.saw_output:
            self._summarize(result, at.messages, at.question, at.categories)
        elif at.sent_back is not None:
            self._answer(result, at.question, at.sent_back.content, {"thought": at.sent_back.thought,
                                                                     "sent_back": True})
        if not result.answer:
            result.answer = result.short_answer = NOT_COMPUTED
            result.error = at.last_error or "no program ran and no answer was given"
            result.trace.append({"type": "final", "answer": NOT_COMPUTED, "forced": True,
                                 "error": result.error})
        return Phase.DONE

    # ------------------------------------------------------------------ a program
    def _prepare(self, at: _Attempt, code: str) -> tuple[str, dict[str, Any]]:
        """The program as it will be checked: made to parse by the registered repairs, given back
        assignments an earlier attempt made, names of categories defined
        (:mod:`~synergai.agent.program.rewrite`, :mod:`~synergai.agent.program.names`); and what was done, for
        the trace."""
        if not self.limits.static_check:
            at.earlier.append(code)
            return code, {"rewritten": False, "repairs": [], "carried": [], "defined": []}
        code, repairs = make_parse(code, at.categories) or (code, [])
        carry = carry_definitions(code, at.earlier)
        at.earlier.append(code)  # as the model wrote it, rewritten: what a later repair builds on
        code, carried = carry or (code, [])
        code, made = define_categories(code, at.counts, ordered_sets=self.limits.ordered_sets) or (code, [])
        return code, {"rewritten": bool(repairs), "repairs": repairs, "carried": carried, "defined": made}

    def _try(self, at: _Attempt, step: TPCStep, key: str, cut: bool, budget: int) -> Phase:
        """Check a program, run it if it passes, and choose the next phase from what happened."""
        code, done = self._prepare(at, step.content)
        findings, notes = self._check(at, code)
        record = {"type": "program", "thought": step.thought, "program": code,
                  "notes": [f.kind for f in notes]}
        if findings:  # not run: the hints go straight back
            findings += notes
            error, kinds = f"CheckError: {repair_hint(findings)}", [f.kind for f in findings]
            if cut and "syntax" in kinds:  # "'(' was never closed" misleads; the cut is a loop: sample
                error, kinds = f"CheckError: {P.CUT_OFF.format(tokens=budget)}", ["cut-off"]
                at.sampling.repeated()
            at.result.trace.append({**record, "ok": False, "stdout": "", "error": error, "stage": "check",
                                    "findings": kinds, "wall_s": 0.0, **done})
            at.last_error = error
            if any(f.kind != "question-object" for f in findings):  # else the same program may run
                at.failed[key] = error
            return at.say(P.CHECK_FAILED.format(error=error))
        outcome = run_program(code, api_factory=API_FACTORY, api_args=at.api_args, limits=self.limits.sandbox)
        at.result.trace.append({**record, "ok": outcome.ok, "stdout": outcome.stdout, "error": outcome.error,
                                "stage": "sandbox", "wall_s": round(outcome.wall_s, 3), **done})
        noted = f" Note: {repair_hint(notes)}" if notes else ""
        if outcome.ok and outcome.stdout.strip():
            observation = self._observation(outcome.stdout) + noted
            if not self.limits.answer_after_output:
                return at.say(observation)
            at.messages.append({"role": "user", "content": f"{observation}\n{P.ANSWER_NOW}"})
            return Phase.ANSWER
        error = (outcome.error or "") if not outcome.ok else P.EMPTY_OUTPUT
        if cut:  # a cut that still parsed (a line repeated to the budget)
            error = P.CUT_OFF.format(tokens=budget)
            at.sampling.repeated()
        at.failed[key] = at.last_error = error
        return at.say(P.RECTIFY.format(error=error + noted))

    def _check(self, at: _Attempt, code: str) -> tuple[list[Finding], list[Finding]]:
        """The static check's findings that keep a program from running, and those said beside its
        output (:data:`NOTED`). A program ignoring the question's objects goes back once, while a round is
        left for the repair."""
        if not self.limits.static_check:
            return [], []
        findings = check_program(code, at.categories, ordered_sets=self.limits.ordered_sets,
                                 named=at.question.categories,
                                 require_named=self.limits.question_objects and not at.named_asked
                                 and at.rounds < self.limits.max_rounds)
        at.named_asked = at.named_asked or any(f.kind == "question-object" for f in findings)
        return [f for f in findings if f.kind not in NOTED], [f for f in findings if f.kind in NOTED]

    def _observation(self, stdout: str) -> str:
        text, cap = stdout.strip(), self.limits.max_observation_chars
        if len(text) > cap:
            text = text[:cap] + f" ... [{len(text) - cap} more characters cut: print only what you need]"
        return f"Observation: {text}"

    @staticmethod
    def _answer(result: ProgramResult, question: Question, text: str, extra: Mapping[str, Any]) -> None:
        """Record ``text`` as the answer, read as the question's form (as written when it does not fit)."""
        short = normalise_answer(question.form, text, question.options)
        result.answer = text
        result.short_answer = short or " ".join(text.split())
        result.trace.append({"type": "final", **extra, "answer": text, "short_answer": result.short_answer,
                             "fits_form": bool(short)})

    def _summarize(self, result: ProgramResult, messages: list[dict[str, str]], question: Question,
                   categories: Sequence[str]) -> None:
        """Out of rounds (or no answer when asked) after seeing output: one JSON answer under the form's
        schema."""
        schema = {"type": "object", "additionalProperties": False, "required": ["thought", "answer"],
                  "properties": {"thought": {"type": "string", "maxLength": 200},
                                 "answer": answer_schema(question.form, categories, question.options)}}
        asked = [*messages, {"role": "user", "content": P.SUMMARIZE_JSON}]
        reply = ask_json(self.llm, asked, schema, max_tokens=120, retries=1,
                         accept_text=lambda t: _final_text(t) is not None)  # LLMError: the caller's error
        result.usage.count_all(reply.replies)
        if reply.data is not None:
            value = reply.data.get("answer")
            text = render_answer(question.form, value) or (
                str(value) if isinstance(value, str | int | float) else "")
            if text.strip():
                self._answer(result, question, text, {"thought": str(reply.data.get("thought", "")),
                                                            "summarized": True})
                return
        final = _final_text(reply.text)
        if final:
            self._answer(result, question, final, {"summarized": True})
        else:
            result.trace.append({"type": "error", "error": f"summarization failed: {reply.problem}"})


def _start_over(messages: list[dict[str, str]], question_prompt: str, note: str) -> list[dict[str, str]]:
    """The conversation from the question again (the system prompt kept), the question followed by
    ``note`` (what went wrong): a small model copies a failed program or a looping thought it can see."""
    return [messages[0], {"role": "user", "content": f"{question_prompt}\n{note}"}]


def _final_text(text: str) -> str | None:
    """The answer of a text-format Final Answer reply, or None."""
    try:
        step = parse_reply(text)
    except ParseError:
        return None
    return step.content if step.kind == "final" else None
