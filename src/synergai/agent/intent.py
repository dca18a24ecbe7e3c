"""What a user's input means to do: ask (a question never edits the graph) or correct the graph.

The rule errs towards "question": an input is a correction only when nothing in it asks. The word lists
live in :mod:`synergai.scene.vocabulary`.
"""

from __future__ import annotations

import re
import unicodedata

from synergai.scene.vocabulary import (
    CJK_QUESTION_MARKS,
    FOREIGN_QUESTION_WORDS,
    INTERROGATIVES,
    NEGATED_OPENERS,
    QUESTION_LEAD_INS,
    QUESTION_MARKS,
    QUESTION_OPENERS,
    QUESTION_PHRASES,
)

#: Longest question or chat line accepted (characters); longer input is refused before any work.
MAX_INPUT_CHARS = 4000

#: A word: letters and digits, apostrophes inside ("what's", "isn't") kept together.
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
#: Where a clause ends.
_CLAUSE_END = re.compile(r"[,;:.!\u2026\u2014\u2013\n]+")
#: Interrogatives that start a question after lead-ins only ("Hey, where is ..."), not after a statement
#: (", which is red," is a relative clause).
_RELATIVE = frozenset({"which", "who", "whom", "whose", "where", "wheres", "when"})


class InputTooLong(ValueError):
    """The input is longer than :data:`MAX_INPUT_CHARS`."""


def check_length(text: str) -> None:
    """Refuse an input longer than :data:`MAX_INPUT_CHARS` with a one-line message."""
    if len(text) > MAX_INPUT_CHARS:
        raise InputTooLong(f"the input is {len(text)} characters long; the limit is {MAX_INPUT_CHARS}")


def _plain(word: str) -> str:
    """A word without accents ("dónde" -> "donde")."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


_FOREIGN = FOREIGN_QUESTION_WORDS | frozenset(_plain(w) for w in FOREIGN_QUESTION_WORDS)


def _words(clause: str) -> list[str]:
    """The clause's words, apostrophes dropped ("what's" -> "whats")."""
    return [w.replace("'", "").replace("\u2019", "") for w in _WORD.findall(clause)]


def _foreign(word: str) -> bool:
    """Whether a word as written (or its part before an apostrophe) asks in another language."""
    word = word.replace("\u2019", "'")
    return any(w in _FOREIGN or _plain(w) in _FOREIGN for w in (word, word.split("'")[0]))


def _clause_asks(clause: str, first: bool, after_lead_ins: bool) -> bool:
    words = _words(clause)
    k = next((i for i, w in enumerate(words) if w not in QUESTION_LEAD_INS), len(words))  # past lead-ins
    head = words[k] if k < len(words) else ""
    if not head:
        return False
    if first or after_lead_ins:
        if head in NEGATED_OPENERS and k + 1 < len(words) and words[k + 1] == "not":
            return False  # "Do not call it a table": an order
        if head in QUESTION_OPENERS or _foreign(_WORD.findall(clause)[k]):
            return True
    return head in INTERROGATIVES and (head not in _RELATIVE or after_lead_ins)


def is_question(text: str) -> bool:
    """Whether the input asks something (it then never edits the graph) rather than states a
    correction; errs towards "question"; an empty input is no question."""
    norm = unicodedata.normalize("NFKC", str(text)).lower()
    if not norm.strip():
        return False
    if any(mark in norm for mark in QUESTION_MARKS) or any(mark in norm for mark in CJK_QUESTION_MARKS):
        return True
    words = _words(norm)
    if not any(w.isascii() for w in words) and any(c.isalpha() for c in norm):
        return True  # a script this rule cannot read: unsure, so a question
    spaced = f" {' '.join(words)} "
    if any(f" {phrase} " in spaced for phrase in QUESTION_PHRASES):
        return True
    first, after_lead_ins = True, True  # every clause so far held lead-ins only ("Hey, so, what ...")
    for clause in _CLAUSE_END.split(norm):
        cw = _words(clause)
        if not cw:
            continue
        if _clause_asks(clause, first, after_lead_ins):
            return True
        first, after_lead_ins = False, after_lead_ins and all(w in QUESTION_LEAD_INS for w in cw)
    return False
