"""Questions about rooms, answered from the graph (no model call): "which room has a fridge", "how many
chairs are in the living room", "what is in the kitchen", "how many rooms".

:func:`room_answer` answers only a question it reads exactly: every word must be a word of the forms
(:data:`_FORM_WORDS`), a room's name or an object's (matched as the grounding engine matches them); any
other word (a negation, an attribute, a superlative, a relation to another object) and every scene without
rooms leave the question to the agent (None).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from synergai.agent.answer_sentence import count_sentence, listed
from synergai.scene.grounding.rooms import rooms_named
from synergai.scene.grounding.vocabulary import MIN_WORD, map_word_to
from synergai.scene.model import STRUCTURE_KINDS, Room, SceneGraph
from synergai.scene.vocabulary import (
    COLOR_WORDS,
    MATERIAL_WORDS,
    RELATION_CUES,
    SHAPE_WORDS,
    SIZE_WORDS,
    STATE_WORDS,
    SUPERLATIVE_WORDS,
    VERB_NOUNS,
    plural,
    with_article,
    words_of,
)

_WHICH_ROOM = re.compile(r"\b(?:which|what) rooms?\b|\bin (?:which|what) (?:room|part of the house)\b")
_HOW_MANY = re.compile(r"^how many\b")
_HOW_MANY_ROOMS = re.compile(r"^how many rooms\b")
_WHAT_IN = re.compile(r"^(?:what|which) (?:objects? |things? |items? |furniture )?"
                      r"(?:is|are|can i find|do you see|does|do)\b")
#: Words that name a room in general, not one room ("room" alone must not stand for "living room").
_GENERIC = frozenset({"room", "rooms", "house", "home", "flat", "apartment"})
#: Words that never name an object here (question words, articles, "can" in "can I find").
_NOT_OBJECT = frozenset({*_GENERIC, *VERB_NOUNS, "what", "which", "how", "many", "the", "a", "an", "is",
                         "are", "there", "somewhere", "has", "have", "does", "do", "object", "objects",
                         "thing", "things", "in", "and", "or", "of", "to", "for", "i", "find", "see"})
#: The words the forms are made of: a question holding any word beyond these, a room's and an object's
#: words is not one of the forms (``somewhere`` stands where the room was named).
_FORM_WORDS = _NOT_OBJECT | {"rooms", "room", "any", "located", "kept", "contain", "contains", "hold",
                             "holds", "with", "part", "you", "can", "items", "item", "furniture"}
#: Words that describe an object beyond its category: a phrase holding one names no category exactly.
_ATTRIBUTE_WORDS = COLOR_WORDS | MATERIAL_WORDS | SHAPE_WORDS | STATE_WORDS | set(SIZE_WORDS) \
    | set(SUPERLATIVE_WORDS)
#: Words that relate one object to another (not "in", "has", "with": they relate an object to a room).
_RELATION_WORDS = frozenset(w for name, cue in RELATION_CUES.items() if name not in ("supporting", "inside")
                            for w in cue) - {"by"}


@dataclass(frozen=True)
class RoomAnswer:
    """A sentence, its short answer and the objects to show."""

    sentence: str
    short: str
    objects: tuple[str, ...]
    kind: str  # "which room" | "count" | "contents"


def _labels(room: Room) -> set[str]:
    return {" ".join(words_of(t)) for t in (room.category, room.name, room.id, plural(room.category))}


def _room_phrase(words: list[str], graph: SceneGraph) -> tuple[list[Room], list[str]]:
    """The rooms the question names (longest phrase first) and the question's words without it."""
    for n in (3, 2, 1):
        for k in range(len(words) - n + 1):
            phrase = words[k:k + n]
            if set(phrase) <= _GENERIC or phrase[0] in ("the", "a", "an") or (n == 1 and len(phrase[0]) < 4):
                continue
            said = " ".join(phrase)
            if exact := [r for r in rooms_named(graph, said) if said in _labels(r)]:  # no spelling guess
                return exact, [*words[:k], "somewhere", *words[k + n:]]
    return [], words


