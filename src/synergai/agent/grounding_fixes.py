"""Deterministic fixes of the model's referring expression: the sentence's word order puts the model's
pieces where the sentence says them (which object is described, which sets the viewpoint, which noun an
attribute is said of); :func:`post_parse` applies them in order.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from types import MappingProxyType

from synergai.scene.grounding import RELATION_NAMES, ObjectRef, RelationRef, SceneVocabulary
from synergai.scene.grounding.expression import MAX_COUNT
from synergai.scene.grounding.vocabulary import relations_said
from synergai.scene.vocabulary import (
    ANY_OBJECT,
    FEATURE_CUES,
    GROUP_WORDS,
    HAVING_WORDS,
    OPPOSITE_WORDS,
    PAIR_WORDS,
    RELATION_SYNONYMS,
    SIZE_WORDS,
    STACK_PLACES,
    STACK_WORDS,
    STANDING_AT_WORDS,
    SUPERLATIVE_WORDS,
    WORD_TO_NUMBER,
    sentence_words,
    words_of,
)

#: Words that, before a description's first object, mean it does not start with the described object
#: ("next to the bed is a lamp", "on the desk, the cup").
_RELATION_WORDS = frozenset(w for phrase in (*RELATION_NAMES, *RELATION_SYNONYMS) for w in phrase.split()
                            if w not in ("of", "to", "from", "in", "with"))


def _first_mention(words: list[str], category: str, vocab: SceneVocabulary) -> int | None:
    """Index of the sentence's earliest phrase (1-3 words) that names ``category``."""
    return next((k for k in range(len(words)) for n in (3, 2, 1)
                 if k + n <= len(words) and category in vocab.map_word(" ".join(words[k:k + n]))), None)


def _last_mention(words: list[str], category: str, vocab: SceneVocabulary) -> int | None:
    """Index of the last word of the sentence's last phrase (1-2 words) naming ``category``."""
    return next((k for k in range(len(words) - 1, -1, -1) if any(
        category in vocab.map_word(" ".join(words[k - n + 1:k + 1])) for n in (1, 2) if k >= n - 1)), None)


def head_first(ref: ObjectRef, sentence: str, vocab: SceneVocabulary) -> ObjectRef:
    """The expression with its target and an anchor exchanged when the model swapped them ("trash can on
    towel" for "the towel that is over the trash can"): the sentence names the anchor first."""
    words = sentence_words(sentence)
    target_at = None if ref.category == ANY_OBJECT else _first_mention(words, ref.category, vocab)
    if target_at is None:
        return ref
    found = [(at, i) for i, rel in enumerate(ref.relations)  # (position, relation index)
             if len(rel.anchors) == 1 and rel.anchors[0].category not in (ANY_OBJECT, ref.category)
             and (at := _first_mention(words, rel.anchors[0].category, vocab)) is not None and at < target_at]
    if not found or any(w in _RELATION_WORDS for w in words[:min(found)[0]]):
        return ref
    i = min(found)[1]
    rel, anchor = ref.relations[i], ref.relations[i].anchors[0]
    old_target = ref.model_copy(update={"relations": [r for k, r in enumerate(ref.relations) if k != i]})
    return anchor.model_copy(update={"relations": [
        *anchor.relations, RelationRef(relation=rel.relation, anchors=[old_target])]})


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


def view_first(ref: ObjectRef, sentence: str, vocab: SceneVocabulary) -> ObjectRef:
    """A viewpoint object taken for the target put back as the viewpoint ("Facing the door, the cart on
    the far left"): the anchor named after the opening clause becomes the target."""
    head, comma, rest = sentence.partition(",")
    before, after = words_of(head), words_of(rest)
    if (not comma or not set(before) & FEATURE_CUES["view"] or ref.facing or ref.back_to
            or _first_mention(before, ref.category, vocab) is None
            or _first_mention(after, ref.category, vocab) is not None):
        return ref
    for k, r in enumerate(ref.relations):
        anchor = r.anchors[0]
        if len(r.anchors) == 1 and anchor.category != ref.category and _first_mention(
                after, anchor.category, vocab) is not None:
            viewed = ref.model_copy(update={"relations": [x for j, x in enumerate(ref.relations) if j != k]})
            key = "back_to" if set(before) & STANDING_AT_WORDS else "facing"
            return anchor.model_copy(update={key: viewed})
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


