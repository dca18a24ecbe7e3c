"""MHRC's per-robot prompts (role, background, profile, constraints, skills, output format) and the
per-robot reply schema.

The system prompt starts with a part all three robots share (the team and each robot's skills, the
skills offered, the furniture of the scene graph, the reply format) so a local model reuses its cached
prefix when the speaker changes; each robot's own part follows. What changes every step (states, seen
objects, status, feedback, messages, actions) is the user message.

The speaker changes every turn, so the part after the shared one may be processed again at each call
(unless the backend restores it from a prompt cache), and every word a robot writes costs generation time:
the robots' own texts are MHRC's, shortened, and a reply is a one-sentence analysis and one command
(MHRC's "reasoning" is not asked for; nothing reads it).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from synergai.robots.team.house import SKILLS, Command, House

SKILL_DOCS = MappingProxyType({
    "navigate": "navigate(target, stand_pose): go to that stand pose of the furniture target",
    "open": "open(target): open the furniture target (a drawer, fridge, cabinet...)",
    "pick": "pick(target): pick up the object target (it must be within your reach)",
    "place": "place(target, location): put the held object target at the furniture location",
    "move": "move(delta_x, delta_y): move your base by delta_x, delta_y metres",
    "communicate": "communicate(content, robot_name): send content to robot_name",
    "wait": "wait(): do nothing this step",
})
#: The skills the prompts describe: ``move`` is never offered (every place is reached by ``navigate``).
PROMPT_SKILLS = tuple(s for s in SKILLS if s != "move")

_ALICE = {
    "role": "a mobile manipulator (navigation and manipulation); you can pick an object 1 m or less from "
    "you.",
    "background": "You work with Bob, an arm fixed at table_0, and David, a mobile base that only "
    "navigates.",
    "profile": "The house is unexplored: the scene graph shows the furniture, but you learn what is on or in "
    "a piece of furniture only by going there (and opening it if it is closed). Find the needed objects, "
    "pick them and bring them to table_0.",
    "constraints": "1) When you place an object on table_0 or in the tray, tell Bob. 2) If several objects "
    "must be found, ask David to explore some places. 3) If another robot must act first, wait(). 4) You "
    "are offered only the commands you can do now: to pick or open something, first navigate to a stand "
    "pose next to it.",
    "brief": "Explore the house and do the parts of the task away from table_0; bring objects Bob needs.",
    "detailed": "1. Explore, pick up the objects the task names and place them where the task says "
    "(objects for the tray go into the tray or onto table_0 near Bob). 2. Open furniture the task "
    "needs open. 3. At Bob's request, move objects on table_0 into his reach.",
}
_BOB = {
    "role": "an arm fixed at table_0 (manipulation only); your arm reaches 0.8 m.",
    "background": "You work with Alice, who navigates and manipulates.",
    "profile": "You read the person's task. Pick and place objects. For required objects that are not on "
    "your table, or that you fail to pick, ask Alice for help. Reply to Alice's requests at once.",
    "constraints": "1) At the start, send Alice the list of needed objects and say which ones are missing "
    "from your table. 2) Do not send similar messages again and again. 3) If another robot must act "
    "first, wait().",
    "brief": "Do the task's steps at table_0 (the tray is on it).",
    "detailed": "Pick the objects the task names that lie on table_0 within your reach and place them "
    "where the task says. When you cannot pick a named object on the table, ask Alice to move it. When a "
    "named object is elsewhere, ask Alice to find it and bring it. Do not move objects the task does not "
    "name. If the task has nothing to do at table_0, wait().",
}
_DAVID = {
    "role": "a mobile base (navigation only): you cannot pick or open anything.",
    "background": "You work with Alice, who navigates and manipulates.",
    "profile": "The house is unexplored: you see only the objects on furniture you visit. Explore only "
    "furniture that need not be opened, such as tables, the sofa, the washbasin.",
    "constraints": "1) Follow Alice's instructions and explore with her. 2) Report what you find to Alice "
    "promptly with communicate.",
    "brief": "Explore the house to find the required objects.",
    "detailed": "Follow Alice's arrangements, explore, find the required objects and report new "
    "discoveries to Alice.",
}
#: Each robot's role, background, profile, constraints and task wording (after MHRC appendix A, shortened).
ROLES = MappingProxyType({"Alice": _ALICE, "Bob": _BOB, "David": _DAVID})


def role(house: House, robot: str) -> dict[str, str]:
    """``robot``'s texts of :data:`ROLES`, naming the furniture Bob is fixed at in this house (MHRC's
    ``table_0`` in the paper's flat)."""
    station = next((r.station for r in house.robots.values() if r.station is not None), None) or "table_0"
    return {k: v.replace("table_0", station) for k, v in ROLES[robot].items()}


