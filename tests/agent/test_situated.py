"""Directions from where the agent stands come from the graph, the same in both loops, with no model call:
the nearest named object's clock hour, said as the side people give for it."""

from __future__ import annotations

import pytest
from agent_scripting import room

from synergai.agent.program.loop import ProgramLoop
from synergai.agent.question import Question
from synergai.agent.session import AgentSession
from synergai.agent.situated import side_answer, side_of_hour
from synergai.geometry.frames import Viewpoint
from synergai.llm import ScriptedModel
from synergai.llm.base import ScriptExhausted

NORTH = Viewpoint((2.0, 0.0, 1.6), (0.0, 1.0, 0.0))  # at the room's south edge, facing the TV wall
SOUTH = Viewpoint((2.0, 3.5, 1.6), (0.0, -1.0, 0.0))  # in front of the TV, facing away from it


def _side(question: str, viewpoint: Viewpoint) -> str:
    graph = room()
    found = side_answer(Question.parse(question, sorted(graph.categories())), graph, viewpoint)
    assert found is not None
    return found.short


def test_the_side_is_the_one_people_give_for_the_objects_clock_hour() -> None:
    assert [side_of_hour(h) for h in (12, 1, 5, 6, 7, 11)] == ["front", "right", "right", "back", "left",
                                                              "left"]
    assert _side("Is the lamp on my left or right?", NORTH) == "right"
    assert _side("Is the lamp on my left or right?", SOUTH) == "left"  # turned round, east is on the left
    assert _side("Which direction is the tv?", NORTH) == "front"
    assert _side("Which direction is the tv?", SOUTH) == "back"
    # of the directions offered, the one facing nearest the object's hour
    assert _side("Should I go left or backward to reach the tv?", SOUTH) == "back"


def test_only_a_direction_question_naming_an_object_here_is_answered() -> None:
    graph = room()
    for question in ("What colour is the lamp?", "Which direction is the piano?", "Where is the lamp?"):
        assert side_answer(Question.parse(question, sorted(graph.categories())), graph, NORTH) is None


def test_both_loops_answer_a_direction_from_the_graph_with_no_model_call(store) -> None:
    asked = "Is the lamp on my left or right?"
    result = AgentSession(store, "room", ScriptedModel([]), viewpoint=SOUTH).ask(asked)
    assert result.short_answer == "left" and result.answer == "The lamp is on your left."
    assert result.objects == ["7"] and any(t.get("from_graph") for t in result.trace)
    program = ProgramLoop(ScriptedModel([])).run(room(), asked, "I stand in front of the TV.", SOUTH)
    assert program.short_answer == "left"  # a call would have raised: the script is empty
    # what the user says of where they stand names other objects: only the sentence that asks is read
    said = AgentSession(store, "room", ScriptedModel([]), viewpoint=SOUTH).ask(
        "My back is to the tv and the table is in front of me. Is the lamp on my left or right?")
    assert said.short_answer == "left" and said.objects == ["7"]
    # with no viewpoint there is no side to give: the model is asked
    with pytest.raises(ScriptExhausted):
        AgentSession(store, "room", ScriptedModel([])).ask(asked)
