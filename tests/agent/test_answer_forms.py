"""Typed short answers: question forms, their schemas and their text."""

import json

import pytest

from synergai.agent.answer_forms import (
    AnswerForm,
    answer_form,
    answer_schema,
    choice_options,
    normalise_answer,
    render_answer,
)


@pytest.mark.parametrize(
    ("question", "form"),
    [
        ("How many chairs are in the room?", AnswerForm.NUMBER),
        ("What color is the file cabinet?", AnswerForm.COLOR),
        ("What is the colour of the couch?", AnswerForm.COLOR),
        ("What colours are the chairs?", AnswerForm.COLOR),  # a plural asks for colours too
        ("Is there a lamp next to the bed?", AnswerForm.YES_NO),
        ("Can I see the window from here?", AnswerForm.YES_NO),
        ("Is the door on my left or right?", AnswerForm.DIRECTION),
        ("Which direction should I go to reach the sink?", AnswerForm.DIRECTION),
        ("Where is the backpack located?", AnswerForm.PLACE),
        ("What is on the coffee table?", AnswerForm.CATEGORY),
        ("Which object is under the desk?", AnswerForm.CATEGORY),
        ("What shape is the table?", AnswerForm.SHAPE),
        ("What is the chair made of?", AnswerForm.PHRASE),
        ("Is the towel white or blue?", AnswerForm.CHOICE),
        ("Is the amount of chair behind me odd or even?", AnswerForm.CHOICE),
        ("Is the TV on or off in front of me to the right?", AnswerForm.CHOICE),
        ("Should I turn left or right to get to the door?", AnswerForm.DIRECTION),
        ("Can the number of cabinets behind me be divided by three?", AnswerForm.YES_NO),
        ("What is on the 6 o'clock of the folded table in front of me?", AnswerForm.CATEGORY),
        ("Are the monitors on the same table or are they on a different table?", AnswerForm.YES_NO),
        ("On what side of the red door is the refrigerator located?", AnswerForm.DIRECTION),
        ("The brown armchair is across from what?", AnswerForm.CATEGORY),
        ("The small chair is in the corner by what?", AnswerForm.CATEGORY),
        ("In what part of the room is the window located?", AnswerForm.PHRASE),
    ],
)
def test_question_forms(question: str, form: AnswerForm) -> None:
    assert answer_form(question) is form


def test_category_and_place_schemas_admit_only_the_scene_categories() -> None:
    cats = ["desk", "bed", "lamp"]
    assert answer_schema(AnswerForm.CATEGORY, cats)["enum"] == ["bed", "desk", "lamp"]
    place = answer_schema(AnswerForm.PLACE, cats)
    assert place["properties"]["anchor"]["enum"] == ["bed", "desk", "lamp"]
    assert "on" in place["properties"]["relation"]["enum"]
    # without a scene vocabulary the answer is a bounded free phrase
    assert answer_schema(AnswerForm.CATEGORY)["maxLength"] > 0
    assert json.dumps(answer_schema(AnswerForm.COLOR))


def test_rendering_and_normalising() -> None:
    assert render_answer(AnswerForm.PLACE, {"relation": "on", "anchor": "desk"}) == "on the desk"
    assert render_answer(AnswerForm.PLACE, {"relation": "", "anchor": "desk"}) == ""
    assert render_answer(AnswerForm.NUMBER, 3) == "3"
    assert render_answer(AnswerForm.YES_NO, True) == "yes"
    assert normalise_answer(AnswerForm.NUMBER, "There are three chairs.") == "3"
    assert normalise_answer(AnswerForm.NUMBER, "none") == "0"
    assert normalise_answer(AnswerForm.YES_NO, "Yes, there is one.") == "yes"
    assert normalise_answer(AnswerForm.YES_NO, "maybe") == ""
    # a colour answer is the basic colour term people say of the palette's shade
    assert normalise_answer(AnswerForm.COLOR, "It is dark grey.") == "black"
    assert normalise_answer(AnswerForm.COLOR, "grey") == "gray"
    assert normalise_answer(AnswerForm.COLOR, "cream") == "white"
    assert normalise_answer(AnswerForm.COLOR, "dark brown") == "brown"
    assert answer_schema(AnswerForm.COLOR)["enum"] == [
        "black", "blue", "brown", "gray", "green", "orange", "pink", "purple", "red", "white", "yellow"]
    assert normalise_answer(AnswerForm.DIRECTION, "to your left") == "left"


def test_choice_questions_name_their_options_and_answers_pick_one() -> None:
    q = "Is the shape of the table in front of me round, square or rectangular?"
    assert choice_options(q) == ("round", "square", "rectangular")
    assert choice_options("Is the window closer to the toilet or the sink?") == ("toilet", "sink")
    assert choice_options("What is on the table?") == ()
    schema = answer_schema(AnswerForm.CHOICE, ["desk"], ("odd", "even"))
    assert schema == {"type": "string", "enum": ["odd", "even"]}
    assert normalise_answer(AnswerForm.CHOICE, "It is even.", ("odd", "even")) == "even"
    assert normalise_answer(AnswerForm.CHOICE, "three", ("odd", "even")) == ""
