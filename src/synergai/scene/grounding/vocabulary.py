"""A scene's vocabulary: the categories, attribute words and relation names a query may use, and the
mapping of a person's word ("couch", "bin", "telly") onto the categories this scene holds.

JSON schemas for a model's referring expressions take their enums from here, so a model cannot name
what the scene does not hold. Words come from :mod:`synergai.scene.vocabulary` (synonyms, plural forms,
colour and size words); spelling slips are caught by a close-match search over the scene's categories.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from synergai.scene.attributes import color_name
from synergai.scene.grounding.expression import RELATION_NAMES, SUPERLATIVES
from synergai.scene.model import SceneGraph
from synergai.scene.verification import normalize_category
from synergai.scene.vocabulary import (
    COLOR_NAMES,
    MATERIAL_WORDS,
    QUERY_SYNONYMS,
    SHAPE_WORDS,
    SIZE_WORDS,
    color_agreement,
    words_of,
)

#: Minimum spelling similarity (difflib ratio) for a word to stand for a scene category.
SPELLING_CUTOFF = 0.8
#: How many nearest categories a "there is no X" message offers.
NEAREST_SHOWN = 3


def _synonym_forms(word: str) -> list[str]:
    """The word's normalised form and those of its synonyms ("bin" -> "trash can", "recycling bin" ...)."""
    raw = " ".join(words_of(word))
    keys = [raw, normalize_category(raw)]
    out = [normalize_category(raw)]
    for k in keys:
        out += [normalize_category(s) for s in QUERY_SYNONYMS.get(k, ())]
    return list(dict.fromkeys(out))


def map_word_to(word: str, categories: list[str]) -> list[str]:
    """The categories (of ``categories``) that ``word`` names, best tier only:

    0. the same category, letter for letter (case and spacing aside): a word taken from the scene's
       enum names exactly that category even where synonym folding would merge two labels
       ("kitchen cabinet" and "kitchen cabinets", "board" and "whiteboard");
    1. the same category after singular forms and synonym folding ("sofas" -> "sofa", "telly" -> "tv");
    2. a category a synonym names ("bin" -> "trash can", "recycling bin");
    3. categories sharing the word's head noun ("chair" -> "office chair"; "coffee table" -> "table");
    4. close spellings ("chiar" -> "chair").
    An empty list when none fits.
    """
    literal = " ".join(word.lower().split())
    same = [c for c in categories if " ".join(c.lower().split()) == literal]
    if same:
        return same
    norm = {c: normalize_category(c) for c in categories}
    target = normalize_category(" ".join(words_of(word)))
    if not target:
        return []
    exact = [c for c in categories if norm[c] == target]
    if exact:
        return exact
    forms = set(_synonym_forms(word))
    syn = [c for c in categories if norm[c] in forms]
    if syn:
        return syn
    head = target.split()[-1]
    heads = [c for c in categories if norm[c].split() and (norm[c].split()[-1] == head or norm[c] == head)]
    if heads:
        return heads
    close = difflib.get_close_matches(target, list(dict.fromkeys(norm.values())), n=NEAREST_SHOWN,
                                      cutoff=SPELLING_CUTOFF)
    return [c for c in categories if norm[c] in close]


def nearest_categories(word: str, categories: list[str], n: int = NEAREST_SHOWN) -> list[str]:
    """The ``n`` categories most like ``word`` (shared words first, then spelling), for "did you mean"."""
    target = normalize_category(" ".join(words_of(word)))
    tw = set(target.split()) | {w for f in _synonym_forms(word) for w in f.split()}

    def likeness(c: str) -> float:
        nc = normalize_category(c)
        shared = len(tw & set(nc.split()))
        return shared + difflib.SequenceMatcher(None, target, nc).ratio()

    return sorted(dict.fromkeys(categories), key=lambda c: (-likeness(c), c))[:n]


@dataclass(frozen=True)
class SceneVocabulary:
    """What a query about one scene may name."""

    categories: tuple[str, ...]
    attributes: tuple[str, ...]
    relations: tuple[str, ...] = RELATION_NAMES
    superlatives: tuple[str, ...] = SUPERLATIVES

    def map_word(self, word: str) -> list[str]:
        """The scene's categories that a person's word names (see :func:`map_word_to`)."""
        return map_word_to(word, list(self.categories))

    def nearest(self, word: str, n: int = NEAREST_SHOWN) -> list[str]:
        """The scene's categories most like ``word``."""
        return nearest_categories(word, list(self.categories), n)


def scene_vocabulary(graph: SceneGraph) -> SceneVocabulary:
    """The categories present (sorted, distinct), the attribute words present (colour names of the
    objects' colours and the names a person would accept for them, stored attribute words, the size
    words) and the relation names."""
    cats = sorted({o.category for o in graph})
    attrs: set[str] = set(SIZE_WORDS)
    for o in graph:
        if o.color is not None:
            attrs.add(color_name(o.color))
        for a in o.attributes:
            a = " ".join(words_of(a))
            if a in COLOR_NAMES or a in MATERIAL_WORDS or a in SHAPE_WORDS or a in SIZE_WORDS:
                attrs.add(a)
    present = [c for c in attrs if c in COLOR_NAMES]
    attrs |= {c for c in COLOR_NAMES if any(color_agreement(c, p) > 0 for p in present)}
    return SceneVocabulary(categories=tuple(cats), attributes=tuple(sorted(attrs)))
