"""The evidence an answer may name: colours as basic terms of the objects the question is about."""

from __future__ import annotations

from synergai.agent.evidence import evidence_colours
from synergai.agent.observation import Fact
from synergai.agent.question import Question
from synergai.scene.model import SceneGraph, SceneObject

Q = Question.parse


def _graph() -> SceneGraph:
    return SceneGraph("room", [
        SceneObject("1", "piano", (0.0, 0.0, 0.5), (1.5, 0.6, 1.0), attributes=("dark brown", "wooden")),
        SceneObject("2", "stool", (0.0, 0.8, 0.25), (0.4, 0.4, 0.5), attributes=("light gray",)),
        SceneObject("3", "rug", (0.0, 1.0, 0.0), (2.0, 2.0, 0.01), attributes=("red",)),
    ])


def test_colours_are_basic_terms_of_the_objects_the_question_names() -> None:
    facts = [Fact(("2",), "next to", ("1",)), Fact(("3",))]
    assert evidence_colours(_graph(), facts, Q("What colour is the piano?")) == ["brown"]
    both = "What colour is the stool next to the piano?"
    assert evidence_colours(_graph(), facts, Q(both)) == ["white", "brown"]
    # a question naming none of the observed objects may name any observed colour, in the order observed
    assert evidence_colours(_graph(), facts, Q("What colour is it?")) == ["white", "brown", "red"]
    assert evidence_colours(_graph(), [], Q("What colour is the piano?")) == []
    # given the question's subject (the objects it names first), only its colours: none when it has none
    assert evidence_colours(_graph(), facts, Q(both), subject=("2",)) == ["white"]
    assert evidence_colours(_graph(), [Fact(("1",))], Q(both), subject=("2",)) == ["white"]
    assert evidence_colours(_graph(), facts, Q("What colour is the piano?"), subject=("9",)) == []


def _counter() -> SceneGraph:
    return SceneGraph("bath", [
        SceneObject("1", "counter", (0.0, 0.0, 0.9), (1.2, 0.6, 0.1)),
        SceneObject("2", "mirror", (0.0, 0.25, 1.6), (0.8, 0.05, 0.8)),
        SceneObject("3", "trash can", (0.0, 0.0, 0.2), (0.3, 0.3, 0.4)),
        SceneObject("4", "towel", (1.0, 0.3, 1.0), (0.3, 0.05, 0.5)),
        SceneObject("5", "rack", (1.0, 0.32, 1.2), (0.5, 0.05, 0.05)),
    ])


def test_a_relation_question_names_the_side_it_asks_for() -> None:
    from synergai.agent.evidence import asked_role, evidence_categories

    graph = _counter()
    facts = [Fact(("1",), "above", ("3",)), Fact(("2",), "above", ("1",)), Fact(("4",), "hanging on", ("5",))]
    # the trash can is below the counter: "what is above the counter" is the mirror
    assert asked_role(Q("What is above the counter?"), 3) == "subject"
    assert evidence_categories(graph, facts, Q("What is above the counter?")) == ["mirror"]
    # the question ends on its relation: the answer is the anchor
    assert asked_role(Q("What is the towel hanging on?"), 3) == "anchor"
    assert evidence_categories(graph, facts, Q("What is the towel hanging on?")) == ["rack"]
    assert asked_role(Q("The towel is hanging on what?"), 1) == "anchor"
    # a symmetric relation reads both ways
    near = [Fact(("3",), "near", ("1",))]
    assert evidence_categories(graph, near, Q("What is the counter near?")) == ["trash can"]
    # no relation word: every observed category the question does not name
    assert asked_role(Q("What is in the corner of the room?"), None) == ""
    assert evidence_categories(graph, facts, Q("Which object is the counter?")) == ["trash can", "mirror",
                                                                                  "towel", "rack"]


def test_the_subject_may_be_named_by_another_word() -> None:
    from synergai.agent.evidence import question_subject

    graph = SceneGraph("kitchen", [
        SceneObject("1", "refrigerator", (0.0, 0.0, 0.8), (0.6, 0.8, 1.6)),
        SceneObject("2", "kitchen cabinet", (0.0, 1.0, 0.4), (0.6, 1.0, 0.8)),
        SceneObject("3", "trash can", (1.0, 1.0, 0.2), (0.3, 0.3, 0.4)),
    ])
    facts = [Fact(("2",)), Fact(("1",)), Fact(("3",))]
    assert question_subject(graph, facts, Q("Where is the fridge located?")) == "1"
    assert question_subject(graph, facts, Q("Where is the cabinet?")) == "2"
    assert question_subject(graph, facts, Q("Can I put a cup here?")) is None  # "can" is a verb here
    assert question_subject(graph, facts, Q("Where is the bin?")) == "3"


def test_the_rooms_shell_is_an_answer_only_when_nothing_else_is() -> None:
    from synergai.agent.evidence import evidence_categories
    from synergai.scene.model import ObjectKind

    graph = SceneGraph("study", [
        SceneObject("1", "floor", (0.0, 0.0, -0.05), (4.0, 4.0, 0.1), kind=ObjectKind.FLOOR),
        SceneObject("2", "wall", (0.0, 2.0, 1.4), (4.0, 0.1, 2.8), kind=ObjectKind.WALL),
        SceneObject("3", "painting", (0.0, 1.95, 1.6), (0.8, 0.05, 0.6)),
        SceneObject("4", "desk", (0.0, 1.6, 0.4), (1.2, 0.6, 0.8)),
    ])
    seen = [Fact(("3",)), Fact(("1",)), Fact(("4",))]
    # "what is underneath the painting", the floor and the desk observed: the desk
    assert evidence_categories(graph, seen, Q("What is underneath the painting?")) == ["desk"]
    # the wall is what the painting hangs on: the shell is the answer when it is the only one
    hung = [Fact(("3",), "hanging on", ("2",))]
    assert evidence_categories(graph, hung, Q("What is the painting hanging on?")) == ["wall"]
