"""MultiTalk: a Planner proposes arm steps or asks the person; an Analyzer (critic) lists violations
per step; the Simulator executes the plan; perception can be rerun. Each keeps its own prompt and the
loop only moves messages between them (as RoCo keeps prompter, parser and feedback apart).

The loop runs until a plan passes the Analyzer and executes in the simulator without error, within
``max_rounds`` Planner calls. Questions are answered from ``answers`` in order, then by ``ask_user``
(e.g. a terminal prompt); when neither can answer, the questions are reported and the run ends
unsuccessful. Success is the task checker's verdict on the simulator's final state. Every round is
logged: the Planner's reply, the critique, the simulator's feedback, answers and rescans.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from synergai.llm.base import ChatModel
from synergai.llm.json_reply import JsonAnswer, ask_json
from synergai.robots.errors import RobotError
from synergai.robots.goals import GoalCheck, States
from synergai.robots.tabletop import prompts as P
from synergai.robots.tabletop.perception import TabletopPerception, environment_text, relations_text
from synergai.robots.tabletop.plan import ArmStep, format_plan, parse_plan_text, steps_from_json
from synergai.robots.tabletop.rules import Violation, check_plan
from synergai.robots.tabletop.sim import TabletopSim
from synergai.scene.model import SceneGraph

AskUser = Callable[[str], str | None]
Checker = Callable[[States, States], GoalCheck]


@dataclass(frozen=True)
class MultiTalkConfig:
    """Bounds and switches of one run."""

    max_rounds: int = 8
    use_critic: bool = True
    llm_critic: bool = True  # the rules always run when the critic is on; this adds the model's judgement
    max_question_rounds: int = 2
    max_reruns: int = 2
    plan_max_tokens: int = 700
    critic_max_tokens: int = 300
    retries: int = 1

    def __post_init__(self) -> None:
        if self.max_rounds < 1:
            raise RobotError(f"max_rounds must be >= 1, got {self.max_rounds}")


@dataclass
class PlannerReply:
    """What the Planner said: a plan, questions, a perception rerun, or something unusable."""

    kind: str  # plan | questions | perception_rerun | invalid
    steps: list[ArmStep] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    problem: str = ""
    text: str = ""
    calls: int = 0


class Planner:
    """MultiTalk's Planner: one short conversation per round (task block, last reply, last feedback)."""

    def __init__(self, model: ChatModel, sim: TabletopSim, config: MultiTalkConfig) -> None:
        self.model, self.config = model, config
        self.system = P.planner_system(sim.bounds)

    def propose(self, task_block: str, last_reply: str | None, feedback: str | None,
                replies: Sequence[str]) -> PlannerReply:
        messages = [{"role": "system", "content": self.system}, {"role": "user", "content": task_block}]
        if last_reply is not None and feedback is not None:
            messages += [{"role": "assistant", "content": last_reply}, {"role": "user", "content": feedback}]
        elif feedback is not None:
            messages[1]["content"] += "\n\n" + feedback
        answer = ask_json(self.model, messages, P.planner_schema(replies),
                          max_tokens=self.config.plan_max_tokens, retries=self.config.retries,
                          accept_text=lambda text: _text_reply(text, replies, PlannerReply("invalid")).kind
                          != "invalid")
        return _planner_reply(answer, replies)


def _planner_reply(answer: JsonAnswer, replies: Sequence[str]) -> PlannerReply:
    out = PlannerReply("invalid", text=answer.text, calls=answer.calls, problem=answer.problem)
    data = answer.data
    if data is None:
        return _text_reply(answer.text, replies, out)
    kind = data.get("reply")
    if kind not in replies:
        out.problem = f"reply must be one of {', '.join(replies)}"
        return out
    if kind == "questions":
        questions = [str(q).strip() for q in data.get("questions") or [] if str(q).strip()]
        if not questions:
            out.problem = "reply is 'questions' but the questions list is empty"
            return out
        out.kind, out.questions = kind, questions
    elif kind == "plan":
        try:
            out.steps = steps_from_json(data.get("steps") or [])
        except RobotError as exc:
            out.problem = str(exc)
            return out
        out.kind = kind
    else:
        out.kind = kind
    return out


