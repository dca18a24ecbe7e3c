"""The SynergAI toolset (Table I): 3D reasoning, alignment and response tools.

Each tool is a function ``(ctx, args) -> observation``; the prompt is built from its doc-string (the paper's
Fig. A.4 format), the action schema from its pydantic argument model.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection
from contextlib import suppress
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator

from synergai.agent.context import ToolError, TurnContext
from synergai.agent.matching import find_objects
from synergai.agent.observation import (
    Fact,
    Observed,
    attributes_sentence,
    describe_objects,
    labelled,
    name_id,
    position_sentence,
    relation_facts,
    relation_sentences,
)
from synergai.agent.referents import mentioned_ids
from synergai.scene import edits
from synergai.scene.build import view_relation
from synergai.scene.grounding import ObjectRef, ground
from synergai.scene.grounding.place import places
from synergai.scene.grounding.vocabulary import relation_words, relations_said
from synergai.scene.model import (
    INVERSE,
    STRUCTURE_KINDS,
    SUPPORT_RELATIONS,
    VIEW_DEPENDENT,
    WORDING,
    Edge,
    ObjectKind,
    Relation,
    SceneError,
    SceneGraph,
    SceneObject,
    parse_relation,
)
from synergai.scene.vocabulary import (
    QUERY_SYNONYMS,
    RELATION_CUE_WORDS,
    attribute_kind,
    sentence_words,
    singular,
    with_article,
    words_of,
)

Id = Annotated[str, StringConstraints(min_length=1, max_length=24)]
Short = Annotated[str, StringConstraints(min_length=1, max_length=60)]
IdList = Annotated[list[Id], Field(min_length=1, max_length=8)]

#: What query_for_objects adds about a described object: what holds it and what it holds.
HIERARCHY_RELATIONS = SUPPORT_RELATIONS | {Relation.SUPPORTS}
#: Matches described with position and size; beyond that, matches are listed by name and attribute.
MAX_DESCRIBED = 2
#: Objects one observation names (the rest are listed by id only), to bound the prompt.
MAX_LISTED = 8
#: Categories listed when nothing matches a query.
MAX_CATEGORIES = 30
#: Objects whose relations one query_for_relations call reports.
MAX_ANCHORS = 3
#: Relations people use for one another ("next to" the bed may be recorded as "near" or "beside" it).
PROXIMITY = frozenset({Relation.NEAR, Relation.NEXT_TO, Relation.BESIDE})
#: Relation sentences per object when no relation is asked for.
MAX_RELATION_SENTENCES = 5
#: How far (box gap, metres) view-dependent relations are looked for around an anchor.
VIEW_RADIUS_M = 2.0


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QueryArgs(_Args):
    category: Annotated[str, StringConstraints(max_length=40)] = ""
    attributes: Annotated[list[Short], Field(max_length=4)] = []
    superlative: Annotated[str, StringConstraints(max_length=12)] = ""
    # relations as the grounding engine's RelationRef (validated by the tool: the schema is built per turn)
    relations: Annotated[list[dict[str, Any]], Field(max_length=3)] = []
    # people's own words (offered only when the user's words can mean them): where in the room, the
    # order in its group, isolation, the viewpoint the user sets
    position: Annotated[str, StringConstraints(max_length=12)] = ""
    order: Annotated[str, StringConstraints(max_length=20)] = ""
    alone: bool = False
    facing: dict[str, Any] | None = None
    back_to: dict[str, Any] | None = None
    query: Annotated[str, StringConstraints(max_length=60)] = ""  # free text: the fallback

    @model_validator(mode="after")
    def _named(self) -> QueryArgs:
        if not self.category.strip() and not self.query.strip():
            raise ValueError("give a category (or a query)")
        return self


class IdsArgs(_Args):
    item_id_list: IdList


class RelationsArgs(IdsArgs):
    relation: Annotated[str, StringConstraints(max_length=24)] = ""


class NoArgs(_Args):
    pass


class PointArgs(_Args):
    point: Annotated[list[float], Field(min_length=3, max_length=3)]


class UpdateNameArgs(IdsArgs):
    new_name_list: Annotated[list[Short], Field(min_length=1, max_length=8)]


class UpdateAttributesArgs(_Args):
    object_id: Id
    new_attributes_list: Annotated[list[Short], Field(min_length=1, max_length=8)]


class RelationEditArgs(_Args):
    subject_id: Id
    relation: Annotated[str, StringConstraints(min_length=1, max_length=24)]
    object_id: Id


class MergeArgs(_Args):
    item_id_list: Annotated[list[Id], Field(min_length=2, max_length=8)]
    new_name: Short | None = None


class FinalArgs(_Args):
    answer: Annotated[str, StringConstraints(max_length=240)] = ""
    short_answer: Annotated[str, StringConstraints(max_length=40)] | int | dict[str, str] = ""
    item_id_list: Annotated[list[Id], Field(max_length=8)] = []


# ----------------------------------------------------------------------------- 3D reasoning
def missing(graph: SceneGraph, phrase: str) -> str:
    """ "There is no piano in this room; the closest categories are …" (synonyms first, then spelling)."""
    cats = sorted(graph.categories())
    words = [singular(w) for w in words_of(phrase)]
    close = [c for w in words for alt in QUERY_SYNONYMS.get(w, ()) for c in cats if c == alt]
    close += difflib.get_close_matches(" ".join(words), cats, n=3, cutoff=0.5)
    close += [c for c in cats if set(words) & set(words_of(c))]
    close = list(dict.fromkeys(close))[:3]
    rest = ", ".join([c for c in cats if c not in close][:MAX_CATEGORIES])
    near = f"; the closest categories are: {', '.join(close)}" if close else ""
    return f"There is no {phrase} in this room{near}. The room has: {rest}."


def _described(graph: SceneGraph, objs: list[SceneObject]) -> tuple[str, list[Fact]]:
    """Templates 1 and 2 for each object, its room, and what holds it and what it holds (3)."""
    lines: list[str] = []
    facts: list[Fact] = []
    for obj in objs:
        lines.append(describe_objects(graph, [obj.id]))
        if obj.room is not None:  # a scene with rooms: which one it is in
            lines.append(f"The {obj.name} (id: {obj.id}) is in the {graph.room(obj.room).name}.")
        support = [(r, o) for r, o in graph.relations_of(obj.id)  # resting on the floor says little
                   if r in HIERARCHY_RELATIONS and graph.get(o).kind != ObjectKind.FLOOR]
        lines.extend(relation_sentences(graph, obj, support, limit=MAX_LISTED))
        facts.extend(relation_facts(obj, support))
    return " ".join(lines), facts


def _expression(args: QueryArgs) -> ObjectRef:
    fields = args.model_dump(exclude={"query"})  # relations as dicts: validation makes them RelationRef
    fields |= {k: fields[k] or None for k in ("superlative", "position", "order")}
    try:
        return ObjectRef.model_validate(fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ToolError(f"bad description: {where}: {err['msg']}") from None


def _singles_out(ref: ObjectRef) -> bool:
    """Whether the description claims one object (order, position, isolation, superlative, closest...)."""
    return bool(ref.order or (ref.position and not ref.position.startswith("not ")) or ref.alone
                or ref.superlative or any(r.relation in ("closest to", "farthest from") and not r.negated
                                          for r in ref.relations))


def _plainly(graph: SceneGraph, oid: str) -> str:
    """An object as a person tells it from others ("the black chair next to the table")."""
    obj = graph.get(oid)
    found = places(graph, oid, limit=1)
    where = f" {found[0].words(graph)}" if found else ""
    return f"the {obj.attributes[0] + ' ' if obj.attributes else ''}{obj.name}{where}"


def _grounded(ctx: TurnContext, ref: ObjectRef) -> Observed:
    """An expression resolved by the grounding engine: the best candidates with reasons; ties reported."""
    graph = ctx.graph
    g = ground(graph, ref, ctx.viewpoint)
    desc = ref.describe()
    if g.missing:
        return Observed(g.message()[0].upper() + g.message()[1:] + ".")
    if not g.candidates:
        return Observed(f"Nothing in this room matches {desc!r}.")
    top = g.candidates[0]
    if top.score <= 0:
        shown = "; ".join(c.reason for c in g.candidates[:MAX_DESCRIBED])
        # the room's only object of the category is what the words mean even where its colour or a
        # relation disagrees ("the white radiator" for the one radiator, captured dark brown)
        lone = [Fact((top.id,), partial=True)] if len(g.candidates) == 1 else []
        return Observed(f"No object matches {desc!r} fully: {shown}.", tuple(lone))
    ids = g.tied_ids()
    if len(ids) > 1 and _singles_out(ref):
        # "the chair in the middle" means one chair: when two fit, the user is asked, not answered
        # said in plain words (never ids or counts of matches: tool text is no answer to a person)
        ctx.clarification = ("Several fit: " + "; ".join(_plainly(graph, i) for i in ids[:MAX_LISTED])
                             + ". Which one do you mean? Please click it in the 3D view.")
        ctx.tied = tuple(ids)
    if len(ids) > 1:
        head = f"{len(ids)} objects match {desc!r} equally: " + "; ".join(
            c.reason for c in g.candidates[:min(len(ids), MAX_LISTED)]) + ". "
    else:
        runner = g.candidates[1] if len(g.candidates) > 1 and g.candidates[1].score > 0 else None
        head = f"Best match for {desc!r}: {top.reason}. " + (f"Next: {runner.reason}. " if runner else "")
    facts = [Fact(tuple(ids), fitting=g.fitting)]
    for rel in ref.relations:  # what each relation holds, for the answer sentence
        anchors = [i for a in rel.anchors for i in ground(graph, a, ctx.viewpoint).tied_ids()]
        if anchors:
            facts.append(Fact(tuple(ids), rel.relation, tuple(dict.fromkeys(anchors))))
    if len(ids) <= MAX_DESCRIBED:
        body, held = _described(graph, [graph.get(i) for i in ids])
        facts.extend(held)
    else:
        body = ", ".join(labelled(graph.get(i)) for i in ids[:MAX_LISTED]) + "."
    return Observed(head + body, tuple(facts))


def query_for_objects(ctx: TurnContext, args: QueryArgs) -> str | Observed:
    """Find the objects a description refers to: ids, positions, sizes, attributes, what they are on.

    Hints:
        1. category is one category of the room, eg. "lamp"; attributes narrow it, eg. ["white"].
           "anything" is any object: "what is next to the bed" is {"category": "anything", "relations":
           [{"relation": "next to", "anchors": [{"category": "bed"}]}]}.
        2. relations hold to other objects, eg. [{"relation": "next to", "anchors": [{"category": "bed"}]}];
           "between" takes two anchors. superlative picks eg. the "largest" one.
        3. With a category alone, every object of it is listed (to count them).

    Arguments:
        category: str, eg. "lamp".
        attributes: list, colour / material / size words, eg. ["white"].
        superlative: str, eg. "largest", or "".
        relations: list, eg. [{"relation": "on", "anchors": [{"category": "desk"}]}].

    Return:
        observation: str, the matching objects, ranked, with ties reported.
    """
    if args.category.strip():
        ref = _expression(args)
        if ref.attributes or ref.relations or ref.superlative or ref.order or ref.position or ref.alone:
            return _grounded(ctx, ref)
        found = [ctx.graph.get(c.id) for c in ground(ctx.graph, ref, ctx.viewpoint).candidates]
        label = ref.category  # a category the room lacks grounds to no candidate: missing() below
    else:
        found, label = find_objects(ctx.graph, args.query), args.query
    if not found:
        return missing(ctx.graph, label)
    facts = [Fact(tuple(o.id for o in found))]
    if len(found) <= MAX_DESCRIBED:  # the paper's templates 1 and 2, and where each object sits (3)
        head = f"{len(found)} {'objects match' if len(found) > 1 else 'object matches'} {label!r}. "
        body, held = _described(ctx.graph, found)
        return Observed(head + body, (*facts, *held))
    shown = ", ".join(labelled(o) for o in found[:MAX_LISTED])
    rest = ", ".join(o.id for o in found[MAX_LISTED:])
    more = f" Not shown: ids {rest}." if rest else ""
    return Observed(f"{len(found)} objects match {label!r}: {shown}.{more}", tuple(facts))


def _view_facts(ctx: TurnContext, anchor: str, wanted: Relation) -> tuple[list[str], str]:
    """The objects around the anchor that are ``wanted`` (view-dependent) to it, nearest first; how seen."""
    graph = ctx.graph
    viewpoint, how = ctx.effective_viewpoint(anchor)
    a = graph.get(anchor)
    reach = VIEW_RADIUS_M + max(a.size)
    others = [o.id for o in graph if o.id != anchor and o.kind not in STRUCTURE_KINDS
              and float(np.max(np.abs(np.subtract(o.center, a.center))[:2])) < reach]
    found = view_relation(graph, others, anchor, wanted, viewpoint)
    return sorted(found, key=lambda o: float(np.linalg.norm(np.subtract(graph.get(o).center, a.center)))), how


def _resolve(ctx: TurnContext, entry: str) -> list[str]:
    """An id, "marked", or a name ("coffee table") -> object ids."""
    key = str(entry).strip()
    if key in ctx.graph or key.lower().startswith(("marked", "the marked")):
        return [ctx.check_id(key)]
    found = [o.id for o in find_objects(ctx.graph, key)]
    if not found:
        raise ToolError(f"there is no object with id or name {key!r}; use query_for_objects to find ids")
    return found


def query_for_relations(ctx: TurnContext, args: RelationsArgs) -> Observed:
    """Collect the relations between objects and the objects around them.

    Hints:
        1. item_id_list holds ids, or names when you do not know the ids, eg. ["coffee table"].
        2. relation (optional) keeps one relation, eg. "on", "near", "left", "inside"; empty for all.

    Arguments:
        item_id_list: list, ids or names, eg. ["3"].
        relation: str, eg. "on".

    Return:
        observation: str, the objects' attributes and relations.
    """
    wanted: Relation | None = None
    note = ""
    if args.relation.strip():
        try:
            wanted = parse_relation(args.relation)
        except SceneError:  # show every relation rather than fail: the answer is often among them
            note = f"(No relation called {args.relation!r}; all relations shown.) "
    graph = ctx.graph
    ids = list(dict.fromkeys(i for entry in args.item_id_list for i in _resolve(ctx, entry)))
    lines: list[str] = []
    found: list[Fact] = []
    for oid in ids[:MAX_ANCHORS]:
        obj = graph.get(oid)
        facts = graph.relations_of(oid)
        family = PROXIMITY if wanted in PROXIMITY else {wanted}
        own = [(r, o) for r, o in facts if wanted is None or r in family]
        inverse = INVERSE.get(wanted) if wanted else None
        # "other WANTED obj" read from the other object's side, when it is a different fact
        others = [o for r, o in facts if inverse is not None and inverse != wanted and r == inverse]
        # view-dependent facts only when asked for: they are many and depend on where the user stands
        view, how = _view_facts(ctx, oid, wanted) if wanted in VIEW_DEPENDENT else ([], "")
        lines.append(attributes_sentence(obj))
        lines.extend(relation_sentences(graph, obj, own)[:MAX_RELATION_SENTENCES])
        found.extend(relation_facts(obj, own))
        for around, target in ((others, name_id(obj)), (view, f"{obj.name} ({how})")):
            if around and wanted is not None:  # both are only found for a wanted relation
                names = ", ".join(labelled(graph.get(o)) for o in around[:MAX_LISTED])  # template 3, reversed
                verb = "is" if len(around) == 1 else "are"
                lines.append(f"The {names} {verb} {WORDING[wanted]} the {target}.")
                found.append(Fact(tuple(around[:MAX_LISTED]), WORDING[wanted], (oid,)))
        if not own and not others and not view:
            what = f" {WORDING[wanted]}" if wanted else ""
            other = relation_sentences(graph, obj, facts)[:MAX_RELATION_SENTENCES]  # [] unless filtered
            # the answer is often a neighbouring relation ("next to" asked, "beside" recorded)
            tail = "; its other relations:" if other else "."
            lines.append(f"The {name_id(obj)} has no{what} relations recorded{tail}")
            lines.extend(other)
            found.extend(relation_facts(obj, facts) if other else [Fact((oid,))])
    if len(ids) > MAX_ANCHORS:
        rest = ", ".join(ids[MAX_ANCHORS:])
        lines.append(f"({len(ids) - MAX_ANCHORS} more objects not shown: ids {rest}.)")
    return Observed(note + " ".join(lines), tuple(found))


def find_marked_object(ctx: TurnContext, args: NoArgs) -> str | Observed:
    """Collect the object the user marked by clicking it.

    Hints:
        1. Use it when the user says "the marked object", "this" or "it".

    Arguments:
        (none)

    Return:
        observation: str, the marked object's id, attributes and relations.
    """
    if ctx.marked is None:
        return "No object is marked. Ask the user to click the object they mean."
    oid = ctx.check_id(ctx.marked)
    around = query_for_relations(ctx, RelationsArgs(item_id_list=[oid]))
    return Observed("The marked object is the " + name_id(ctx.graph.get(oid)) + ". " + position_sentence(
        ctx.graph.get(oid)) + " " + around.text, (Fact((oid,)), *around.facts))


def calculate_mid_point(ctx: TurnContext, args: IdsArgs) -> str:
    """Calculate the midpoint of a list of objects.

    Hints:
        1. For "in the middle of" / "between" questions; it also names the object closest to the midpoint.
        2. A name stands for every object it matches, eg. ["chair"] is the middle of all chairs.

    Arguments:
        item_id_list: list, ids or names, eg. ["3", "7"].

    Return:
        observation: str, the midpoint [x, y, z] and the object closest to it.
    """
    ids = list(dict.fromkeys(i for entry in args.item_id_list for i in _resolve(ctx, entry)))
    if len(ids) < 2:
        raise ToolError(f"a mid point needs two different objects; {args.item_id_list} is only the "
                        f"{name_id(ctx.graph.get(ids[0]))}")
    mid = np.mean([ctx.graph.get(i).center for i in ids], axis=0)
    names = ", ".join(name_id(ctx.graph.get(i)) for i in ids[:MAX_LISTED])
    more = f" and {len(ids) - MAX_LISTED} more" if len(ids) > MAX_LISTED else ""
    closest = _closest_to(ctx, mid, exclude=set(ids))
    near = f" The object closest to it is the {labelled(closest)}." if closest is not None else ""
    return f"The mid point of {names}{more} is [{mid[0]:.2f}, {mid[1]:.2f}, {mid[2]:.2f}].{near}"


def _closest_to(ctx: TurnContext, point: np.ndarray,
                exclude: Collection[str] = frozenset()) -> SceneObject | None:
    """The object whose box is nearest the point (floors, walls and ceilings aside)."""
    objs = [o for o in ctx.graph if o.kind not in STRUCTURE_KINDS and o.id not in exclude]
    if not objs:
        return None
    lo = np.array([o.min_corner for o in objs])
    hi = np.array([o.max_corner for o in objs])
    gap = np.linalg.norm(np.clip(np.maximum(lo - point, point - hi), 0.0, None), axis=1)
    return objs[int(np.argmin(gap))]


def find_object_closest(ctx: TurnContext, args: PointArgs) -> str:
    """Collect the object closest to a point.

    Hints:
        1. Use the point from calculate_mid_point.

    Arguments:
        point: list, [x, y, z].

    Return:
        observation: str, the closest object.
    """
    p = np.asarray(args.point, dtype=float)
    best = _closest_to(ctx, p)
    if best is None:
        return "The room has no objects."
    return f"The object closest to [{p[0]:.2f}, {p[1]:.2f}, {p[2]:.2f}] is the {name_id(best)}. " + \
        describe_objects(ctx.graph, [best.id])


# ----------------------------------------------------------------------------- alignment
#: What the user is asked when a correction refers to no object at all.
ASK_WHICH_OBJECT = ("I could not tell which object you mean, so I changed nothing. Please click it in the 3D "
                    "view (or name it or give its id) and say it again.")


def _ensure_meant(ctx: TurnContext, ids: list[str], merge: bool = False) -> None:
    """Refuse to edit an object the user did not refer to (asking which when they refer to none), or on a
    guess: each target must be marked, named by id, or the only one of its kind (its words' only one; a
    merge's parts: of a kind all merged); otherwise the user is asked which."""
    referred = ctx.referred()
    if not referred:
        ctx.clarification = ASK_WHICH_OBJECT
        raise ToolError("the user's words refer to no object of the room; the user is asked which one")
    for oid in ids:
        if oid not in referred:
            named = ", ".join(name_id(ctx.graph.get(i)) for i in sorted(referred)[:MAX_LISTED])
            raise ToolError(f"the user did not speak of the {name_id(ctx.graph.get(oid))}; edit only what "
                            f"the user named: {named}")
        if oid == ctx.marked or oid in mentioned_ids(ctx.utterance):
            continue
        cat = ctx.graph.get(oid).category
        kind = {o.id for o in ctx.graph.by_category(cat)}
        if kind <= set(ids) or (not merge and [o.id for o in find_objects(ctx.graph, ctx.utterance)
                                               if o.category == cat] == [oid]):
            continue
        ctx.clarification = f"There are {len(kind)} objects called {cat} here. " + (
            "Which ones are one object? Please click one and tell me the others' ids." if merge else
            "Which one do you mean? Please click it in the 3D view (or tell me its id) and say it again.")
        raise ToolError(f"ambiguous {'parts' if merge else 'target'}: {len(kind)} {cat} objects; the user is "
                        f"asked which {'ones' if merge else 'one'}")


def _request(ctx: TurnContext, build: Callable[..., edits.EditRequest], *args: Any,
             **kwargs: Any) -> edits.EditRequest:
    """The edit ``build(graph, *args, USER, utterance, **kwargs)``, not made; a SceneError is a ToolError."""
    try:
        return build(ctx.graph, *args, edits.Actor.USER, ctx.utterance, **kwargs)
    except SceneError as exc:
        raise ToolError(str(exc)) from None


def _make(ctx: TurnContext, *requests: edits.EditRequest) -> None:
    """Make edits in the turn's graph, in order; a SceneError is a ToolError."""
    try:
        for request in requests:
            ctx.apply(request)
    except SceneError as exc:
        raise ToolError(str(exc)) from None


#: What a refused rename adds when the user's words say where the object is.
RELATION_HINT = (". The user says where it is: store that with add_relation (delete_relation removes a wrong "
                 "one)")


def update_name(ctx: TurnContext, args: UpdateNameArgs) -> str:
    """Rename objects when the user says an object is actually something else.

    Hints:
        1. If several objects could be meant, do not call it; ask the user which one.
        2. The i-th object gets the i-th name, a short noun such as "stool".

    Arguments:
        item_id_list: list, ids, eg. ["12"].
        new_name_list: list, names, eg. ["stool"].

    Return:
        observation: str, the renamed objects.
    """
    ctx.check_writable()
    if len(args.item_id_list) != len(args.new_name_list):
        raise ToolError("item_id_list and new_name_list must have the same length")
    renames: list[tuple[str, str, edits.EditRequest]] = []  # all built before any is made: one refused
    for raw, name in zip(args.item_id_list, args.new_name_list, strict=True):  # leaves the graph unchanged
        oid = _rename_target(ctx, raw, name)
        if oid in (r[0] for r in renames):
            raise ToolError(f"the {name_id(ctx.graph.get(oid))} is given two new names; nothing renamed")
        _ensure_meant(ctx, [oid])
        old = ctx.graph.get(oid).category
        hint = RELATION_HINT if relations_said(ctx.utterance) else ""
        if name.strip().lower() == old:
            raise ToolError(f"the {name_id(ctx.graph.get(oid))} is already called {old}; nothing "
                            f"renamed{hint}")
        if hint and _said_as_anchor(ctx.utterance, name):
            raise ToolError(f"the user says where the {old} is, not that it is {with_article(name)}; nothing "
                            f"renamed{hint}")
        renames.append((oid, old, _request(ctx, edits.rename_object, oid, name)))
    _make(ctx, *(request for _, _, request in renames))
    return " ".join(f"The {old} (id: {oid}) is now called {ctx.graph.get(oid).category}."
                    for oid, old, _ in renames)


def _said_as_anchor(utterance: str, name: str) -> bool:
    """Whether ``name`` follows a relation word in the user's words ("on the counter"): an anchor."""
    words, target = relation_words(utterance), words_of(name)
    return any(words[k:k + len(target)] == target and RELATION_CUE_WORDS & set(words[max(0, k - 3):k])
               for k in range(len(words) - len(target) + 1)) if target else False


def _rename_target(ctx: TurnContext, raw: object, new_name: str) -> str:
    """The object to rename; a target already bearing the new name stands for the marked object."""
    if ctx.marked is not None:
        bearing = {o.id for o in find_objects(ctx.graph, new_name)}
        key = str(raw).strip()
        named = {o.id for o in find_objects(ctx.graph, key)} if key and key not in ctx.graph else set()
        if ctx.marked not in bearing and (key in bearing or (named and named <= bearing)):
            return ctx.check_id(ctx.marked)
    return ctx.check_id(raw)


def update_attributes(ctx: TurnContext, args: UpdateAttributesArgs) -> str:
    """Change the attributes (colour, material, ...) of an object.

    Hints:
        1. If several objects could be meant, do not call it; ask the user which one.
        2. Start from the current attributes and replace only what the user corrects, eg. ["blue",
           "wooden"] -> ["red", "wooden"].

    Arguments:
        object_id: str, eg. "1".
        new_attributes_list: list, eg. ["red", "wooden"].

    Return:
        observation: str, the object's new attributes.
    """
    ctx.check_writable()
    oid = ctx.check_id(args.object_id)
    _ensure_meant(ctx, [oid])
    names = {singular(w) for c in ctx.graph.categories() for w in (c, *QUERY_SYNONYMS.get(c, ()))}
    if nouns := [a for a in args.new_attributes_list
                 if not attribute_kind(a) and singular(a.lower()) in names]:
        raise ToolError(f"{nouns[0]!r} is what an object is called, not an attribute; nothing changed. A new "
                        "name is given with update_name")
    kept = _uncorrected(ctx.graph.get(oid).attributes, args.new_attributes_list, ctx.utterance)
    _make(ctx, _request(ctx, edits.set_attributes, oid, [*args.new_attributes_list, *kept]))
    note = f" Kept {', '.join(kept)}: not corrected by the user." if kept else ""
    return "Updated. " + attributes_sentence(ctx.graph.get(oid)) + note


def _uncorrected(old: Collection[str], new: Collection[str], utterance: str) -> list[str]:
    """The attributes a new list drops that the user did not correct: neither named in the utterance nor
    replaced by a new value of the same kind ("it is red" replaces a colour, not the material)."""
    said = set(sentence_words(utterance))
    replaced = {attribute_kind(a) for a in new if a not in old}
    return [a for a in old if a not in new and not set(sentence_words(a)) & said
            and attribute_kind(a) not in replaced]


def _relation_edit(ctx: TurnContext, args: RelationEditArgs, add: bool) -> str:
    ctx.check_writable()
    s, o = ctx.check_id(args.subject_id), ctx.check_id(args.object_id)
    try:
        rel = parse_relation(args.relation)
    except SceneError as exc:
        raise ToolError(str(exc)) from None
    if rel in VIEW_DEPENDENT:
        raise ToolError(f"{rel.value} depends on the viewpoint and is never stored; use a relation such as "
                        "on, inside, near, above, mounted on")
    replaced = _replaced_supports(ctx, s, o) if add and rel in SUPPORT_RELATIONS else []
    stored = add and ctx.graph.has_edge(s, rel, o)
    if stored and not replaced:  # a correction names what is missing
        raise ToolError(_stored_already(ctx, s, rel, o))
    for oid in (s, o):
        _ensure_meant(ctx, [oid])
    if not stored:  # stored already: the old ones still go
        _make(ctx, _request(ctx, edits.add_relation if add else edits.delete_relation, s, rel, o))
    for edge in replaced:  # after the new support is stored: a refused one leaves the old in place
        _make(ctx, _request(ctx, edits.delete_relation, s, edge.relation, edge.object))
    verb = "now" if add else "no longer"
    said = f"The {name_id(ctx.graph.get(s))} is {verb} {WORDING[rel]} the {name_id(ctx.graph.get(o))}"
    return said + "".join(f", no longer {WORDING[e.relation]} the {name_id(ctx.graph.get(e.object))}"
                          for e in replaced) + "."


def _stored_already(ctx: TurnContext, s: str, rel: Relation, o: str) -> str:
    """Why adding a relation the graph holds changes nothing, and the other objects the user names."""
    graph, said = ctx.graph, f" {' '.join(words_of(ctx.utterance))} "
    others = [graph.get(i) for i in sorted(ctx.referred())
              if i != s and graph.get(i).category != graph.get(o).category]
    others.sort(key=lambda x: -len(x.category.split()) * (f" {x.category} " in said))  # the fullest name said
    listed = [name_id(x) for x in others]
    return (f"the {name_id(graph.get(s))} {WORDING[rel]} the {name_id(graph.get(o))} is already stored; "
            "nothing added. Add the relation the user says is missing" +
            (f", to the object the user names: {', '.join(listed[:MAX_LISTED])}" if listed else ""))


def _replaced_supports(ctx: TurnContext, s: str, o: str) -> list[Edge]:
    """The supports of ``s`` that a new one, on ``o``, replaces: those to other objects the user's words
    refer to ("it is on the counter, not on the cabinet"); an object rests on one thing."""
    referred, graph = ctx.referred() - {s, o}, ctx.graph
    return [e for h in graph.holders(s) if h in referred for r in SUPPORT_RELATIONS
            if (e := graph.edge((s, r.value, h))) is not None]


def add_relation(ctx: TurnContext, args: RelationEditArgs) -> str:
    """Add a relation the user says is missing, eg. "the cup is on the table".

    Hints:
        1. relation is one of: on, inside, hanging on, mounted on, above, below, near, next to.

    Arguments:
        subject_id: str, eg. "3" (the cup).
        relation: str, eg. "on".
        object_id: str, eg. "1" (the table).

    Return:
        observation: str, the relation stored.
    """
    return _relation_edit(ctx, args, add=True)


def delete_relation(ctx: TurnContext, args: RelationEditArgs) -> str:
    """Remove a relation the user says is wrong, eg. "the bag is not on the table".

    Hints:
        1. Look the relation up with query_for_relations first.

    Arguments:
        subject_id: str, eg. "5".
        relation: str, eg. "on".
        object_id: str, eg. "1".

    Return:
        observation: str, the relation removed.
    """
    return _relation_edit(ctx, args, add=False)


def merge_objects(ctx: TurnContext, args: MergeArgs) -> str:
    """Make several objects one when the user says they are one object, eg. "these two are one table".

    Hints:
        1. Only the objects the user speaks of; if several could be meant, ask the user which ones.
        2. The first id stays; new_name is the one object's name (optional), eg. "table".

    Arguments:
        item_id_list: list, ids of the parts, eg. ["12", "13"].
        new_name: str, eg. "table".

    Return:
        observation: str, the merged object.
    """
    ctx.check_writable()
    ids = list(dict.fromkeys(ctx.check_id(i) for i in args.item_id_list))
    if len(ids) < 2:
        raise ToolError("a merge needs at least two different objects")
    _ensure_meant(ctx, ids, merge=True)
    parts = ", ".join(name_id(ctx.graph.get(i)) for i in ids)
    _make(ctx, _request(ctx, edits.merge_objects, ids, category=args.new_name))
    return f"The {parts} are now one {name_id(ctx.graph.get(ids[0]))}."


# ----------------------------------------------------------------------------- response
def post_process(ctx: TurnContext, args: IdsArgs) -> str:
    """Highlight the objects an answer is about in the user interface.

    Hints:
        1. final_answer's item_id_list does the same.

    Arguments:
        item_id_list: list, ids, eg. ["49"].

    Return:
        observation: str, the highlighted objects.
    """
    ctx.highlights = list(dict.fromkeys(ctx.check_id(i) for i in args.item_id_list))
    return "Highlighted: " + ", ".join(name_id(ctx.graph.get(i)) for i in ctx.highlights) + "."


def final_answer(ctx: TurnContext, args: FinalArgs) -> str:
    """Give the final response to the user and finish.

    Hints:
        1. short_answer is one value of the kind the question asks for: a colour, a number, yes or no, an
           object of the room, a place; the sentence for the user is written from it and the observations.
        2. answer (when asked for) is one short sentence; to ask the user a clarifying question, put it there.

    Arguments:
        short_answer: the value, eg. "white", 2, "laptop", {"relation": "on", "anchor": "desk"}.
        answer: str, the response in one sentence (for a greeting, a correction or a free answer).
        item_id_list: list, ids of the objects the answer is about (optional).

    Return:
        observation: str, the response.
    """
    known = []
    for raw in args.item_id_list:  # a wrong id must not lose the answer: it is only not highlighted
        with suppress(ToolError):
            known.append(ctx.check_id(raw))
    if known:
        post_process(ctx, IdsArgs(item_id_list=known))
    return args.answer


def cannot_succeed(ctx: TurnContext, name: str, args: BaseModel) -> str:
    """Why a planned action's arguments cannot succeed ('' when they may): a mid point of one object,
    or "marked" when nothing is marked."""
    words = [str(x).strip().lower() for v in args.model_dump().values()
             for x in (v if isinstance(v, list) else [v])]
    if ctx.marked is None and (name == "find_marked_object" or any(w.startswith(("marked", "the marked"))
                                                                    for w in words)):
        return "no object is marked"
    if name == "calculate_mid_point" and isinstance(args, IdsArgs):
        try:
            ids = {i for entry in args.item_id_list for i in _resolve(ctx, entry)}
        except ToolError as exc:
            return str(exc)
        if len(ids) < 2:
            return "a mid point needs two different objects"
    return ""


@dataclass(frozen=True)
class Tool:
    """A tool: its function, argument model and doc-string (the prompt is built from these)."""

    name: str
    func: Callable[[TurnContext, Any], str | Observed]  # called with an instance of ``args``
    args: type[BaseModel]
    retrieves: bool  # its observation is graph content (counts towards the query ratio)
    edits: bool = False  # a perception-alignment tool: it edits the graph (never on a question)

    @property
    def doc(self) -> str:
        return (self.func.__doc__ or "").strip()


TOOLS: tuple[Tool, ...] = (
    Tool("query_for_objects", query_for_objects, QueryArgs, True),
    Tool("query_for_relations", query_for_relations, RelationsArgs, True),
    Tool("find_marked_object", find_marked_object, NoArgs, True),
    Tool("calculate_mid_point", calculate_mid_point, IdsArgs, False),
    Tool("find_object_closest", find_object_closest, PointArgs, True),
    Tool("update_name", update_name, UpdateNameArgs, True, edits=True),
    Tool("update_attributes", update_attributes, UpdateAttributesArgs, True, edits=True),
    Tool("add_relation", add_relation, RelationEditArgs, True, edits=True),
    Tool("delete_relation", delete_relation, RelationEditArgs, True, edits=True),
    Tool("merge_objects", merge_objects, MergeArgs, True, edits=True),
    Tool("post_process", post_process, IdsArgs, False),
    Tool("final_answer", final_answer, FinalArgs, False),
)


def tool_by_name(name: str) -> Tool:
    """The tool called ``name`` (also accepts the paper's "Final Answer")."""
    key = name.strip().lower().replace(" ", "_")
    if (tool := next((t for t in TOOLS if t.name == key), None)) is None:
        raise ToolError(f"unknown action {name!r}; choose one of: {', '.join(t.name for t in TOOLS)}")
    return tool