#: Words between "opposite" / "across" and the anchor they take ("across from the", "opposite of the").
_OPPOSITE_GAP = 3


def across_from(ref: ObjectRef, sentence: str, vocab: SceneVocabulary) -> ObjectRef:
    """A relation to an anchor the target is said to be across from ("opposite of") as "farthest from"."""
    words = sentence_words(sentence)
    rels = list(ref.relations)
    for j, r in enumerate(rels):
        at = _first_mention(words, r.anchors[0].category, vocab) if len(r.anchors) == 1 else None
        if at is not None and not r.negated and r.relation != "farthest from" \
                and OPPOSITE_WORDS & set(words[max(0, at - _OPPOSITE_GAP):at + 1]):
            rels[j] = r.model_copy(update={"relation": "farthest from"})
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


def _objects(ref: ObjectRef) -> list[ObjectRef]:
    """Every object of an expression: the target, its anchors at every level and its viewpoints."""
    below = [a for r in ref.relations for a in r.anchors]
    below += [v for v in (ref.facing, ref.back_to) if v is not None]
    return [ref, *(o for b in below for o in _objects(b))]


def _with_attributes(ref: ObjectRef, keep: Callable[[ObjectRef], list[str]]) -> ObjectRef:
    """The expression with each object's attributes replaced by ``keep(object)``, at every level."""
    rels = [r.model_copy(update={"anchors": [_with_attributes(a, keep) for a in r.anchors]})
            for r in ref.relations]
    views = {k: _with_attributes(v, keep) for k, v in (("facing", ref.facing), ("back_to", ref.back_to))
             if v is not None}
    return ref.model_copy(update={"attributes": keep(ref), "relations": rels, **views})


def _named_at(words: list[str], k: int, vocab: SceneVocabulary) -> tuple[int, set[str]] | None:
    """The length and categories of the phrase (1-3 words) naming a category from word ``k``, or None."""
    for m in (3, 2, 1):
        cats = vocab.map_word(" ".join(words[k:k + m])) if k + m <= len(words) else []
        if cats and (m == 1 or cats != vocab.map_word(" ".join(words[k + 1:k + m]))):
            return m, set(cats)
    return None


def _mentions(words: list[str], vocab: SceneVocabulary) -> list[tuple[int, int, set[str]]]:
    """The category phrases a sentence names, in order: (first word, end, categories)."""
    out: list[tuple[int, int, set[str]]] = []
    k = 0
    while k < len(words):
        named = _named_at(words, k, vocab)
        if named is not None:
            out.append((k, k + named[0], named[1]))
        k += named[0] if named else 1
    return out


def _said_before(words: list[str], attribute: str, vocab: SceneVocabulary) -> set[str] | None:
    """The categories of the noun an attribute word is said in front of ("the black door": door), or None."""
    said = words_of(attribute)
    n = len(said)
    end = next((k + n for k in range(len(words) - n + 1) if words[k:k + n] == said), len(words))
    joining = {"and", "or"} | {w for a in vocab.attributes for w in words_of(a)}
    noun = next((k for k in range(end, len(words)) if words[k] not in joining), None)
    named = _named_at(words, noun, vocab) if noun is not None else None
    return named[1] if named else None


def attributes_to_nouns(ref: ObjectRef, sentence: str, vocab: SceneVocabulary) -> ObjectRef:
    """Each attribute word kept only on the objects of the noun the sentence says it in front of."""
    words = sentence_words(sentence)
    objects = _objects(ref)
    owner = {a: cats for a in dict.fromkeys(x for o in objects for x in o.attributes)
             if (cats := _said_before(words, a, vocab)) and any(o.category in cats for o in objects)}
    if not owner:
        return ref
    return _with_attributes(ref, lambda o: [a for a in o.attributes
                                            if a not in owner or o.category in owner[a]])