def furniture_text(house: House) -> str:
    """The static part of the scene graph: each furniture's position and stand poses."""
    lines = []
    for f in house.furniture.values():
        poses = ", ".join(f"stand_pose_{i}: [{p[0]:g}, {p[1]:g}]" for i, p in enumerate(f.stand_poses))
        kind = " (opens)" if f.openable else ""
        lines.append(f"{f.name}{kind}: position [{f.position[0]:g}, {f.position[1]:g}], {poses}")
    return "\n".join(lines)


def shared_system(house: House) -> str:
    """The part of every robot's system prompt that is the same for all."""
    team = "; ".join(f"{r.name} ({r.kind}: {', '.join(s for s in PROMPT_SKILLS if s in r.skills)})"
                     for r in house.robots.values())
    skills = "\n".join(f"- {SKILL_DOCS[s]}" for s in PROMPT_SKILLS)
    return (f"Three robots share one task in a house: {team}.\n"
            f"Skills (each robot has only its own):\n{skills}\n"
            f"House furniture (scene graph):\n{furniture_text(house)}\n"
            "Reply with one JSON object: {\"analysis\": \"...\", \"command\": {\"skill\": ..., arguments}}. "
            "Analysis, in one short sentence: when exploring, where the needed objects could be; when "
            "manipulating, whether you can pick now. Each step choose exactly one action, with names from "
            "the scene graph only.")


def robot_system(house: House, robot: str) -> str:
    """One robot's full system prompt: the shared part, then its role, background, profile, constraints
    (its skills are in the shared part's list of the team)."""
    r = role(house, robot)
    return (f"{shared_system(house)}\n\nYou are {robot}.\nRole: {r['role']}\nBackground: {r['background']}\n"
            f"Profile: {r['profile']}\nConstraints: {r['constraints']}")


def feasible_variants(house: House, robot: str, known_items: Sequence[str],
                      last_failed: Command | None = None, last_done: Command | None = None,
                      settled: Collection[str] = (), targets: Collection[str] | None = None,
                      destinations: Mapping[str, Collection[str]] | None = None,
                      goal_furniture: Collection[str] = ()) -> list[dict[str, Any]]:
    """The commands ``robot`` can carry out now, one JSON-schema variant per skill (or per navigation
    target): closed furniture within reach, known items within reach on open furniture while the gripper
    is empty, the held item onto open furniture within reach, messages to the others, wait, and the stand
    poses worth going to (:func:`worth_visiting`). While it stands at closed furniture it has not looked
    into and can open, or can pick a goal item, or can put the held one where the goal wants it, it is
    offered only that work (no navigation, message or wait). Left out: the action that failed at the
    robot's last step; picking up again the item it has just placed (``last_done``; that only undoes its
    step) or an item the task's goal already holds for (``settled``). Items worth walking to are the known
    ``targets`` (the items the goal names; every known item when None) not yet settled, and with targets
    given only those are offered to pick (the task names what to move; a robot that cannot move picks only
    what it can put where the goal wants it), and a held item the goal wants somewhere is offered to be
    placed only there (a robot that cannot move and cannot reach there may put it down anywhere); an item
    a teammate can take to where the goal wants it without moving (:func:`teammate_delivers`) is not
    worth walking to. Trips are offered in :func:`visit_rank` order (``goal_furniture``: the furniture the
    goal or the person names), and only the trips of the first rank there is: while known work waits
    (fetch, deliver, the named furniture) no exploring trip is offered, and a robot that can open
    explores closed furniture before open (which a teammate that cannot open explores meanwhile).
    ``move`` is never offered (every place is reached by ``navigate``)."""
    offer = _Offer(house, robot, known_items, last_failed, last_done, settled, targets, destinations or {})
    if offer.mobile and not offer.unopened and not offer.here:
        offer.trips(goal_furniture)
    offer.manipulation()
    skills = house.robots[robot].skills
    others = [n for n in house.robots if n != robot]
    if "communicate" in skills and others and not (offer.unopened or offer.here):
        offer.variant("communicate", content={"type": "string", "maxLength": 200},
                      robot_name={"enum": others})
    if "wait" in skills and not (offer.unopened or offer.here):  # with work to do where it stands, it does it
        offer.variant("wait")
    return offer.variants


