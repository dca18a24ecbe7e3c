"""Questions never edit, however they are phrased (issue 33): the classifier of
:mod:`synergai.agent.intent` errs towards "question", and a question turn refuses every edit."""

from __future__ import annotations

import json

import pytest
from agent_scripting import final

from synergai.agent.intent import MAX_INPUT_CHARS, InputTooLong, check_length, is_question
from synergai.agent.session import AgentSession
from synergai.eval.alignment.judge import COLOR_TEMPLATES, LABEL_TEMPLATES, SUPPORT_TEMPLATES
from synergai.llm import ScriptedModel
from synergai.scene.serialization import dumps
from synergai.scene.store import SceneStore

#: The issue's probes (question-like input without a final "?") and other phrasings of a question.
QUESTIONS = [
    "What's on the table",
    "Hey, what is on the table",
    "Please tell me what color the sink is",
    "So how many chairs are there",
    "テーブルの上に何がありますか？",
    "桌子上有什么",
    "I wonder what is on the table",
    "tell me which chair is near the table.",
    "Is the cup on the table",
    "ok so um where is the lamp",
    "Wo ist die Lampe",
    "Was steht auf dem Tisch",
    "Qu'est-ce qu'il y a sur la table",
    "Où est la lampe",
    "¿Qué hay en la mesa",
    "Dónde está la lámpara",
    "Что стоит на столе",
    "I would like to know the colour of the cup.",
    "Let me know how many chairs there are.",
    "Do you know what the tv is mounted on",
    "Count the chairs.",
    "The cup is red？",
]
#: Corrections as the alignment benchmark's simulated user says them: still corrections.
CORRECTIONS = [
    *(t.format(a_truth="a stool", a_perceived="a chair") for t in LABEL_TEMPLATES),
    *(t.format(truth="red", perceived="brown", name="chair") for t in COLOR_TEMPLATES),
    *(t.format(anchor="table", name="cup") for t in SUPPORT_TEMPLATES),
    "That is not a table, it is a desk.",
    "The table is a desk and the chair next to it is a stool",
    "Do not call it a table, it is a desk.",
    "The cup, which is red, is on the table.",
    "The cup is not on the table.",
]


@pytest.mark.parametrize("text", QUESTIONS)
def test_question_phrasings_are_questions(text: str) -> None:
    assert is_question(text)


@pytest.mark.parametrize("text", CORRECTIONS)
def test_corrections_are_not_questions(text: str) -> None:
    assert not is_question(text)


@pytest.mark.parametrize("text", QUESTIONS)
def test_a_question_phrased_any_way_never_edits(store: SceneStore, text: str) -> None:
    """The model replies with edits (rename the table, delete the cup's relation): nothing changes."""
    plan = json.dumps({"thought": "Fix it.", "plan": [
        {"action": "update_name", "action_input": {"item_id_list": ["2"], "new_name_list": ["lava"]}},
        {"action": "delete_relation",
         "action_input": {"subject_id": "3", "relation": "on", "object_id": "2"}}]})
    before = dumps(store.load("room"))
    result = AgentSession(store, "room", ScriptedModel([plan, final("Done.")]), marked="2").ask(text)
    assert result.edits == [] and store.edits("room", include_undone=True) == []
    assert dumps(store.load("room")) == before


def test_input_over_the_limit_is_refused() -> None:
    check_length("x" * MAX_INPUT_CHARS)
    with pytest.raises(InputTooLong, match="limit is 4000"):
        check_length("x" * (MAX_INPUT_CHARS + 1))
