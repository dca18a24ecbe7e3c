"""Deterministic fixes of the model's referring expression, each kept because the Nr3D check half gained
with it (docs/benchmarks-history.md, sessions 31 and 37): a relation said back to the described object, an
order in its own group, a relation to its own kind, the size of the group (:func:`post_parse` applies
them); an object the sentence names and the reading left out, to break a tie (:func:`named_nearby`).
"""

from __future__ import annotations

from types import MappingProxyType

from synergai.scene.grounding import ObjectRef, SceneVocabulary
from synergai.scene.grounding.expression import MAX_COUNT, RelationRef
from synergai.scene.grounding.vocabulary import relations_said
from synergai.scene.vocabulary import (
    FEATURE_CUES,
    GROUP_WORDS,
    HAVING_WORDS,
    PAIR_WORDS,
    SIZE_WORDS,
    STACK_PLACES,
    STACK_WORDS,
    SUPERLATIVE_WORDS,
    WORD_TO_NUMBER,
    sentence_words,
    words_of,
)


def _last_mention(words: list[str], category: str, vocab: SceneVocabulary) -> int | None:
    """Index of the last word of the sentence's last phrase (1-2 words) naming ``category``."""
    return next((k for k in range(len(words) - 1, -1, -1) if any(
        category in vocab.map_word(" ".join(words[k - n + 1:k + 1])) for n in (1, 2) if k >= n - 1)), None)


#: A relation to an anchor of the target's own category, said of no object in particular, that means the
#: target's place in its group ("the chair on the left" written as "chair left of chair").
_OWN_GROUP_ORDER = MappingProxyType({"left of": "left", "right of": "right", "in front of": "front",
                                     "behind": "back", "between": "middle"})


def group_order(ref: ObjectRef) -> ObjectRef:
    """A relation to bare anchors of the target's own category ("chair left of chair") read as an order
    in its group when none is set, else dropped; an order repeating a relation's direction is dropped."""
    if ref.order is not None:
        # the order says it already: a left / right ... relation to its own category repeats it
        rest = [r for r in ref.relations if not (r.relation in _OWN_GROUP_ORDER and not r.negated and all(
            a.category == ref.category for a in r.anchors))]
        said = {_OWN_GROUP_ORDER[r.relation] for r in rest if r.relation in _OWN_GROUP_ORDER
                and any(a.category != ref.category for a in r.anchors)}
        return ref.model_copy(update={"order": None if ref.order in said else ref.order, "relations": rest})
    for k, r in enumerate(ref.relations):
        bare = all(_only_itself(a, ref.category) for a in r.anchors)
        if r.relation in _OWN_GROUP_ORDER and bare and not r.negated:
            rest = [x for j, x in enumerate(ref.relations) if j != k]
            return ref.model_copy(update={"order": _OWN_GROUP_ORDER[r.relation], "relations": rest})
    return ref


#: A relation -> its converse (A rel B  <=>  B converse A), for the relations a sentence says back to
#: the described object ("with a bag on it": the bag is on it, so it supports the bag).
_CONVERSE = MappingProxyType({"on": "supporting", "supporting": "on", "under": "above", "below": "above",
                              "lower than": "higher than", "above": "under", "higher than": "lower than",
                              "in front of": "behind", "behind": "in front of"})
#: Pronouns by which a clause says a relation back to the described object ("a lamp next to it").
_BACK_PRONOUNS = frozenset({"it", "them"})
#: Words before the pronoun read for the relation ("on top of it", "in front of it").
_BACK_PHRASE = 3


def reverse_back_relations(ref: ObjectRef, sentence: str, vocab: SceneVocabulary) -> ObjectRef:
    """A relation the sentence says back to the target ("the table with a bag on it") that the model wrote
    from the target ("table on bag") becomes its converse ("table supporting bag")."""
    words = sentence_words(sentence)
    rels = list(ref.relations)
    for k in [k for k, w in enumerate(words) if w in _BACK_PRONOUNS and k]:
        said = relations_said(" ".join(words[max(0, k - _BACK_PHRASE):k]))
        for j, r in enumerate(rels):
            at = _last_mention(words[:k], r.anchors[0].category, vocab)
            had = at is not None and bool(HAVING_WORDS & set(words[:at]))
            if r.relation in said and r.relation in _CONVERSE and len(r.anchors) == 1 and had:
                rels[j] = r.model_copy(update={"relation": _CONVERSE[r.relation]})
                break
    return ref if rels == list(ref.relations) else ref.model_copy(update={"relations": rels})


def _only_itself(anchor: ObjectRef, category: str) -> bool:
    """Whether an anchor names nothing but the target's own category (at every level)."""
    plain = anchor.model_copy(update={"relations": []}) == ObjectRef(category=anchor.category)
    return anchor.category == category and plain and all(
        _only_itself(a, category) for r in anchor.relations for a in r.anchors)


#: A vertical relation to its own kind: the one on top of the others ("the bin on top of the other bin")
#: is the highest of them, the one under them the lowest.
_STACKED = MappingProxyType({"on": "highest", "above": "highest", "supporting": "lowest", "under": "lowest",
                             "below": "lowest"})
