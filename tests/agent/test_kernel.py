"""The turn kernel with a scripted model: phases, budgets, send-backs, the trace and the answer check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from agent_scripting import act, final, room

from synergai.agent.context import TurnContext
from synergai.agent.grounding_parse import parse_expression
from synergai.agent.kernel import (
    ANSWER_CHECK,
    DONE,
    AnswerCheck,
    AnswerVerdict,
    Budget,
    Calls,
    SendBack,
    StepKind,
    Turn,
    TurnKernel,
)
from synergai.agent.loop import AgentLoop, LoopLimits
from synergai.agent.program.loop import ProgramLimits, ProgramLoop
from synergai.agent.result import Answered
from synergai.llm import ScriptedModel
from synergai.scene.grounding import scene_vocabulary


def verdict_check(check: Callable[[str], AnswerVerdict]) -> AnswerCheck:
    """An :data:`AnswerCheck` from a checker of the answer's text (send back the reason, else fallback): a
    policy's check is any callable of that shape."""

    def run(turn: Any, may_send_back: bool) -> str | None:
        answer = turn.result.answer
        verdict = check(answer)
        if verdict.ok:
            return None
        TurnKernel.record(turn, StepKind.ERROR, error=f"answer check: {verdict.reason}", answer=answer[:500])
        if may_send_back:
            turn.result.answer = turn.result.short_answer = ""
            return f"Your answer cannot be given: {verdict.reason}. Give your final answer again."
        if verdict.fallback is not None:
            turn.result.answer = turn.result.short_answer = verdict.fallback
            TurnKernel.record(turn, StepKind.ANSWER, answer=verdict.fallback, fallback=True)
        return None

    return run


class Echo:
    """A policy of two phases: ASK calls the model until it says "stop" (each other reply sent back),
    STOP gives the last reply as the answer."""

    budgeted = frozenset({"ask"})
    out_of_budget = "stop"
    send_backs = MappingProxyType({"again": SendBack("again {n}", times=2), "answer-check": ANSWER_CHECK,
                                   "over": SendBack("over", restart=True, resample=True)})

    def __init__(self, llm: ScriptedModel, calls: int, check=None) -> None:
        self.budget, self.check_answer = Budget(calls), None if check is None else verdict_check(check)
        self.kernel = TurnKernel(llm, self)

    def handlers(self):
        return {"ask": self.ask, "stop": self.stop}

    def answer_again(self, turn: Turn) -> str:
        return "ask"

    def ask(self, turn: Turn) -> str:
        reply = self.kernel.call(turn, 10, temperature=turn.sampling.next())
        if reply.text == "stop":
            return "stop"
        self.kernel.observe(turn, f"saw {reply.text}", tell=False)
        if reply.text == "restart":
            self.kernel.send_back(turn, "over")
            return "ask"
        return "ask" if self.kernel.send_back(turn, "again", n=turn.model_calls) else "stop"

    def stop(self, turn: Turn) -> str:
        turn.result.answer = turn.messages[-1]["content"]
        self.kernel.record(turn, StepKind.ANSWER, answer=turn.result.answer)
        return DONE


def _turn(kernel: TurnKernel) -> Turn:
    result = Answered(answer="")
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]
    return Turn(result=result, messages=messages, phase="ask", prompt="q",
                calls=kernel.calls("q", result.usage))


def test_the_kernel_runs_phases_within_the_budget_and_send_backs_as_data():
    llm = ScriptedModel(["a", "b", "c", "d"])
    policy = Echo(llm, calls=5)
    turn = _turn(policy.kernel)
    policy.kernel.run(turn)
    # "again" goes back twice (its times), the third reply ends the asking
    assert [m["content"] for m in llm.requests[-1].messages] == ["s", "q", "a", "again 1", "b", "again 2"]
    assert turn.result.answer == "c" and turn.result.usage.calls == 3 and turn.sent_back["again"] == 2
    assert [s.kind for s in turn.steps] == [StepKind.OBSERVATION] * 3 + [StepKind.ANSWER]
    assert turn.result.trace == [
        {"type": "final", "answer": "c"}]
    # out of budget: the budgeted phase is not entered again, the turn goes to the policy's phase
    llm = ScriptedModel(["x", "y"])
    policy = Echo(llm, calls=1)
    turn = _turn(policy.kernel)
    policy.kernel.run(turn)
    assert len(llm.requests) == 1 and turn.result.answer == "again 1"


def test_a_restarting_send_back_starts_over_from_the_question_and_samples_the_next_reply():
    llm = ScriptedModel(["restart", "stop"])
    policy = Echo(llm, calls=5)
    turn = _turn(policy.kernel)
    policy.kernel.run(turn)
    assert [m["content"] for m in llm.requests[1].messages] == ["s", "q\nover"]
    assert [r.temperature for r in llm.requests] == [0.0, 0.7]


def test_a_failed_answer_check_is_sent_back_once_with_its_reason_then_the_fallback_is_given():
    seen: list[str] = []

    def check(answer: str) -> AnswerVerdict:
        seen.append(answer)
        return AnswerVerdict(False, "it names no object", fallback="the chair")

    llm = ScriptedModel(["stop", "stop", "never asked"])
    policy = Echo(llm, calls=5, check=check)
    turn = _turn(policy.kernel)
    policy.kernel.run(turn)
    assert seen == ["stop", "stop"] and len(llm.requests) == 2
    told = llm.requests[1].messages[-1]["content"]
    assert "it names no object" in told and told.startswith("Your answer cannot be given")
    assert turn.result.answer == "the chair" and turn.sent_back["answer-check"] == 1
    errors = [t["error"] for t in turn.result.trace if t["type"] == "error"]
    assert errors == ["answer check: it names no object"] * 2
    assert turn.result.trace[-1] == {"type": "final", "answer": "the chair", "fallback": True}


