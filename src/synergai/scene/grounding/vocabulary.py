"""A scene's vocabulary: the categories, attribute words and relation names a query may use, and the
mapping of a person's word ("couch", "bin", "telly") onto the categories this scene holds.

JSON schemas for a model's referring expressions take their enums from here, so a model cannot name
what the scene does not hold. Words come from :mod:`synergai.scene.vocabulary` (synonyms, plural forms,
colour and size words); spelling slips are caught by a close-match search over the scene's categories.

A sentence-embedding fallback (the packaged all-MiniLM-L6-v2, ``benchmarks/bench_vocabulary.py``) was
measured and not adopted: on 106 ScanQA dev answers that name an object by another word than its label,
this table maps 46 % to the label (21 % to another category); MiniLM alone 45 % (27 % wrong) at cosine
0.5; the table with MiniLM as fallback 47-50 % (22-26 % wrong) -- a few points, for torch and
sentence-transformers (from PyPI: torch with its CUDA wheels) in the install and a model load per process.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from synergai.scene.attributes import color_name
from synergai.scene.grounding.expression import RELATION_NAMES, SUPERLATIVES
from synergai.scene.model import SceneGraph
from synergai.scene.verification import normalize_category
from synergai.scene.vocabulary import (
    AREA_WORDS,
    CANONICAL_CATEGORY,
    COLOR_ALIASES,
    COLOR_NAMES,
    COLOR_WORDS,
    FEATURE_CUES,
    MATERIAL_WORDS,
    NOUN_MARKERS,
    QUERY_SYNONYMS,
    RELATION_CUES,
    RELATION_PHRASES,
    SHAPE_WORDS,
    SIZE_WORDS,
    SUPERLATIVE_WORDS,
    VERB_NOUNS,
    WORD_TO_NUMBER,
    color_agreement,
    sentence_words,
    singular,
    words_of,
)

#: Minimum spelling similarity (difflib ratio) for a word to stand for a scene category.
SPELLING_CUTOFF = 0.8
#: Shortest word that may name a category in a sentence ("a", "of", "to" never do).
MIN_WORD = 3
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


def map_word_to(word: str, categories: list[str], *, areas: bool = False) -> list[str]:
    """The categories (of ``categories``) that ``word`` names, best tier only:

    0. the same category, letter for letter (case and spacing aside): a word taken from the scene's
       enum names exactly that category even where synonym folding would merge two labels
       ("kitchen cabinet" and "kitchen cabinets", "board" and "whiteboard");
    1. the same category after singular forms and synonym folding ("sofas" -> "sofa", "telly" -> "tv"),
       a compound spelt with or without its space ("arm chair" -> "armchair");
    2. a category a synonym names ("bin" -> "trash can", "recycling bin");
    3. categories sharing the word's head noun, or that the words end with ("chair" -> "office chair";
       "coffee table" -> "table"; "wooden nightstand" -> "nightstand"); not a one-word compound that
       ends with the word ("pack my cello" is no backpack);
    4. with ``areas`` (reading a sentence, not resolving an expression), the categories that make a part
       of a home the word names (``AREA_WORDS``: "bathroom" -> "toilet", "sink"; "entrance" -> "door");
    5. close spellings ("chiar" -> "chair").
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
    joined = target.replace(" ", "")  # "arm chair" and "armchair" are one word spelt two ways
    exact = [c for c in categories if norm[c].replace(" ", "") == joined]
    if exact:
        return exact
    forms = set(_synonym_forms(word))
    syn = [c for c in categories if norm[c] in forms]
    if syn:
        return syn
    raw = {c: " ".join(words_of(c)) for c in categories}
    said = " ".join(words_of(word))
    head = target.split()[-1]
    heads = [c for c in categories if norm[c] and (norm[c].split()[-1] == head
                                                   or f" {target}".endswith(f" {norm[c]}")
                                                   or f" {said}".endswith(f" {raw[c]}"))]
    if heads:
        return heads
    area = [normalize_category(a) for a in AREA_WORDS.get(said, AREA_WORDS.get(target, ()))] if areas else []
    places = sorted((c for c in categories if norm[c] in area), key=lambda c: area.index(norm[c]))
    if places:  # in the table's order: what makes the place most
        return places
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


