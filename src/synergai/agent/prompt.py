"""The agent's prompt (after SynergAI Fig. A.3) and the JSON schemas that constrain each reply.

The system prompt is the same for every scene and question, so llama.cpp reuses its cached prefix;
the question, the session state and the observations follow it as chat messages.
"""

from __future__ import annotations

from typing import Any

from synergai.agent.tools import TOOLS, Tool

PROLOGUE = """\
You are an assistant agent in a room and you have to respond to input from a user. When the user asks \
for information about items in the room, collect the required information using your tools. When the \
user tells you that you are wrong about an item, or asks you to learn something, use your tools to \
correct your knowledge of the room. When the user asks for advice or an actionable plan, make one up \
with your own knowledge and ground it in the room using your tools.

Make a rough plan first. Each step of this plan corresponds to a single action. State the plan with \
your first action."""

EXAMPLES = """\
[start of example plans]
User input: What is on the blue box?
Plan: 1. query_for_relations with item_id_list ["blue box"] and relation "on". 2. final_answer naming \
the objects on the box, with their ids in item_id_list.

User input: What is to the left of the marked item?
Plan: 1. find_marked_object to get the marked item and its relations. 2. final_answer naming the items \
to its left.

User input: How many chairs are there?
Plan: 1. query_for_objects "chair". 2. final_answer with the number of chairs found.

User input: What is in the middle of the bed and the desk?
Plan: 1. query_for_objects "bed", then "desk". 2. calculate_mid_point of their ids. \
3. find_object_closest to the mid point. 4. final_answer.

User input: The marked object is actually a stool.
Plan: 1. find_marked_object to get its id. 2. update_name with the new name. 3. final_answer confirming.

User input: The chair is red, not brown.
Plan: 1. query_for_objects "chair". 2. If one chair matches, update_attributes replacing "brown" with \
"red"; if several match, final_answer asking the user which one (they can click it).
[end of example plans]"""

RULES = """\
Answer format: reply with ONE JSON object per step. The first reply has "plan" (a list of short \
steps), "thought", "action" and "action_input"; later replies have "thought", "action" and \
"action_input". After each action you receive an Observation. Repeat until you choose final_answer.

Rules:
1. Every reply contains exactly one action, chosen from the tools above.
2. action_input follows the tool's Arguments.
3. Use ids exactly as they appear in observations. Never invent ids.
4. Ground every statement in observations; if the room has no such object, say so.
5. For final_answer, answer in one natural sentence, not a dict.
6. Keep thoughts short (one sentence)."""


def tool_section(tools: tuple[Tool, ...] = TOOLS) -> str:
    """The tools' doc-strings, as LangChain injects them."""
    return "\n\n".join(f"{t.name}:\n    {t.doc}" for t in tools)


def system_prompt(tools: tuple[Tool, ...] = TOOLS) -> str:
    """The full, scene-independent system prompt."""
    return f"{PROLOGUE}\n\n{EXAMPLES}\n\nTools:\n\n{tool_section(tools)}\n\n{RULES}"


def _branch(tool: Tool, with_plan: bool) -> dict[str, Any]:
    args = tool.args.model_json_schema()
    args.pop("title", None)
    for prop in args.get("properties", {}).values():
        prop.pop("title", None)
        prop.pop("default", None)
    props: dict[str, Any] = {}
    if with_plan:
        props["plan"] = {"type": "array", "items": {"type": "string", "maxLength": 90},
                         "minItems": 1, "maxItems": 4}
    props["thought"] = {"type": "string", "maxLength": 120}
    props["action"] = {"const": tool.name}
    props["action_input"] = args
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def action_schema(first: bool, tools: tuple[Tool, ...] = TOOLS) -> dict[str, Any]:
    """Schema of one reply: the action name picks a typed argument object (anyOf by tool)."""
    return {"anyOf": [_branch(t, first) for t in tools]}