class _Offer:
    """What one robot may be offered at this step (see :func:`feasible_variants`), as it is built."""

    def __init__(self, house: House, robot: str, known_items: Sequence[str], last_failed: Command | None,
                 last_done: Command | None, settled: Collection[str], targets: Collection[str] | None,
                 where_to: Mapping[str, Collection[str]]) -> None:
        self.house, self.robot, self.known_items = house, robot, known_items
        self.last_failed, self.settled, self.targets, self.where_to = last_failed, settled, targets, where_to
        self.spec, self.state = house.robots[robot], house.states[robot]
        skills = self.spec.skills
        self.mobile = "navigate" in skills and self.spec.station is None
        self.variants: list[dict[str, Any]] = []
        self.undone = last_done.args[0] if last_done is not None and last_done.skill == "place" else None
        # standing at closed furniture it has not looked into and can open, the robot opens it before it
        # goes elsewhere (it went there to look; leaving first only brings it back later)
        self.unopened = "open" in skills and any(
            not house.is_open(f) and f not in house.explored[robot] and house.within_reach(robot, f)
            for f in house.furniture)
        self.wanted = [n for n in known_items if n not in settled and n != self.undone
                       and (targets is None or n in targets) and self._deliverable(n)]
        holding = self.state.holding
        self.goal_places = tuple(where_to.get(holding, ())) if holding else ()
        # likewise it picks an item the goal names within its reach, and puts the held item where the goal
        # wants it when that is within reach, before it walks away
        self.here = ((holding is None and "pick" in skills and targets is not None
                      and any(house.can_pick(robot, n) for n in self.wanted))
                     or any(house.can_place(robot, str(holding), d) for d in self.goal_places))

    def _deliverable(self, item: str) -> bool:
        ends = self.where_to.get(item, ())
        return self.mobile or not ends or any(
            self.house.distance(self.robot, self.house.place_spot(item, d)) <= self.spec.reach
            for d in ends if d in self.house.furniture)

    def allowed(self, skill: str, *args: str) -> bool:
        if skill == "pick" and args and (args[0] == self.undone or args[0] in self.settled):
            return False
        return self.last_failed is None or self.last_failed != Command(skill, args)

    def variant(self, skill: str, **props: Any) -> None:
        self.variants.append({"type": "object", "properties": {"skill": {"const": skill}, **props},
                              "required": ["skill", *props]})

    def trips(self, goal_furniture: Collection[str]) -> None:
        """The stand poses worth going to, of the first :func:`visit_rank` there is, nearest first."""
        house, robot, state = self.house, self.robot, self.state
        far = [n for n in self.wanted if not teammate_delivers(house, robot, n, self.where_to.get(n, ()))]
        trips: list[tuple[tuple[int, float], str, list[str]]] = []
        for f in house.furniture.values():
            worth = [(i, pose) for i, pose in enumerate(f.stand_poses)
                     if pose != state.pose and self.allowed("navigate", f.name, f"stand_pose_{i}")
                     and worth_visiting(house, robot, f.name, pose, far, self.goal_places)]
            if worth:
                rank = (visit_rank(house, robot, f.name, goal_furniture),
                        min(house.distance(robot, pose) for _, pose in worth))
                trips.append((rank, f.name, [f"stand_pose_{i}" for i, _ in worth]))
        if trips:  # only the first rank offered: known work before exploring, closed furniture before open
            first = min(rank[0] for rank, _, _ in trips)
            trips = [t for t in trips if t[0][0] == first]
        for _, name, poses in sorted(trips):
            self.variant("navigate", target={"const": name}, stand_pose={"enum": poses})

    def manipulation(self) -> None:
        """Open, pick and place, as far as the robot's skills and reach allow now."""
        house, robot, skills, holding = self.house, self.robot, self.spec.skills, self.state.holding
        if "open" in skills:
            closable = [name for name in house.furniture if not house.is_open(name)
                        and house.within_reach(robot, name) and self.allowed("open", name)]
            if closable:
                self.variant("open", target={"enum": closable})
        if "pick" in skills and holding is None:
            pickable = [n for n in (self.known_items if self.targets is None else self.wanted)
                        if house.can_pick(robot, n) and self.allowed("pick", n)]
            if pickable:
                self.variant("pick", target={"enum": pickable})
        if "place" in skills and holding is not None:
            only_goal = bool(self.goal_places) and (self.mobile or self.here)
            places = [name for name in house.furniture if house.can_place(robot, holding, name)
                      and self.allowed("place", holding, name)
                      and (not only_goal or name in self.goal_places)]
            if places:
                self.variant("place", target={"const": holding}, location={"enum": places})


