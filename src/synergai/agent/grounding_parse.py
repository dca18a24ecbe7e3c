"""A person's description of one object -> a typed referring expression, by ONE model call.

The reply is JSON under a schema whose words are the scene's, so the model cannot name what the scene
lacks; the system prompt is the same for every scene. The graph reasons (:func:`ground`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from synergai.agent.grounding_fixes import named_nearby, post_parse
from synergai.agent.kernel import Calls
from synergai.agent.referents import asks_unnamed
from synergai.llm.base import ChatModel, ChatReply
from synergai.scene.grounding import (
    RELATION_NAMES,
    SUPERLATIVES,
    Grounding,
    ObjectRef,
    SceneVocabulary,
    ground,
)
from synergai.scene.grounding.expression import MAX_COUNT, ORDERS, POSITIONS
from synergai.scene.model import SceneGraph
from synergai.scene.vocabulary import (
    ANY_OBJECT,
    AREA_WORDS,
    CANONICAL_CATEGORY,
    QUERY_SYNONYMS,
    SIZE_WORDS,
    words_of,
)

#: Levels of anchors the schema allows ("the cup on the table next to the window" needs 2).
SCHEMA_DEPTH = 2
#: ... in a description's parse: one, an anchor named with its attributes and no relations of its own (the
#: 1.5B model's nested anchors mostly repeated the outer relation; one level gained on both Nr3D halves
#: with 22 % fewer tokens: docs/benchmarks-history.md, session 37).
PARSE_DEPTH = 1
#: Most attribute words / relations per object in a reply.
MAX_ATTRIBUTES = 3
MAX_RELATIONS = 2
#: Longest description read (Nr3D's longest is 128 characters): a longer text is refused, not sent.
MAX_SENTENCE_CHARS = 500
#: Token budget of the reply (a two-level expression is ~80 tokens).
MAX_TOKENS = 220

SYSTEM_PROMPT = (
    "You turn a person's description of one object in a room into JSON.\n"
    "The described object is the one the description starts with: 'the X that is on the Y', 'the X "
    "near the Y' and 'X with a Y on it' describe an X; Y is an anchor. 'What is on the Y' and 'what is "
    "next to the Y' describe any object: category 'object', with the Y as anchor.\n"
    "category: the room category that names the object (choose from the room's list; a synonym means "
    "its category, e.g. couch -> sofa; 'object' when any object is meant, as in 'what is on the desk').\n"
    "attributes: colour, size (large, small, tall, short, long, wide, narrow) or material words said "
    "about the object itself, else [].\n"
    f"superlative: one of {', '.join(SUPERLATIVES)} if said about the object, else \"\".\n"
    "relations: every spatial relation said about the object, each with its anchor object(s) described "
    "the same way; [] if none. 'between' has two anchors, every other relation one.\n"
    f"Relation names: {', '.join(RELATION_NAMES)}.\n"
    "A description singles out one object, so 'near', 'close to', 'by', 'closest', 'nearest' mean "
    "'closest to'; 'far from', 'farthest', 'furthest' mean 'farthest from'. 'on', 'on top of', 'resting on' "
    "mean 'on'; 'with X on it' and 'holding X' mean 'supporting' X; 'over' means 'above'; 'under', "
    "'beneath', 'underneath' mean 'under'; 'in the middle / center of A and B' means 'between' A and B. "
    "Left / right / in front of / behind are kept as said, to the anchor named with them.\n"
    "Fields present only when the description can say them:\n"
    "position: where in the room: center, corner, wall (against a wall); 'not corner' etc. when the "
    "description says it is not there; else \"\".\n"
    f"order: its place among the objects of its own category: {', '.join(ORDERS)} ('the middle one', "
    "'the chair on the far left', 'second from the right', 'the end of the row'); else \"\". 'On the left' "
    "with no anchor is order 'left', not a relation.\n"
    "alone: true for 'by itself', 'lone', 'away from the others'.\n"
    "facing / back_to: the object the speaker stands facing ('facing the door', 'looking at the bed') or "
    "with their back to ('with your back to the window', 'as you enter the door'); else null.\n"
    "negated: true for a relation said with 'not'. count: how many anchors hold it ('with three "
    "computers under it': relation 'above', anchor computer, count 3); else 0.\n"
    "'with Y under it' means 'above' Y; 'with Y in front of it' means 'behind' Y.\n"
    "Example: \"the small white cup on the table next to the window\" -> "
    '{"category": "cup", "attributes": ["small", "white"], "superlative": "", "relations": '
    '[{"relation": "on", "anchors": [{"category": "table", "attributes": [], "superlative": "", '
    '"relations": [{"relation": "next to", "anchors": [{"category": "window", "attributes": [], '
    '"superlative": "", "relations": []}]}]}]}]}'
)


def expression_schema(vocab: SceneVocabulary, depth: int = SCHEMA_DEPTH, *,
                      any_object: bool = False, exact_between: bool = False,
                      optional_relations: bool = False, target: bool = True,
                      any_word: str = ANY_OBJECT) -> dict[str, Any]:
    """JSON schema of an :class:`ObjectRef` whose words are this scene's (anchors nested ``depth`` deep);
    ``any_object`` adds the category ``any_word`` to the target and "object" to its anchors and view (the
    lookup's "anything" at every level measured no gain: session 45); ``exact_between`` gives "between" its
    own branch with two anchors; ``optional_relations`` lets a reply leave out ``relations`` as it leaves out
    every other field it has no word for (no tokens for an empty field)."""
    cats = list(dict.fromkeys([*vocab.categories, any_word])) if any_object else list(vocab.categories)
    obj: dict[str, Any] = {
        "type": "object",
        "properties": {"category": {"type": "string", "enum": cats}},
        "required": ["category"],
        "additionalProperties": False,
    }
    fields = {"attributes": (vocab.attributes, {"type": "array", "maxItems": MAX_ATTRIBUTES, "items": {
                  "type": "string", "enum": list(vocab.attributes)}}),
              "superlative": (vocab.superlatives, {"type": "string", "enum": ["", *vocab.superlatives]})}
    for key, (said, schema) in fields.items():  # a field with no word here: left out (no tokens)
        if said:
            obj["properties"][key] = schema
            obj["required"].append(key)
    if target:  # the target's fields for the features the sentence's words can mean
        view = expression_schema(vocab, 0, any_object=any_object, target=False, any_word=ANY_OBJECT)
        negated = [f"not {p}" for p in POSITIONS] if "negation" in vocab.features else []
        _add_said(obj, vocab, {
            "position": ("position", {"type": "string", "enum": ["", *POSITIONS, *negated]}),
            "order": ("order", {"type": "string", "enum": ["", *ORDERS]}),
            "alone": ("alone", {"type": "boolean"}),
            **{key: ("view", {"anyOf": [{"type": "null"}, view]}) for key in ("facing", "back_to")}})
    if depth > 0 and vocab.relations:  # no relation word said: no relations (no invented anchor)
        anchor = expression_schema(vocab, depth - 1, any_object=any_object, exact_between=exact_between,
                                   optional_relations=optional_relations, target=False, any_word=ANY_OBJECT)
        if exact_between:
            one = [r for r in vocab.relations if r != "between"]
            items = [_relation_item(vocab, anchor, one, 1)] if one else []
            if "between" in vocab.relations:
                items.append(_relation_item(vocab, anchor, ["between"], 2))
        else:
            items = [_relation_item(vocab, anchor, list(vocab.relations), 0)]
        obj["properties"]["relations"] = {"type": "array", "maxItems": MAX_RELATIONS,
                                          "items": items[0] if len(items) == 1 else {"anyOf": items}}
        if not optional_relations:
            obj["required"].append("relations")
    return obj


def _relation_item(vocab: SceneVocabulary, anchor: dict[str, Any], names: list[str],
                   anchors: int) -> dict[str, Any]:
    """The schema of one relation among ``names`` with its ``anchors`` (0: one or two)."""
    item: dict[str, Any] = {
        "type": "object",
        "properties": {"relation": {"type": "string", "enum": names},
                       "anchors": {"type": "array", "items": anchor, "minItems": anchors or 1,
                                   "maxItems": anchors or 2}},
        "required": ["relation", "anchors"], "additionalProperties": False}
    _add_said(item, vocab, {"negated": ("negation", {"type": "boolean"}),
                            "count": ("count", {"type": "integer", "enum": list(range(MAX_COUNT + 1))})})
    return item


def _add_said(obj: dict[str, Any], vocab: SceneVocabulary, fields: dict[str, tuple[str, Any]]) -> None:
    """Each field (name -> its feature and schema) whose feature the sentence's words can mean, required."""
    for key, (feature, schema) in fields.items():
        if feature in vocab.features:
            obj["properties"][key] = schema
            obj["required"].append(key)


def synonym_hints(sentence: str, vocab: SceneVocabulary) -> list[str]:
    """"word = category" for the sentence's everyday words that name some of this scene's categories
    through the synonym or area tables ("couch = sofa")."""
    words = words_of(sentence)
    own = {c.lower() for c in vocab.categories}
    hints: list[str] = []
    for phrase in (" ".join(words[k:k + n]) for n in (2, 1) for k in range(len(words) - n + 1)):
        if phrase in own or not any(phrase in t for t in (QUERY_SYNONYMS, CANONICAL_CATEGORY, AREA_WORDS)):
            continue
        cats = vocab.map_word(phrase)
        if cats and not any(phrase in h for h in hints):
            hints.append(f"{phrase} = {' or '.join(cats[:3])}")
    return hints


def expression_messages(sentence: str, vocab: SceneVocabulary, *,
                        any_object: bool = True) -> list[dict[str, str]]:
    """The stable system prompt and a compact user message: the room's words, hints, the sentence."""
    anything = f"; or {ANY_OBJECT} (any object)" if any_object else ""
    lines = [f"Room categories: {', '.join(vocab.categories)}{anything}."]
    if own := [a for a in vocab.attributes if a not in SIZE_WORDS]:  # size words are in the system prompt
        lines.append(f"Colours and materials here: {', '.join(own)}.")
    if hints := synonym_hints(sentence, vocab):
        lines.append(f"Synonyms: {'; '.join(hints)}.")
    lines.append(f"Description: {sentence.strip()}")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(lines)}]


