"""The evidence an answer may name: colours as basic terms of the objects the question is about."""

from __future__ import annotations

from synergai.agent.evidence import evidence_colours
from synergai.agent.observation import Fact
from synergai.scene.model import SceneGraph, SceneObject


def _graph() -> SceneGraph:
    return SceneGraph("room", [
        SceneObject("1", "piano", (0.0, 0.0, 0.5), (1.5, 0.6, 1.0), attributes=("dark brown", "wooden")),
        SceneObject("2", "stool", (0.0, 0.8, 0.25), (0.4, 0.4, 0.5), attributes=("light gray",)),
        SceneObject("3", "rug", (0.0, 1.0, 0.0), (2.0, 2.0, 0.01), attributes=("red",)),
    ])


def test_colours_are_basic_terms_of_the_objects_the_question_names() -> None:
    facts = [Fact(("2",), "next to", ("1",)), Fact(("3",))]
    assert evidence_colours(_graph(), facts, "What colour is the piano?") == ["brown"]
    both = "What colour is the stool next to the piano?"
    assert evidence_colours(_graph(), facts, both) == ["gray", "brown"]
    # a question naming none of the observed objects may name any observed colour, in the order observed
    assert evidence_colours(_graph(), facts, "What colour is it?") == ["gray", "brown", "red"]
    assert evidence_colours(_graph(), [], "What colour is the piano?") == []
