"""What a turn's observations hold for its answer: the object the question is about, and the categories
and colours the answer may name.

The final answer's schema is built from this evidence, so the model chooses among what it observed
("What is to the left of the oven?" can name the refrigerator the lookup returned, not a bed from
elsewhere in the room), and a place answer ("Where is the printer?") is read from the graph.
"""

from __future__ import annotations

from collections.abc import Sequence

from synergai.agent.observation import Fact
from synergai.scene.model import SceneGraph
from synergai.scene.vocabulary import COLOR_NAMES, color_family, plural, words_of


def _position(question_words: list[str], category: str) -> int | None:
    """Where the question names the category (singular or plural), or None."""
    for form in (category, plural(category)):
        cat = words_of(form)
        for k in range(len(question_words) - len(cat) + 1):
            if question_words[k:k + len(cat)] == cat:
                return k
    return None


def _observed(graph: SceneGraph, facts: Sequence[Fact]) -> list[str]:
    """Every object the facts name, subjects before anchors, in order, once each."""
    return list(dict.fromkeys(o for f in facts for o in (*f.subjects, *f.anchors) if o in graph))


def question_subject(graph: SceneGraph, facts: Sequence[Fact], question: str) -> str | None:
    """The observed object the question is about: of the observed objects whose category the question
    names, one of the category it names first, the first observed (the best-ranked match); None when the
    question names none of them."""
    words = words_of(question)
    subjects = list(dict.fromkeys(o for f in facts for o in f.subjects if o in graph))
    named = [(p, k, o) for k, o in enumerate(subjects)
             if (p := _position(words, graph.get(o).category)) is not None]
    return min(named)[2] if named else None


def evidence_categories(graph: SceneGraph, facts: Sequence[Fact], question: str) -> list[str]:
    """The categories the answer to "what / which ..." may name: those of the observed objects, in the
    order observed, without the ones the question itself names (the answer to "what is next to the bed"
    is not "bed") unless nothing else was observed. [] when nothing was observed."""
    words = words_of(question)
    cats = list(dict.fromkeys(graph.get(o).category for o in _observed(graph, facts)))
    other = [c for c in cats if _position(words, c) is None]
    return other or cats


def evidence_colours(graph: SceneGraph, facts: Sequence[Fact], question: str) -> list[str]:
    """The colours the answer may name: the basic colour terms ("brown" for "dark brown": a short answer
    says what people say, and ScanNet's captures darken shades) of the observed objects the question
    names (of every observed object when it names none of them), in the order observed. [] when none
    has a colour."""
    words = words_of(question)
    seen = _observed(graph, facts)
    named = [o for o in seen if _position(words, graph.get(o).category) is not None] or seen
    colours = [" ".join(words_of(a)) for o in named for a in graph.get(o).attributes]
    return list(dict.fromkeys(color_family(c) for c in colours if c in COLOR_NAMES))
