"""MultiTalk: a Planner proposes arm steps or asks the person; an Analyzer (critic) lists violations
per step; the Simulator executes the plan; perception can be rerun. Each keeps its own prompt and the
loop only moves messages between them (as RoCo keeps prompter, parser and feedback apart).

The loop runs until a plan passes the Analyzer and executes in the simulator without error, within
``max_rounds`` Planner calls. Questions are answered from ``answers`` in order, then by ``ask_user``
(e.g. a terminal prompt); when neither can answer, the questions are reported and the run ends
unsuccessful. Success is the task checker's verdict on the simulator's final state. Every round is
logged: the Planner's reply, the critique, the simulator's feedback, answers and rescans.

Decoding is over what is feasible: a JSON grasp names one of the objects the arm can reach and grip now
(an enum in the reply schema), resolved to its coordinates as the plan moves things. A plan the rules or
the simulator refused cannot run again unchanged (it is sent back with the earlier findings); a plan only
the model's critique refused may be resubmitted and then goes to the simulator. ``caught`` records which
component caught which error: ``rules``, ``llm``, ``simulator``, or ``goal checker`` for an executed plan
that missed the goal. Every round's log entry and the result count the tokens the model read (all, and those
not served from its prefix cache) and wrote, over every reply (retries included). ``talk`` hears the
stage under way (the planner thinking, the critic checking, the simulator running) and one line per round.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from synergai.llm.base import TOKEN_KEYS, ChatModel, ChatReply
from synergai.llm.json_reply import JsonAnswer, ask_json
from synergai.llm.sampling import REPEAT_TEMPERATURE, Resampling
from synergai.llm.trace import begin_turn
from synergai.llm.usage import Outcome
from synergai.robots.errors import RobotError
from synergai.robots.goals import GoalCheck, States
from synergai.robots.tabletop import prompts as P
from synergai.robots.tabletop.objects import GRIPPER_OPENING, ObjectState, TableBounds, fits_gripper
from synergai.robots.tabletop.perception import (
    TabletopPerception,
    environment_text,
    movable_objects,
    relations_text,
)
from synergai.robots.tabletop.places import (
    IN_PLACE_OF,
    LINE_UP,
    MOVE_RELATIONS,
    SWAP,
    aside_spot,
    asks_exchange,
    asks_line,
    line_moves,
    line_targets,
    move_relations_said,
    place_target,
    roles_reversed,
)
from synergai.robots.tabletop.plan import ArmStep, format_plan, parse_plan_text, steps_from_json
from synergai.robots.tabletop.rules import Violation, check_plan, without_idle_moves
from synergai.robots.tabletop.sim import TabletopSim
from synergai.robots.talk import Silent, Talk
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
    #: After the Planner resubmits a refused plan unchanged, its next reply is sampled at this temperature:
    #: greedy decoding of the same conversation would repeat it until the rounds run out.
    repeat_temperature: float = REPEAT_TEMPERATURE
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
    replies: list[ChatReply] = field(default_factory=list)  # every model reply it cost (retries included)


class Planner:
    """MultiTalk's Planner: one short conversation per round (task block, last reply, last feedback)."""

    def __init__(self, model: ChatModel, sim: TabletopSim, config: MultiTalkConfig) -> None:
        self.model, self.config, self.bounds = model, config, sim.bounds
        self.reachable = arm_reaches(sim)
        self.system = P.planner_system(sim.bounds)

    def propose(self, task_block: str, last_reply: str | None, feedback: str | None,
                replies: Sequence[str], graph: SceneGraph | None = None,
                graspable: Sequence[str] | None = None, temperature: float = 0.0, said: str = ""
                ) -> PlannerReply:
        """One planner reply; ``said`` (the instruction and the user's answers) narrows the relations a
        move may name to the ones its words can mean, offers ``swap`` when it asks for an exchange and
        ``line_up`` when it asks for a line."""
        messages = [{"role": "system", "content": self.system}, {"role": "user", "content": task_block}]
        if last_reply is not None and feedback is not None:
            messages += [{"role": "assistant", "content": last_reply}, {"role": "user", "content": feedback}]
        elif feedback is not None:
            messages[1]["content"] += "\n\n" + feedback
        anchors = [o.id for o in movable_objects(graph)] if graph is not None else None
        schema = P.planner_schema(replies, graspable, anchors=anchors, relations=move_relations_said(said),
                                  swap=asks_exchange(said), line=asks_line(said))
        answer = ask_json(self.model, messages, schema,
                          max_tokens=self.config.plan_max_tokens, retries=self.config.retries,
                          temperature=temperature,
                          accept_text=lambda text: _text_reply(text, replies, PlannerReply("invalid")).kind
                          != "invalid")
        return _planner_reply(answer, replies, graph, self.bounds, self.reachable, said)