def view_head(ref: ObjectRef, sentence: str, vocab: SceneVocabulary) -> ObjectRef:
    """The expression rebuilt around the object named after an opening viewpoint ("Facing the toilet,
    choose the towel second from the left") when the model made the viewpoint object the target; the old
    target becomes the viewpoint (and, named again later, an anchor too)."""
    words = sentence_words(sentence)
    clause = len(sentence_words(re.split(r"[,.;:]", sentence, maxsplit=1)[0]))
    named = _mentions(words, vocab)
    if clause < len(words):  # an opening clause: the viewpoint object in it, the described object after it
        inside = [m for m in named if m[1] <= clause]
        after = [m for m in named if m[0] >= clause]
        if not inside or not after:
            return ref
        view, head = inside[0], after[0]
    elif len(named) == 2:
        view, head = named
    else:
        return ref
    if (ref.category == ANY_OBJECT or ref.category not in view[2] or ref.category in head[2]
            or not set(words[:view[0]]) & FEATURE_CUES["view"]):
        return ref
    k = next((i for i, r in enumerate(ref.relations)
              if len(r.anchors) == 1 and r.anchors[0].category in head[2]), None)
    if k is not None:
        target, rest = ref.relations[k].anchors[0], [r for i, r in enumerate(ref.relations) if i != k]
    elif len(head[2]) == 1:
        target, rest = ObjectRef(category=next(iter(head[2]))), ref.relations
    else:
        return ref
    moved = {key: getattr(ref, key) for key in ("order", "position", "alone") if not getattr(target, key)}
    viewed = ref.model_copy(update={"relations": rest, "facing": None, "back_to": None,
                                    **{key: ObjectRef.model_fields[key].default for key in moved}})
    target = target.model_copy(update=moved)
    if k is not None and any(ref.category in m[2] for m in named if m[0] > head[0]):
        # the viewpoint object named again after the target is its anchor too ("facing the door, the chair
        # closest to the door")
        target = target.model_copy(update={"relations": [
            *target.relations, RelationRef(relation=ref.relations[k].relation, anchors=[viewed])]})
    if ref.facing is not None or ref.back_to is not None:  # the viewpoint is said already
        return target.model_copy(update={"facing": ref.facing, "back_to": ref.back_to})
    key = "back_to" if set(words[:view[1]]) & STANDING_AT_WORDS else "facing"
    return target.model_copy(update={key: viewed})


def named_head(ref: ObjectRef, sentence: str, vocab: SceneVocabulary) -> ObjectRef:
    """The expression rebuilt around the object the sentence names first when the model left it out
    ("toilet" for "the towel on the toilet"), related to the model's whole expression."""
    words = sentence_words(sentence)
    named = _mentions(words, vocab)
    if not named or ref.category == ANY_OBJECT or set(words[:named[0][0]]) & FEATURE_CUES["view"]:
        return ref
    _, end, head = named[0]
    if len(head) != 1 or head & {o.category for o in _objects(ref)}:
        return ref
    at = next((m[0] for m in named[1:] if ref.category in m[2]), None)
    if at is None or words[at - 1] in ("this", "that"):
        return ref
    # the one relation the words between the two objects mean, or a preferred one of several ("by" also
    # cues near / beside; "hanging on" is a kind of "on")
    said = relations_said(" ".join(words[end:at]), vocab.relations)
    relation = next((p for p in ("closest to", "on") if p in said), said[0] if len(said) == 1 else None)
    if relation is None or relation == "between":
        return ref
    return ObjectRef(category=next(iter(head)), relations=[RelationRef(relation=relation, anchors=[ref])])


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
        named = next(iter(_mentions(words[k + 1:], vocab)), None)
        if grouped or (named is not None and named[0] < _NUMBER_REACH and ref.category in named[2]):
            others = k >= 1 and words[k - 1] == "other"  # "between the other two boxes": three in all
            return ref.model_copy(update={"group_size": n + 1 if others else n})
    return ref


def post_parse(ref: ObjectRef, sentence: str, words: SceneVocabulary, *,
               any_object: bool = False) -> tuple[ObjectRef, bool]:
    """The model's expression with the deterministic fixes applied, and whether the target was changed
    for another object. ``any_object``: the sentence asks about an object it does not name."""
    fixed = head_first(ref, sentence, words)
    if "view" in words.features:
        fixed = view_head(view_first(fixed, sentence, words), sentence, words)
    reordered = fixed is not ref
    fixed = group_order(across_from(reverse_back_relations(fixed, sentence, words), sentence, words))
    if not any_object:
        dropped = drop_self_reference(fixed, sentence)
        fixed = named_head(dropped, sentence, words)
        reordered = reordered or fixed is not dropped
    return attributes_to_nouns(group_size(fixed, sentence, words), sentence, words), reordered