def relation_words(sentence: str) -> list[str]:
    """A sentence's words with ``RELATION_PHRASES`` read ("on the left of" -> "left"), in order: the words
    ``RELATION_CUES`` are matched against."""
    text = f" {' '.join(words_of(sentence))} "
    for pattern, replacement in RELATION_PHRASES:
        text = re.sub(pattern, replacement, text)
    return text.split()


def relations_said(sentence: str, names: tuple[str, ...] = RELATION_NAMES) -> tuple[str, ...]:
    """The relation names (of ``names``) a sentence's words can mean ("the bag on the right of the desk"
    -> "right of"; "in the middle of A and B" -> "between"); () when it says none of their words."""
    said = set(relation_words(sentence))
    return tuple(n for n in names if RELATION_CUES.get(n, frozenset()) & said)


#: Features of an expression beyond category, attributes, superlative and relations, each offered to a
#: model only when a sentence's words can mean it: a room position, an order within the group,
#: isolation, a viewpoint, a negated clause, a count of anchors.
FEATURES: tuple[str, ...] = ("position", "order", "alone", "view", "negation", "count")


#: Direction words that take an anchor when "of" follows ("on the left side of it", "to the right of the
#: desk"): then a relation, not an order in the group ("the chair on the left").
_DIRECTIONS = frozenset({"left", "right", "front", "back"})
_BEFORE_OF = frozenset({"side", "hand", "handside"})