_HEIGHTS = frozenset(_STACKED.values())


def drop_self_reference(ref: ObjectRef, sentence: str = "") -> ObjectRef:
    """The expression without relations whose anchors name only the target's own category ("door on
    door"); in a stack, vertical ones become its height among them (highest / lowest)."""
    rest = [r for r in ref.relations if not all(_only_itself(a, ref.category) for a in r.anchors)]
    if len(rest) == len(ref.relations):
        return ref
    stacked = {_STACKED[r.relation] for r in ref.relations if r.relation in _STACKED and not r.negated
               and r not in rest}
    words = sentence_words(sentence)
    said = bool(STACK_WORDS & set(words)) and not ref.alone  # apart: not on another
    # the place the sentence names wins over the relation the model wrote ("on the bottom of the stack")
    places = {p for w in words for p in [STACK_PLACES.get(w), SUPERLATIVE_WORDS.get(w)] if p in _HEIGHTS}
    stacked = places if len(places) == 1 else stacked
    top = next(iter(stacked)) if said and len(stacked) == 1 and ref.superlative is None else ref.superlative
    return ref.model_copy(update={"relations": rest, "superlative": top})


def _named_at(words: list[str], k: int, vocab: SceneVocabulary) -> tuple[int, set[str]] | None:
    """The length and categories of the phrase (1-3 words) naming a category from word ``k``, or None."""
    for m in (3, 2, 1):
        cats = vocab.map_word(" ".join(words[k:k + m])) if k + m <= len(words) else []
        if cats and (m == 1 or cats != vocab.map_word(" ".join(words[k + 1:k + m]))):
            return m, set(cats)
    return None


def _first_named(words: list[str], vocab: SceneVocabulary) -> tuple[int, set[str]] | None:
    """The first category phrase the words name: (its first word, its categories), or None."""
    return next(((k, named[1]) for k in range(len(words)) if (named := _named_at(words, k, vocab))), None)


#: Most words between a number and the noun it counts ("3 small white cups").
_NUMBER_REACH = 3


def group_size(ref: ObjectRef, sentence: str, vocab: SceneVocabulary) -> ObjectRef:
    """The size of the group an order or comparison is taken in, when said ("the middle of three cups")."""
    sizes = any(" ".join(words_of(w)) in SIZE_WORDS for w in ref.attributes)
    if not (ref.order or ref.superlative or sizes) or ref.group_size is not None:
        return ref
    words = sentence_words(sentence)
    for k, w in enumerate(words):
        n = 2 if w in PAIR_WORDS else int(w) if w.isdigit() else WORD_TO_NUMBER.get(w)  # "both", "3", "three"
        if n is None or not 2 <= n <= MAX_COUNT:
            continue
        grouped = k >= 2 and words[k - 1] == "of" and words[k - 2] in GROUP_WORDS | FEATURE_CUES["order"]
        named = _first_named(words[k + 1:], vocab)
        if grouped or (named is not None and named[0] < _NUMBER_REACH and ref.category in named[1]):
            others = k >= 1 and words[k - 1] == "other"  # "between the other two boxes": three in all
            return ref.model_copy(update={"group_size": n + 1 if others else n})
    return ref


def _categories(ref: ObjectRef) -> set[str]:
    """Every category an expression names (anchors and viewpoint included)."""
    return {ref.category}.union(*(_categories(p) for p in ref.parts()))


def named_nearby(ref: ObjectRef, sentence: str, vocab: SceneVocabulary) -> ObjectRef | None:
    """The expression "closest to" the first category the sentence names (through the vocabulary's words:
    "garbage can" names the recycling bin) and the expression leaves out ("the monitor on the floor
    closest to the window" read as "monitor on floor"), to break a tie the reading leaves; a phrase that
    names the described object's own category names no other ("box": not the tissue box). None when it
    leaves none out."""
    words, used = sentence_words(sentence), _categories(ref)
    first: dict[str, int] = {}  # each category the sentence names -> the word it is first named at
    for k, phrase in ((k, " ".join(words[k:k + n])) for k in range(len(words)) for n in (3, 2, 1)
                      if k + n <= len(words)):
        if ref.category not in (named := vocab.map_word(phrase)):
            first.update({c: k for c in named if c not in first})
    left = [c for c in first if c not in used]
    if not left:
        return None
    near = RelationRef(relation="closest to", anchors=[ObjectRef(category=min(left, key=first.__getitem__))])
    return ref.model_copy(update={"relations": [*ref.relations, near]})


def post_parse(ref: ObjectRef, sentence: str, words: SceneVocabulary, *,
               any_object: bool = False) -> ObjectRef:
    """The model's expression with the deterministic fixes applied. ``any_object``: the sentence asks about
    an object it does not name (no relation to the target's own kind is dropped then)."""
    fixed = group_order(reverse_back_relations(ref, sentence, words))
    if not any_object:
        fixed = drop_self_reference(fixed, sentence)
    return group_size(fixed, sentence, words)