def _planner_reply(answer: JsonAnswer, replies: Sequence[str], graph: SceneGraph | None = None,
                   bounds: TableBounds | None = None, reachable: Callable[[float, float], bool] | None = None,
                   said: str = "") -> PlannerReply:
    out = PlannerReply("invalid", text=answer.text, calls=answer.calls, problem=answer.problem,
                       replies=list(answer.replies))
    data = answer.data
    if data is None:
        return _text_reply(answer.text, replies, out)
    kind = data.get("reply")
    if not isinstance(kind, str) or kind not in replies:
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
            items = data.get("steps") or []
            steps = steps_from_json(resolve_steps(items, graph, bounds, reachable, said) if graph is not None
                                    else items)
            # a home() before the last step only sends the arm back between two moves: dropped, so a
            # plan is not refused (and resubmitted) for it
            out.steps = [s for k, s in enumerate(steps) if s.action != "home" or k == len(steps) - 1]
        except RobotError as exc:
            out.problem = str(exc)
            return out
        out.kind = kind
    else:
        out.kind = kind
    return out


def resolve_steps(items: Sequence[Any], graph: SceneGraph, bounds: TableBounds | None = None,
                  reachable: Callable[[float, float], bool] | None = None, said: str = "") -> list[Any]:
    """JSON steps with names turned into coordinates, following the objects the plan has already moved:
    a ``grasp`` by object name grasps at that object's centre; a ``move`` by ``relation`` and ``anchor``
    releases where :func:`~synergai.robots.tabletop.places.place_target` puts it (``in place of``: where
    the anchor stood when the plan began; the rules then check it is free). RobotError for a name not in
    the environment, a place with no free, reachable spot, or a move that trades the roles the instruction
    ``said`` gives its two objects (:func:`~synergai.robots.tabletop.places.roles_reversed`)."""
    resolver = _Resolver(graph, bounds or TableBounds(), reachable, said)
    for index, item in enumerate(items, start=1):
        resolver.resolve(index, item)
    return resolver.out


