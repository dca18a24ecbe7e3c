"""The agent's prompt (after SynergAI Fig. A.3), the same for every scene and question, and the JSON
schemas that constrain each reply.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from synergai.agent.answer_forms import AnswerForm, answer_schema
from synergai.agent.grounding_parse import expression_schema
from synergai.agent.referents import asks_unnamed
from synergai.agent.tools import TOOLS, Tool
from synergai.scene.grounding import SceneVocabulary, scene_vocabulary
from synergai.scene.grounding.vocabulary import relations_said
from synergai.scene.model import WORDING, SceneGraph
from synergai.scene.vocabulary import ANY_THING, WHOLE_PLACE_PHRASE

PROLOGUE = """\
You are an assistant agent in a room. Answer the user's questions about the room with your tools. \
When the user says you are wrong about an item, correct your knowledge with your tools. When the user \
asks for advice or a plan, make one up and ground it in the room with your tools."""

EXAMPLES = """\
[start of example plans]
User input: What is on the blue box?
Plan: query_for_relations {"item_id_list": ["box"], "relation": "supporting"}
User input: What color is the lamp next to the bed?
Plan: query_for_objects {"category": "lamp", "relations": [{"relation": "next to", "anchors": \
[{"category": "bed"}]}]}
User input: How many chairs are there?
Plan: query_for_objects {"category": "chair"}
User input: What is between the bed and the desk?
Plan: calculate_mid_point {"item_id_list": ["bed", "desk"]}
User input: The marked object is actually a stool.
Plan: update_name {"item_id_list": ["marked"], "new_name_list": ["stool"]}
User input: Hello!
Plan: final_answer {"answer": "Hello! Ask me about the room.", "short_answer": "hello", "item_id_list": []}
[end of example plans]"""

#: Most actions in a first plan: a question's (no edits), a request's or a correction's.
QUESTION_PLAN_STEPS = 2
PLAN_STEPS = 3

RULES = f"""\
Reply with ONE JSON object. The first reply has "plan": a list of the actions the input needs (often \
one; at most {QUESTION_PLAN_STEPS} for a question, {PLAN_STEPS} otherwise) ({{"action", "action_input"}}), \
run in order, after which you get their Observations. \
Later replies have "action" and "action_input", one action each. Rules:
1. action_input follows the tool's Arguments. Ids may be names ("bed") or "marked" until you know them.
2. Use ids exactly as observed; never invent ids.
3. Ground every statement in observations; if the room has no such object, say so.
4. After the plan's observations, reply with final_answer (or, if the user corrected you, an update \
tool); only after an error may you look further. Never repeat an action."""


def system_prompt(tools: tuple[Tool, ...] = TOOLS) -> str:
    """The full, scene-independent system prompt (the tools' doc-strings as LangChain injects them)."""
    section = "\n\n".join(f"{t.name}:\n    {t.doc}" for t in tools)
    return f"{PROLOGUE}\n\n{EXAMPLES}\n\nTools:\n\n{section}\n\n{RULES}"


def _object(props: dict[str, Any]) -> dict[str, Any]:
    """An object schema with exactly these properties, all required."""
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def _branch(tool: Tool) -> dict[str, Any]:
    """One action: its name and its typed argument object."""
    args = tool.args.model_json_schema()
    args.pop("title", None)
    for prop in args.get("properties", {}).values():
        prop.pop("title", None)
        prop.pop("default", None)
    return _object({"action": {"const": tool.name}, "action_input": args})


def action_schema(tools: tuple[Tool, ...] = TOOLS) -> dict[str, Any]:
    """Schema of one reply: the action name picks a typed argument object (anyOf by tool)."""
    return {"anyOf": [_branch(t) for t in tools]}


def final_schema(form: AnswerForm, categories: Sequence[str] = (), sentence: bool = False,
                 options: Sequence[str] = ()) -> dict[str, Any]:
    """Schema of a final_answer reply whose short answer has the question's form (bounded by
    ``categories`` and ``options``); the model writes the sentence only when ``sentence``."""
    props: dict[str, Any] = {"short_answer": answer_schema(form, categories, options)}
    if sentence:
        props = {"answer": {"type": "string", "minLength": 1, "maxLength": 160}, **props}
    return {"anyOf": [_object({"action": {"const": "final_answer"}, "action_input": _object(props)})]}


def final_values(schema: dict[str, Any]) -> list[Any] | None:
    """The short answers a :func:`final_schema` schema allows; None when it lists none or asks for a
    sentence too."""
    args = schema["anyOf"][0]["properties"]["action_input"]["properties"]
    return None if "answer" in args else args["short_answer"].get("enum")