def _categories_named(graph: SceneGraph, words: list[str]) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """The question's object words with the categories each names best, in order, and the other words."""
    cats = sorted({o.category for o in graph if o.kind not in STRUCTURE_KINDS})
    out: list[tuple[str, list[str]]] = []
    rest: list[str] = []
    k = 0
    while k < len(words):
        for n in (3, 2, 1):
            phrase = words[k:k + n]
            if len(phrase) < n or any(w in _NOT_OBJECT for w in phrase) or len(phrase[-1]) < MIN_WORD:
                continue
            if hits := _category_phrase(phrase, cats):
                out.append((" ".join(phrase), hits))
                k += n
                break
        else:
            rest.append(words[k])
            k += 1
    return out, rest


def _category_phrase(phrase: list[str], cats: list[str]) -> list[str]:
    """The categories ``phrase`` names exactly: none when a word of it only describes the object
    ("green chair"), unless the phrase is a category's own name."""
    said = " ".join(phrase)
    if said in cats:
        return [said]
    if any(w in _ATTRIBUTE_WORDS for w in phrase):
        return []
    hits = map_word_to(said, cats)
    if len(phrase) > 1 and hits and map_word_to(" ".join(phrase[1:]), cats) == hits:
        return []
    return hits


def room_answer(graph: SceneGraph, question: str) -> RoomAnswer | None:
    """The graph's answer to a question about rooms, or None (see the module doc-string)."""
    if not graph.rooms:
        return None
    text = " ".join(words_of(question))
    rooms, rest = _room_phrase(words_of(question), graph)
    named, unread = _categories_named(graph, rest)
    # a relation of objects to one another, or a word the forms do not read: the agent's question
    if any(w in _RELATION_WORDS for w in rest) or any(w not in _FORM_WORDS for w in unread):
        return None
    cats = list(dict.fromkeys(c for _, hits in named for c in hits))
    said = [w for w, _ in named]
    if _WHICH_ROOM.search(text) and not rooms:
        if not cats:
            return None
        holding = [o for o in graph if o.category in cats and o.room is not None]
        where = list(dict.fromkeys(graph.room(o.room).name for o in holding if o.room))
        if not where:
            return RoomAnswer(f"No room has {listed([plural(c) for c in cats])}.", "none", (), "which room")
        what = listed(cats if len(holding) == 1 else [plural(c) for c in cats]) if len(cats) == len(said) \
            else listed(said)
        return RoomAnswer(f"The {what} {'is' if len(holding) == 1 else 'are'} in the {listed(where)}.",
                          ", ".join(where), tuple(o.id for o in holding), "which room")
    if _HOW_MANY_ROOMS.search(text) and not named and not rooms:
        names = [r.name for r in graph.rooms]
        return RoomAnswer(count_sentence(len(names), "room", f": the {listed(names)}"), str(len(names)), (),
                          "count")
    if len(rooms) != 1:
        return None
    room = rooms[0]
    inside = [o for o in graph.room_objects(room.id) if o.kind not in STRUCTURE_KINDS]
    if _HOW_MANY.search(text):
        if len(named) != 1:  # one kind of object counted ("how many chairs and tables": the agent's)
            return None
        hits = [o for o in inside if o.category in cats]
        what = plural(cats[0]) if len(cats) == 1 else said[0]
        return RoomAnswer(f"There {'is' if len(hits) == 1 else 'are'} {len(hits)} "
                          f"{what if len(hits) != 1 else cats[0]} in the {room.name}.",
                          str(len(hits)), tuple(o.id for o in hits), "count")
    if _WHAT_IN.search(text) and not named:
        counts = Counter(o.category for o in inside)
        if not counts:
            return RoomAnswer(f"The {room.name} is empty.", "nothing", (), "contents")
        kinds = [with_article(c) if n == 1 else f"{n} {plural(c)}" for c, n in counts.items()]
        return RoomAnswer(f"The {room.name} has {listed(kinds)}.", ", ".join(counts),
                          tuple(o.id for o in inside), "contents")
    return None
