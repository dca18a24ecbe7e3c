"""MultiTalk's prompts (supplement C and D), shortened for small models, with JSON reply schemas.

The system prompts never change between calls (the local model reuses their cached prefix); the scene,
the task, questions and answers and feedback go in the user messages. The Planner and the Analyzer take
turns, so each system prompt may be processed again after the other's call (unless the backend restores it
from a prompt cache): they hold no word that does nothing. Replies are short too: a plan step is its
action and object or place (no "why"), a violation names its step and
a short problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from synergai.robots.tabletop.objects import TableBounds
from synergai.robots.tabletop.places import LINE_UP, MOVE_RELATIONS, SWAP

PLANNER_REPLIES = ("plan", "questions", "perception_rerun")


def planner_system(bounds: TableBounds) -> str:
    """The Planner's fixed instructions: role, actions, environment format, reply format, three examples."""
    return "\n".join([
        "You are in command of a Franka arm. Split a high-level instruction into low-level steps the arm can "
        "execute. If the instruction is ambiguous, ask the user questions instead.",
        "",
        "Actions:",
        "- grasp(object): grab that object (a name from the environment; only objects the arm can reach and "
        "grip are offered)",
        "- move((x, y, z)): move the grasped object there and release it on the table; to put it on another "
        "object, use that object's (x, y) and z = its height + 0.01",
        "- move(relation, anchor): move the grasped object on, next to, left of, right of, in front of "
        "(nearer the arm) or behind the anchor object, or in place of it (where it stood at the start); a "
        "free place there is computed for you",
        "- swap(object, with): the two objects change places (offered when the instruction asks for it)",
        "- line_up(objects, axis, at): put the objects in a straight line along the x or y axis, through "
        "at on the other axis if given (offered when the instruction asks for a line)",
        "- home(): return the arm to its base after the task",
        "Rules: one object grasped at a time; grasp an object before moving it; home() comes once, as the "
        "last step; two objects cannot share a place, so to exchange two objects first move one to a free "
        "spot.",
        "",
        f"Environment: the arm's base is the origin; table bounds: {bounds.describe()}. Objects are "
        "{name: ((length, width, height), (center x, center y, center z))}.",
        "",
        "Ask questions when you cannot infer the target object or location from the instruction, or when it "
        "has several meanings with different results. Do not ask what the instruction or the answers already "
        "say.",
        "If the task needs an object missing from the environment, do not ask: reply \"perception_rerun\" "
        "and the perception system scans the table again.",
        "",
        'Reply with one JSON object: {"reply": "plan" | "questions" | "perception_rerun", "questions": '
        '[...], "steps": [{"action": "grasp", "object": name} | {"action": "move", "xyz": [x, y, z]} | '
        '{"action": "move", "relation": "next to", "anchor": name} | {"action": "swap", "object": name, '
        '"with": name} | {"action": "line_up", "objects": [names], "axis": "x" | "y", "at": number} | '
        '{"action": "home"}]}',
        "",
        'Example. Environment: {"cup": ((0.08, 0.08, 0.1), (0.3, 0.2, 0.05)), "bowl": ((0.15, 0.15, 0.06), '
        "(0.2, -0.4, 0.03))}. Instruction: Put the cup at (0.1, -0.2) and the bowl at (0.35, 0.0).",
        '{"reply": "plan", "questions": [], "steps": [{"action": "grasp", "object": "cup"}, {"action": '
        '"move", "xyz": [0.1, -0.2, 0.05]}, {"action": "grasp", "object": "bowl"}, {"action": "move", '
        '"xyz": [0.35, 0.0, 0.03]}, {"action": "home"}]}',
        "Example. Same environment. Instruction: Put the cup on the bowl.",
        '{"reply": "plan", "questions": [], "steps": [{"action": "grasp", "object": "cup"}, {"action": '
        '"move", "relation": "on", "anchor": "bowl"}, {"action": "home"}]}',
        "Example. Same environment. Instruction: Swap the cup and the bowl.",
        '{"reply": "plan", "questions": [], "steps": [{"action": "swap", "object": "cup", "with": "bowl"}, '
        '{"action": "home"}]}',
        "Example. Same environment. Instruction: Line up the cup and the bowl along the y-axis at x = 0.3.",
        '{"reply": "plan", "questions": [], "steps": [{"action": "line_up", "objects": ["cup", "bowl"], '
        '"axis": "y", "at": 0.3}, {"action": "home"}]}',
        "Example. Same environment. Instruction: Give me a container.",
        '{"reply": "questions", "questions": ["Which container: the cup or the bowl?", "Where should I put '
        'it?"], "steps": []}',
    ])


