"""MHRC's decentralised team: Alice, Bob and David, each its own LLM agent with its own prompt, one
action per step, messages passed between them, per-robot feedback, message and action histories.

Robots take turns (Bob, Alice, David). A robot's reply is one JSON object whose ``command`` is
constrained to the commands it can carry out now (feasible-action decoding); the house executes it and
returns feedback. ``communicate`` puts a message in the recipient's inbox, read at its next turn. The run
stops when the world satisfies the task (the checker reads the house, not the robots' claims), when no
robot acts for two rounds, or after ``max_rounds``. A robot offered nothing but messages and waiting, with
no new message to read, waits without a model call (after its first turn). ``use_feedback=False`` is
MHRC's ablation: robots no longer see the outcome of their actions (messages and the scene graph remain).
With ``shared_map`` (the default) the team keeps one scene graph: what any robot sees on or in furniture
every robot knows at its next turn, and furniture one robot has looked into is explored for all (MHRC's
robots share findings only by messages; ``shared_map=False`` restores that).
Every step's log entry and the result count the tokens the model read (all, and those not served from its
prefix cache) and wrote, over every reply (retries included).

A task with no goal (an instruction in words) has no checker: a robot may then also reply with the
command ``done`` (it holds the task done; the house runs nothing); the run stops at the first such claim
and its success is that claim, reported as not verified (``TeamResult.verified``). The items the
instruction's words name are the ones worth fetching (every item when it names none), and the furniture
it names where they are not yet is where they go ("from the dining table to the desk": the desk).
``on_action`` (if given) hears every action the house ran, with its feedback: how a recorder writes the
robots' progress to a stored scene; ``renamed`` (if given) names the objects people have renamed in the
stored scene meanwhile (house name -> new label: each robot's prompt says so; the names stay the commands'
words); when either raises :class:`~synergai.robots.errors.EpisodeStopped` (the
stored scene changed under the robots) the run stops there, with that reason. ``TeamConfig.talk`` hears
the stage under way (a robot thinking) and one line per action.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from synergai.llm.base import TOKEN_KEYS, ChatModel
from synergai.llm.json_reply import ask_json
from synergai.llm.trace import begin_turn
from synergai.llm.usage import Outcome, Usage
from synergai.robots.errors import EpisodeStopped, RobotError
from synergai.robots.goals import check_house
from synergai.robots.talk import Silent, Talk
from synergai.robots.team import prompts as T
from synergai.robots.team.flat import HouseTask
from synergai.robots.team.house import Command, Feedback, House
from synergai.scene.vocabulary import singular, words_of

TURN_ORDER = ("Bob", "Alice", "David")
#: How the stop reason of a run stopped by :class:`EpisodeStopped` begins.
STOPPED = "stopped: "
_ARGS = MappingProxyType({"navigate": ("target", "stand_pose"), "open": ("target",), "pick": ("target",),
                          "place": ("target", "location"), "move": ("delta_x", "delta_y"),
                          "communicate": ("content", "robot_name"), "wait": (), "done": ()})


class ActionListener(Protocol):
    """Hears each action the house ran, with its feedback."""

    def __call__(self, robot: str, command: Command, feedback: Feedback) -> None: ...


@dataclass(frozen=True)
class TeamConfig:
    """Bounds and switches of one team run."""

    max_rounds: int = 12
    use_feedback: bool = True
    history: int = 6  # entries of each history shown in the prompt
    max_tokens: int = 220
    retries: int = 1
    shared_map: bool = True  # one scene graph for the team (see the module doc-string)
    #: hears the run as it goes (the stage under way, one line per action); None: silent
    talk: Talk | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_rounds < 1:
            raise RobotError(f"max_rounds must be >= 1, got {self.max_rounds}")


@dataclass
class RobotMemory:
    """One robot's histories, as MHRC's prompt shows them."""

    feedback: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    latest_messages: list[str] = field(default_factory=list)
    last_failed: Command | None = None
    last_done: Command | None = None


def command_from_json(data: Mapping[str, Any]) -> Command:
    """The ``command`` object of a reply as a :class:`Command`; RobotError when malformed."""
    cmd = data.get("command")
    if not isinstance(cmd, Mapping):
        raise RobotError("the reply has no command object")
    skill = cmd.get("skill")
    if not isinstance(skill, str) or skill not in _ARGS:
        raise RobotError(f"unknown skill {skill!r}")
    args = []
    for key in _ARGS[skill]:
        if key not in cmd:
            raise RobotError(f"{skill} needs {', '.join(_ARGS[skill])}")
        value = cmd[key]
        number = isinstance(value, int | float) and not isinstance(value, bool)
        args.append(f"{value:g}" if number else str(value))
    return Command(skill, tuple(args))


@dataclass
class TeamResult(Outcome):
    """The outcome of one team run (``to_dict`` is the CLI's JSON; :class:`Outcome`: usage, wall time)."""

    task: str
    success: bool = False
    verified: bool = True  # False: no goal was checked, ``success`` is the team's own claim
    check_reason: str = ""
    rounds: int = 0
    steps: int = 0
    messages: int = 0
    failed_actions: int = 0
    log: list[dict[str, Any]] = field(default_factory=list)
    stop_reason: str = ""


class Team:
    """Three LLM agents acting in one :class:`House`."""

    def __init__(self, house: House, model: ChatModel, task: HouseTask, config: TeamConfig | None = None,
                 on_action: ActionListener | None = None,
                 renamed: Callable[[], Mapping[str, str]] | None = None):
        missing = [n for n in TURN_ORDER if n not in house.robots]
        if missing:
            raise RobotError(f"the house has no robot named {', '.join(missing)}")
        self.house, self.model, self.task = house, model, task
        self.config = config or TeamConfig()
        self.on_action, self.renamed = on_action, renamed
        self.talk: Talk = self.config.talk or Silent()
        self._done = False  # the task holds (or, with no goal, a robot said so)
        self.memory = {n: RobotMemory() for n in TURN_ORDER}
        self._system = {n: T.robot_system(house, n) for n in TURN_ORDER}
        if self.config.shared_map:
            house.share_knowledge()
        self._destinations: dict[str, set[str]] = {}
        said = f" {' '.join(words_of(task.text))} "
        # the furniture the goal names, or the person ("the cup from the dishwasher")
        self._goal_furniture = frozenset(
            {n for p in task.goal for n in p.objects() if n in house.furniture}
            | {n for n in house.furniture if f" {' '.join(words_of(n))} " in said})
        for p in task.goal:
            if p.name in ("in", "on") and len(p.args) >= 2 and p.args[0] in house.items:
                self._destinations.setdefault(str(p.args[0]), set()).add(str(p.args[1]))
        # the items worth fetching: the goal's; with no goal, the ones the words name (else any: None)
        said_one = f" {' '.join(singular(w) for w in words_of(task.text))} "
        self._targets: tuple[str, ...] | None = task.targets if task.goal else tuple(
            n for n, item in house.items.items()
            if f" {' '.join(words_of(n))} " in said or f" {' '.join(words_of(item.category))} " in said_one
        ) or None
        if not task.goal:  # "put the bowl on the kitchen counter": the named furniture it is not on yet
            for name in self._targets or ():
                places = {f for f in self._goal_furniture if f != house.items[name].location}
                if places:
                    self._destinations[name] = places

    @property
    def targets(self) -> tuple[str, ...] | None:
        """The items worth fetching (None: every item the team knows of)."""
        return self._targets

    # ----- prompt
    def _seen(self, robot: str) -> list[str]:
        return sorted(self.house.known[robot])

    def user_prompt(self, robot: str) -> str:
        """The changing part of a robot's prompt (MHRC's user prompt)."""
        h, mem, n = self.house, self.memory[robot], self.config.history
        graph = h.scene_graph()
        states = ", ".join(f"{f.name}: {'open' if h.is_open(f.name) else 'closed'}"
                           for f in h.furniture.values() if f.openable)
        seen = []
        for name in self._seen(robot):
            item = h.items[name]
            if item.location in h.robots:
                seen.append(f"{name}: in {item.location}'s gripper")
                continue
            holder = h.holder_of(graph, name)
            where = f"{holder[0]} {holder[1]}" if holder else f"at {item.location}"
            seen.append(f"{name}: {where} [{item.position[0]:.2f}, {item.position[1]:.2f}]")
        state = h.states[robot]
        x, y, yaw = state.pose
        grip = f"The gripper holds {state.holding}." if state.holding else "The gripper is empty."
        if "pick" not in h.robots[robot].skills:
            grip = "You have no gripper."
        role = T.role(h, robot)
        done = [p.describe() for p in self.task.goal if check_house((p,), h).success]
        todo = [p.describe() for p in self.task.goal if p.describe() not in done]
        progress = (f"done: {'; '.join(done) or 'nothing yet'}. To do: {'; '.join(todo) or 'nothing'}."
                    if self.task.goal else self._claim_hint())
        named = list(self.targets) if self.targets is not None else "none in particular"
        renamed = self.renamed() if self.renamed is not None else {}
        lines = [
            f"Scene graph now: furniture states: {states}.",
            f"Objects {'the team has' if self.config.shared_map else 'you have'} seen: "
            f"{'; '.join(seen) if seen else 'none yet'}.",
            *([f"Renamed by people since the task began: "
               f"{'; '.join(f'{n} is now called {label}' for n, label in sorted(renamed.items()))}."]
              if renamed else []),
            f"Robot status: position [{x:.2f}, {y:.2f}], orientation {yaw:.2f}. {grip}",
            f"Task (the person said): {self.task.text}. The objects it names: {named}.",
            f"Your part: Brief: {role['brief']} Detailed: {role['detailed']}",
            f"Latest task progress: {progress}",
        ]
        if self.config.use_feedback:
            lines.append(f"Feedback history: {' '.join(mem.feedback[-n:-1]) or 'none'}")
            latest = mem.feedback[-1] if mem.feedback else "This is the first step."
            lines.append(f"Latest feedback: {latest}")
        lines.append(f"Received message history: {' | '.join(mem.messages[-n:]) or 'none'}")
        lines.append(f"Latest received messages: {' | '.join(mem.latest_messages) or 'none'}")
        lines.append(f"Action history: {'; '.join(mem.actions[-n:]) or 'none'}")
        lines.append("Your next action:")
        return "\n".join(lines)

    def _claim_hint(self) -> str:
        """A goal-less task's progress line: where the items the words name are now, and where the words
        put them (the robots judge; a robot replies ``done`` once it is done)."""
        where = []
        for name in self.targets or ():
            item = self.house.items[name]
            held = item.location in self.house.robots
            now = f"in {item.location}'s gripper" if held else f"at {item.location}"
            wanted = self._destinations.get(name)
            where.append(f"{name} {now}" + (f" (the task wants it at {' or '.join(sorted(wanted))})"
                                            if wanted else ""))
        state = f" Now: {'; '.join(where)}." if where else ""
        return f"no checker: the team judges when the task is done.{state} Once it is done, reply with " \
               "the command done."

    def _where_words_put_them(self) -> bool:
        """With no goal: whether every item the words name and place is where they put it (then ``done``
        is offered first; still only the robots' claim)."""
        placed = {n: d for n, d in self._destinations.items() if n in (self.targets or ())}
        return not self.task.goal and bool(placed) and all(
            self.house.items[n].location in d for n, d in placed.items())

    def settled(self) -> set[str]:
        """Items every goal predicate that names them already holds for (picking one up undoes work)."""
        named: dict[str, bool] = {}
        for p in self.task.goal:
            holds = check_house((p,), self.house).success
            for name in p.objects():
                if name in self.house.items:
                    named[name] = named.get(name, True) and holds
        return {name for name, holds in named.items() if holds}

    def destinations(self) -> dict[str, set[str]]:
        """The furniture the goal wants each item in or on (fixed for the run: read once)."""
        return self._destinations

    # ----- one step
    def step(self, robot: str, round_no: int, usage: Usage | None = None) -> dict[str, Any]:
        """Let one robot read its inbox, think and act once; returns the log entry (its model calls are
        also added to ``usage``)."""
        mem = self.memory[robot]
        mem.messages.extend(mem.latest_messages)
        mem.latest_messages = [f"{m.content} (from {m.sender})" for m in self.house.take_messages(robot)]
        known = [n for n in self._seen(robot) if n not in self.house.robots]
        schema = T.command_schema(self.house, robot, known, mem.last_failed, mem.last_done,
                                  self.settled(), self.targets, self.destinations(),
                                  self._goal_furniture, claims=not self.task.goal,
                                  claim_first=self._where_words_put_them())
        offered = {v["properties"]["skill"]["const"] for v in schema["properties"]["command"]["anyOf"]}
        if offered - {"done"} <= {"communicate", "wait"} and not mem.latest_messages and mem.actions:
            # nothing it can do in the world and nothing new to read: it waits without a model call
            fb = self.house.execute(robot, Command("wait"))
            mem.actions.append("wait()")
            mem.feedback.append(fb.text)
            return {"round": round_no, "robot": robot, "llm_calls": 0, **dict.fromkeys(TOKEN_KEYS, 0),
                    "command": "wait()", "ok": True, "feedback": fb.text, "auto": True}
        messages = [{"role": "system", "content": self._system[robot]},
                    {"role": "user", "content": self.user_prompt(robot)}]
        answer = ask_json(self.model, messages, schema, max_tokens=self.config.max_tokens,
                          retries=self.config.retries)
        part = (usage or Usage()).count_all(answer.replies).to_dict()
        entry: dict[str, Any] = {"round": round_no, "robot": robot,
                                 **{k: part[k] for k in ("llm_calls", *TOKEN_KEYS)}}
        try:
            if answer.data is None:
                raise RobotError(answer.problem or "no reply")
            command = command_from_json(answer.data)
        except RobotError as exc:
            fb = Feedback(False, f"Your reply could not be used ({exc}); reply with one valid command.")
            entry.update(command=None, ok=False, feedback=fb.text)
            mem.feedback.append(fb.text)
            return entry
        if command.skill == "done" and not self.task.goal:  # the robot's claim: nothing runs in the house
            mem.actions.append("done()")
            entry.update(command="done()", ok=True, feedback="You said the task is done.", task_done=True,
                         analysis=str(answer.data.get("analysis", ""))[:240])
            return entry
        fb = self.house.execute(robot, command)
        if self.on_action is not None:
            self.on_action(robot, command, fb)
        if self.config.shared_map:
            self.house.share_knowledge()
        mem.last_failed = None if fb.ok else command
        # what it last did in the world (a wait or a message in between does not make a placed item new)
        mem.last_done = command if fb.ok and command.skill not in ("wait", "communicate") else mem.last_done
        mem.actions.append(command.render())
        mem.feedback.append(fb.text)
        entry.update(command=command.render(), ok=fb.ok, feedback=fb.text,
                     analysis=str(answer.data.get("analysis", ""))[:240])
        if not self.task.goal:
            entry["task_done"] = False
        return entry

    # ----- the run
    def run(self) -> TeamResult:
        """Take turns until the task holds in the world, the team stalls, or rounds run out."""
        start = time.perf_counter()
        begin_turn(self.model, self.task.text)
        result = TeamResult(self.task.text)
        idle_rounds = 0
        try:
            for rnd in range(1, self.config.max_rounds + 1):
                result.rounds = rnd
                acted = self._round(rnd, result)
                if self._done:
                    break
                idle_rounds = 0 if acted else idle_rounds + 1
                if idle_rounds >= 2:
                    result.stop_reason = "no robot acted (only waits or unusable replies) for two rounds"
                    break
            else:
                result.stop_reason = f"stopped after {self.config.max_rounds} rounds"
        except EpisodeStopped as exc:  # the stored scene changed under the robots: stop here
            result.stop_reason = f"{STOPPED}{exc}"
        self._verdict(result)
        result.seconds = time.perf_counter() - start
        return result

    def _round(self, rnd: int, result: TeamResult) -> bool:
        """Each robot's turn (until the task is done: then ``_done`` and ``stop_reason`` are set); whether
        one acted."""
        acted = False
        for robot in TURN_ORDER:
            self.talk.stage(f"round {rnd}: {robot} is thinking")
            entry = self.step(robot, rnd, result.usage)
            result.log.append(entry)
            self.talk.line(step_line(entry))
            if entry["command"] is not None:
                result.steps += 1
                acted = acted or not entry["command"].startswith("wait")
            result.failed_actions += 0 if entry["ok"] else 1
            if entry.get("task_done") if not self.task.goal else self.task.check(self.house).success:
                result.stop_reason = ("task done" if self.task.goal
                                      else f"{entry['robot']} said the task is done")
                self._done = True
                break
        return acted

    def _verdict(self, result: TeamResult) -> None:
        """Success: the goal checker's verdict, or (no goal) the team's own claim, not verified."""
        done = self._done
        if self.task.goal:
            verdict = self.task.check(self.house)
            result.success, result.check_reason = verdict.success, verdict.reason
        else:  # nothing to check against: the team's own word, not verified
            result.success, result.verified = done, False
            result.check_reason = (
                f"no goal to check: {result.stop_reason} (the team's own claim, not verified)" if done
                else "no goal to check, and no robot said the task is done")
        result.messages = self.house.messages_sent


def step_line(entry: Mapping[str, Any]) -> str:
    """One step of the log as a progress line: ``round 2, Alice: pick(bowl) ok: <feedback>``."""
    command = entry["command"] or "(no usable reply)"
    verdict = "ok" if entry["ok"] else "failed"
    return f"round {entry['round']}, {entry['robot']}: {command} {verdict}: {entry['feedback']}"


def run_team(task: HouseTask, model: ChatModel, config: TeamConfig | None = None,
             house: House | None = None, on_action: ActionListener | None = None,
             renamed: Callable[[], Mapping[str, str]] | None = None) -> TeamResult:
    """Build the task's house (unless given) and run the team on it."""
    return Team(house or task.make_house(), model, task, config, on_action, renamed).run()
