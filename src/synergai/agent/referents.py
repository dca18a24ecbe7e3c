"""The objects a correction refers to, the only ones its edits may touch: the marked object, the ids it
writes and the objects its words ground to.
"""

from __future__ import annotations

import re

from synergai.scene.grounding import ObjectRef, ground
from synergai.scene.grounding.vocabulary import MIN_WORD
from synergai.scene.model import SceneGraph
from synergai.scene.vocabulary import OPEN_QUERY_WORDS, singular, words_of

#: Longest phrase (words) looked up as a category name ("kitchen cabinet door").
MAX_PHRASE_WORDS = 3

_ID_WORD = re.compile(r"\bid[:\s]*(\w+)")
_OBJECT_NUMBER = re.compile(r"\bobject\s+(\d+)\b")


def mentioned_ids(text: str) -> set[str]:
    """Object ids the user wrote ("id 12", "object 12")."""
    low = text.lower()
    return set(_ID_WORD.findall(low)) | set(_OBJECT_NUMBER.findall(low))


def _phrases(words: list[str], categories: set[str]) -> set[str]:
    """The phrases of a sentence that could name a category (no open word such as "object" in them)."""
    spans = [words[k:k + n] for n in range(1, MAX_PHRASE_WORDS + 1) for k in range(len(words) - n + 1)]
    return {" ".join(p) for p in spans if not any(w in OPEN_QUERY_WORDS or singular(w) in OPEN_QUERY_WORDS
                                                  for w in p)
            and (len(p[-1]) >= MIN_WORD or " ".join(p) in categories)}


def asks_unnamed(text: str) -> bool:
    """Whether the text asks about an object it does not name ("what is next to the bed?")."""
    return bool(OPEN_QUERY_WORDS & set(words_of(text)))


def referred_ids(graph: SceneGraph, utterance: str, marked: str | None = None) -> frozenset[str]:
    """The ids of the objects ``utterance`` refers to in ``graph`` (the marked one included)."""
    ids = {i for i in mentioned_ids(utterance) if i in graph}
    if marked is not None and marked in graph:
        ids.add(marked)
    categories = {" ".join(words_of(c)) for c in graph.categories()}
    for phrase in _phrases(words_of(utterance), categories):  # a category the room lacks grounds to nothing
        ids.update(c.id for c in ground(graph, ObjectRef(category=phrase)).candidates)
    return frozenset(ids)
