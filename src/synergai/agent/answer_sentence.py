"""The sentence answer, composed from the typed short answer and the facts the tools observed (no
generated tokens, never an error text).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from synergai.agent.answer_forms import AnswerForm, render_answer
from synergai.agent.evidence import counted_at, named_at
from synergai.agent.observation import Fact
from synergai.agent.question import Question
from synergai.scene.edits import EdgeChange, EditRequest, ObjectChange
from synergai.scene.model import WORDING, SceneGraph, SceneObject
from synergai.scene.vocabulary import MATERIAL_WORDS, basic_color, plural, words_of

#: Relation sentences one answer states at most.
MAX_SENTENCES = 2


@dataclass(frozen=True)
class ComposedAnswer:
    """A sentence, its short answer and the objects it is about ('' sentence: nothing to compose from)."""

    sentence: str
    short: str
    ids: tuple[str, ...]


def listed(items: Sequence[str]) -> str:
    """ "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _names(graph: SceneGraph, ids: Sequence[str]) -> str:
    """ "the laptop and the remote control"; repeated names are counted ("2 chairs")."""
    counts = Counter(graph.get(oid).name if oid in graph else oid for oid in ids)
    return listed([f"the {n}" if c == 1 else f"{c} {plural(n)}" for n, c in counts.items()])


def kind_phrase(obj: SceneObject) -> str:
    """What kind of thing an object is: its basic colour, material and name ("brown wooden table")."""
    colour = next((c for a in obj.attributes if (c := basic_color(a))), "")
    material = next((a for a in obj.attributes if a in MATERIAL_WORDS), "")
    return " ".join(w for w in (colour, material, obj.name) if w)


def fact_sentence(graph: SceneGraph, fact: Fact) -> str:
    """One fact as a sentence: "The laptop and the remote control are on the coffee table."."""
    subj = _names(graph, fact.subjects)
    many = len(fact.subjects) > 1 or not subj.startswith("the ")
    if not fact.wording:
        return f"There {'are' if many else 'is'} {subj}.".replace("There is the ", "There is a ")
    text = f"{subj} {'are' if many else 'is'} {fact.wording} {_names(graph, fact.anchors)}."
    return text[0].upper() + text[1:]


def _merged(facts: Sequence[Fact]) -> list[Fact]:
    """Facts with the same wording joined by anchors, then by subjects; in order."""
    by_anchors: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for f in facts:
        by_anchors.setdefault((f.wording, f.anchors), []).extend(f.subjects)
    by_subjects: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for (wording, anchors), subjects in by_anchors.items():
        by_subjects.setdefault((wording, tuple(dict.fromkeys(subjects))), []).extend(anchors)
    return [Fact(subjects, wording, tuple(dict.fromkeys(anchors)))
            for (wording, subjects), anchors in by_subjects.items()]


def _stated(graph: SceneGraph, facts: Sequence[Fact]) -> tuple[str, list[Fact]]:
    """The differing sentences of the first ``MAX_SENTENCES`` merged facts, and those facts."""
    texts: dict[str, Fact] = {}
    for f in _merged(facts):
        texts.setdefault(fact_sentence(graph, f), f)
        if len(texts) == MAX_SENTENCES:
            break
    return " ".join(texts), list(texts.values())


def _mentions(graph: SceneGraph, ids: Sequence[str], category: str) -> bool:
    want = " ".join(words_of(category))
    return any(" ".join(words_of(graph.get(o).category)) == want for o in ids if o in graph)


def count_sentence(n: int, name: str, then: str = "") -> str:
    """ "There are 2 chairs." (``then`` goes before the full stop)"""
    return f"There {'is' if n == 1 else 'are'} {n} {name if n == 1 else plural(name)}{then}."