def _text_reply(text: str, replies: Sequence[str], out: PlannerReply) -> PlannerReply:
    """MultiTalk's own text formats, for backends that ignore the JSON schema: "Perception Rerun Required",
    "Questions:" with numbered lines, or "Step-by-step Instructions:" with numbered steps."""
    if "perception rerun required" in text.lower() and "perception_rerun" in replies:
        out.kind, out.problem = "perception_rerun", ""
        return out
    _, sep, rest = text.partition("Questions:")
    if sep and "questions" in replies:
        questions = [re.sub(r"^\s*\d+\s*[:.)]\s*", "", line).strip() for line in rest.splitlines()]
        out.questions = [q for q in questions if q]
        if out.questions:
            out.kind, out.problem = "questions", ""
        return out
    try:
        out.steps = parse_plan_text(text)
    except RobotError:
        return out
    out.kind, out.problem = "plan", ""
    return out


class Analyzer:
    """MultiTalk's Analyzer: rule checks on the perceived graph, then (optionally) the model's critique."""

    def __init__(self, model: ChatModel | None, config: MultiTalkConfig) -> None:
        self.model, self.config = model, config
        self.calls = 0

    def critique(self, task: str, steps: Sequence[ArmStep], qa: Sequence[tuple[str, str]],
                 graph: SceneGraph) -> list[Violation]:
        violations = check_plan(steps, graph)
        if violations or self.model is None or not self.config.llm_critic:
            return violations
        query = P.analyzer_query(task, format_plan(steps), qa, environment_text(graph), relations_text(graph))
        messages = [{"role": "system", "content": P.ANALYZER_SYSTEM}, {"role": "user", "content": query}]
        answer = ask_json(self.model, messages, P.analyzer_schema(), max_tokens=self.config.critic_max_tokens,
                          retries=self.config.retries)
        self.calls += answer.calls
        if answer.data is None:
            return []  # an unusable critique does not block the plan
        out = []
        for item in answer.data.get("violations") or []:
            try:
                step = int(item.get("step"))
            except (TypeError, ValueError, AttributeError):
                continue
            problem = str(item.get("problem", "")).strip()
            if 1 <= step <= len(steps) and problem and "no violation" not in problem.lower():
                out.append(Violation(step, problem, "llm"))
        return out


@dataclass
class MultiTalkResult:
    """The outcome of one run (``to_dict`` is the CLI's JSON)."""

    task: str
    success: bool = False
    executed: bool = False
    checked: bool = False
    check_reason: str = ""
    rounds: int = 0
    llm_calls: int = 0
    dialogue_messages: int = 0
    questions: list[tuple[str, str]] = field(default_factory=list)
    pending_questions: list[str] = field(default_factory=list)
    final_plan: list[str] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    sim_steps: int = 0
    seconds: float = 0.0
    stop_reason: str = ""
    caught: list[dict[str, Any]] = field(default_factory=list)  # which component caught which error

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["messages"] = self.dialogue_messages
        d["questions"] = [{"question": q, "answer": a} for q, a in self.questions]
        return d


