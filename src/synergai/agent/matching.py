"""Finding the objects a phrase refers to: categories, plurals, common synonyms, attribute words."""

from __future__ import annotations

import difflib
import itertools
import re

from synergai.scene.model import SceneGraph, SceneObject
from synergai.scene.vocabulary import COLOR_WORDS, QUERY_SYNONYMS, singular


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9 ]+", " ", text.lower()).strip()


def _phrase(text: str) -> str:
    return " ".join(singular(w) for w in _norm(text).split())


def _verbatim_words(phrase: str, cat: str) -> int:
    """How many words of a phrase name the category, written open or closed; 0 if not verbatim."""
    if f" {cat} " in f" {phrase} ":
        return len(cat.split())
    words = phrase.split()
    closed = cat.replace(" ", "")
    if closed in words:
        return 1
    return 2 if any(a + b == closed for a, b in itertools.pairwise(words)) else 0


def category_matches(query: str, category: str) -> bool:
    """Whether a query phrase names this category (whole words, plural-insensitive, synonyms)."""
    q, cat = _phrase(query), _phrase(category)
    words = q.split()
    # "chair" matches "office chair" / "arm chair" (the head noun), not the one word "armchair"
    return bool(cat) and (bool(_verbatim_words(q, cat)) or any(_phrase(alt) == cat for w in words
                                                               for alt in QUERY_SYNONYMS.get(w, ()))
                          or (cat.split()[-1] in words and len(cat.split()) > 1))


def spelling_fixed(graph: SceneGraph, query: str) -> str:
    """The query with each unknown word of 5+ letters replaced by a category word 85 % alike ("toobox")."""
    vocab = sorted({w for o in graph for w in _phrase(o.category).split()})
    known = set(vocab) | COLOR_WORDS | set(QUERY_SYNONYMS)
    words = []
    for w in _norm(query).split():
        one = singular(w)
        close = [] if len(w) < 5 or one in known else difflib.get_close_matches(one, vocab, n=1, cutoff=0.85)
        words.append(close[0] if close else w)
    return " ".join(words)


def find_objects(graph: SceneGraph, query: str, *, fix_spelling: bool = True) -> list[SceneObject]:
    """Objects the phrase names, narrowed by its colour / attribute words unless that removes every one;
    a phrase that names nothing is tried once more with its spelling fixed."""
    q = _norm(query)
    if direct := [o for o in graph if o.id == q.strip() or f"id {o.id}" in q]:
        return direct
    cands = [o for o in graph if category_matches(q, o.category)]
    if not cands:
        fixed = spelling_fixed(graph, q) if fix_spelling else q
        return find_objects(graph, fixed, fix_spelling=False) if fixed != q else []
    # prefer the most specific category named verbatim ("coffee table" over "table")
    named = {o.id: _verbatim_words(_phrase(q), _phrase(o.category)) for o in cands}
    if (longest := max(named.values())) > 1:
        cands = [o for o in cands if named[o.id] == longest]
    attr_words = {w for w in q.split() if w in COLOR_WORDS or w.endswith(("en", "ic", "al"))}
    attr_words -= {w for o in cands for w in _phrase(o.category).split()}
    narrowed = [o for o in cands if attr_words & {w for a in o.attributes for w in _norm(a).split()}]
    return narrowed or cands