@dataclass
class ParsedExpression:
    """The expression (None when the reply could not be used), the replies it cost and the problem."""

    ref: ObjectRef | None
    replies: list[ChatReply] = field(default_factory=list)
    problem: str = ""
    raw: dict[str, Any] | None = None

    @property
    def calls(self) -> int:
        return len(self.replies)


def _normalised(data: dict[str, Any]) -> dict[str, Any]:
    """The reply with ``relations`` at every level; a relation but "between" with two anchors split in two."""
    out = dict(data)
    rels: list[dict[str, Any]] = []
    for r in [r for r in out.get("relations", []) if isinstance(r, dict)]:
        anchors = [_normalised(a) for a in r.get("anchors", []) if isinstance(a, dict)]
        name = " ".join(str(r.get("relation", "")).replace("_", " ").split())
        if not r.get("count"):  # 0: no count said
            r = {k: v for k, v in r.items() if k != "count"}
        groups = [[a] for a in anchors] if name != "between" and len(anchors) > 1 else [anchors]
        rels += [{**r, "anchors": g} for g in groups]
    out["relations"] = rels
    for key in ("facing", "back_to"):
        if isinstance(out.get(key), dict):
            out[key] = _normalised(out[key])
    return out


def offers_any_object(sentence: str, vocab: SceneVocabulary, words: SceneVocabulary) -> bool:
    """Whether the parse of ``sentence`` may say "object" (any object): it asks about an object it does not
    name, or its words narrow no category (``words``: ``vocab`` narrowed to the sentence)."""
    return asks_unnamed(sentence) or words.categories == vocab.categories


