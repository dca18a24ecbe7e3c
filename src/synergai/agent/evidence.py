"""What a turn's observations hold for its answer: the object the question is about, and the categories
and colours the answer may name (the final answer's schema is built from them).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from synergai.agent.observation import Fact
from synergai.agent.question import Question
from synergai.scene.grounding.vocabulary import MIN_WORD, map_word_to
from synergai.scene.model import INVERSE, STRUCTURE_KINDS, WORDING, SceneGraph, SceneObject
from synergai.scene.vocabulary import (
    COLOR_NAMES,
    RELATION_CUES,
    RELATION_PREPOSITIONS,
    VERB_NOUNS,
    basic_color,
    plural,
    words_of,
)


def literal_at(words: Sequence[str], category: str) -> int | None:
    """Where the words name the category letter for letter (singular or plural); None if not."""
    return next((k for cat in (words_of(category), words_of(plural(category)))
                 for k in range(len(words) - len(cat) + 1) if list(words[k:k + len(cat)]) == cat), None)


def _position(words: list[str], category: str) -> int | None:
    """Where the question names the category (as written, singular, plural or by a synonym); None if not."""
    if (at := literal_at(words, category)) is not None:
        return at
    spans = ((k, words[k:k + n]) for n in (3, 2, 1) for k in range(len(words) - n + 1))
    return next((k for k, phrase in spans if not (len(phrase) == 1 and phrase[0] in VERB_NOUNS)
                 and all(len(w) >= MIN_WORD for w in phrase)  # "can I ..." names no trash can
                 and map_word_to(" ".join(phrase), [category])), None)


def _observed(graph: SceneGraph, facts: Sequence[Fact]) -> list[str]:
    """Every object the facts name, subjects before anchors, in order, once each."""
    return list(dict.fromkeys(o for f in facts for o in (*f.subjects, *f.anchors) if o in graph))


def named_at(graph: SceneGraph, oid: str, question: Question) -> int | None:
    """Which word of the question first names the object's category (:func:`_position`); None if none."""
    return _position(list(question.words), graph.get(oid).category) if oid in graph else None


def counted_at(question: Question, at: int | None) -> bool:
    """Whether the question's word ``at`` is what "how many" counts (at most two words after it: "how
    many brown chairs")."""
    words = list(question.words)
    start = next((k + 2 for k in range(len(words) - 1) if words[k:k + 2] == ["how", "many"]), None)
    return start is not None and at is not None and start <= at <= start + 2


def question_subject(graph: SceneGraph, facts: Sequence[Fact], question: Question) -> str | None:
    """The observed object the question is about: of those whose category it names, one of the
    category it names first, the first observed; None when it names none of them."""
    subjects = list(dict.fromkeys(o for f in facts for o in f.subjects if o in graph))
    at = _positions(graph, subjects, question)
    named = [(p, k, o) for k, o in enumerate(subjects) if (p := at[graph.get(o).category]) is not None]
    return min(named)[2] if named else None


def _positions(graph: SceneGraph, ids: Sequence[str], question: Question) -> dict[str, int | None]:
    """Where the question names each category of these objects (:func:`_position`), each category once."""
    words = list(question.words)
    return {c: _position(words, c) for c in dict.fromkeys(graph.get(o).category for o in ids)}


#: Words that put a relation into a question ("what is *on* the desk", "what is the towel hanging *on*").
_RELATION_WORDS = frozenset(w for name, cue in RELATION_CUES.items() if name != "supporting" for w in cue)
#: Relation wordings that read the same both ways.
_SYMMETRIC = frozenset(WORDING[r] for r, inverse in INVERSE.items() if inverse == r)
#: Words a question may end on when it asks for the anchor of a relation ("... close to?").
_TRAILING_WORDS = _RELATION_WORDS | RELATION_PREPOSITIONS


def asked_role(question: Question, named_at: int | None) -> str:
    """Which side of a relation a "what ..." question asks for: "subject" when a relation word comes
    before the first object it names ("what is *above* the counter"), "anchor" when it ends on one ("what is
    the towel hanging *on*"), "" otherwise; ``named_at``: where it first names an observed object."""
    words = list(question.words)
    if words[-2:-1] and words[-1] in ("what", "which") and words[-2] in _TRAILING_WORDS:
        words = words[:-1]  # "the door is to the left of what?"
    if words and words[-1] in _TRAILING_WORDS and named_at is not None and named_at < len(words) - 1:
        return "anchor"
    cue = next((k for k, w in enumerate(words) if w in _RELATION_WORDS), None)
    if cue is not None and named_at is not None and cue < named_at:
        return "subject"
    return ""


def evidence_categories(graph: SceneGraph, facts: Sequence[Fact], question: Question) -> list[str]:
    """The categories the answer to "what / which ..." may name: those observed, without the ones the
    question names, and only the asked side (:func:`asked_role`) of the facts relating objects it names;
    the room's shell (floor, wall, ceiling) only when nothing else is left ("what is under the painting"
    asks for an object); [] when nothing else was observed."""
    at = _positions(graph, _observed(graph, facts), question)
    other = [c for c, p in at.items() if p is None]
    role = asked_role(question, min((p for p in at.values() if p is not None), default=None))
    if role:
        pairs = [(f.subjects, f.anchors) for f in facts if f.wording]
        pairs += [(f.anchors, f.subjects) for f in facts if f.wording in _SYMMETRIC]  # "a near b": "b near a"
        sides = pairs if role == "subject" else [(answer, given) for given, answer in pairs]
        related = [graph.get(o).category for answer, given in sides if answer and given
                   and any(g in graph and graph.get(g).category not in other for g in given)
                   for o in answer if o in graph]
        other = [c for c in dict.fromkeys(related) if c in other] or other  # the asked side, when observed
    shell = {o.category for o in graph if o.kind in STRUCTURE_KINDS}
    return [c for c in other if c not in shell] or other


def evidence_colours(graph: SceneGraph, facts: Sequence[Fact], question: Question,
                     subject: Collection[str] = ()) -> list[str]:
    """The basic colour terms of the objects the question asks about, in the order observed: of its
    ``subject`` (the objects it names first; all of them when none was observed), never another object's;
    with no subject, of the observed objects it names, or of every observed one when it names none. []
    when none has a colour."""
    seen = _observed(graph, facts)
    at = _positions(graph, seen, question)
    named = ([o for o in seen if o in subject] or [o for o in subject if o in graph]) if subject else (
        [o for o in seen if at[graph.get(o).category] is not None] or seen)
    return list(dict.fromkeys(c for o in named for c in own_colours(graph.get(o))))


def own_colours(obj: SceneObject) -> list[str]:
    """The basic colour terms of an object's stored colour words, once each, in order."""
    words = (" ".join(words_of(a)) for a in obj.attributes)
    return list(dict.fromkeys(basic_color(w) for w in words if w in COLOR_NAMES))