#: Never in the first plan: a point comes from an observation; highlights go with the answer.
NOT_PLANNED = frozenset({"find_object_closest", "post_process"})


def plan_schema(tools: tuple[Tool, ...] = TOOLS, marked: bool = True,
                question: bool = False) -> dict[str, Any]:
    """Schema of the first reply: a plan of 1 to ``PLAN_STEPS`` actions (``QUESTION_PLAN_STEPS`` and no
    edits for a question; ``find_marked_object`` only when an object is marked), or final_answer alone
    (a greeting)."""
    steps = [_branch(t) for t in tools if t.name not in {*NOT_PLANNED, "final_answer"}
             and (marked or t.name != "find_marked_object") and not (question and t.edits)]
    plans: list[dict[str, Any]] = [{"type": "array", "items": {"anyOf": steps}, "minItems": 1,
                                    "maxItems": QUESTION_PLAN_STEPS if question else PLAN_STEPS}]
    plans += [{"type": "array", "items": _branch(t), "minItems": 1, "maxItems": 1}
              for t in tools if t.name == "final_answer"]
    return _object({"plan": {"anyOf": plans}})


#: Arguments that name objects: ids seen so far, the scene's categories, "marked".
_OBJECT_ARGS = ("item_id_list", "subject_id", "object_id")


@dataclass(frozen=True)
class TurnVocabulary:
    """What a reply may name this turn: categories, attribute words, relation names, ids seen so far."""

    categories: tuple[str, ...]
    attributes: tuple[str, ...]
    ids: tuple[str, ...] = ()
    said: str = ""  # the user's input, whose words narrow the relations

    @cached_property
    def relations(self) -> tuple[str, ...]:
        """Relation names of ``query_for_relations``: those the input can mean, else every one."""
        names = tuple(sorted(set(WORDING.values())))
        plain = {n.removeprefix("to the "): n for n in names}  # "to the left of" is the cues' "left of"
        said = relations_said(self.said, tuple(plain)) if self.said else ()
        return tuple(plain[n] for n in said) or names

    @cached_property
    def expression(self) -> SceneVocabulary:
        """What ``query_for_objects`` may name: every category, and only the attribute, superlative and
        relation words the input says (none when it says none; all of them for a correction)."""
        scene = SceneVocabulary(self.categories, self.attributes)
        if not self.said:
            return scene
        plain = re.sub(WHOLE_PLACE_PHRASE, " ", self.said.lower())  # "in the room" relates to no object
        return replace(scene.narrowed(self.said), categories=self.categories,
                       relations=relations_said(plain, scene.relations))

    @property
    def names(self) -> list[str]:
        """Enum of an object argument: ids first, then categories."""
        return list(dict.fromkeys([*self.ids, *self.categories]))


def turn_vocabulary(graph: SceneGraph, seen_ids: Iterable[str] = (), marked: bool = False,
                    said: str = "") -> TurnVocabulary:
    """The vocabulary of one turn over this graph (relations narrowed by the words ``said``)."""
    scene = scene_vocabulary(graph)
    ids = [i for i in seen_ids if i in graph] + (["marked"] if marked else [])
    return TurnVocabulary(scene.categories, scene.attributes, tuple(dict.fromkeys(ids)), said)


def _enum_items(prop: dict[str, Any], values: list[str]) -> None:
    if prop.get("type") == "array":
        prop["items"] = {"type": "string", "enum": values}
    else:
        prop.clear()
        prop.update({"type": "string", "enum": values})


def constrain(schema: dict[str, Any], vocab: TurnVocabulary) -> dict[str, Any]:
    """The schema with every object, category, attribute and relation argument limited to ``vocab``."""
    out = copy.deepcopy(schema)
    names = vocab.names

    def visit(node: Any) -> None:
        props = node.get("properties") if isinstance(node, dict) else None
        if isinstance(props, dict) and isinstance(props.get("action"), dict) and "action_input" in props:
            action = props["action"].get("const")
            args = props["action_input"].get("properties", {})
            if action == "query_for_objects":
                props["action_input"] = expression_schema(
                    vocab.expression, optional_relations=True, any_object=asks_unnamed(vocab.said),
                    any_word=ANY_THING)
            for key in _OBJECT_ARGS:
                if key in args and names:
                    _enum_items(args[key], names)
            if "relation" in args and action == "query_for_relations":
                _enum_items(args["relation"], ["", *vocab.relations])  # "": every relation
            return
        for child in node if isinstance(node, list) else node.values() if isinstance(node, dict) else ():
            visit(child)

    visit(out)
    return out
