"""The SynergAI toolset (Table I): five for 3D reasoning, four for alignment, two for the response.

Each tool is a function ``(ctx, args) -> observation`` whose doc-string follows the paper's Fig. A.4
format (description, Hints, Arguments, Return); the agent's prompt is built from these doc-strings and
the action schema from the pydantic argument models.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from synergai.agent.context import ToolError, TurnContext
from synergai.agent.matching import find_objects
from synergai.agent.observation import (
    attributes_sentence,
    describe_objects,
    name_id,
    position_sentence,
    relation_sentences,
)
from synergai.scene import edits
from synergai.scene.build import view_relation
from synergai.scene.model import (
    INVERSE,
    STRUCTURE_KINDS,
    VIEW_DEPENDENT,
    WORDING,
    Relation,
    SceneError,
    parse_relation,
)

Id = Annotated[str, StringConstraints(min_length=1, max_length=24)]
Short = Annotated[str, StringConstraints(min_length=1, max_length=60)]
IdList = Annotated[list[Id], Field(min_length=1, max_length=8)]

#: Objects described in full by one observation (the rest are counted), to bound the prompt.
MAX_LISTED = 6
#: How far (box gap, metres) view-dependent relations are looked for around an anchor.
VIEW_RADIUS_M = 2.0


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QueryArgs(_Args):
    query: Short


class RelationsArgs(_Args):
    item_id_list: IdList
    relation: Annotated[str, StringConstraints(max_length=24)] = ""


class NoArgs(_Args):
    pass


class IdsArgs(_Args):
    item_id_list: IdList


class PointArgs(_Args):
    point: Annotated[list[float], Field(min_length=3, max_length=3)]


class UpdateNameArgs(_Args):
    item_id_list: IdList
    new_name_list: Annotated[list[Short], Field(min_length=1, max_length=8)]


class UpdateAttributesArgs(_Args):
    object_id: Id
    new_attributes_list: Annotated[list[Short], Field(min_length=1, max_length=8)]


class RelationEditArgs(_Args):
    subject_id: Id
    relation: Annotated[str, StringConstraints(min_length=1, max_length=24)]
    object_id: Id


class FinalArgs(_Args):
    answer: Annotated[str, StringConstraints(min_length=1, max_length=240)]
    short_answer: Annotated[str, StringConstraints(max_length=40)] = ""
    item_id_list: Annotated[list[Id], Field(max_length=8)] = []


# ----------------------------------------------------------------------------- 3D reasoning
def query_for_objects(ctx: TurnContext, args: QueryArgs) -> str:
    """Collect the objects mentioned in a user input: their ids, positions, sizes and attributes.

    Hints:
        1. Use this tool first when the user names objects, e.g. "the blue box" or "chairs".
        2. query is a short noun phrase for ONE kind of object; call the tool again for another kind.
        3. To count objects, count the objects this tool returns.

    Arguments:
        query: str, a short noun phrase naming the objects, eg. "blue box".

    Return:
        observation: str, the position, size and attributes of every matching object.
        results: list, the matching objects.
    """
    found = find_objects(ctx.graph, args.query)
    if not found:
        cats = ", ".join(sorted(ctx.graph.categories())[:40])
        return f"No object matches {args.query!r}. The room has: {cats}."
    head = f"{len(found)} object{'s' if len(found) > 1 else ''} match {args.query!r}. "
    shown = found[:MAX_LISTED]
    more = f" ({len(found) - len(shown)} more not shown.)" if len(found) > len(shown) else ""
    return head + describe_objects(ctx.graph, [o.id for o in shown]) + more


def _view_facts(
    ctx: TurnContext, anchor: str, wanted: Relation | None
) -> tuple[list[tuple[Relation, str]], str]:
    """View-dependent facts "other REL anchor" for the objects around the anchor."""
    graph = ctx.graph
    viewpoint, how = ctx.effective_viewpoint(anchor)
    a = graph.get(anchor)
    reach = VIEW_RADIUS_M + max(a.size)
    others = [o.id for o in graph if o.id != anchor and o.kind not in STRUCTURE_KINDS
              and float(np.max(np.abs(np.subtract(o.center, a.center))[:2])) < reach]
    rels = [r for r in sorted(VIEW_DEPENDENT) if wanted in (None, r)]
    facts = [(rel, oid) for rel in rels for oid in view_relation(graph, others, anchor, rel, viewpoint)]
    return facts, how


def _resolve(ctx: TurnContext, entry: str) -> list[str]:
    """An id, "marked", or a name ("coffee table") -> object ids."""
    key = str(entry).strip()
    if key in ctx.graph or key.lower().startswith("marked") or key.lower().startswith("the marked"):
        return [ctx.check_id(key)]
    found = [o.id for o in find_objects(ctx.graph, key)]
    if not found:
        raise ToolError(f"there is no object with id or name {key!r}; use query_for_objects to find ids")
    return found


def query_for_relations(ctx: TurnContext, args: RelationsArgs) -> str:
    """Collect the relations between the given objects and the objects around them.

    Hints:
        1. item_id_list holds ids from earlier observations, or names when you do not know the ids yet,
           eg. ["coffee table"].
        2. relation is optional: give one (eg. "on", "near", "left", "above", "inside") to keep only that
           relation, in both directions ("what is on X" and "what X is on"); leave it empty for all.
        3. "left", "right", "in front of" and "behind" are relative to the user's viewpoint.

    Arguments:
        item_id_list: list, ids or names of the objects, eg. ["3", "7"] or ["coffee table"].
        relation: str, optional relation to keep, eg. "on".

    Return:
        observation: str, the objects' positions, attributes and relations.
        results: list, the related objects.
    """
    wanted: Relation | None = None
    if args.relation.strip():
        try:
            wanted = parse_relation(args.relation)
        except SceneError as exc:
            raise ToolError(str(exc)) from None
    graph = ctx.graph
    ids = list(dict.fromkeys(i for entry in args.item_id_list for i in _resolve(ctx, entry)))
    lines: list[str] = []
    for oid in ids[:MAX_LISTED]:
        obj = graph.get(oid)
        facts = graph.relations_of(oid)
        own = [(r, o) for r, o in facts if wanted is None or r == wanted]
        inverse = INVERSE.get(wanted) if wanted is not None else None
        # "other WANTED obj" read from the other object's side, when it is a different fact
        others = [o for r, o in facts if inverse is not None and inverse != wanted and r == inverse]
        view, how = _view_facts(ctx, oid, wanted)
        lines.append(position_sentence(obj))
        lines.append(attributes_sentence(obj))
        sentences = relation_sentences(graph, obj, own)
        sentences += [f"The {name_id(graph.get(o))} is {WORDING[wanted]} the {name_id(obj)}." for o in others
                      if wanted is not None]
        for rel, other in view:
            sentences.append(f"The {name_id(graph.get(other))} is {WORDING[rel]} the {obj.name} ({how}).")
        if not own and not others and not view:
            what = f" {WORDING[wanted]}" if wanted else ""
            sentences.append(f"The {name_id(obj)} has no{what} relations recorded.")
        lines.extend(sentences)
    return " ".join(lines)


def find_marked_object(ctx: TurnContext, args: NoArgs) -> str:
    """Collect the information of the object the user marked by clicking it.

    Hints:
        1. Use this tool whenever the user says "the marked object", "this object" or "it" after clicking.
        2. It returns the object's id; use that id with the other tools.

    Arguments:
        (none)

    Return:
        observation: str, the marked object's position, attributes and relations.
        results: list, the marked object.
    """
    if ctx.marked is None:
        return "No object is marked. Ask the user to click the object they mean."
    oid = ctx.check_id(ctx.marked)
    return "The marked object is the " + name_id(ctx.graph.get(oid)) + ". " + query_for_relations(
        ctx, RelationsArgs(item_id_list=[oid])
    )


def calculate_mid_point(ctx: TurnContext, args: IdsArgs) -> str:
    """Calculate the midpoint of the positions of a list of objects.

    Hints:
        1. Use it for "in the middle of" / "between" questions, then find_object_closest.

    Arguments:
        item_id_list: list, ids of two or more objects, eg. ["3", "7"].

    Return:
        observation: str, the midpoint as [x, y, z].
    """
    ids = [ctx.check_id(i) for i in args.item_id_list]
    mid = np.mean([ctx.graph.get(i).center for i in ids], axis=0)
    names = ", ".join(name_id(ctx.graph.get(i)) for i in ids)
    return f"The mid point of {names} is [{mid[0]:.2f}, {mid[1]:.2f}, {mid[2]:.2f}]."


def find_object_closest(ctx: TurnContext, args: PointArgs) -> str:
    """Collect the object closest to a point.

    Hints:
        1. Use the point returned by calculate_mid_point or a position from an observation.
        2. Floors, walls and ceilings are not considered.

    Arguments:
        point: list, the point [x, y, z], eg. [1.0, 2.5, 0.4].

    Return:
        observation: str, the closest object's position and attributes.
        results: list, the closest object.
    """
    objs = [o for o in ctx.graph if o.kind not in STRUCTURE_KINDS]
    if not objs:
        return "The room has no objects."
    p = np.asarray(args.point, dtype=float)
    lo = np.array([o.min_corner for o in objs])
    hi = np.array([o.max_corner for o in objs])
    gap = np.linalg.norm(np.clip(np.maximum(lo - p, p - hi), 0.0, None), axis=1)
    best = objs[int(np.argmin(gap))]
    return f"The object closest to [{p[0]:.2f}, {p[1]:.2f}, {p[2]:.2f}] is the {name_id(best)}. " + \
        describe_objects(ctx.graph, [best.id])


# ----------------------------------------------------------------------------- alignment
def _ensure_unambiguous(ctx: TurnContext, oid: str) -> None:
    """Refuse to edit on a guess: the target must be marked, named by id, or the only one of its kind."""
    if oid == ctx.marked or oid in _mentioned_ids(ctx.utterance):
        return
    obj = ctx.graph.get(oid)
    same = [o for o in find_objects(ctx.graph, ctx.utterance) if o.category == obj.category]
    if len(ctx.graph.by_category(obj.category)) <= 1 or (len(same) == 1 and same[0].id == oid):
        return
    n = len(ctx.graph.by_category(obj.category))
    ctx.clarification = (
        f"There are {n} objects called {obj.category} here. Which one do you mean? "
        "Please click it in the 3D view (or tell me its id) and say it again."
    )
    raise ToolError(f"ambiguous target: {n} {obj.category} objects; the user is asked which one")


def _mentioned_ids(text: str) -> set[str]:
    low = text.lower()
    return set(re.findall(r"\bid[:\s]*(\w+)", low)) | set(re.findall(r"\bobject\s+(\d+)\b", low))


def _edit(ctx: TurnContext, build: Callable[[], edits.EditRequest]) -> edits.EditRecord:
    try:
        return ctx.apply(build())
    except SceneError as exc:
        raise ToolError(str(exc)) from None


def update_name(ctx: TurnContext, args: UpdateNameArgs) -> str:
    """Update the names (labels) of a list of objects. Use this tool when the user says an object is
    actually something else, eg. "the marked object is a stool, not a chair".

    Hints:
        1. If there are multiple candidates for an object, do not call this tool and ask the user for
           clarification.
        2. item_id_list and new_name_list have the same length: the i-th object gets the i-th name.
        3. A name is a short noun, eg. "stool"; do not put colours or materials in it.

    Arguments:
        item_id_list: list, ids of the objects to rename, eg. ["12"].
        new_name_list: list, their new names, eg. ["stool"].

    Return:
        observation: str, the renamed objects.
        results: list, the renamed objects.
    """
    if len(args.item_id_list) != len(args.new_name_list):
        raise ToolError("item_id_list and new_name_list must have the same length")
    out = []
    for raw, name in zip(args.item_id_list, args.new_name_list, strict=True):
        oid = ctx.check_id(raw)
        _ensure_unambiguous(ctx, oid)
        old = ctx.graph.get(oid).category
        _edit(ctx, lambda oid=oid, name=name: edits.rename_object(
            ctx.graph, oid, name, edits.Actor.USER, ctx.utterance))
        out.append(f"The {old} (id: {oid}) is now called {ctx.graph.get(oid).category}.")
    return " ".join(out)


def update_attributes(ctx: TurnContext, args: UpdateAttributesArgs) -> str:
    """Update the attributes of a specific object. Use this tool when the user asks you to change some of
    the attributes of an object.

    Hints:
        1. If there are multiple candidates for object_id, do not call this tool and ask the user for
           clarification.
        2. The attributes of an object is a list of strings that specify the color, the texture or other
           information of an object. Before using this tool, use query_for_objects or find_marked_object
           to get the current attribute list of the object under consideration.
        3. To prepare new_attributes_list, start with the current attributes list. Replace the
           corresponding elements with the new values specified by the user. For example, if the current
           attributes list is ["blue", "wooden", "rectangular"] and the user asks you to change the color
           to red, the new attributes list should be ["red", "wooden", "rectangular"].
        4. Do not alter the values of the attributes not mentioned by the user.

    Arguments:
        object_id: str, the id of the object to be updated, eg. "1".
        new_attributes_list: list, the new list of attributes, eg. ["red", "wooden"].

    Return:
        observation: str, information about the object under consideration.
        results: list, a list that contains the object under consideration.
    """
    oid = ctx.check_id(args.object_id)
    _ensure_unambiguous(ctx, oid)
    _edit(ctx, lambda: edits.set_attributes(ctx.graph, oid, args.new_attributes_list, edits.Actor.USER,
                                             ctx.utterance))
    return "Updated. " + attributes_sentence(ctx.graph.get(oid))


def _relation_edit(ctx: TurnContext, args: RelationEditArgs, add: bool) -> str:
    s, o = ctx.check_id(args.subject_id), ctx.check_id(args.object_id)
    try:
        rel = parse_relation(args.relation)
    except SceneError as exc:
        raise ToolError(str(exc)) from None
    if rel in VIEW_DEPENDENT:
        raise ToolError(f"{rel.value} depends on the viewpoint and is never stored; use a relation such as "
                        "on, inside, near, above, mounted on")
    for oid in (s, o):
        _ensure_unambiguous(ctx, oid)
    build = edits.add_relation if add else edits.delete_relation
    _edit(ctx, lambda: build(ctx.graph, s, rel, o, edits.Actor.USER, ctx.utterance))
    g = ctx.graph
    verb = "now" if add else "no longer"
    return f"The {name_id(g.get(s))} is {verb} {WORDING[rel]} the {name_id(g.get(o))}."


def add_relation(ctx: TurnContext, args: RelationEditArgs) -> str:
    """Add a relation between two objects. Use this tool when the user says a relation is missing, eg.
    "the cup is on the table".

    Hints:
        1. If there are multiple candidates for an object, do not call this tool and ask the user for
           clarification.
        2. relation is one of: on, supporting, inside, embedded in, hanging on, mounted on, affixed on,
           above, below, higher than, lower than, near, far, beside, next to.

    Arguments:
        subject_id: str, id of the object the sentence is about, eg. "3" (the cup).
        relation: str, the relation, eg. "on".
        object_id: str, id of the other object, eg. "1" (the table).

    Return:
        observation: str, the relation now stored.
    """
    return _relation_edit(ctx, args, add=True)


def delete_relation(ctx: TurnContext, args: RelationEditArgs) -> str:
    """Remove a relation between two objects. Use this tool when the user says a relation is wrong, eg.
    "the backpack is not on the table".

    Hints:
        1. If there are multiple candidates for an object, do not call this tool and ask the user for
           clarification.
        2. Use query_for_relations first to see the stored relation and its exact wording.

    Arguments:
        subject_id: str, id of the object the sentence is about, eg. "5".
        relation: str, the relation to remove, eg. "on".
        object_id: str, id of the other object, eg. "1".

    Return:
        observation: str, confirmation of the removed relation.
    """
    return _relation_edit(ctx, args, add=False)


# ----------------------------------------------------------------------------- response
def post_process(ctx: TurnContext, args: IdsArgs) -> str:
    """Return the objects relevant to the answer so the user interface can highlight them.

    Hints:
        1. Give the ids of the objects your answer is about.

    Arguments:
        item_id_list: list, ids of the relevant objects, eg. ["49"].

    Return:
        observation: str, the objects that will be highlighted.
        results: list, the relevant objects.
    """
    ids = [ctx.check_id(i) for i in args.item_id_list]
    ctx.highlights = list(dict.fromkeys(ids))
    return "Highlighted: " + ", ".join(name_id(ctx.graph.get(i)) for i in ctx.highlights) + "."


def final_answer(ctx: TurnContext, args: FinalArgs) -> str:
    """Return the final response to the user and finish.

    Hints:
        1. answer is one natural sentence (not a dict); include object names and ids where useful.
        2. short_answer is the answer in at most five words, eg. "brown" or "2" or "on the table".
        3. item_id_list lists the objects the answer is about (they are highlighted, as post_process does).
        4. To ask the user a clarifying question, put the question in answer.

    Arguments:
        answer: str, the response, eg. "The book (id: 49) is on the blue box."
        short_answer: str, the answer in at most five words, eg. "book".
        item_id_list: list, ids of the objects the answer is about, eg. ["49"].

    Return:
        observation: str, the response.
    """
    if args.item_id_list:
        post_process(ctx, IdsArgs(item_id_list=args.item_id_list))
    return args.answer


@dataclass(frozen=True)
class Tool:
    """A tool: its function, argument model and doc-string (the prompt is built from these)."""

    name: str
    func: Callable[[TurnContext, BaseModel], str]
    args: type[BaseModel]
    retrieves: bool  # its observation is graph content (counts towards the query ratio)

    @property
    def doc(self) -> str:
        return (self.func.__doc__ or "").strip()


TOOLS: tuple[Tool, ...] = (
    Tool("query_for_objects", query_for_objects, QueryArgs, True),
    Tool("query_for_relations", query_for_relations, RelationsArgs, True),
    Tool("find_marked_object", find_marked_object, NoArgs, True),
    Tool("calculate_mid_point", calculate_mid_point, IdsArgs, False),
    Tool("find_object_closest", find_object_closest, PointArgs, True),
    Tool("update_name", update_name, UpdateNameArgs, True),
    Tool("update_attributes", update_attributes, UpdateAttributesArgs, True),
    Tool("add_relation", add_relation, RelationEditArgs, True),
    Tool("delete_relation", delete_relation, RelationEditArgs, True),
    Tool("post_process", post_process, IdsArgs, False),
    Tool("final_answer", final_answer, FinalArgs, False),
)


def tool_by_name(name: str) -> Tool:
    """The tool called ``name`` (also accepts the paper's "Final Answer")."""
    key = name.strip().lower().replace(" ", "_")
    for t in TOOLS:
        if t.name == key:
            return t
    raise ToolError(f"unknown action {name!r}; choose one of: {', '.join(t.name for t in TOOLS)}")
