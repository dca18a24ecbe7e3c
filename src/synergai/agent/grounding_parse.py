"""A person's description of one object -> a typed referring expression, by ONE model call.

The reply is JSON under a schema whose category, attribute and relation fields are enums built from
the scene (:func:`~synergai.scene.grounding.scene_vocabulary`), so the model cannot name what the scene
does not hold. The system prompt is the same for every scene and sentence (its KV cache is reused);
the user message carries the scene's words and the sentence. No wording is parsed here: the model
reads the sentence; the graph (:func:`~synergai.scene.grounding.ground`) does the reasoning.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from synergai.llm.base import ChatModel, ChatReply
from synergai.llm.json_reply import ask_json
from synergai.scene.grounding import RELATION_NAMES, SUPERLATIVES, ObjectRef, SceneVocabulary
from synergai.scene.vocabulary import CANONICAL_CATEGORY, QUERY_SYNONYMS, words_of

#: Levels of anchors the schema allows ("the cup on the table next to the window" needs 2).
SCHEMA_DEPTH = 2
#: Most attribute words / relations per object in a reply.
MAX_ATTRIBUTES = 3
MAX_RELATIONS = 2
#: Token budget of the reply (a two-level expression is ~80 tokens).
MAX_TOKENS = 220

SYSTEM_PROMPT = (
    "You turn a person's description of one object in a room into JSON.\n"
    "category: the room category that names the object (choose from the room's list; a synonym means "
    "its category, e.g. couch -> sofa).\n"
    "attributes: colour, size or material words said about the object itself, else [].\n"
    f"superlative: one of {', '.join(SUPERLATIVES)} if said about the object, else \"\".\n"
    "relations: every spatial relation said about the object, each with its anchor object(s) described "
    "the same way; [] if none. 'between' has two anchors, every other relation one.\n"
    f"Relation names: {', '.join(RELATION_NAMES)}.\n"
    "Use 'closest to' for closest / nearest, 'farthest from' for farthest / furthest, 'on' for on / "
    "on top of / resting on, 'supporting' when the object holds the anchor up, 'under' for under / "
    "beneath.\n"
    "Example: \"the small white cup on the table next to the window\" -> "
    '{"category": "cup", "attributes": ["small", "white"], "superlative": "", "relations": '
    '[{"relation": "on", "anchors": [{"category": "table", "attributes": [], "superlative": "", '
    '"relations": [{"relation": "next to", "anchors": [{"category": "window", "attributes": [], '
    '"superlative": "", "relations": []}]}]}]}]}'
)


def expression_schema(vocab: SceneVocabulary, depth: int = SCHEMA_DEPTH) -> dict[str, Any]:
    """JSON schema of an :class:`ObjectRef` whose words are this scene's (anchors nested ``depth`` deep)."""
    obj: dict[str, Any] = {
        "type": "object",
        "properties": {
            "category": {"type": "string", "enum": list(vocab.categories)},
            "attributes": {"type": "array", "items": {"type": "string", "enum": list(vocab.attributes)},
                           "maxItems": MAX_ATTRIBUTES},
            "superlative": {"type": "string", "enum": ["", *SUPERLATIVES]},
        },
        "required": ["category", "attributes", "superlative"],
        "additionalProperties": False,
    }
    if depth > 0:
        anchor = expression_schema(vocab, depth - 1)
        obj["properties"]["relations"] = {
            "type": "array", "maxItems": MAX_RELATIONS,
            "items": {
                "type": "object",
                "properties": {
                    "relation": {"type": "string", "enum": list(RELATION_NAMES)},
                    "anchors": {"type": "array", "items": anchor, "minItems": 1, "maxItems": 2},
                },
                "required": ["relation", "anchors"],
                "additionalProperties": False,
            },
        }
        obj["required"].append("relations")
    return obj


def synonym_hints(sentence: str, vocab: SceneVocabulary) -> list[str]:
    """"word = category" for the sentence's everyday words that are not this scene's categories but
    name some of them through the synonym table ("couch = sofa", "bin = trash can")."""
    words = words_of(sentence)
    own = {c.lower() for c in vocab.categories}
    hints: list[str] = []
    for n in (2, 1):
        for k in range(len(words) - n + 1):
            phrase = " ".join(words[k:k + n])
            if phrase in own or (phrase not in QUERY_SYNONYMS and phrase not in CANONICAL_CATEGORY):
                continue
            cats = vocab.map_word(phrase)
            if cats and not any(phrase in h for h in hints):
                hints.append(f"{phrase} = {' or '.join(cats[:3])}")
    return hints


def expression_messages(sentence: str, vocab: SceneVocabulary) -> list[dict[str, str]]:
    """The system prompt (stable) and a compact user message: the room's words, hints, the sentence."""
    lines = [f"Room categories: {', '.join(vocab.categories)}.",
             f"Attribute words: {', '.join(vocab.attributes)}."]
    hints = synonym_hints(sentence, vocab)
    if hints:
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


def _drop_blank_relations(data: dict[str, Any]) -> dict[str, Any]:
    """The reply without keys the model may leave empty (a depth-0 anchor has no ``relations``)."""
    out = dict(data)
    out["relations"] = [
        {**r, "anchors": [_drop_blank_relations(a) for a in r.get("anchors", []) if isinstance(a, dict)]}
        for r in out.get("relations", []) if isinstance(r, dict)
    ]
    return out


def parse_expression(model: ChatModel, sentence: str, vocab: SceneVocabulary, *,
                     max_tokens: int = MAX_TOKENS, retries: int = 1) -> ParsedExpression:
    """One model call (a retry only when the reply is cut off or not JSON) -> a validated expression."""
    answer = ask_json(model, expression_messages(sentence, vocab), expression_schema(vocab),
                      max_tokens=max_tokens, retries=retries)
    if answer.data is None:
        return ParsedExpression(None, answer.replies, answer.problem or "no JSON reply")
    try:
        ref = ObjectRef.model_validate(_drop_blank_relations(answer.data))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return ParsedExpression(None, answer.replies, f"invalid expression at {where}: {first.get('msg')}",
                                answer.data)
    return ParsedExpression(ref, answer.replies, "", answer.data)

