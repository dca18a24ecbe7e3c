"""Directions from where the agent stands, read from the graph with no model call: "which direction
should I go to open the window?", "is the door on my left or right?" (:func:`side_answer`, both loops).

The nearest object of the category the question names gives a clock hour from the agent's pose, and the
side people give for it (:func:`side_of_hour`): left or right for every hour but 12 and 6 (LLM-TPC's own
left / right hours); of the directions the question offers, the one facing nearest the hour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType

from synergai.agent.answer_check import question_subject
from synergai.agent.answer_forms import AnswerForm, answer_form, asked_sentence, normalise_answer
from synergai.agent.question import Question
from synergai.geometry.frames import Viewpoint
from synergai.scene.build import clock_direction
from synergai.scene.model import SceneGraph
from synergai.scene.vocabulary import RELATION_SYNONYMS

#: Clock hours that count as each direction (LLM-TPC's synonym table, Table S1).
CLOCK_DIRECTIONS = MappingProxyType({"left": {7, 8, 9, 10, 11}, "right": {1, 2, 3, 4, 5},
                                     "front": {10, 11, 12, 1, 2}, "back": {4, 5, 6, 7, 8}})
#: The clock hour each direction faces (of the directions a question offers, the nearest to an object's hour).
FACING_HOURS = MappingProxyType({"left": 9, "right": 3, "front": 12, "back": 6})
#: How each side is said of an object ("The door is on your left.").
_SAID = MappingProxyType({"left": "on your left", "right": "on your right", "front": "in front of you",
                          "back": "behind you"})


@dataclass(frozen=True)
class Side:
    """A direction the graph gives: the ``short`` answer, its sentence, the object and its clock hour."""

    short: str
    sentence: str
    object: str
    hour: int


def hours_apart(a: int, b: int) -> int:
    """How many hours apart two clock hours are, the shorter way round."""
    return min((a - b) % 12, (b - a) % 12)


def side_of_hour(hour: int) -> str:
    """The direction a person gives for a clock hour: left or right (:data:`CLOCK_DIRECTIONS`) unless it is
    straight ahead (12) or behind (6)."""
    side = next((d for d in ("left", "right") if hour in CLOCK_DIRECTIONS[d]), None)
    return side or ("front" if hour == 12 else "back")


def _facing(option: str) -> str | None:
    """An offered option as one of :data:`FACING_HOURS`' directions ("backward": back), or None."""
    word = normalise_answer(AnswerForm.DIRECTION, option) or option.strip().lower()
    word = "back" if word == "behind" else RELATION_SYNONYMS.get(word, word)
    return word if word in FACING_HOURS else None


def side_answer(question: Question, graph: SceneGraph, viewpoint: Viewpoint,
                marked: str | None = None) -> Side | None:
    """The direction of the object a direction question names (or the ``marked`` one: "is this on my
    left?"), seen from ``viewpoint``; None for another form or a question that names no object here. Only
    the sentence that asks is read (:func:`asked_sentence`): what the user says of where they stand names
    other objects."""
    if (sentence := asked_sentence(question.text)) != question.text.strip():
        if answer_form(sentence) is not AnswerForm.DIRECTION:
            return None  # read before parsing it: most questions are not directions
        question = Question.parse(sentence, sorted(graph.categories()))
    ids = question_subject(question, graph, marked).ids if question.form is AnswerForm.DIRECTION else ()
    if not ids:
        return None
    nearest = min(ids, key=lambda i: math.dist(graph.get(i).center[:2], viewpoint.position[:2]))
    hour = clock_direction(graph, [nearest], viewpoint)[nearest]
    offered = [d for o in question.options if (d := _facing(o))] or list(FACING_HOURS)
    short = side_of_hour(hour)  # people turn left or right to anything not straight ahead or behind
    if short not in offered:
        short = min(offered, key=lambda d: hours_apart(hour, FACING_HOURS[d]))
    return Side(short, f"The {graph.get(nearest).category} is {_SAID[short]}.", nearest, hour)
