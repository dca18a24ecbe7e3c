"""Every answer is checked before it is given: on real dev scenes, each kind of wrong answer is caught and
comes with the graph's own typed answer; in both loops a failed check is sent back once, then the
fallback is given, never tool text."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_scripting import act, final, room

from synergai.agent.answer_check import (
    UNNAMED,
    absent_thing,
    check_answer,
    question_subject,
    settle,
    settle_quotes,
    tool_text,
    without_ids,
)
from synergai.agent.answer_forms import AnswerForm, normalise_answer
from synergai.agent.kernel import AnswerVerdict
from synergai.agent.loop import LoopLimits
from synergai.agent.program.loop import ProgramLimits, ProgramLoop
from synergai.agent.question import Question
from synergai.agent.result import Answered
from synergai.agent.session import AgentSession
from synergai.llm import ScriptedModel
from synergai.scene.build import build_graph
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.grounding.place import places
from synergai.scene.model import SceneGraph
from synergai.scene.vocabulary import COLOR_NAMES, basic_color

SEND_BACK = LoopLimits(check_sends_back=True)  # the agent sends a failed answer back once
MODEL_ANSWERS = LoopLimits(check_sends_back=True, graph_answers=False)  # the model answers all it is asked

SCENE = "scene0011_00"  # a kitchen and dining room: ten chairs, two tables, no piano


@pytest.fixture(scope="module")
def graph(shared_data: Path) -> SceneGraph:
    objects = load_objects_file(shared_data / "scannet" / "objects_gt.json")
    return build_graph(SCENE, objects.objects(SCENE), scene_type=objects.scene_type(SCENE))


def _check(graph: SceneGraph, question: str, answer: str) -> AnswerVerdict:
    return check_answer(Question.parse(question, sorted(graph.categories())), answer, graph)


def _fallback_passes(graph: SceneGraph, question: str, verdict: AnswerVerdict) -> None:
    """A fallback is an answer of its own: it passes the check and carries no tool text."""
    assert not verdict.ok and verdict.reason and verdict.fallback
    assert _check(graph, question, verdict.fallback).ok
    assert not tool_text(verdict.fallback) and not tool_text(verdict.sentence)


def test_a_colour_of_another_object_is_caught_and_the_subjects_colour_given(graph: SceneGraph) -> None:
    question = "What colour is the table?"
    tables = graph.by_category("table")
    theirs = {basic_color(a) for t in tables for a in t.attributes if a in COLOR_NAMES}
    wrong = next(c for c in ("pink", "purple", "orange", "green") if c not in theirs)
    verdict = _check(graph, question, wrong)
    assert "no table here is" in verdict.reason
    _fallback_passes(graph, question, verdict)
    assert normalise_answer(AnswerForm.COLOR, verdict.fallback or "") == verdict.fallback


def test_a_place_said_by_the_object_itself_is_caught_and_the_graphs_place_given(graph: SceneGraph) -> None:
    question = "Where is the chair?"
    verdict = _check(graph, question, "next to the chair")
    assert "another object than the chair" in verdict.reason
    _fallback_passes(graph, question, verdict)
    said = {p.words(graph) for c in graph.by_category("chair") for p in places(graph, c.id)}
    assert verdict.fallback in said and "chair" not in (verdict.fallback or "").split()[-1]
    assert _check(graph, "Where is the refrigerator?", "next to the kitchen cabinets").ok
    # both tables stand clear of the walls: the room says where they are, and that passes the check
    verdict = _check(graph, "Where is the table?", "next to the table")
    assert verdict.fallback == "in the middle of the room"
    _fallback_passes(graph, "Where is the table?", verdict)


def test_an_answer_of_the_wrong_form_is_caught_and_the_count_given(graph: SceneGraph) -> None:
    question = "How many chairs are there?"
    verdict = _check(graph, question, "brown")
    assert verdict.reason == "the question asks for a number"
    _fallback_passes(graph, question, verdict)
    assert verdict.fallback == str(len(graph.by_category("chair")))
    too_many = _check(graph, question, "40")
    assert "the room has only" in too_many.reason and too_many.fallback == verdict.fallback
    assert _check(graph, "Is there a table?", "maybe").reason == "the question asks for yes or no"
    assert _check(graph, question, "3").ok and _check(graph, "Is there a table?", "Yes.").ok
    # a count of what the room does not label (drawers) is still bounded by all the objects it holds
    parts = "How many drawers does the cabinet have?"
    assert "objects this room holds" in _check(graph, parts, str(len(graph) + 1)).reason
    assert _check(graph, parts, "4").ok


def test_a_category_answer_naming_the_questions_own_object_is_caught(graph: SceneGraph) -> None:
    question = "What is next to the refrigerator?"
    verdict = _check(graph, question, "refrigerator")
    assert "already names the refrigerator" in verdict.reason
    _fallback_passes(graph, question, verdict)
    # a situation said before the question names what the user sees; the answer may be one of them
    situated = "I just threw my gum in the trash can and I am facing the sink. What is next to the sink?"
    assert _check(graph, situated, "trash can").ok
    assert "already names the sink" in _check(graph, situated, "sink").reason
    # its head names it too ("the kitchen cabinets": a cabinet); a compound's other word does not
    kitchen = "What is next to the kitchen cabinets?"
    _fallback_passes(graph, kitchen, head := _check(graph, kitchen, "cabinet"))
    assert "already names the cabinet" in head.reason and _check(graph, kitchen, "refrigerator").ok
    assert _check(graph, "What is on the kitchen counter?", "sink").ok


@pytest.mark.parametrize(("question", "fallback"), [("What is on the table?", "cup"),  # what it holds up
                                                   ("What is the table on?", "rug")])  # what holds it up
def test_the_graphs_answer_reads_the_relation_from_the_side_the_question_asks(question, fallback) -> None:
    from synergai.scene.model import Edge, Relation, SceneObject

    objects = [SceneObject("1", "rug", (1, 1, 0.01), (2, 2, 0.02)), SceneObject("2", "table", (1, 1, 0.4),
               (1, 1, 0.76)), SceneObject("3", "cup", (1, 1, 0.83), (0.1, 0.1, 0.1))]
    on = Relation.SUPPORTED_BY
    graph = SceneGraph("t", objects, [Edge("2", on, "1"), Edge("3", on, "2")])
    verdict = _check(graph, question, "table")
    assert "already names the table" in verdict.reason and verdict.fallback == fallback


def test_the_floor_or_a_wall_answers_only_what_holds_a_thing_up(graph: SceneGraph) -> None:
    for question in ("What is in front of the refrigerator?", "What is left of the sink?",
                     "What is under the table?"):
        verdict = _check(graph, question, "the floor" if "under" in question else "wall")
        assert "only hold things up" in verdict.reason
        _fallback_passes(graph, question, verdict)
        assert verdict.fallback not in {"floor", "wall", "ceiling"}
    # of the objects related to it, one in the relation the question says (the sink is mounted on the
    # kitchen cabinets, and lower than the window)
    assert _check(graph, "What is the sink lower than?", "wall").fallback == "window"
    # what holds it up may be the floor or a wall: never replaced
    for question, answer in (("What is the refrigerator standing on?", "floor"),
                             ("What is the window mounted on?", "the wall")):
        verdict = _check(graph, question, answer)
        assert "only hold things up" not in verdict.reason and verdict.fallback is None


@pytest.mark.parametrize("answer", ["object", "an object", "Something."])
def test_object_as_the_answer_to_what_is_it_names_nothing(graph: SceneGraph, answer: str) -> None:
    question = "What is next to the refrigerator?"
    verdict = _check(graph, question, answer)
    assert "names no object" in verdict.reason
    _fallback_passes(graph, question, verdict)
    assert _check(graph, question, "kitchen counter").ok  # a named object passes


@pytest.mark.parametrize("answer", [
    "The table (id: 2) is gray.",
    "2 objects fit 'chair near the table': chair (id: 4), chair (id: 5).",
    "It is at [1.52, 0.3, 0.75].",
    "The position of the sink is 1.2, 0.4, 0.8 and its size is small.",
    "Best match for 'table': table 2.",
    "Error: there is no object with id or name 'x'",
])
def test_tool_text_is_caught_and_never_given(graph: SceneGraph, answer: str) -> None:
    question = "What colour is the table?"
    verdict = _check(graph, question, answer)
    assert "tools' own text" in verdict.reason
    _fallback_passes(graph, question, verdict)


@pytest.mark.parametrize("answer", ["trash can 15", "table 17 is on your left", "washing object 2",
                                    "The chairs 4 and 5.", "the kitchen cabinet 1", "doors 30"])
def test_an_object_named_by_its_id_is_tool_text(graph: SceneGraph, answer: str) -> None:
    question = "What is on my left?"
    verdict = _check(graph, question, answer)
    assert "tools' own text" in verdict.reason and not tool_text(answer)  # the graph knows the ids
    assert tool_text(answer, graph)


def test_an_answer_naming_objects_by_id_is_given_without_the_ids(graph: SceneGraph) -> None:
    question = Question.parse("What can I use to throw out my gum?", sorted(graph.categories()))
    result = Answered("You can use trash can 15.", short_answer="trash can 15")
    assert settle(result, question, graph, may_retry=False) is None
    assert (result.short_answer, result.answer) == ("trash can", "You can use trash can.")
    assert result.trace == [{"type": UNNAMED, "answer": "You can use trash can 15.",
                             "short_answer": "trash can 15"}]
    assert without_ids("The chairs 4 and 5 are free, 4 and 5 metres away.", graph) == \
        "The chairs are free, 4 and 5 metres away."
    assert without_ids("The chairs 4 and 99 are free.", graph) == "The chairs and 99 are free."  # 99: no id
    # other tool text besides the ids: the answer check's fallback, never the text
    quoting = Answered("trash can 15 (id: 15)", short_answer="trash can 15 (id: 15)")
    settle(quoting, question, graph, may_retry=False)
    assert not tool_text(quoting.answer, graph) and not tool_text(quoting.short_answer, graph)


def test_an_answer_after_earlier_turns_names_no_object_by_id_either(graph: SceneGraph) -> None:
    result = Answered("It is table 17, by the window.", short_answer="table 17")
    assert settle_quotes(result, "Sorry.", may_retry=False, graph=graph) is None
    assert (result.short_answer, result.answer) == ("table", "It is table, by the window.")
    quoting = Answered("table 17 (id: 17)", short_answer="table 17")
    settle_quotes(quoting, "Sorry.", may_retry=False, graph=graph)
    assert (quoting.short_answer, quoting.answer) == ("", "Sorry.")


@pytest.mark.parametrize("answer", ["There are 4 chairs.", "table", "chair 99", "It is 2 meters away."])
def test_a_number_that_is_no_objects_id_is_not_tool_text(graph: SceneGraph, answer: str) -> None:
    assert not tool_text(answer, graph)  # no chair 99 here; "4 chairs" counts; "is 2" names nothing


@pytest.mark.parametrize("value", ["None", "[]", "set()"])
def test_a_programs_empty_value_is_not_an_answer(graph: SceneGraph, value: str) -> None:
    question = "What is next to the refrigerator?"
    verdict = _check(graph, question, value)  # what a program printed, said back as the answer
    assert "a program's empty value" in verdict.reason
    _fallback_passes(graph, question, verdict)
    # in words, "none" and "nothing" are answers; a count's "None" is read as 0
    assert _check(graph, question, "nothing").ok and _check(graph, question, "none").ok
    assert _check(graph, "How many pianos are on the table?", "None").ok


def test_an_object_the_scene_lacks_is_said_to_be_missing_never_guessed(graph: SceneGraph) -> None:
    for question, fallback in [("What colour is the piano?", "there is no piano"),
                               ("Is there a piano?", "no"), ("How many pianos are there?", "0")]:
        wrong = "brown" if "colour" in question else "yes" if "Is" in question else "2"
        verdict = _check(graph, question, wrong)
        assert "this room has no piano" in verdict.reason and verdict.fallback == fallback
        assert verdict.sentence == "There is no piano in this room."
    assert _check(graph, "What colour is the piano?", "There is no piano here.").ok
    # a part of the room or another word for one of its objects is not missing
    assert _check(graph, "What is in the corner?", "table").ok
    assert question_subject(Question.parse("What colour is the fridge?", sorted(graph.categories())),
                            graph).name == "refrigerator"


@pytest.mark.parametrize(("scene", "question", "absent"), [
    ("scene0423_00", "What direction do the chairs face?", ""),  # a verb after the noun; armchairs
    ("scene0423_00", "The tan chair is near what?", ""),  # an armchair is a chair
    ("scene0435_00", "Where is the large brown sofa located?", ""),  # the sofa chair
    ("scene0423_00", "What colour is the piano?", "piano"),
    ("scene0435_00", "Where is the grand piano standing?", "grand piano"),
    ("scene0423_00", "Is the piano I am playing loud?", "piano"),  # the person is not the piano's name
    ("scene0423_00", "What is to my right that has a faucet?", ""),  # a part of what is asked
    ("scene0423_00", "Can I reach the piano if I turn left?", "piano"),
])
def test_only_a_name_no_object_answers_to_is_missing(shared_data: Path, scene: str, question: str,
                                                      absent: str) -> None:
    objects = load_objects_file(shared_data / "scannet" / "objects_gt.json")
    room_graph = build_graph(scene, objects.objects(scene), scene_type=objects.scene_type(scene))
    asked = Question.parse(question, sorted(room_graph.categories()))
    assert absent_thing(asked, room_graph) == absent


@pytest.mark.parametrize(("scene", "question", "category"), [
    ("scene0222_00", "What color is the desk chair?", "chair"),  # a compound's head is its last noun
    ("scene0426_00", "Where is the floor lamp located?", "lamp"),
    ("scene0084_00", "Where is the wall soap dispenser located?", "soap dispenser"),
    ("scene0084_00", "What color is the toilet seat cover dispenser?", "toilet seat cover dispenser"),
    ("scene0222_00", "What color is the chair next to the desk?", "chair"),
    ("scene0222_00", "What is on the desk?", "desk"),
])
def test_the_subject_is_the_head_of_a_compound_name(shared_data: Path, scene: str, question: str,
                                                     category: str) -> None:
    objects = load_objects_file(shared_data / "scannet" / "objects_gt.json")
    room_graph = build_graph(scene, objects.objects(scene), scene_type=objects.scene_type(scene))
    subject = question_subject(Question.parse(question, sorted(room_graph.categories())), room_graph)
    assert subject.name == category
    assert {room_graph.get(i).category for i in subject.ids} == {category}


def test_bad_input_gets_a_verdict_never_an_error(graph: SceneGraph) -> None:
    empty = _check(graph, "", "yes")  # an empty question asks nothing to check against
    assert empty.ok
    long = _check(graph, "What colour is the table " + "and the chair " * 280 + "?", "green")
    assert isinstance(long, AnswerVerdict)
    other = _check(graph, "Welche Farbe hat der Stuhl?", "braun")  # no English object word: no guess
    assert other.ok and other.fallback is None
    assert not _check(graph, "What colour is the table?", "").ok


def test_the_marked_object_is_the_subject(graph: SceneGraph) -> None:
    chair = graph.by_category("chair")[0]
    question = Question.parse("What colour is this?", sorted(graph.categories()))
    assert question_subject(question, graph, chair.id).ids == (chair.id,)
    mine = {basic_color(a) for a in chair.attributes if a in COLOR_NAMES}
    if mine:
        wrong = next(c for c in ("pink", "purple", "orange", "green") if c not in mine)
        assert not check_answer(question, wrong, graph, chair.id).ok
    # a question that names another category is about that one, whatever is marked
    this_chair = Question.parse("Is this chair pushed in?", sorted(graph.categories()))
    assert question_subject(this_chair, graph, chair.id).ids == (chair.id,)
    table = Question.parse("What colour is the table?", sorted(graph.categories()))
    assert question_subject(table, graph, chair.id).ids == question_subject(table, graph).ids
    assert chair.id not in question_subject(table, graph, chair.id).ids


# ------------------------------------------------------------------------------------- in the loops
def _plan(*steps: tuple[str, dict]) -> str:
    import json

    return json.dumps({"thought": "Look.", "plan": [{"action": a, "action_input": i} for a, i in steps]})


def test_the_agent_loop_sends_a_failed_answer_back_once_with_its_reason(store) -> None:
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "table"})),
                         final("The cup is brown.", ["3"], short="brown"),
                         final("It is red.", ["3"], short="red")])
    session = AgentSession(store, "room", llm, limits=MODEL_ANSWERS)
    result = session.ask("What colour is the cup on the table?")
    assert "no cup here is brown: the cup is red" in llm.requests[2].messages[-1]["content"]
    assert result.short_answer == "red" and result.usage.calls == 3


def test_the_agent_loop_gives_the_graphs_answer_when_the_retry_fails_too(store) -> None:
    wrong = final("The tv (id: 6) is at [2.0, 3.95, 1.5].", ["6"], short="brown")
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "table"})), wrong, wrong])
    session = AgentSession(store, "room", llm, limits=MODEL_ANSWERS)
    result = session.ask("What colour is the cup on the table?")
    assert result.short_answer == "red" and result.answer == "The cup is red."
    assert not tool_text(result.answer) and result.usage.calls == 3


def test_the_agent_loop_says_a_missing_object_is_missing(store) -> None:
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "piano"})), final("Brown.", short="brown"),
                         final("Brown.", short="brown")])
    result = AgentSession(store, "room", llm, limits=SEND_BACK).ask("What colour is the piano?")
    assert result.answer == "There is no piano in this room."


def test_replies_that_are_not_json_or_loop_never_give_tool_text(store) -> None:
    loops = act("query_for_objects", {"query": "lamp"})
    llm = ScriptedModel(["not json at all", {"text": '{"plan": [[[[', "finish_reason": "length"},
                         loops, loops,
                         final("The lamp (id: 7) is white.", ["7"], short="white"),
                         final("The lamp (id: 7) is white.", ["7"], short="white")])
    result = AgentSession(store, "room", llm, limits=SEND_BACK).ask("What colour is the lamp?")
    assert result.answer and not tool_text(result.answer) and not tool_text(result.short_answer)


def test_the_program_loop_sends_a_failed_answer_back_then_gives_the_graphs(store) -> None:
    program = ("Thought: count.\nAction: Program\nAction Input:\n```Python\n"
               "print(len(filter(scene(), 'chair')))\n```")
    llm = ScriptedModel([program, "Thought: t.\nAction: Final Answer\nAction Input: brown",
                         "Thought: t.\nAction: Final Answer\nAction Input: 2 objects fit (id: 4)"])
    result = ProgramLoop(llm, ProgramLimits(check_sends_back=True)).run(room(), "How many chairs are there?")
    sent = llm.requests[2].messages[-1]["content"]
    assert "the question asks for a number" in sent
    assert result.short_answer == "2" and not tool_text(result.answer) and result.usage.calls == 3


# ------------------------------------------------------------------ a correction's reply, a heard answer
RENAME = ("update_name", {"item_id_list": ["2"], "new_name_list": ["desk"]})
QUOTING = final("The desk (id: 2) is on floor (id: 0). The position of the desk is [2.0, 2.0, 0.38].")


@pytest.mark.parametrize("limits", [LoopLimits(), SEND_BACK])
@pytest.mark.parametrize("reply", [QUOTING, final("Thanks, I now call it a desk."),
                                   final("Done: desk 2 is what I call it now."),
                                   final("The desk is now called desk.")])  # the model's own account, wrong
def test_a_correction_reply_is_its_edits_in_plain_words(store, limits, reply) -> None:
    """Whatever the model says it did, the reply says what the edits did; nothing is sent back."""
    llm = ScriptedModel([_plan(RENAME), reply, QUOTING])
    result = AgentSession(store, "room", llm, marked="2", limits=limits).ask(
        "That is not a table, it is a desk.")
    assert result.answer == "The table is now called desk." and not tool_text(result.answer)
    assert [e["op"] for e in result.edits] == ["update_name"] and result.usage.calls == 2
    assert store.load("room").get("2").category == "desk"


def test_a_correction_reply_that_changed_nothing_and_quotes_is_sent_back_once(store) -> None:
    llm = ScriptedModel([_plan(("find_marked_object", {})), QUOTING, final("It is a table, I think.")])
    result = AgentSession(store, "room", llm, marked="2", limits=SEND_BACK).ask(
        "That is not a table, it is a desk.")
    assert "quotes the tools' own text" in llm.requests[2].messages[-1]["content"]
    assert result.answer == "It is a table, I think." and result.usage.calls == 3 and result.edits == []


def test_a_correction_that_edits_nothing_never_says_tool_text(store) -> None:
    llm = ScriptedModel([_plan(("find_marked_object", {})), QUOTING, QUOTING])
    result = AgentSession(store, "room", llm, marked="2", limits=SEND_BACK).ask(
        "That is not a table, it is a desk.")
    assert result.answer == "I did not change the scene." and result.edits == []


@pytest.mark.parametrize(("reply", "edit", "given"), [
    # nothing changed: saying the user's words back would claim it was done
    ("The marked table is on the lamp, not on the floor.", None, "I did not change the scene."),
    # after an edit was made, the edit is said
    ("The table is a desk now.", RENAME, "The table is now called desk."),
    # a reply of its own is given
    ("You are welcome.", None, "You are welcome."),
])
def test_a_correction_that_changed_nothing_does_not_say_the_users_words_back(store, reply, edit,
                                                                           given) -> None:
    said = reply if edit or reply.startswith("The") else "Thanks."
    llm = ScriptedModel([_plan(edit or ("find_marked_object", {})), final(reply)])
    result = AgentSession(store, "room", llm, marked="2").ask(said)
    assert result.answer == given
    assert any(t.get("type") == "answer-check" for t in result.trace) == (given != reply and not edit)


def test_an_answer_after_earlier_turns_is_still_checked_for_tool_text(store) -> None:
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "lamp"})),
                         final("It is white.", short="white"),
                         _plan(("query_for_objects", {"query": "lamp"})),
                         final("It is at [3.6, 3.6, 0.6] (id: 7).", ["7"], short="at [3.6, 3.6, 0.6]"),
                         final("It is at [3.6, 3.6, 0.6] (id: 7).", ["7"], short="at [3.6, 3.6, 0.6]")])
    session = AgentSession(store, "room", llm, limits=MODEL_ANSWERS)
    session.ask("What colour is the lamp?")
    result = session.ask("And where is it?")  # the conversation is in the prompt: the turn has "heard" it
    assert "quotes the tools' own text" in llm.requests[-1].messages[-1]["content"]
    assert result.answer == "Sorry, I could not find that in this room." and result.short_answer == ""