def planner_schema(replies: Sequence[str] = PLANNER_REPLIES, graspable: Sequence[str] | None = None,
                   max_steps: int = 16, anchors: Sequence[str] | None = None,
                   relations: Sequence[str] = MOVE_RELATIONS, swap: bool = False, line: bool = False
                   ) -> dict[str, Any]:
    """The Planner's reply schema; ``replies`` narrows what it may answer (e.g. no more questions) and
    ``graspable`` the objects a grasp may name (the ones the arm can reach and grip now). Steps hold no
    "why" (it cost generated tokens and nothing read it); a reply that has one is still accepted. With
    ``anchors`` (the objects on the table), a move may name one of ``relations`` and an anchor instead of
    xyz; with ``swap`` a step may exchange the places of two graspable objects, and with ``line`` put
    several in a straight line along x or y (optionally through ``at`` on the other axis)."""
    xyz = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 3}
    move = {"type": "object", "properties": {"action": {"const": "move"}, "xyz": xyz},
            "required": ["action", "xyz"]}
    home = {"type": "object", "properties": {"action": {"const": "home"}},
            "required": ["action"]}
    variants = [move, home]
    if anchors and relations:
        variants.insert(1, {"type": "object", "properties": {
            "action": {"const": "move"}, "relation": {"enum": list(relations)},
            "anchor": {"enum": list(anchors)}}, "required": ["action", "relation", "anchor"]})
    pair = list(graspable if graspable is not None else anchors or ())
    if swap and len(pair) >= 2:
        variants.insert(0, {"type": "object", "properties": {
            "action": {"const": SWAP}, "object": {"enum": pair}, "with": {"enum": pair}},
            "required": ["action", "object", "with"]})
    if line and len(pair) >= 2:
        objects = {"type": "array", "items": {"enum": pair}, "minItems": 2, "maxItems": len(pair)}
        variants.insert(0, {"type": "object", "properties": {
            "action": {"const": LINE_UP}, "objects": objects, "axis": {"enum": ["x", "y"]},
            "at": {"type": "number"}}, "required": ["action", "objects", "axis"]})
    if graspable is None or graspable:
        target = {"enum": list(graspable)} if graspable is not None else {"type": "string", "maxLength": 40}
        variants.insert(0, {"type": "object", "properties": {"action": {"const": "grasp"}, "object": target},
                            "required": ["action", "object"]})
    return {
        "type": "object",
        "properties": {
            "reply": {"enum": list(replies)},
            "questions": {"type": "array", "items": {"type": "string", "maxLength": 150}, "maxItems": 3},
            "steps": {"type": "array", "maxItems": max_steps, "items": {"anyOf": variants}},
        },
        "required": ["reply", "questions", "steps"],
    }


def repeat_feedback(problems: str) -> str:
    return ("You sent again a plan that was already rejected, unchanged. It cannot run. The problems were:\n"
            f"{problems}\nChange the steps named there (use the fixes suggested), in the same JSON format.")


def planner_task(environment: str, task: str, qa: Sequence[tuple[str, str]]) -> str:
    """The first user message: environment, instruction and the questions answered so far."""
    text = f"Environment: {environment}\nHigh-level instruction: {task}"
    if qa:
        text += "\nYour questions and the user's answers:\n" + "\n".join(f"Q: {q}\nA: {a}" for q, a in qa)
    return text


