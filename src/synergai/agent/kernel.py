"""One turn kernel for both answering loops (the shape of smolagents' ``MultiStepAgent``).

A policy (:class:`~synergai.agent.loop.AgentLoop`, :class:`~synergai.agent.program.loop.ProgramLoop`) gives
its phase handlers, a :class:`Budget` and its :class:`SendBack` policies as data; :class:`TurnKernel` runs
the phases until :data:`DONE`, makes every model call through :class:`Calls`, records typed :class:`Step`
records into the trace, and checks the answer before it is given.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from synergai.agent.result import Answered
from synergai.llm.base import ChatModel, ChatReply
from synergai.llm.json_reply import JsonAnswer, ask_json
from synergai.llm.sampling import Resampling
from synergai.llm.trace import begin_turn
from synergai.llm.usage import Usage

#: The phase every turn ends in.
DONE = "done"


class Calls:
    """The one path of model calls: each counted in ``usage`` and kept in ``replies``; a chat model itself."""

    def __init__(self, llm: ChatModel, usage: Usage | None = None) -> None:
        self.llm = llm
        self.name = llm.name
        self.usage = usage if usage is not None else Usage()
        self.replies: list[ChatReply] = []

    def begin(self, label: str) -> Calls:
        """A new turn begins in the model's trace (:func:`~synergai.llm.trace.begin_turn`)."""
        begin_turn(self.llm, label)
        return self

    def chat(self, messages: Sequence[Mapping[str, str]], **request: Any) -> ChatReply:
        """One call, counted."""
        reply = self.usage.count(self.llm.chat(messages, **request))
        self.replies.append(reply)
        return reply

    def json(self, messages: Sequence[Mapping[str, str]], schema: dict[str, Any], **kw: Any) -> JsonAnswer:
        """One JSON object under ``schema`` (retried when cut off or broken), every call counted."""
        return ask_json(self, messages, schema, **kw)

    def count_tokens(self, text: str) -> int:
        """As the model counts."""
        return self.llm.count_tokens(text)


class StepKind(StrEnum):
    """What a step record is."""

    PLAN = "plan"
    ACTION = "action"  # a tool call or a program run, with what it observed
    OBSERVATION = "observation"
    ANSWER = "answer"  # its trace type is "final" (a policy may name its own, e.g. "program")
    ERROR = "error"


@dataclass(frozen=True)
class Step:
    """One typed step record; ``entry`` is its line in the result's trace (an observation has none)."""

    kind: StepKind
    entry: dict[str, Any]


@dataclass(frozen=True)
class Budget:
    """Bounds on a turn: model calls in the budgeted phases, and invalid replies in a row."""

    calls: int
    retries: int = 0


@dataclass(frozen=True)
class SendBack:
    """A send-back policy: the ``message`` (a format string), how often in a turn (``times``; 0:
    unbounded), whether the conversation restarts from the question, whether the next reply is sampled."""

    message: str
    times: int = 0
    restart: bool = False
    resample: bool = False


@dataclass(frozen=True)
class AnswerVerdict:
    """A check of an answer before it is given: whether it may go, why not, and what to give instead."""

    ok: bool
    reason: str = ""
    fallback: str | None = None  # the best typed answer the graph gives (None: it gives none)
    sentence: str = ""  # the fallback said as a sentence


#: The check a policy runs before an answer is given: (the turn, whether it may still be sent back) -> the
#: send-back's text, or None when the turn's result may go (the check may have put a fallback in it).
AnswerCheck = Callable[[Any, bool], "str | None"]
#: The send-back of an answer that failed its check (once a turn; the text names the reason): the kernel's,
#: unless a policy's ``send_backs`` has its own "answer-check".
ANSWER_CHECK = SendBack("{text}", times=1)


@dataclass(kw_only=True)
class Turn:
    """One turn as the kernel runs it; a policy's own state derives from it."""

    result: Answered
    messages: list[dict[str, str]]
    phase: str
    calls: Calls
    prompt: str = ""  # the question's user message (a send-back that restarts repeats it)
    steps: list[Step] = field(default_factory=list)
    retries: int = 0  # invalid replies in a row
    sent_back: Counter[str] = field(default_factory=Counter)
    sampling: Resampling = field(default_factory=Resampling)
    open_question: bool = False  # the reply asks the user (a clarification): not an answer to check

    @property
    def model_calls(self) -> int:
        """Model calls made so far."""
        return len(self.calls.replies)