class _Resolver:
    """The objects as a JSON plan moves them, and the plan's steps resolved so far."""

    def __init__(self, graph: SceneGraph, bounds: TableBounds,
                 reachable: Callable[[float, float], bool] | None, said: str) -> None:
        objs = movable_objects(graph)
        self.graph, self.bounds, self.reachable, self.said = graph, bounds, reachable, said
        self.where = {o.id: [float(v) for v in o.center] for o in objs}
        self.start = {name: (v[0], v[1]) for name, v in self.where.items()}
        self.half = {o.id: (o.size[0] / 2, o.size[1] / 2) for o in objs}
        self.height = {o.id: float(o.size[2]) for o in objs}
        self.holding: str | None = None
        self.out: list[Any] = []

    def known(self, name: str, index: int) -> str:
        if name not in self.where:
            raise RobotError(f"step {index}: no object named {name!r} in the environment; objects: "
                             f"{', '.join(self.where)}")
        return name

    def _xy(self) -> dict[str, tuple[float, float]]:
        return {n: (v[0], v[1]) for n, v in self.where.items()}

    def _carry(self, name: str, goal: Sequence[float], why: str, exact: bool = False) -> None:
        """A grasp of ``name`` where it is now and a move to ``goal`` (rounded unless ``exact``)."""
        self.out.append({"action": "grasp", "object": name, "xyz": [round(v, 3) for v in self.where[name]]})
        xy = [goal[0], goal[1]] if exact else [round(goal[0], 3), round(goal[1], 3)]
        self.out.append({"action": "move", "xyz": xy, "why": why})
        self.where[name][:2] = [float(goal[0]), float(goal[1])]

    def resolve(self, index: int, item: Any) -> None:
        """Resolve step ``index`` (a swap and a line become grasp and move pairs)."""
        if not isinstance(item, Mapping):
            self.out.append(item)
            return
        item = dict(item)
        action = str(item.get("action", "")).strip().lower()
        if action == SWAP and "object" in item and "with" in item:
            self.swap(index, item)
            return
        if action == LINE_UP and isinstance(item.get("objects"), list) and item.get("axis") in ("x", "y"):
            self.line_up(index, item)
            return
        if action == "grasp" and "object" in item:
            self.holding = self.known(str(item["object"]), index)
            item["xyz"] = [round(v, 3) for v in self.where[self.holding]]
        elif action == "grasp":
            self.holding = None
        elif action == "move" and "relation" in item and "anchor" in item:
            self.place(index, item)
        elif action == "move" and self.holding is not None:
            xyz = item.get("xyz")
            if isinstance(xyz, list) and len(xyz) >= 2 and all(isinstance(v, int | float) for v in xyz[:2]):
                self.where[self.holding][:2] = [float(xyz[0]), float(xyz[1])]
            self.holding = None
        self.out.append(item)

    def swap(self, index: int, item: dict[str, Any]) -> None:
        first, second = self.known(str(item["object"]), index), self.known(str(item["with"]), index)
        if self.holding is not None or first == second:
            raise RobotError(f"step {index}: a swap needs the gripper empty and two different objects")
        xy = self._xy()
        aside = aside_spot(first, second, xy, self.half, self.bounds, self.reachable)
        if aside is None:
            raise RobotError(f"step {index}: there is no free place to set {first} aside while swapping")
        for name, goal in ((first, aside), (second, xy[first]), (first, xy[second])):
            self._carry(name, goal, f"{name}: swap {first} and {second}")

    def line_up(self, index: int, item: dict[str, Any]) -> None:
        names = list(dict.fromkeys(self.known(str(n), index) for n in item["objects"]))
        at = item.get("at")
        if self.holding is not None or len(names) < 2 or not (at is None or isinstance(at, int | float)):
            raise RobotError(f"step {index}: a line_up needs the gripper empty, two or more objects and "
                             "'at' a number (or left out)")
        xy = self._xy()
        goals = line_targets(names, str(item["axis"]), None if at is None else float(at), xy, self.half,
                             self.bounds, self.reachable)
        if goals is None:
            raise RobotError(f"step {index}: there is no free, reachable line along {item['axis']} for "
                             f"{', '.join(names)}")
        for name, goal in line_moves(goals, xy, self.half, self.bounds, self.reachable):
            self._carry(name, goal, f"{name}: line along {item['axis']}", exact=True)

    def place(self, index: int, item: dict[str, Any]) -> None:
        """A move by ``relation`` and ``anchor``: where it releases, checked against the instruction."""
        relation, anchor = str(item["relation"]), self.known(str(item["anchor"]), index)
        holding = self.holding
        if holding is None or relation not in MOVE_RELATIONS or anchor == holding:
            raise RobotError(f"step {index}: a move {relation} {anchor} needs another object grasped "
                             f"first and a relation of: {', '.join(MOVE_RELATIONS)}")
        graph = self.graph
        if roles_reversed(self.said, relation, (holding, graph.get(holding).category),
                          (anchor, graph.get(anchor).category)):
            raise RobotError(f"step {index}: the instruction puts {anchor} {relation} {holding}, not "
                             f"{holding} {relation} {anchor}: grasp {anchor} and move it {relation} "
                             f"{holding}")
        top = {n: v[2] + self.height[n] / 2 for n, v in self.where.items()}
        target = self.start[anchor] if relation == IN_PLACE_OF else place_target(
            relation, anchor, holding, self._xy(), self.half, top, self.bounds, self.reachable)
        if target is None:
            raise RobotError(f"step {index}: there is no free place {relation} {anchor} that the arm "
                             "can reach")
        item["xyz"] = list(target)
        item.setdefault("why", f"{holding} {relation} {anchor}")
        base = top[anchor] if relation == "on" else 0.0
        self.where[holding] = [target[0], target[1], base + self.height[holding] / 2]
        self.holding = None


