"""Program mode (LLM-TPC): Think -> Program -> check -> run in the sandbox -> reCtify, then a typed answer.

The model writes short Python against the scene APIs (:mod:`synergai.agent.program.api`). Each program is
first made to parse where one mechanical rewrite does it, given back the assignments of earlier attempts it
uses but dropped (:mod:`synergai.agent.program.rewrite`), and checked statically
(:mod:`synergai.agent.program.check`): a program with findings is not run, and the repair prompt carries the
findings' hints at once. A program that never takes any object the question names is sent back once with a
hint that names them (a count of "chairs on my right" that counts every object on the right); if the repair
still takes none, it runs. A program that passes runs in the sandbox; on an error (its last traceback line)
or an empty output the model is asked to rectify it (a program cut off by the token budget is told so
instead, and the next reply is sampled: the cut is a loop greedy decoding repeats); on a malformed reply
it gets the parse-error prompt (a reply cut off by the token budget before its action, a loop greedy
decoding repeats, starts the conversation over from the question, and the next reply is sampled; a
``Final Answer: X`` line without ``Action:``, or a bare short reply in the round that asks for the answer
only, is read as the answer when it fits the question's form); a program that already failed is not run
again: the conversation starts over from the question, which now says what failed (the model copies a
program it can see), the next reply is sampled at ``repeat_temperature`` instead of greedily, and a second
repeat ends the rounds. The final answer is read as the question's answer form
(:mod:`synergai.agent.answer_forms`). After a program prints, the next call asks for the Final Answer only,
with a small token budget (``ProgramLimits.answer_after_output``). When the rounds run out, or the model
does not answer when asked to, a model that saw a program's output is asked once for the answer as JSON
under the form's schema; one that never saw a program run answers "could not be computed", and the result
records the last error.

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
from dataclasses import asdict, dataclass, field
from typing import Any

from synergai.agent.answer_forms import (
    AnswerForm,
    answer_form,
    answer_schema,
    choice_options,
    normalise_answer,
    render_answer,
)
from synergai.agent.program import prompt as P
from synergai.agent.program.check import check_program, repair_hint
from synergai.agent.program.grammar import reply_grammar
from synergai.agent.program.rewrite import (
    anchor_relations,
    carry_definitions,
    define_categories,
    make_parse,
    unique_fixes,
)
from synergai.agent.program.sandbox import SandboxLimits, run_program
from synergai.geometry.frames import Viewpoint
from synergai.llm.base import ChatModel, ChatReply, supports_grammar
from synergai.llm.json_reply import ask_json
from synergai.scene.grounding.vocabulary import SceneVocabulary
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
    repeat_temperature: float = 0.7
    #: Send back, once, a program that never takes any object the question names (check finding
    #: ``question-object``); the same program given again then runs, and so does one written in the last
    #: round (no round is left for the repair).
    question_objects: bool = True


@dataclass
class ProgramResult:
    """What one question produced in program mode."""

    answer: str
    short_answer: str = ""
    answer_form: str = AnswerForm.PHRASE.value
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    trace: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None  # why the answer could not be computed (None when it was)
    seconds: float = 0.0
    llm_seconds: float = 0.0
    constrained: bool = False  # whether the replies were generated under the grammar

    def count(self, reply: ChatReply) -> ChatReply:
        """Account for one model call."""
        self.llm_calls += 1
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        self.cached_tokens += reply.cached_tokens
        self.llm_seconds += reply.seconds
        return reply

    @property
    def new_prompt_tokens(self) -> int:
        """Prompt tokens the model had to process (not reused from its cache)."""
        return self.prompt_tokens - self.cached_tokens

    def to_dict(self) -> dict[str, Any]:
        """The `synergai ask --mode program --json` document."""
        return asdict(self) | {"new_prompt_tokens": self.new_prompt_tokens}


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


class ProgramLoop:
    """Runs Think-Program-reCtify for situated questions."""

    def __init__(self, llm: ChatModel, limits: ProgramLimits | None = None) -> None:
        self.llm = llm
        self.limits = limits or ProgramLimits()
        #: Whether replies go out under the grammar (asked for, and the model enforces grammars).
        self.constrained = self.limits.constrained and supports_grammar(llm)
        self._system = P.system_prompt(ordered_sets=self.limits.ordered_sets, constrained=self.constrained)

    def _call(self, result: ProgramResult, messages: list[dict[str, str]], max_tokens: int,
              grammar: str | None, temperature: float = 0.0) -> ChatReply:
        extra: dict[str, Any] = {"grammar": grammar} if grammar is not None else {}
        return result.count(self.llm.chat(messages, max_tokens=max_tokens, temperature=temperature,
                                          stop=["\nObservation:", "\nuser:"], **extra))

    def run(self, graph: SceneGraph, question: str, situation: str = "",
            viewpoint: Viewpoint | None = None) -> ProgramResult:
        """Answer one (situated) question about ``graph``; the agent stands at ``viewpoint``."""
        start = time.perf_counter()
        form = answer_form(question)
        options = choice_options(question)
        result = ProgramResult(answer="", answer_form=form.value, constrained=self.constrained)
        pose = None
        if viewpoint is not None:
            pose = {"position": list(viewpoint.position), "forward": list(viewpoint.forward)}
        api_args: dict[str, Any] = {"graph": graph_to_dict(graph), "viewpoint": pose,
                                    "ordered_sets": self.limits.ordered_sets}
        categories = sorted({o.category for o in graph})
        counts = Counter(o.category for o in graph)
        named = SceneVocabulary(tuple(categories), ()).categories_said(question)
        anchor = named[0] if len(named) == 1 else None  # the one category the question names
        rooms = [r.name for r in graph.rooms]  # legal strings (room(name)) and answers ("which room")
        grammars = {answer: reply_grammar([*categories, *rooms], form, options, program=not answer)
                    for answer in (False, True)} if self.constrained else {}
        question_prompt = P.user_prompt(scene_summary(graph), situation, question,
                                        P.answer_hint(form, options))
        if rooms:
            question_prompt = (f"The scene has rooms: {', '.join(rooms)} (see rooms(), room()).\n"
                               f"{question_prompt}")
        messages = [{"role": "system", "content": self._system}, {"role": "user", "content": question_prompt}]
        failed: dict[str, str] = {}  # program text (whitespace-normalised) -> its error
        earlier: list[str] = []  # the programs written so far (their assignments can be carried)
        repeats = 0
        named_asked = False  # a program that ignored the question's objects was sent back once
        repeated_last = False  # the last reply repeated a failed program: the next one is sampled
        saw_output = False
        answer_now = False  # the last program printed: this round is the answer's
        last_error = ""
        for round_no in range(self.limits.max_rounds):
            budget = self.limits.answer_tokens if answer_now else self.limits.max_tokens
            temperature = self.limits.repeat_temperature if repeated_last else 0.0
            repeated_last = False
            reply = self._call(result, messages, budget, grammars.get(answer_now), temperature)
            messages.append({"role": "assistant", "content": reply.text})
            try:
                step = parse_reply(reply.text)
            except ParseError as exc:
                step, last_error = None, f"parse error: {exc}"
            if step is not None and step.kind == "final":
                self._answer(result, form, question, step.content, {"thought": step.thought})
                break
            loose = loose_final(reply.text, bare=answer_now) if step is None else None
            if loose is not None and normalise_answer(form, loose, options):
                self._answer(result, form, question, loose, {"thought": "", "loose": True})
                break
            if answer_now:  # asked for the answer, got none: the JSON summary below asks once more
                result.trace.append({"type": "error", "reply": reply.text[:800],
                                     "error": "no final answer after the program's output"})
                break
            if step is None:
                result.trace.append({"type": "error", "reply": reply.text[:800], "error": last_error})
                if reply.finish_reason == "length":
                    # cut off before its action: a loop greedy decoding repeats ("then the blanket on the
                    # bed, then the blanket on the bed, ..."), and copies while it can see it; start over from
                    # the question and sample
                    messages = _start_over(messages, question_prompt, P.CUT_THOUGHT.format(tokens=budget))
                    repeated_last = True
                else:
                    messages.append({"role": "user", "content": P.PARSE_ERROR})
                continue
            key = " ".join(step.content.split())
            if key in failed:  # greedy decoding repeats itself: running it again cannot help
                repeats += 1
                result.trace.append({"type": "error", "error": "repeated program", "program": step.content})
                if repeats > 1:
                    break
                # it copies the failed program from the conversation: start again from the question alone,
                # told what failed, and sample the reply
                messages = _start_over(messages, question_prompt, P.REPEATED.format(error=failed[key]))
                repeated_last = True
                continue
            code = step.content
            carried: list[str] = []  # names an earlier attempt assigned, put back in front
            made: list[str] = []  # names that spell a category, given an assignment
            if self.limits.static_check:  # each rewrite returns None when it changes nothing
                code = make_parse(code, categories) or code
                code = unique_fixes(code) or code
                code = anchor_relations(code, anchor) or code
            rewritten = code != step.content
            carry = carry_definitions(code, earlier) if self.limits.static_check else None
            earlier.append(code)  # as the model wrote it, rewritten: what a later repair builds on
            if self.limits.static_check:
                code, carried = carry or (code, carried)
                defined = define_categories(code, counts, ordered_sets=self.limits.ordered_sets)
                code, made = defined or (code, made)
            findings = (check_program(code, categories, ordered_sets=self.limits.ordered_sets, named=named,
                                      require_named=self.limits.question_objects and not named_asked
                                      and round_no < self.limits.max_rounds - 1)  # else: no round left
                        if self.limits.static_check else [])
            named_asked = named_asked or any(f.kind == "question-object" for f in findings)
            if findings:  # not run: the hints go straight back
                error = f"CheckError: {repair_hint(findings)}"
                kinds = [f.kind for f in findings]
                if reply.finish_reason == "length" and "syntax" in kinds:
                    # "'(' was never closed" misleads; the cut is a loop greedy decoding repeats
                    error, kinds = f"CheckError: {P.CUT_OFF.format(tokens=budget)}", ["cut-off"]
                    repeated_last = True
                result.trace.append({"type": "program", "thought": step.thought, "program": code,
                                     "ok": False, "stdout": "", "error": error, "stage": "check",
                                     "findings": kinds, "wall_s": 0.0,
                                     "rewritten": rewritten, "carried": carried,
                                     "defined": made})
                last_error = error
                if any(f.kind != "question-object" for f in findings):  # else the same program may run
                    failed[key] = error
                messages.append({"role": "user", "content": P.CHECK_FAILED.format(error=error)})
                continue
            outcome = run_program(code, api_factory=API_FACTORY, api_args=api_args,
                                  limits=self.limits.sandbox)
            result.trace.append({"type": "program", "thought": step.thought, "program": code,
                                 "ok": outcome.ok, "stdout": outcome.stdout, "error": outcome.error,
                                 "stage": "sandbox", "wall_s": round(outcome.wall_s, 3),
                                 "rewritten": rewritten, "carried": carried,
                                 "defined": made})
            if outcome.ok and outcome.stdout.strip():
                saw_output = True
                answer_now = self.limits.answer_after_output
                observation = self._observation(outcome.stdout)
                messages.append({"role": "user", "content": f"{observation}\n{P.ANSWER_NOW}" if answer_now
                                 else observation})
            else:
                error = (outcome.error or "") if not outcome.ok else P.EMPTY_OUTPUT
                if reply.finish_reason == "length":  # a cut that still parsed (a line repeated to the budget)
                    error = P.CUT_OFF.format(tokens=budget)
                    repeated_last = True
                failed[key] = last_error = error
                messages.append({"role": "user", "content": P.RECTIFY.format(error=error)})
        if not result.answer:
            if saw_output:
                self._summarize(result, messages, form, question, categories)
            if not result.answer:
                result.answer = result.short_answer = NOT_COMPUTED
                result.error = last_error or "no program ran and no answer was given"
                result.trace.append({"type": "final", "answer": NOT_COMPUTED, "forced": True,
                                     "error": result.error})
        result.seconds = time.perf_counter() - start
        return result

    def _observation(self, stdout: str) -> str:
        text, cap = stdout.strip(), self.limits.max_observation_chars
        if len(text) > cap:
            text = text[:cap] + f" ... [{len(text) - cap} more characters cut: print only what you need]"
        return f"Observation: {text}"

    @staticmethod
    def _answer(result: ProgramResult, form: AnswerForm, question: str, text: str,
                extra: Mapping[str, Any]) -> None:
        """Record ``text`` as the answer, read as the question's form (as written when it does not fit)."""
        short = normalise_answer(form, text, choice_options(question))
        result.answer = text
        result.short_answer = short or " ".join(text.split())
        result.trace.append({"type": "final", **extra, "answer": text, "short_answer": result.short_answer,
                             "fits_form": bool(short)})

    def _summarize(self, result: ProgramResult, messages: list[dict[str, str]], form: AnswerForm,
                   question: str, categories: Sequence[str]) -> None:
        """Out of rounds (or no answer when asked) after seeing output: one JSON answer under the form's
        schema."""
        schema = {"type": "object", "additionalProperties": False, "required": ["thought", "answer"],
                  "properties": {"thought": {"type": "string", "maxLength": 200},
                                 "answer": answer_schema(form, categories, choice_options(question))}}
        asked = [*messages, {"role": "user", "content": P.SUMMARIZE_JSON}]
        reply = ask_json(self.llm, asked, schema, max_tokens=120, retries=1,
                         accept_text=lambda t: _final_text(t) is not None)  # LLMError: the caller's error
        for r in reply.replies:
            result.count(r)
        if reply.data is not None:
            value = reply.data.get("answer")
            text = render_answer(form, value) or (str(value) if isinstance(value, str | int | float) else "")
            if text.strip():
                self._answer(result, form, question, text, {"thought": str(reply.data.get("thought", "")),
                                                            "summarized": True})
                return
        final = _final_text(reply.text)
        if final:
            self._answer(result, form, question, final, {"summarized": True})
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