def compose_answer(graph: SceneGraph, form: AnswerForm, value: Any, facts: Sequence[Fact],
                   question: Question | None = None) -> ComposedAnswer:
    """The sentence for a typed value, from the observed facts ('' for a free phrase or a misfit)."""
    short = render_answer(form, value)
    if not short or form is AnswerForm.PHRASE:
        return ComposedAnswer("", short, ())
    related = list(dict.fromkeys(f for f in facts if f.wording and f.subjects and f.anchors))
    plain = [f for f in facts if not f.wording and f.subjects]
    if form in (AnswerForm.YES_NO, AnswerForm.DIRECTION):
        side = form is AnswerForm.DIRECTION and short in ("left", "right")
        return ComposedAnswer(f"To the {short}." if side else f"{short.capitalize()}.", short, ())
    if form is AnswerForm.NUMBER:
        ids = plain[-1].subjects if plain else ()
        cats = {graph.get(o).category for o in ids if o in graph}
        # the category is named only when it is what "how many" counts (not "how many legs has the bed")
        if len(cats) == 1 and short.isdigit() and (
                question is None or counted_at(question, named_at(graph, ids[0], question))):
            return ComposedAnswer(count_sentence(int(short), cats.pop()), short, ids)
        return ComposedAnswer(f"I count {short}.", short, ids)
    if form is AnswerForm.COLOR:
        subjects = [o for f in facts for o in f.subjects if o in graph]
        seen = list(dict.fromkeys([*subjects, *(o for f in facts for o in f.ids if o in graph)]))
        coloured = [o for o in seen if short in {basic_color(a) for a in graph.get(o).attributes}]
        # what the facts are about (not their anchors), and of those what the question names
        coloured = [o for o in coloured if o in subjects] or coloured
        said = f" {' '.join(question.words if question else ())} "
        coloured = [o for o in coloured if any(f" {' '.join(words_of(c))} " in said for c in (
            graph.get(o).category, plural(graph.get(o).category)))] or coloured
        if coloured:
            text = f"{_names(graph, coloured)} {'are' if len(coloured) > 1 else 'is'} {short}."
            return ComposedAnswer(text[0].upper() + text[1:], short, tuple(coloured))
        return ComposedAnswer(f"It is {short}.", short, ())
    if form is AnswerForm.PLACE and isinstance(value, Mapping):
        about = [f for f in related if _mentions(graph, f.anchors, str(value.get("anchor", "")))]
        if about:
            text, chosen = _stated(graph, about)
            return ComposedAnswer(text, short, tuple(dict.fromkeys(o for f in chosen for o in f.ids)))
        return ComposedAnswer(f"It is {short}.", short, ())
    # a category of the scene (or a place given as text): the facts that name it, in full
    about = [f for f in related if _mentions(graph, f.subjects, short)] or \
        [f for f in related if _mentions(graph, f.ids, short)]
    if about:
        text, chosen = _stated(graph, about)
        return ComposedAnswer(text, short, tuple(dict.fromkeys(o for f in chosen for o in f.subjects)))
    matches = [o for f in plain for o in f.subjects if o in graph and _mentions(graph, (o,), short)]
    if matches:
        return ComposedAnswer(fact_sentence(graph, Fact(tuple(dict.fromkeys(matches)))), short,
                              tuple(dict.fromkeys(matches)))
    return ComposedAnswer(f"It is the {short}.", short, ())


def copies_error(answer: str, errors: Iterable[str], run: int = 4) -> bool:
    """Whether the answer repeats ``run`` consecutive words of an error observation."""
    words = words_of(answer)
    grams = {tuple(words[i:i + run]) for i in range(len(words) - run + 1)}
    return any(tuple(e[i:i + run]) in grams for e in map(words_of, errors) for i in range(len(e) - run + 1))


#: A correction's reply in plain words when it made no edit.
NOTHING_CHANGED = "I did not change the scene."
#: ... and for an edit with no sentence of its own (an object added, removed or merged).
CHANGED = "I updated the scene as you said."


def edits_sentence(graph: SceneGraph, requests: Sequence[EditRequest]) -> str:
    """A correction's edits in plain words ("The bag is now called clothes."), said in place of a reply
    that quoted the tools' text; ``graph`` names the objects of a relation."""
    said: list[str] = []
    for change in (c for r in requests for c in r.changes):
        if isinstance(change, EdgeChange):
            s, o = (graph.get(i).name if i in graph else "object" for i in (change.edge.subject,
                                                                            change.edge.object))
            verb = "now" if change.added else "no longer"
            said.append(f"The {s} is {verb} {WORDING[change.edge.relation]} the {o}.")
            continue
        b, a = (change.before, change.after) if isinstance(change, ObjectChange) else (None, None)
        if b is None or a is None or (b.category, b.attributes) == (a.category, a.attributes):
            said.append(CHANGED)
            continue
        if b.category != a.category:
            said.append(f"The {b.name} is now called {a.name}.")
        if b.attributes != a.attributes:
            said.append(f"The {a.name} is now {' and '.join(a.attributes)}." if a.attributes else
                        f"The {a.name} has no attributes now.")
    return " ".join(dict.fromkeys(said)) or NOTHING_CHANGED
