"""Typed short answers: the form a question's short answer takes, its JSON schema and its text (both
loops' answers go through it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from synergai.scene.vocabulary import (
    COLOR_ALIASES,
    COLOR_NAMES,
    SHAPE_WORDS,
    WORD_TO_NUMBER,
    basic_color,
    words_of,
)


class AnswerForm(StrEnum):
    """What kind of value a short answer is."""

    YES_NO = "yes/no"
    NUMBER = "number"
    COLOR = "colour"
    SHAPE = "shape"
    CATEGORY = "category"
    PLACE = "place"
    DIRECTION = "direction"
    CHOICE = "choice"
    PHRASE = "phrase"


#: Directions an answer may name (SQA3D's egocentric answers).
DIRECTION_WORDS: tuple[str, ...] = ("left", "right", "front", "back", "forward", "backward")
#: Relation phrases a place answer is made of, as people write them before an anchor.
PLACE_RELATIONS: tuple[str, ...] = (
    "on", "under", "in", "next to", "beside", "near", "above", "below", "behind", "in front of",
    "left of", "right of", "against", "between",
)
#: Longest free phrase (characters).
PHRASE_MAX = 40
#: The forms whose answer is one word of a fixed list, in the order the schema offers them.
_ONE_WORD: Mapping[AnswerForm, tuple[str, ...]] = MappingProxyType({
    AnswerForm.YES_NO: ("yes", "no"), AnswerForm.DIRECTION: DIRECTION_WORDS,
    AnswerForm.SHAPE: tuple(sorted(SHAPE_WORDS))})

_AUX_WORDS = ("is", "are", "was", "were", "do", "does", "did", "can", "could", "will", "would", "should",
              "has", "have", "had", "am", "may", "might", "must")
_YES_NO_START = re.compile(rf"^(?:{'|'.join(_AUX_WORDS)})\b")
_COLOR_Q = re.compile(r"\b(colou?rs?|colou?red)\b")
_SHAPE_Q = re.compile(r"^(?:what|which) (?:is the )?shape\b|\bwhat shape\b")
_COUNT_Q = re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b")
#: Where one sentence of an input ends and the next begins.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_DIRECTION_Q = re.compile(r"\bwhich (?:direction|way|side)\b|\bwhat direction\b")
#: "A or B" (the last two options); a word starts only where no word letter precedes, so a search is
#: one pass (each word is read from its start only), and earlier "X, " options are read backwards.
_CHOICE_Q = re.compile(r"(?<![a-z'-])([a-z'-]+),? or (?:the |an? )?([a-z'-]+)")
_OPTION_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz'-")
#: Words that cannot be an option of an "A or B" question ("... or are they ...", "... or not").
_NOT_OPTIONS = frozenset({*_AUX_WORDS, "not", "the", "a", "an", "they", "it", "i", "he", "she", "we", "you",
                          "there", "this", "that", "these", "those", "to", "in", "of", "at", "my",
                          "me", "by", "with", "for", "and", "so", "else"})
_PLACE_Q = re.compile(r"^where\b|\bwhere (?:is|are|was|were|can|do|does|should)\b")
_CATEGORY_Q = re.compile(
    r"^(?:what|which)\b(?! (?:shape|material|size|kind of (?:shape|material)|type of (?:shape|material)))"
)
#: "On what side of the door is the fridge?": the answer is a side (left / right / front / back).
_SIDE_Q = re.compile(r"\b(?:on |to )?(?:what|which) side of\b")
#: "The armchair is across from what?", "... in the corner by what?": the answer names an object.
_TRAILING_WHAT_Q = re.compile(r"\b(?:of|from|by|to|near|next to|beside|behind|under|on|above|below|"
                              r"between [a-z ]+ and|and) (?:what|which object)$")
_OPEN_ATTRIBUTE_Q = re.compile(r"\b(shape|material|made of|pattern|style|size|brand|written|say|doing)\b")
#: How much of a question's end a trailing "... across from what" is looked for in (characters).
_TAIL_CHARS = 200
_KIND_Q = re.compile(r"^(?:what|which) (?:type|kind|sort) of (?!(?:shape|material)\b)|^which (?=[a-z])")
#: Words after "which" that name no kind of thing ("which object is ...": any category may answer).
_NO_KIND = frozenset({"object", "objects", "item", "items", "thing", "things", "one", "ones"})


def asked_sentence(text: str) -> str:
    """The sentence of an input that asks: the last ending in "?", else the last ("I am facing the bed.
    Is the door on my left?": the door is asked about, not the bed)."""
    parts = [p for p in _SENTENCE_END.split(text.strip()) if p.strip()] or [text]
    return next((p for p in reversed(parts) if p.rstrip().endswith("?")), parts[-1])


def kind_asked_at(question: str) -> int | None:
    """Where a "which X" / "what type of X" question names X ("Which *chair* is ..." -> 1), else None."""
    words = words_of(question)
    m = _KIND_Q.match(" ".join(words))
    if m is None:
        return None
    at = len(m.group(0).split())
    return at if at < len(words) and words[at] not in _NO_KIND else None


def _options_before(text: str, end: int) -> list[str]:
    """The "X, Y, " options written just before ``end``, in order."""
    found: list[str] = []
    while end >= 2 and text.startswith(", ", end - 2):
        start = end - 2
        while start > 0 and text[start - 1] in _OPTION_LETTERS:
            start -= 1
        if start == end - 2:
            break
        found.append(text[start:end - 2])
        end = start
    return found[::-1]


def choice_options(question: str) -> tuple[str, ...]:
    """The one-word options of an "A, B or C" question ("odd or even" -> ("odd", "even")); () if none."""
    text = " ".join(str(question).lower().replace("?", " ").split())
    m = _CHOICE_Q.search(text)
    if m is None:
        return ()
    options = [*_options_before(text, m.start(1)), m.group(1), m.group(2)]
    if any(o in _NOT_OPTIONS for o in options) or len(set(options)) < len(options):
        return ()
    return tuple(options)


def answer_form(question: str) -> AnswerForm:
    """The form of the short answer a question asks for (see the module doc-string)."""
    q = " ".join(words_of(question))
    if options := choice_options(question):
        return AnswerForm.DIRECTION if set(options) <= {*DIRECTION_WORDS, "behind"} else AnswerForm.CHOICE
    if re.search(r"\bhow many\b", q):
        return AnswerForm.NUMBER
    if _YES_NO_START.match(q) and not _COLOR_Q.search(q):
        return AnswerForm.YES_NO
    if _COUNT_Q.search(q):
        return AnswerForm.NUMBER
    if _COLOR_Q.search(q) and not _YES_NO_START.match(q):
        return AnswerForm.COLOR
    if _SHAPE_Q.search(q):
        return AnswerForm.SHAPE
    if _DIRECTION_Q.search(q) or _SIDE_Q.search(q) or (" or " in f" {q} " and len(
            set(q.split()) & {"left", "right", "front", "back", "behind"}) >= 2):
        return AnswerForm.DIRECTION
    if _YES_NO_START.match(q) and " or " not in f" {q} ":
        return AnswerForm.YES_NO
    if _PLACE_Q.search(q):
        return AnswerForm.PLACE
    tail = q if len(q) <= _TAIL_CHARS else q[-_TAIL_CHARS:].split(" ", 1)[-1]  # whole words: a bounded search
    if (_CATEGORY_Q.match(q) or _TRAILING_WHAT_Q.search(tail)) and not _OPEN_ATTRIBUTE_Q.search(q):
        return AnswerForm.CATEGORY
    return AnswerForm.PHRASE


def answer_schema(form: AnswerForm, categories: Sequence[str] = (),
                  options: Sequence[str] = ()) -> dict[str, Any]:
    """JSON schema of a short answer of this form, bounded by ``categories`` and ``options``."""
    cats = sorted({c for c in categories if c})
    if form is AnswerForm.CHOICE and options:
        return {"type": "string", "enum": list(options)}
    if form in _ONE_WORD:
        return {"type": "string", "enum": list(_ONE_WORD[form])}
    if form is AnswerForm.NUMBER:
        return {"type": "integer", "minimum": 0, "maximum": 999}
    if form is AnswerForm.COLOR:
        return {"type": "string", "enum": list(options) or sorted({basic_color(n) for n in COLOR_NAMES})}
    if form is AnswerForm.CATEGORY and cats:
        return {"type": "string", "enum": cats}
    if form is AnswerForm.PLACE and cats:
        return {"type": "object", "additionalProperties": False, "required": ["relation", "anchor"],
                "properties": {"relation": {"type": "string", "enum": list(PLACE_RELATIONS)},
                               "anchor": {"type": "string", "enum": cats}}}
    return {"type": "string", "maxLength": PHRASE_MAX}


def render_answer(form: AnswerForm, value: Any) -> str:
    """The short answer's text for a value of this form ('' when the value does not fit the form)."""
    if form is AnswerForm.PLACE:
        if isinstance(value, Mapping):
            rel, anchor = str(value.get("relation", "")).strip(), str(value.get("anchor", "")).strip()
            return f"{rel} the {anchor}" if rel and anchor else ""
        return " ".join(str(value).split())[:PHRASE_MAX] if isinstance(value, str) else ""
    if isinstance(value, bool):
        value = "yes" if value else "no"
    text = str(value).strip() if isinstance(value, str | int | float) else ""
    return normalise_answer(form, text)


def normalise_answer(form: AnswerForm, text: str, options: Sequence[str] = ()) -> str:
    """A free-text short answer read as a value of the form ("Yes, there is." -> "yes", "three" -> "3",
    "dark grey" -> "black"); '' when it holds no such value; phrases and categories kept as written."""
    words = words_of(text)
    if form is AnswerForm.CHOICE or form in _ONE_WORD:
        allowed = options if form is AnswerForm.CHOICE else _ONE_WORD[form]
        return next((w for w in words if w in allowed), "")
    if form is AnswerForm.NUMBER:
        numbers = (str(int(w)) if w.isdigit() else str(WORD_TO_NUMBER[w]) for w in words
                   if w.isdigit() or w in WORD_TO_NUMBER)
        return next(numbers, "0" if any(w in ("no", "none") for w in words) else "")
    if form is AnswerForm.COLOR:
        t = f" {' '.join(words)} "
        for alias, name in sorted(COLOR_ALIASES.items(), key=lambda kv: -len(kv[0])):
            t = t.replace(f" {alias} ", f" {name} ")
        return next((basic_color(n) for n in COLOR_NAMES if f" {n} " in t), "")
    return " ".join(text.split())[:PHRASE_MAX]