def analyzer_feedback(comments: str) -> str:
    return (f"The following are the comments on the step-by-step instructions you generated:\n{comments}\n"
            "Taking them into consideration, either ask the absolutely necessary questions or give the "
            "revised plan, in the same JSON format.")


def human_feedback(qa: Sequence[tuple[str, str]]) -> str:
    answers = "\n".join(f"Q: {q}\nA: {a}" for q, a in qa)
    return (f"The following are the answers to the questions you asked:\n{answers}\n"
            "Using these answers, give the plan (or ask only the absolutely necessary questions), in the "
            "same JSON format.")


def simulator_feedback(feedback: str) -> str:
    return ("Your instructions were passed on to the simulator for execution. The simulator returned this "
            f"error:\n{feedback}\nTake it into consideration and revise your instructions, in the same JSON "
            "format.")


def perception_feedback(environment: str) -> str:
    return (f"The perception system has scanned the table again. The new environment is:\n{environment}\n"
            "Taking it into consideration, give the plan (or ask only the absolutely necessary questions), "
            "in the same JSON format.")


def invalid_feedback(problem: str) -> str:
    return f"Your reply could not be used: {problem}. Reply again with one JSON object in the format above."


NO_MORE_QUESTIONS = "You may not ask more questions now: give the plan."

#: What the Analyzer may object to: the judgements the rule checks cannot make (they have already passed:
#: feasibility, grasp coordinates, occupied places, reach). A free-text objection from a small model is
#: as often wrong as right ("bottle 1 is already on the table"), so the reply names one of these.
ANALYZER_PROBLEMS = (
    "moves an object the instruction does not name",
    "moves the wrong object",
    "puts the object in the wrong place",
    "misses a step the instruction needs",
    "assumes a target the user did not give",
)

ANALYZER_SYSTEM = "\n".join([
    "You are a fault-finding agent for a Franka arm. A planning agent turned a high-level instruction into "
    "step-by-step instructions. Judge whether the plan does what the instruction (and the user's answers) "
    "ask.",
    "",
    "Actions: grasp((x, y, z)) grabs the object at these coordinates; move((x, y, z)) moves the grasped "
    "object there and releases it (onto the object there when z reaches its height); home() returns the arm "
    "to its base, and nothing may follow it.",
    "The rule checks have passed: every step is physically feasible, every grasp is at an object, no place "
    "is occupied, every place is within reach. Do not report those.",
    "Report a step only for one of these problems: " + "; ".join(ANALYZER_PROBLEMS) + ". A target the "
    "planner assumed, not given by the user or the instruction, is a violation: it should have asked.",
    "",
    'Reply with one JSON object: {"violations": [{"step": step number, "problem": one of the problems}]}. If '
    'the plan does what was asked, the list is empty ("Feasible Plan!").',
])


def analyzer_schema(steps: int = 20) -> dict[str, Any]:
    """The Analyzer's reply schema for a plan of ``steps`` steps: each violation names a step of the plan
    and one of :data:`ANALYZER_PROBLEMS`."""
    return {
        "type": "object",
        "properties": {
            "violations": {
                "type": "array",
                "maxItems": 6,
                "items": {
                    "type": "object",
                    "properties": {"step": {"type": "integer", "minimum": 1, "maximum": max(1, steps)},
                                   "problem": {"enum": list(ANALYZER_PROBLEMS)}},
                    "required": ["step", "problem"],
                },
            }
        },
        "required": ["violations"],
    }


def analyzer_query(task: str, plan: str, qa: Sequence[tuple[str, str]], environment: str,
                   relations: str) -> str:
    """The Analyzer's per-plan query."""
    answers = "\n".join(f"Q: {q}\nA: {a}" for q, a in qa) or "None"
    return (f"High-level instruction given to the planner: {task}\n"
            f"Questions the planner asked and the user's answers:\n{answers}\n"
            f"Observed environment: {environment}\nObserved semantic relations: {relations}\n"
            f"Planner's step-by-step instructions:\n{plan}")