def parse_expression(model: ChatModel, sentence: str, vocab: SceneVocabulary) -> ParsedExpression:
    """One model call (a retry only when the reply is cut off or not JSON) -> a validated expression; a
    description longer than ``MAX_SENTENCE_CHARS`` is refused without a call."""
    calls = model if isinstance(model, Calls) else Calls(model)
    if len(sentence) > MAX_SENTENCE_CHARS:
        return ParsedExpression(None, [], f"description too long ({len(sentence)} characters, at most "
                                          f"{MAX_SENTENCE_CHARS}): describe one object in a sentence")
    words = vocab.narrowed(sentence)  # only what the sentence can mean: no invented colour, no other category
    any_object = offers_any_object(sentence, vocab, words)
    schema = expression_schema(words, PARSE_DEPTH, any_object=any_object, exact_between=True)
    messages = expression_messages(sentence, words, any_object=any_object)
    answer = calls.json(messages, schema, max_tokens=MAX_TOKENS, retries=1)
    if answer.data is None:
        return ParsedExpression(None, answer.replies, answer.problem or "no JSON reply")
    try:
        ref = ObjectRef.model_validate(_normalised(answer.data))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return ParsedExpression(None, answer.replies, f"invalid expression at {where}: {first.get('msg')}",
                                answer.data)
    return ParsedExpression(post_parse(ref, sentence, words, any_object=any_object), answer.replies, "",
                            answer.data)


def ground_description(model: ChatModel, sentence: str, vocab: SceneVocabulary,
                       graph: SceneGraph) -> tuple[ParsedExpression, Grounding | None]:
    """A description parsed (:func:`parse_expression`) and grounded (None when it could not be read); a
    tie the reading leaves is broken, where it can be, by an object the sentence names that the reading
    left out (:func:`~synergai.agent.grounding_fixes.named_nearby`)."""
    parsed = parse_expression(Calls(model).begin(sentence), sentence, vocab)
    if parsed.ref is None:
        return parsed, None
    found = ground(graph, parsed.ref)
    if found.tied > 1 and (nearby := named_nearby(parsed.ref, sentence, vocab)) is not None \
            and (fewer := ground(graph, nearby)).tied < found.tied:
        parsed.ref, found = nearby, fewer
    return parsed, found