def program_stats(results: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """LLM-TPC's program figures over results with ``trace`` and ``llm_calls`` (``ProgramResult.to_dict()``
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


def error_class(step: Mapping[str, Any]) -> str | None:
    """The class of a program step's failure: ``check:<finding>`` (the first finding of a program the static
    check stopped), ``sandbox:<exception type>``, ``empty-output``; None for a program that printed."""
    if step.get("ok"):
        return None if str(step.get("stdout", "")).strip() else "empty-output"
    if step.get("stage") == "check":
        kinds = step.get("findings") or ["unknown"]
        return f"check:{kinds[0]}"
    error = str(step.get("error") or "")
    if error == P.EMPTY_OUTPUT:
        return "empty-output"
    return f"sandbox:{error.split(':', 1)[0].strip() or 'unknown'}"


def program_error_classes(results: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many programs failed in each class (:func:`error_class`), plus ``not-computed``: questions whose
    answer could not be computed."""
    counts: dict[str, int] = {}
    for r in results:
        for t in r.get("trace", []):
            kind = error_class(t) if t.get("type") == "program" else None
            if kind:
                counts[kind] = counts.get(kind, 0) + 1
        if any(t.get("type") == "final" and t.get("forced") for t in r.get("trace", [])):
            counts["not-computed"] = counts.get("not-computed", 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