Handler = Callable[[Any], str]


class Policy(Protocol):
    """What a loop gives the kernel: phase handlers, budget, send-backs and the answer check."""

    budget: Budget
    budgeted: frozenset[str]
    out_of_budget: str
    send_backs: Mapping[str, SendBack]
    check_answer: AnswerCheck | None

    def handlers(self) -> Mapping[str, Handler]: ...

    def answer_again(self, turn: Any) -> str: ...


class TurnKernel:
    """Runs a policy's turns: phases until :data:`DONE`, calls, steps, send-backs, the answer check."""

    def __init__(self, llm: ChatModel, policy: Policy) -> None:
        self.llm = llm
        self.policy = policy
        self.send_backs = {"answer-check": ANSWER_CHECK, **policy.send_backs}  # the check's, unless its own

    def calls(self, label: str, usage: Usage) -> Calls:
        """The call path of a new turn about ``label``."""
        return Calls(self.llm, usage).begin(label)

    def run(self, turn: Turn) -> None:
        """Run ``turn`` from its phase to :data:`DONE`; its answer is checked before it is given."""
        policy, handlers = self.policy, self.policy.handlers()
        while True:
            while turn.phase != DONE:
                if turn.phase in policy.budgeted and turn.model_calls >= policy.budget.calls:
                    turn.phase = policy.out_of_budget
                turn.phase = handlers[turn.phase](turn)
            if self.answer_may_go(turn):
                break

    def call(self, turn: Turn, max_tokens: int, *, keep: bool = True, **request: Any) -> ChatReply:
        """One model call on the turn's conversation; the reply joins it (unless not ``keep``)."""
        reply = turn.calls.chat(turn.messages, max_tokens=max_tokens, **request)
        if keep:
            turn.messages.append({"role": "assistant", "content": reply.text})
        return reply

    @staticmethod
    def record(turn: Turn, kind: StepKind, trace_type: str = "", **fields: Any) -> dict[str, Any]:
        """A typed step into the turn and its trace entry into the result's trace; the entry."""
        entry = {"type": trace_type or ("final" if kind is StepKind.ANSWER else kind.value), **fields}
        turn.steps.append(Step(kind, entry))
        turn.result.trace.append(entry)
        return entry

    @staticmethod
    def observe(turn: Turn, text: str, *, tell: bool = True) -> None:
        """An observation step; ``tell``: it goes to the model as the next user message."""
        turn.steps.append(Step(StepKind.OBSERVATION, {"type": "observation", "text": text}))
        if tell:
            turn.messages.append({"role": "user", "content": text})

    def send_back(self, turn: Turn, name: str, **values: Any) -> bool:
        """Tell the model what the send-back ``name`` says; False when its times are used up."""
        policy = self.send_backs[name]
        if policy.times and turn.sent_back[name] >= policy.times:
            return False
        turn.sent_back[name] += 1
        text = policy.message.format(**values) if values else policy.message
        if policy.resample:
            turn.sampling.repeated()
        if policy.restart:
            turn.messages = [turn.messages[0], {"role": "user", "content": f"{turn.prompt}\n{text}"}]
        else:
            turn.messages.append({"role": "user", "content": text})
        return True

    def bad_reply(self, turn: Turn, name: str, stay: str, give_up: str, **values: Any) -> str:
        """An invalid reply sent back: the phase to stay in, or ``give_up`` past the retry budget."""
        self.send_back(turn, name, **values)
        turn.retries += 1
        return give_up if turn.retries > self.policy.budget.retries else stay

    def answer_may_go(self, turn: Turn) -> bool:
        """Check the answer: a failed check sends it back once with its reason (the turn goes on from
        :meth:`Policy.answer_again`), else what the check left is given."""
        check, result = self.policy.check_answer, turn.result
        if check is None or turn.open_question or not (result.answer or result.short_answer):
            return True
        times = self.send_backs["answer-check"].times
        text = check(turn, not times or turn.sent_back["answer-check"] < times)
        if text is None:
            return True
        self.send_back(turn, "answer-check", text=text)
        turn.phase = self.policy.answer_again(turn)
        return False