def features_said(sentence: str, categories: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The :data:`FEATURES` a sentence's words can mean (``FEATURE_CUES``; a count needs a number). Words
    of a category said ("end table") are not cues, nor a direction word that "of" follows (it takes an
    anchor: "on the left side of it")."""
    text = f" {' '.join(words_of(sentence))} "
    for c in sorted(categories, key=len, reverse=True):
        name = " ".join(words_of(c))
        if " " in name:  # a one-word category ("middle"?) keeps its word
            text = text.replace(f" {name} ", " ")
    seq = text.split()

    def takes_anchor(k: int) -> bool:  # "left of", "left side of", "left hand side of"
        rest = [x for x in seq[k + 1:k + 4] if x not in _BEFORE_OF]
        return seq[k] in _DIRECTIONS and rest[:1] == ["of"]

    words = {w for k, w in enumerate(seq) if not takes_anchor(k)}
    said = [f for f in FEATURES if FEATURE_CUES.get(f, frozenset()) & words]
    if any((w in WORD_TO_NUMBER and WORD_TO_NUMBER[w] > 1) or w.isdigit() for w in words):  # not "the one"
        said.append("count")
    return tuple(f for f in FEATURES if f in said)


@dataclass(frozen=True)
class SceneVocabulary:
    """What a query about one scene may name."""

    categories: tuple[str, ...]
    attributes: tuple[str, ...]
    relations: tuple[str, ...] = RELATION_NAMES
    superlatives: tuple[str, ...] = SUPERLATIVES
    #: Features beyond relations the words can mean (:data:`FEATURES`); () for a scene's whole vocabulary.
    features: tuple[str, ...] = ()

    def map_word(self, word: str) -> list[str]:
        """The scene's categories that a person's word names, a part of the home included (see
        :func:`map_word_to`): what a sentence's words can mean, offered to the parse."""
        return map_word_to(word, list(self.categories), areas=True)

    def _known(self, word: str) -> bool:
        """Whether a short word ("tv") is a category here or a known other word for one."""
        return word in self.categories or word in QUERY_SYNONYMS or word in CANONICAL_CATEGORY

    def categories_said(self, sentence: str) -> tuple[str, ...]:
        """The categories a sentence's words (and two- or three-word phrases) name, sorted; () when they
        name none."""
        words = sentence_words(sentence)
        cats: dict[str, None] = {}
        # a category said as it is named ("kitchen cabinet") is that one, not another that differs only
        # by number ("kitchen cabinets": ScanNet has both, and they are different objects)
        literal = {" ".join(words_of(c)): c for c in self.categories}
        own: dict[str, list[str]] = {}
        for c in self.categories:
            own.setdefault(normalize_category(c), []).append(c)
        # "Can I see ...": alone, a word that is also a verb names an object only after a marker
        verbs = {k for k, w in enumerate(words) if w in VERB_NOUNS and not (
            k and (words[k - 1] in NOUN_MARKERS or words[k - 1] in WORD_TO_NUMBER or words[k - 1].isdigit()
                   or words[k - 1] in COLOR_WORDS))}
        taken: set[int] = set()  # words a longer phrase names exactly: "kitchen cabinets" is not "cabinet"
        for n in (3, 2, 1):
            for k in range(len(words) - n + 1):
                phrase = " ".join(words[k:k + n])
                exact = [literal[phrase]] if phrase in literal else own.get(normalize_category(phrase), [])
                if exact and not taken & set(range(k, k + n)) and not (n == 1 and k in verbs):
                    cats.update(dict.fromkeys(exact))
                    taken |= set(range(k, k + n))
        for n in (3, 2, 1):
            for k in range(len(words) - n + 1):
                phrase = " ".join(words[k:k + n])
                if taken & set(range(k, k + n)) or k + n - 1 in verbs or not all(
                        len(w) >= MIN_WORD or self._known(w) for w in phrase.split()):
                    continue
                cats.update(dict.fromkeys(self.map_word(phrase)))
        return tuple(sorted(cats))

    def narrowed(self, sentence: str) -> SceneVocabulary:
        """The part of this vocabulary a sentence can mean: the categories its words (and two- or
        three-word phrases) name, the attribute and superlative words it says, the relations its words
        can mean (:func:`relations_said`). A sentence whose words name no category (or no relation)
        keeps every category (relation): its object may be named by a word no table knows."""
        words = sentence_words(sentence)
        phrases = [" ".join(words[k:k + n]) for n in (3, 2, 1) for k in range(len(words) - n + 1)]
        cats = self.categories_said(sentence)
        said = set(phrases) | {COLOR_ALIASES[p] for p in phrases if p in COLOR_ALIASES}  # "navy": dark blue
        attrs = tuple(a for a in self.attributes if a in said)
        sups = tuple(dict.fromkeys(SUPERLATIVE_WORDS[w] for w in words if w in SUPERLATIVE_WORDS))
        return SceneVocabulary(categories=cats or self.categories, attributes=attrs,
                               relations=relations_said(sentence, self.relations) or self.relations,
                               superlatives=sups, features=features_said(sentence, self.categories))

    def nearest(self, word: str, n: int = NEAREST_SHOWN) -> list[str]:
        """The scene's categories most like ``word``."""
        return nearest_categories(word, list(self.categories), n)


def scene_vocabulary(graph: SceneGraph) -> SceneVocabulary:
    """The categories present (objects' and rooms'; sorted, distinct), the attribute words present
    (colour names of the objects' colours and the names a person would accept for them, stored attribute
    words, the size words) and the relation names."""
    # room categories too: a description may anchor on a room ("the chair in the kitchen",
    # synergai.scene.grounding.rooms)
    cats = sorted({o.category for o in graph} | {r.category for r in graph.rooms})
    attrs: set[str] = set(SIZE_WORDS)
    for o in graph:
        named = [" ".join(words_of(a)) for a in o.attributes]
        if o.color is not None and not any(a in COLOR_NAMES for a in named):
            attrs.add(color_name(o.color))
        for a in named:
            if a in COLOR_NAMES or a in MATERIAL_WORDS or a in SHAPE_WORDS or a in SIZE_WORDS:
                attrs.add(a)
    present = [c for c in attrs if c in COLOR_NAMES]
    attrs |= {c for c in COLOR_NAMES if any(color_agreement(c, p) > 0 for p in present)}
    return SceneVocabulary(categories=tuple(cats), attributes=tuple(sorted(attrs)))


def kindred_categories(category: str, categories: Sequence[str]) -> list[str]:
    """The categories whose name, word by word in the singular, holds ``category``'s or is held by it
    ("bin" and "storage bin", "cabinet" and "cabinets", "toilet paper" and "toilet paper rolls"): the
    labels one scan gives to objects of a kind people name with one word."""
    def seq(name: str) -> tuple[str, ...]:
        return tuple(singular(w) for w in words_of(name))

    def within(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
        return any(b[k:k + len(a)] == a for k in range(len(b) - len(a) + 1))

    own = seq(category)
    return [c for c in categories if own and (within(own, seq(c)) or within(seq(c), own))]