def run_multitalk(
    task: str,
    sim: TabletopSim,
    model: ChatModel,
    *,
    perception: TabletopPerception | None = None,
    checker: Checker | None = None,
    answers: Sequence[str] = (),
    ask_user: AskUser | None = None,
    config: MultiTalkConfig | None = None,
) -> MultiTalkResult:
    """Plan, critique, simulate and repair until a plan executes, within bounded rounds."""
    if not task.strip():
        raise RobotError("the task must not be empty")
    cfg = config or MultiTalkConfig()
    perception = perception or TabletopPerception(sim)
    planner = Planner(model, sim, cfg)
    analyzer = Analyzer(model, cfg) if cfg.use_critic else None
    pending_answers = list(answers)
    initial = sim.states()
    start = time.perf_counter()
    result = MultiTalkResult(task)
    graph = perception.scan()
    last_reply: str | None = None
    feedback: str | None = None
    question_rounds = reruns = 0
    last_critiqued: tuple[str, ...] | None = None

    for rnd in range(1, cfg.max_rounds + 1):
        replies = [r for r in P.PLANNER_REPLIES
                   if (r != "questions" or question_rounds < cfg.max_question_rounds)
                   and (r != "perception_rerun" or reruns < cfg.max_reruns)]
        if feedback is not None and "questions" not in replies:
            feedback += "\n" + P.NO_MORE_QUESTIONS
        task_block = P.planner_task(environment_text(graph), task, result.questions)
        reply = planner.propose(task_block, last_reply, feedback, replies)
        result.rounds, result.llm_calls = rnd, result.llm_calls + reply.calls
        result.dialogue_messages += 1
        entry: dict[str, Any] = {"round": rnd, "planner": reply.kind}
        result.log.append(entry)
        last_reply = reply.text or last_reply
        if reply.kind == "invalid":
            entry["problem"] = reply.problem
            feedback = P.invalid_feedback(reply.problem)
            continue
        if reply.kind == "questions":
            entry["questions"] = reply.questions
            got = _answer(reply.questions, pending_answers, ask_user)
            entry["answers"] = got
            result.dialogue_messages += len(got)
            result.questions.extend(zip(reply.questions, got, strict=False))
            if len(got) < len(reply.questions):
                result.pending_questions = reply.questions[len(got):]
                result.stop_reason = "unanswered questions"
                break
            question_rounds += 1
            feedback = P.human_feedback(list(zip(reply.questions, got, strict=True)))
            continue
        if reply.kind == "perception_rerun":
            graph = perception.scan()
            reruns += 1
            entry["environment"] = environment_text(graph)
            feedback = P.perception_feedback(entry["environment"])
            continue
        plan_text = format_plan(reply.steps)
        entry["plan"] = plan_text.splitlines()
        key = tuple(s.render() for s in reply.steps)
        if analyzer is not None and key != last_critiqued:
            calls0 = analyzer.calls
            violations = analyzer.critique(task, reply.steps, result.questions, graph)
            result.llm_calls += analyzer.calls - calls0
            result.dialogue_messages += 1
            entry["critique"] = [v.line() for v in violations] or ["Feasible Plan!"]
            entry["critique_sources"] = sorted({v.source for v in violations})
            if violations:
                last_critiqued = key
                feedback = P.analyzer_feedback("\n".join(v.line() for v in violations))
                continue
        elif analyzer is not None:
            entry["critique"] = ["(same plan resubmitted: the Analyzer trusts the planner)"]
        report = sim.execute(reply.steps)
        result.sim_steps += report.sim_steps
        result.dialogue_messages += 1
        entry["simulator"] = report.feedback()
        if report.ok:
            result.executed, result.final_plan = True, entry["plan"]
            result.stop_reason = "plan executed"
            break
        feedback = P.simulator_feedback(report.feedback())
    else:
        result.stop_reason = f"no executable plan within {cfg.max_rounds} rounds"

    if checker is not None:
        verdict = checker(initial, sim.states())
        result.checked, result.check_reason = True, verdict.reason
        result.success = result.executed and verdict.success
    else:
        result.success = result.executed
    result.seconds = time.perf_counter() - start
    return result


def _answer(questions: Sequence[str], pending: list[str], ask_user: AskUser | None) -> list[str]:
    """Answers in order from ``pending`` (consumed), then from ``ask_user``; stops at the first gap."""
    got: list[str] = []
    for q in questions:
        if pending:
            got.append(pending.pop(0))
            continue
        reply = ask_user(q) if ask_user is not None else None
        if reply is None or not reply.strip():
            break
        got.append(reply.strip())
    return got
