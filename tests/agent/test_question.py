"""The Question value: an input parsed once, on the question forms of SQA3D and ScanQA."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from synergai.agent.answer_forms import AnswerForm, answer_form, choice_options
from synergai.agent.question import Question


@pytest.mark.parametrize(("text", "form"), [
    ("Is the door on my left open?", AnswerForm.YES_NO),  # SQA3D
    ("How many chairs are in front of me?", AnswerForm.NUMBER),
    ("Which direction should I go to reach the sink?", AnswerForm.DIRECTION),
    ("Is the table to my left or right?", AnswerForm.DIRECTION),
    ("Is the number of pillows odd or even?", AnswerForm.CHOICE),
    ("What color is the chair in the kitchen?", AnswerForm.COLOR),  # ScanQA
    ("What shape is the table?", AnswerForm.SHAPE),
    ("Where is the printer located?", AnswerForm.PLACE),
    ("What is placed on the desk?", AnswerForm.CATEGORY),
    ("What type of lamp is by the door?", AnswerForm.CATEGORY),
])
def test_the_form_and_options_come_from_the_wording(text: str, form: AnswerForm) -> None:
    q = Question.parse(text)
    assert q.form is form and q.asking and q.reply_form is form
    assert q.choices == (("odd", "even") if form is AnswerForm.CHOICE else ())


def test_a_question_names_kind_relations_ids_and_scene_categories() -> None:
    scene = ["bed", "desk", "lamp", "sofa"]
    q = Question.parse("Which lamp is between the bed and the desk near id 12?", scene)
    assert q.kind_at == 1 and "between" in q.relations and q.ids == ("12",)
    assert q.categories == ("bed", "desk", "lamp")
    one = Question.parse("How many pillows are on the couch?", ["sofa", "pillow", "table"])
    assert one.categories == ("pillow", "sofa")  # "couch" names the sofa
    assert Question.parse("What is on the fridge?", ["refrigerator", "bed"]).categories == ("refrigerator",)
    assert Question.parse("What is on the fridge?").categories == ()  # no scene given: none named


def test_an_input_that_says_where_the_user_is_first_asks_in_the_form_of_its_question() -> None:
    scene = ["door", "table", "cup", "box", "chair"]
    q = Question.parse("I am facing the door with the table behind me. Is the door on my left open?", scene)
    assert q.form is AnswerForm.YES_NO and q.categories == ("door", "table")  # named anywhere
    which = Question.parse("I just sat down. Which chair is by the door?", scene)
    assert which.form is AnswerForm.CATEGORY and which.words[which.kind_at or 0] == "chair"
    choice = Question.parse("I put a cup or a box down. What is on the table, a cup or a box?", scene)
    assert choice.options == ("cup", "box") and choice.form is AnswerForm.CHOICE
    assert Question.parse("I am facing the door, what is on my left", scene).form is AnswerForm.PHRASE


def test_a_correction_is_not_a_question_and_answers_in_a_phrase() -> None:
    q = Question.parse("The marked object is actually a stool.")
    assert not q.asking and q.reply_form is AnswerForm.PHRASE
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.asking = True  # type: ignore[misc]


@pytest.mark.parametrize("path", ["sqa3d/sqa3d_test_dev.json", "scanqa/scanqa_val_dev.json"])
def test_every_benchmark_question_parses_as_its_parts_read_it(shared_data: Path, path: str) -> None:
    questions = [q["question"] for q in json.loads((shared_data / path).read_text())]
    for text in questions:
        q = Question.parse(text)
        assert (q.form, q.options, q.text, str(q)) == (answer_form(text), choice_options(text), text, text)
    forms = {Question.parse(t).form for t in questions}
    assert len(forms) >= 5  # the benchmarks ask in many forms