def teammate_delivers(house: House, robot: str, item: str, places: Collection[str]) -> bool:
    """Whether a robot other than ``robot`` reaches ``item`` and one of the ``places`` the goal wants it in
    or on from where it stands (Bob at table_0 with the tray): then that item is its work."""
    if item not in house.items:
        return False
    for other, spec in house.robots.items():
        if other == robot or not {"pick", "place"} <= spec.skills:
            continue
        if house.distance(other, house.items[item].position) > spec.reach:
            continue
        if any(p in house.furniture and house.distance(other, house.place_spot(item, p)) <= spec.reach
               for p in places):
            return True
    return False


def visit_rank(house: House, robot: str, furniture: str, goal_furniture: Collection[str] = ()) -> int:
    """The order in which trips are offered (the embedded model tends to take the first): furniture already
    looked into (a trip there fetches or delivers a known item) or named by the task first, then closed
    furniture only a robot that can open may look into, then open furniture any robot can look into;
    nearer first within each."""
    if furniture in house.explored[robot] or furniture in goal_furniture:
        return 0
    return 1 if not house.is_open(furniture) else 2


def worth_visiting(house: House, robot: str, furniture: str, pose: tuple[float, float, float],
                   wanted: Sequence[str], goal_places: Sequence[str] = ()) -> bool:
    """Whether standing at ``pose`` of ``furniture`` lets ``robot`` learn or do something it cannot where
    it stands: look into furniture it has not looked into (open, or openable by it); pick a ``wanted``
    known item that is out of reach here and within reach there; put the held item on or in furniture
    it cannot reach from here (stand poses are shared: table_0's serves the tray): one of
    ``goal_places`` (where the goal wants the held item; then nothing else is worth a walk) when there
    are any, else any open furniture."""
    spec, state = house.robots[robot], house.states[robot]

    def gains(point: Sequence[float]) -> bool:
        there = math.hypot(point[0] - pose[0], point[1] - pose[1]) <= spec.reach
        return there and house.distance(robot, point) > spec.reach

    if state.holding is not None and goal_places and "place" in spec.skills:  # it knows where to go
        return any(gains(house.place_spot(state.holding, d)) for d in goal_places if d in house.furniture)
    if furniture not in house.explored[robot]:
        return house.is_open(furniture) or "open" in spec.skills
    if state.holding is not None:
        return "place" in spec.skills and any(gains(house.place_spot(state.holding, f))
                                              for f in house.furniture if house.is_open(f))
    if "pick" not in spec.skills:
        return False
    return any(gains(house.items[n].position) for n in wanted
               if house.items[n].location in house.furniture and house.is_open(house.items[n].location))


def command_schema(house: House, robot: str, known_items: Sequence[str],
                   last_failed: Command | None = None, last_done: Command | None = None,
                   settled: Collection[str] = (), targets: Collection[str] | None = None,
                   destinations: Mapping[str, Collection[str]] | None = None,
                   goal_furniture: Collection[str] = (), claims: bool = False,
                   claim_first: bool = False) -> dict[str, Any]:
    """The reply schema of one robot at this step: a short analysis (logged; it also lets the model think
    before it commits) and one of the commands it can carry out now. MHRC's free-text "reasoning" is not
    asked for (nothing reads it); a reply that still carries it is accepted. With ``claims`` (a task with
    no goal to check) the command ``done`` is offered too: the robot says the task is done (first among
    the commands with ``claim_first``, else last: the embedded model tends to take the first)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "analysis": {"type": "string", "maxLength": 80},
            "command": {"anyOf": feasible_variants(house, robot, known_items, last_failed, last_done,
                                                   settled, targets, destinations, goal_furniture)},
        },
        "required": ["analysis", "command"],
    }
    if claims:
        done = {"type": "object", "properties": {"skill": {"const": "done"}}, "required": ["skill"]}
        variants = schema["properties"]["command"]["anyOf"]
        variants.insert(0 if claim_first else len(variants), done)
    return schema
