"""The judges' own word matching: colour phrases and object names, over the shared word lists only.

A benchmark's judge must not share code with what it judges, so a bug in the agent's matcher can not
fail agent and judge alike. This module reads the word lists of :mod:`synergai.scene.vocabulary` (the
one place for synonyms, colours and plurals) and never imports :mod:`synergai.agent`. Its rules are
deliberately simple and written down here:

* text is compared as lower-case words, anything not a letter or digit being a separator, each word
  reduced to its singular (:func:`~synergai.scene.vocabulary.singular`);
* a phrase *names* a category when the category's words occur in it in order (``"the office chair"``
  names ``"office chair"`` and, by head noun, ``"chair"`` names ``"office chair"``), when it writes a
  two-word category closed up (``"trashcan"`` for ``"trash can"``), or when one of its words is an
  everyday synonym of the category (``QUERY_SYNONYMS``: ``"couch"`` names ``"sofa"``);
* colour phrases are the palette names and colour aliases an answer mentions, longest first; two colour
  names are compatible when they share their last word (``"dark gray"`` ~ ``"gray"``) or are listed
  together in ``COLOR_NEIGHBOURS``.
"""

from __future__ import annotations

import itertools

from synergai.scene.model import SceneGraph, SceneObject
from synergai.scene.vocabulary import (
    COLOR_ALIASES,
    COLOR_NAMES,
    COLOR_NEIGHBOURS,
    COLOR_WORDS,
    QUERY_SYNONYMS,
    color_family,
    singular,
    words_of,
)


def plain(text: str) -> str:
    """Lower-case words separated by single spaces (``"Dark-Grey!"`` -> ``"dark grey"``)."""
    return " ".join(words_of(text))


def singular_words(text: str) -> list[str]:
    """The text's words, each in its singular."""
    return [singular(w) for w in words_of(text)]


# --------------------------------------------------------------------------------------------- colours
def colour_name(text: str) -> str:
    """A colour phrase in palette spelling: "grey" -> "gray", "silver" -> "light gray"."""
    t = plain(text).replace("grey", "gray")
    return COLOR_ALIASES.get(t, t)


def colors_compatible(a: str, b: str) -> bool:
    """Whether a person accepts colour name ``a`` for colour name ``b``."""
    na, nb = colour_name(a), colour_name(b)
    if not na or not nb:
        return False
    return color_family(na) == color_family(nb) or frozenset({na, nb}) in COLOR_NEIGHBOURS


def colour_words(text: str) -> list[str]:
    """Palette colour names a text mentions, in palette spelling ("light brown" -> "brown", "tan" ->
    "beige"); a longer name is read before its parts ("dark gray" is not also "gray")."""
    t = f" {plain(text)} "
    for word, name in COLOR_ALIASES.items():
        t = t.replace(f" {word} ", f" {name} ")
    found = []
    for name in COLOR_NAMES:  # longest first
        if f" {name} " in t:
            found.append(name)
            t = t.replace(f" {name} ", " ")
    return found


def color_of(obj: SceneObject) -> str:
    """The object's colour attribute (the first attribute that is a palette name), or ""."""
    for a in obj.attributes:
        if colour_name(a) in COLOR_NAMES:
            return colour_name(a)
    return ""


# ----------------------------------------------------------------------------------------------- names
def _in_order(words: list[str], part: list[str]) -> bool:
    n = len(part)
    return n > 0 and any(words[i : i + n] == part for i in range(len(words) - n + 1))


def words_naming(phrase: str, category: str) -> int:
    """How many of the category's words the phrase names verbatim (plural-insensitive; a two-word
    category may be written closed up, "nightstand" for "night stand"); 0 when it does not."""
    words, cat = singular_words(phrase), singular_words(category)
    if not cat:
        return 0
    if _in_order(words, cat):
        return len(cat)
    closed = "".join(cat)
    if closed in words:
        return 1
    return 2 if any(a + b == closed for a, b in itertools.pairwise(words)) else 0


def names_category(phrase: str, category: str) -> bool:
    """Whether a phrase names this category: verbatim, by the category's head noun, or by a synonym."""
    cat = singular_words(category)
    if not cat:
        return False
    if words_naming(phrase, category):
        return True
    words = singular_words(phrase)
    cat_text = " ".join(cat)
    for w in words_of(phrase):
        if any(" ".join(singular_words(alt)) == cat_text for alt in QUERY_SYNONYMS.get(w, ())):
            return True
    return len(cat) > 1 and cat[-1] in words


def objects_named(graph: SceneGraph, phrase: str) -> list[SceneObject]:
    """The graph's objects a phrase names (:func:`names_category`), most specific first.

    When some categories are named with more words than others ("coffee table" vs "table"), only
    those are kept; colour words in the phrase then keep the objects of that colour, unless none
    has it (perception may have the colour wrong).
    """
    found = [o for o in graph if names_category(phrase, o.category)]
    if not found:
        return []
    named = {o.id: words_naming(phrase, o.category) for o in found}
    longest = max(named.values())
    if longest > 1:
        found = [o for o in found if named[o.id] == longest]
    category_words = {w for o in found for w in words_of(o.category)}
    colours = {w for w in words_of(phrase) if w in COLOR_WORDS} - category_words
    if colours:
        coloured = [o for o in found if colours & {w for a in o.attributes for w in words_of(a)}]
        if coloured:
            found = coloured
    return found