def feasible_grasps(graph: SceneGraph, sim: TabletopSim, gripper: float = GRIPPER_OPENING) -> list[str]:
    """The perceived objects the arm can grip (narrow enough) and reach from above right now."""
    out = []
    for o in movable_objects(graph):
        if not fits_gripper(o.size, gripper):
            continue
        top = o.center[2] + o.size[2] / 2
        z = top - min(0.03, o.size[2] / 2)
        x, y = o.center[0], o.center[1]
        if sim.reachable((x, y, z)) and sim.reachable((x, y, z + 0.12)):
            out.append(o.id)
    return out


def arm_reaches(sim: TabletopSim) -> Callable[[float, float], bool]:
    """Whether the arm can set an object down at (x, y): the place and the approach above it."""
    return lambda x, y: sim.reachable((x, y, 0.07)) and sim.reachable((x, y, 0.19))


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
        self.replies: list[ChatReply] = []  # every model reply the critiques cost

    @property
    def calls(self) -> int:
        return len(self.replies)

    def critique(self, task: str, steps: Sequence[ArmStep], qa: Sequence[tuple[str, str]],
                 graph: SceneGraph, reachable: Callable[[float, float], bool] | None = None
                 ) -> list[Violation]:
        """Rule findings (each naming its fix); when the rules pass, the model's critique: steps of the plan,
        each with one of ``ANALYZER_PROBLEMS`` (anything else is not an objection)."""
        violations = check_plan(steps, graph, reachable=reachable)
        if violations or self.model is None or not self.config.llm_critic:
            return violations
        query = P.analyzer_query(task, format_plan(steps), qa, environment_text(graph), relations_text(graph))
        messages = [{"role": "system", "content": P.ANALYZER_SYSTEM}, {"role": "user", "content": query}]
        answer = ask_json(self.model, messages, P.analyzer_schema(len(steps)),
                          max_tokens=self.config.critic_max_tokens, retries=self.config.retries)
        self.replies.extend(answer.replies)
        if answer.data is None:
            return []  # an unusable critique does not block the plan
        out = []
        for item in answer.data.get("violations") or []:
            try:
                step = int(item.get("step"))
            except (TypeError, ValueError, AttributeError):
                continue
            problem = str(item.get("problem", "")).strip()
            if 1 <= step <= len(steps) and problem in P.ANALYZER_PROBLEMS:  # the schema's contract
                out.append(Violation(step, problem, "llm"))
        return out


@dataclass
class MultiTalkResult(Outcome):
    """The outcome of one run (``to_dict`` is the CLI's JSON; :class:`Outcome`: usage and wall time)."""

    task: str
    success: bool = False
    executed: bool = False
    checked: bool = False
    check_reason: str = ""
    rounds: int = 0
    dialogue_messages: int = 0
    questions: list[tuple[str, str]] = field(default_factory=list)
    pending_questions: list[str] = field(default_factory=list)
    placed: list[ObjectState] = field(default_factory=list)  # the executed plan's moves, in order
    final_plan: list[str] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    sim_steps: int = 0
    stop_reason: str = ""
    caught: list[dict[str, Any]] = field(default_factory=list)  # which component caught which error

    def count(self, replies: Sequence[ChatReply], entry: dict[str, Any]) -> None:
        """Add ``replies`` (planner and critic, retries too) to the episode's usage and one round's log
        ``entry`` (its calls and tokens)."""
        part = self.usage.count_all(replies).to_dict()
        for key in ("llm_calls", *TOKEN_KEYS):
            entry[key] = entry.get(key, 0) + part[key]

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
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
    talk: Talk | None = None,
) -> MultiTalkResult:
    """Plan, critique, simulate and repair until a plan executes, within bounded rounds."""
    if not task.strip():
        raise RobotError("the task must not be empty")
    cfg = config or MultiTalkConfig()
    begin_turn(model, task)
    episode = _Episode(task, sim, model, perception or TabletopPerception(sim), answers, ask_user, cfg)
    talk = talk or Silent()
    episode.talk = talk
    for rnd in range(1, cfg.max_rounds + 1):
        talk.stage(f"round {rnd}: the planner is thinking")
        ended = episode.round(rnd)
        talk.line(round_line(episode.result.log[-1]))
        if ended:
            break
    else:
        episode.result.stop_reason = f"no executable plan within {cfg.max_rounds} rounds"
    return episode.finish(checker)