@dataclass
class Reject:
    """A fake checker: rejects answers holding ``word`` (with a reason and a fallback)."""

    word: str
    fallback: str | None = None

    def __call__(self, answer: str) -> AnswerVerdict:
        if self.word in answer.lower():
            return AnswerVerdict(False, f"{self.word} is another object's colour", self.fallback)
        return AnswerVerdict(True)


def _ask(store, llm: ScriptedModel, question: str, check, graph_answers: bool = False) -> Answered:
    ctx = TurnContext(store, "room", question, read_only=True)
    # the model answers unless told (the graph would answer the table's colour with no call)
    limits = LoopLimits(graph_answers=graph_answers)
    return AgentLoop(llm, limits, check_answer=verdict_check(check)).run(ctx, question)


def test_the_agent_loop_sends_a_rejected_answer_back_to_its_answer_phase(store):
    llm = ScriptedModel([act("query_for_objects", {"category": "table"}, plan=["find it"]),
                         final("It is red.", ["2"], "red"), final("It is brown.", ["2"], "brown")])
    result = _ask(store, llm, "What colour is the table under the cup?", Reject("red"))
    assert result.short_answer == "brown" and result.usage.calls == 3
    assert "red is another object's colour" in llm.requests[2].messages[-1]["content"]
    # the answer phase again: the schema offers the final answer only
    branches = llm.requests[2].json_schema.get("anyOf", [llm.requests[2].json_schema])
    assert {b["properties"]["action"]["const"] for b in branches} == {"final_answer"}
    assert any(t.get("error") == "answer check: red is another object's colour" for t in result.trace)


def test_the_agent_loop_gives_the_fallback_when_the_second_answer_fails_too(store):
    llm = ScriptedModel([act("query_for_objects", {"category": "table"}, plan=["find it"]),
                         final("It is red.", ["2"], "red"), final("It is red.", ["2"], "red")])
    result = _ask(store, llm, "What colour is the table under the cup?", Reject("red", fallback="brown"))
    assert result.answer == result.short_answer == "brown" and result.usage.calls == 3


def _program(code: str) -> str:
    return f"Thought: t.\nAction: Program\nAction Input:\n```Python\n{code}\n```"


COUNT = "print(len(filter(object_set=scene(), category='chair')))"


def test_the_program_loop_asks_for_the_answer_again_after_a_failed_check():
    llm = ScriptedModel([_program(COUNT), "Final Answer: 3", "Final Answer: 2"])
    limits = ProgramLimits()
    check = verdict_check(Reject("3"))
    result = ProgramLoop(llm, limits, check_answer=check).run(room(), "How many chairs are there?")
    assert result.short_answer == "2" and result.usage.calls == 3
    budgets = [limits.max_tokens, limits.answer_tokens, limits.answer_tokens]
    assert [r.max_tokens for r in llm.requests] == budgets
    assert "3 is another object's colour" in llm.requests[2].messages[-1]["content"]


def test_the_program_loop_re_ask_respects_the_round_budget():
    # two rounds: the program and its answer; the re-ask finds no round left, FINISH summarises as JSON
    llm = ScriptedModel([_program(COUNT), "Final Answer: 3", '{"thought": "", "answer": 3}'])
    check = verdict_check(Reject("3", fallback="2"))
    result = ProgramLoop(llm, ProgramLimits(max_rounds=2), check_answer=check).run(
        room(), "How many chairs are there?")
    assert llm.requests[-1].json_schema is not None and result.usage.calls == 3
    assert result.answer == "2" and result.trace[-1]["fallback"]


def test_program_results_count_the_repairs_applied():
    # a name that spells a category (defined), then a repair that drops an earlier assignment (carried)
    llm = ScriptedModel([_program("print(len(chairs))"), "2"])
    result = ProgramLoop(llm).run(room(), "How many chairs are there?")
    assert result.repairs == {"define-categories": 1} and result.short_answer == "2"
    first = "c = filter(object_set=scene(), category='chair')\nprint(c[5])"
    llm = ScriptedModel([_program(first), _program("print(len(c))"), "2"])
    result = ProgramLoop(llm).run(room(), "How many chairs are there?")
    assert result.repairs == {"carry-definitions": 1} and result.short_answer == "2"


def test_the_grounding_parse_goes_through_the_kernels_call_path():
    graph = room()
    calls = Calls(ScriptedModel(['{"category": "cup", "attributes": [], "relations": []}']))
    parsed = parse_expression(calls, "the cup", scene_vocabulary(graph))
    assert parsed.ref is not None and parsed.ref.category == "cup"
    assert calls.usage.calls == 1 and calls.replies == parsed.replies


def test_a_graph_answer_that_fails_its_check_is_asked_of_the_model(store):
    llm = ScriptedModel([act("query_for_objects", {"category": "cup"}, plan=["find it"]),
                         final("It is next to the chair.", ["4"], "next to the chair")])
    result = _ask(store, llm, "Where is the cup?", Reject("table"), graph_answers=True)
    graph_answer = next(t for t in result.trace if t.get("from_graph"))
    assert "table" in graph_answer["short_answer"] and result.usage.calls == 2
    assert "table is another object's colour" in llm.requests[1].messages[-1]["content"]
    assert "table" not in result.answer