class _Episode:
    """One MultiTalk run: the conversation's state between rounds and the result it builds."""

    def __init__(self, task: str, sim: TabletopSim, model: ChatModel, perception: TabletopPerception,
                 answers: Sequence[str], ask_user: AskUser | None, cfg: MultiTalkConfig) -> None:
        self.task, self.sim, self.perception, self.ask_user, self.cfg = task, sim, perception, ask_user, cfg
        self.planner = Planner(model, sim, cfg)
        self.analyzer = Analyzer(model, cfg) if cfg.use_critic else None
        self.pending_answers = list(answers)
        self.initial = sim.states()
        self.start = time.perf_counter()
        self.result = MultiTalkResult(task)
        self.graph = perception.scan()
        self.graspable = feasible_grasps(self.graph, sim)
        self.reachable = arm_reaches(sim)
        self.last_reply: str | None = None
        self.feedback: str | None = None
        self.question_rounds = self.reruns = 0
        self.llm_rejected: set[tuple[str, ...]] = set()
        self.rejected: dict[tuple[str, ...], str] = {}  # plans the rules or the simulator refused, and why
        # after a refused plan resubmitted or an unusable reply
        self.resampling = Resampling(cfg.repeat_temperature)
        self.talk: Talk = Silent()

    def round(self, rnd: int) -> bool:
        """One Planner call and what follows from its reply; True when the run ends."""
        cfg, result = self.cfg, self.result
        replies = [r for r in P.PLANNER_REPLIES
                   if (r != "questions" or self.question_rounds < cfg.max_question_rounds)
                   and (r != "perception_rerun" or self.reruns < cfg.max_reruns)]
        if self.feedback is not None and "questions" not in replies:
            self.feedback += "\n" + P.NO_MORE_QUESTIONS
        task_block = P.planner_task(environment_text(self.graph), self.task, result.questions)
        said = " ".join([self.task, *(a for _, a in result.questions)])
        reply = self.planner.propose(task_block, self.last_reply, self.feedback, replies, self.graph,
                                     self.graspable, temperature=self.resampling.next(), said=said)
        result.rounds = rnd
        result.dialogue_messages += 1
        entry: dict[str, Any] = {"round": rnd, "planner": reply.kind, **dict.fromkeys(TOKEN_KEYS, 0)}
        result.log.append(entry)
        result.count(reply.replies, entry)
        self.last_reply = reply.text or self.last_reply
        if reply.kind == "invalid":
            self._invalid(reply, entry)
            return False
        if reply.kind == "questions":
            return self._questions(reply, entry)
        if reply.kind == "perception_rerun":
            self._rerun(entry)
            return False
        return self._plan(rnd, reply, entry)

    def _invalid(self, reply: PlannerReply, entry: dict[str, Any]) -> None:
        entry["problem"] = reply.problem
        # the same unusable reply again (greedy decoding repeats itself): the next one is sampled
        earlier = self.result.log[:-1]
        repeated = bool(reply.problem) and any(e.get("problem") == reply.problem for e in earlier)
        entry["repeat"] = repeated
        if repeated:
            self.resampling.repeated()
        self.feedback = P.invalid_feedback(reply.problem)

    def _questions(self, reply: PlannerReply, entry: dict[str, Any]) -> bool:
        result = self.result
        entry["questions"] = reply.questions
        got = _answer(reply.questions, self.pending_answers, self.ask_user)
        entry["answers"] = got
        result.dialogue_messages += len(got)
        result.questions.extend(zip(reply.questions, got, strict=False))
        if len(got) < len(reply.questions):
            result.pending_questions = reply.questions[len(got):]
            result.stop_reason = "unanswered questions"
            return True
        self.question_rounds += 1
        self.feedback = P.human_feedback(list(zip(reply.questions, got, strict=True)))
        return False

    def _rerun(self, entry: dict[str, Any]) -> None:
        self.graph = self.perception.scan()
        self.graspable = feasible_grasps(self.graph, self.sim)
        self.reruns += 1
        entry["environment"] = environment_text(self.graph)
        self.feedback = P.perception_feedback(entry["environment"])

    def _plan(self, rnd: int, reply: PlannerReply, entry: dict[str, Any]) -> bool:
        """A plan: refused unchanged, critiqued, or executed; True when it executed."""
        reply.steps, idle = without_idle_moves(reply.steps, self.graph)
        if idle:  # a grasp and a move that changes nothing, said by the planner: dropped, and logged
            entry["dropped_idle_moves"] = idle
        entry["plan"] = format_plan(reply.steps).splitlines()
        key = tuple(s.render() for s in reply.steps)
        if key in self.rejected:  # a refused plan cannot run again unchanged
            entry["repeat"] = True
            self.resampling.repeated()
            self.feedback = P.repeat_feedback(self.rejected[key])
            return False
        if self.analyzer is not None and key not in self.llm_rejected:
            if self._critique(rnd, reply, entry, key, self.analyzer):
                return False
        elif self.analyzer is not None:
            entry["critique"] = ["(same plan resubmitted after the model's critique: the Analyzer trusts the "
                                 "planner)"]
        return self._execute(rnd, reply, entry, key)

    def _critique(self, rnd: int, reply: PlannerReply, entry: dict[str, Any], key: tuple[str, ...],
                  analyzer: Analyzer) -> bool:
        """The Analyzer's findings on the plan; True when it refused the plan."""
        result = self.result
        self.talk.stage(f"round {rnd}: the critic checks the plan")
        calls0 = analyzer.calls
        violations = analyzer.critique(self.task, reply.steps, result.questions, self.graph, self.reachable)
        result.count(analyzer.replies[calls0:], entry)
        result.dialogue_messages += 1
        entry["critique"] = [v.line() for v in violations] or ["Feasible Plan!"]
        entry["critique_sources"] = sorted({v.source for v in violations})
        if not violations:
            return False
        comments = "\n".join(v.line() for v in violations)
        by = violations[0].source
        result.caught.append({"round": rnd, "by": by, "problems": [v.line() for v in violations]})
        if by == "rules":
            self.rejected[key] = comments
        else:
            self.llm_rejected.add(key)
        self.feedback = P.analyzer_feedback(comments)
        return True

    def _execute(self, rnd: int, reply: PlannerReply, entry: dict[str, Any], key: tuple[str, ...]) -> bool:
        """Run the plan in the simulator; True when it executed."""
        result = self.result
        self.talk.stage(f"round {rnd}: the simulator runs the plan")
        report = self.sim.execute(reply.steps)
        result.sim_steps += report.sim_steps
        result.dialogue_messages += 1
        entry["simulator"] = report.feedback()
        if report.ok:
            result.executed, result.final_plan, result.placed = True, entry["plan"], report.placed
            result.stop_reason = "plan executed"
            return True
        bad = report.failure
        result.caught.append({"round": rnd, "by": "simulator", "error": bad.error if bad else None,
                              "problems": [report.feedback()]})
        self.rejected[key] = report.feedback()
        self.feedback = P.simulator_feedback(report.feedback())
        return False

    def finish(self, checker: Checker | None) -> MultiTalkResult:
        """The checker's verdict on the final world (else: executed is success) and the wall time."""
        result = self.result
        if checker is not None:
            verdict = checker(self.initial, self.sim.states())
            result.checked, result.check_reason = True, verdict.reason
            result.success = result.executed and verdict.success
            if result.executed and not verdict.success:  # an error no component caught before execution
                result.caught.append({"round": result.rounds, "by": "goal checker",
                                      "problems": [verdict.reason]})
        else:
            result.success = result.executed
        result.seconds = time.perf_counter() - self.start
        return result


def round_line(entry: Mapping[str, Any]) -> str:
    """One round of the log as a progress line: what the planner replied, and what became of a plan."""
    head = f"round {entry['round']}: "
    if entry["planner"] == "invalid":
        return head + f"the planner's reply could not be used ({entry.get('problem') or 'no reply'})"
    if entry["planner"] == "questions":
        answers = entry.get("answers") or ["(no answer)"]
        return head + f"the planner asks: {' / '.join(entry['questions'])}; answered: {' / '.join(answers)}"
    if entry["planner"] == "perception_rerun":
        return head + "the planner asked for a new look at the table"
    parts = [f"a plan of {len(entry.get('plan', []))} steps"]
    if entry.get("repeat"):
        parts.append("refused before (not run again)")
    if "critique" in entry:
        parts.append(f"critic: {'; '.join(entry['critique'])}")
    if "simulator" in entry:
        parts.append(f"simulator: {entry['simulator']}")
    return head + "; ".join(parts)


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
