"""Issue 14 on the agent side, with scripted models: token budget, no filler, typed answers composed
into sentences that name every object the evidence holds, the query ratio counted once per revision."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_scripting import act, final, room

from synergai.agent.answer_check import CANNOT_COUNT
from synergai.agent.answer_forms import AnswerForm
from synergai.agent.answer_sentence import compose_answer, copies_error
from synergai.agent.loop import AgentLoop, LoopLimits
from synergai.agent.observation import Fact
from synergai.agent.prompt import action_schema, final_schema, plan_schema
from synergai.agent.question import Question
from synergai.agent.session import AgentSession
from synergai.llm import ScriptedModel
from synergai.scene.catalog import SceneCatalog
from synergai.scene.model import SceneGraph, SceneObject
from synergai.scene.store import SceneStore
from synergai.scene.vocabulary import with_article


def _plan(*steps: tuple[str, dict]) -> str:
    return json.dumps({"plan": [{"action": a, "action_input": i} for a, i in steps]})


def _typed(short: object) -> str:
    return json.dumps({"action": "final_answer", "action_input": {"short_answer": short}})


def _keys(schema: object) -> set[str]:
    """Every property name anywhere in a JSON schema."""
    if isinstance(schema, dict):
        own = set(schema.get("properties", {})) if isinstance(schema.get("properties"), dict) else set()
        return own.union(*(_keys(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(_keys(v) for v in schema))
    return set()


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[SceneStore]:
    store = SceneStore(tmp_path / "demo.sqlite3")
    SceneCatalog(store).open("demo")
    yield store
    store.close()


# ----------------------------------------------------------------------------- token budget
def test_results_record_new_prompt_tokens_and_completion_tokens(store):
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "lamp"})), _typed("yes")])
    result = AgentSession(store, "room", llm).ask("Is the lamp white?")
    assert result.usage.calls == 2 and result.usage.completion_tokens > 0
    # the second call shares the system prompt and the question with the first: served from the cache
    assert 0 < result.usage.new_prompt_tokens < result.usage.prompt_tokens
    assert result.usage.new_prompt_tokens + result.usage.cached_tokens == result.usage.prompt_tokens
    assert result.to_dict()["new_prompt_tokens"] == result.usage.new_prompt_tokens


def test_no_schema_asks_for_a_thought():
    for schema in (plan_schema(), plan_schema(marked=False, question=True), action_schema(),
                   final_schema(AnswerForm.COLOR)):
        assert "thought" not in _keys(schema)


def test_the_typed_answer_call_is_small(store):
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "chair"})), _typed(2)])
    # the model answers (the graph would count the chairs it found with no call)
    result = AgentSession(store, "room", llm, limits=LoopLimits(graph_answers=False)).ask(
        "How many chairs are there?")
    assert result.answer == "There are 2 chairs." and result.short_answer == "2"
    assert llm.requests[1].max_tokens <= 48
    assert result.objects == ["4", "5"]


# ----------------------------------------------------------------------------- no filler
def test_plan_steps_that_cannot_succeed_are_not_run_nor_shown(store):
    llm = ScriptedModel([
        _plan(("query_for_objects", {"query": "cup"}),
              ("calculate_mid_point", {"item_id_list": ["cup"]}),
              ("query_for_relations", {"item_id_list": ["marked"]})),
        _typed("yes"),
    ])
    result = AgentSession(store, "room", llm).ask("Is the cup red?")
    ran = [t["action"] for t in result.trace if t["type"] == "action"]
    assert ran == ["query_for_objects", "final_answer"]
    skipped = {t["action"]: t["reason"] for t in result.trace if t["type"] == "skipped"}
    assert set(skipped) == {"calculate_mid_point", "query_for_relations"}
    seen = json.dumps(llm.requests[1].messages[1:])  # all but the (tool-describing) system prompt
    assert "mid point" not in seen and "Error" not in seen and "calculate_mid_point" not in seen
    assert result.answer == "Yes."


def test_a_plan_of_filler_only_still_runs_and_shows_its_error(store):
    llm = ScriptedModel([
        _plan(("calculate_mid_point", {"item_id_list": ["cup"]})),
        act("query_for_objects", {"query": "cup"}),
        _typed("red"),
    ])
    result = AgentSession(store, "room", llm).ask("What colour is the cup?")
    assert "a mid point needs two different objects" in llm.requests[1].messages[-1]["content"]
    assert result.answer == "The cup is red."


def test_an_error_text_is_never_copied_into_the_answer(store):
    llm = ScriptedModel([
        _plan(("query_for_relations", {"item_id_list": ["piano"]})),
        final("There is no object with id or name piano, use query_for_objects.", short="none"),
    ])
    result = AgentSession(store, "room", llm).ask("Describe the piano.")
    assert "query_for_objects" not in result.answer and "id or name" not in result.answer
    assert any("repeated an error" in str(t.get("error", "")) for t in result.trace)
    error = ["there is no object with id or name"]
    assert copies_error("Sorry: there is no object with id or name 'x'.", error)
    assert not copies_error("The cup is red.", error)


# ----------------------------------------------------------------------------- typed answers
@pytest.mark.parametrize(("question", "expected"), [
    # bounded by what the lookup observed: the brown table and the red cup on it
    ("What colour is it?", {"enum": ["brown", "red"]}),
    ("How many chairs are there?", {"type": "integer"}),
    ("Is there a cup?", {"enum": ["yes", "no"]}),
])
def test_the_answer_call_is_typed_by_the_question_and_bounded_by_the_scene(store, question, expected):
    # "x" fits no form: it is sent back once (the answer check), and the same again is not given
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "table"})), _typed("x"), _typed("x")])
    AgentSession(store, "room", llm).ask(question)
    schema = llm.requests[1].json_schema
    (branch,) = schema["anyOf"]
    args = branch["properties"]["action_input"]
    assert set(args["properties"]) == {"short_answer"}  # the sentence is composed, not generated
    short = args["properties"]["short_answer"]
    assert {k: short[k] for k in expected} == expected


def test_a_place_answer_is_read_from_the_graph_without_a_model_call(store):
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "cup"}))])
    result = AgentSession(store, "room", llm).ask("Where is the cup?")
    assert result.usage.calls == 1  # the plan; the place is what holds the cup up
    assert result.short_answer == "on the table"
    assert result.answer == "The cup is on the table."
    assert result.objects == ["3", "2"]
    assert any(t.get("from_graph") for t in result.trace)
    # the TV hangs on the wall: a wall may anchor what is mounted on it; the floor never anchors
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "tv"}))])
    assert AgentSession(store, "room", llm).ask("Where is the TV?").short_answer == "on the wall"
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "chair"}))])
    assert AgentSession(store, "room", llm).ask("Where is the chair?").short_answer == "near the table"


def test_a_place_answer_without_an_observed_subject_is_a_relation_and_an_anchor_of_the_scene(store):
    on_table = _typed({"relation": "on", "anchor": "table"})
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "table"})), on_table, on_table])
    sends_back = LoopLimits(check_sends_back=True)  # the failed answer goes back to the model once
    result = AgentSession(store, "room", llm, limits=sends_back).ask("Where is the thingamajig?")
    args = llm.requests[1].json_schema["anyOf"][0]["properties"]["action_input"]
    anchors = args["properties"]["short_answer"]["properties"]["anchor"]["enum"]
    assert "table" in anchors and "sofa" not in anchors
    # the room holds nothing called so: the answer says there is none, not a place of another object
    assert "this room has no thingamajig" in llm.requests[2].messages[-1]["content"]
    assert result.answer == "There is no thingamajig in this room." and result.usage.calls == 3


def test_the_mid_point_is_offered_only_when_the_question_speaks_of_a_middle(store):
    def tools_offered(question: str) -> set[str]:
        llm = ScriptedModel([_plan(("query_for_objects", {"query": "table"})), _typed("cup")])
        AgentSession(store, "room", llm).ask(question)
        return {b["properties"]["action"]["const"]
                for b in llm.requests[0].json_schema["properties"]["plan"]["anyOf"][0]["items"]["anyOf"]}
    assert "calculate_mid_point" not in tools_offered("What is on the table?")
    assert "calculate_mid_point" in tools_offered("What is between the chairs?")


def test_a_question_with_a_free_answer_still_writes_its_sentence(store):
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "table"})),
                         final("It is a wooden table with a cup on it.", short="wooden")])
    result = AgentSession(store, "room", llm).ask("Describe the table.")
    schema = llm.requests[1].json_schema["anyOf"][0]["properties"]["action_input"]
    assert set(schema["required"]) == {"answer", "short_answer"}
    assert result.answer == "It is a wooden table with a cup on it." and result.short_answer == "wooden"


def test_what_is_on_the_coffee_table_names_every_object_on_it(demo):
    graph = demo.load("demo")
    on_table = {o.id for o in graph if o.category in ("laptop", "remote control")}
    assert len(on_table) == 2
    llm = ScriptedModel([_plan(("query_for_relations", {"item_id_list": ["coffee table"], "relation": "on"})),
                         _typed("laptop")])
    result = AgentSession(demo, "demo", llm).ask("What is on the coffee table?")
    assert "laptop" in result.answer and "remote control" in result.answer, result.answer
    assert result.answer.endswith("on the coffee table.")
    assert set(result.objects) == on_table and result.short_answer == "laptop"
    assert result.usage.calls == 2


def test_composed_sentences_list_every_subject_and_count_repeats(store):
    graph = store.load("room")
    near = Fact(("4", "5"), "near", ("2",))
    got = compose_answer(graph, AnswerForm.CATEGORY, "chair", [Fact(("2",)), near])
    assert got.sentence == "2 chairs are near the table." and got.ids == ("4", "5")
    assert compose_answer(graph, AnswerForm.YES_NO, "Yes, there is.", []).sentence == "Yes."
    assert compose_answer(graph, AnswerForm.COLOR, "sparkly", []).sentence == ""  # not a colour: no value
    assert compose_answer(graph, AnswerForm.NUMBER, 1, [Fact(("3",))]).sentence == "There is 1 cup."
    # a count of something else than the object observed does not name it ("100 beds" for the legs)
    for question, sentence in (("How many cups are on the table?", "There are 2 cups."),
                               ("How many handles does the cup have?", "I count 2.")):
        got = compose_answer(graph, AnswerForm.NUMBER, 2, [Fact(("3",))], Question.parse(question))
        assert got.sentence == sentence, question


def test_a_colour_sentence_names_the_objects_whose_shade_has_that_basic_term():
    graph = SceneGraph("hall", [
        SceneObject("1", "door", (0.0, 0.0, 1.0), (0.9, 0.1, 2.0), attributes=("dark gray",)),
        SceneObject("2", "door", (3.0, 0.0, 1.0), (0.9, 0.1, 2.0), attributes=("light gray",)),
    ])
    got = compose_answer(graph, AnswerForm.COLOR, "It is dark grey.", [Fact(("1",)), Fact(("2",))],
                         Question.parse("What colour is the door?"))
    assert (got.short, got.sentence, got.ids) == ("black", "The door is black.", ("1",))
    got = compose_answer(graph, AnswerForm.COLOR, "white", [Fact(("1", "2"))],
                         Question.parse("What colour is the door?"))
    assert (got.sentence, got.ids) == ("The door is white.", ("2",))


def test_facts_that_read_alike_are_stated_once_with_every_object(store):
    graph = store.load("room")
    apart = [Fact(("4",), "near", ("2",)), Fact(("5",), "near", ("2",))]
    got = compose_answer(graph, AnswerForm.CATEGORY, "chair", apart)
    assert got.sentence == "2 chairs are near the table." and set(got.ids) == {"4", "5"}
    got = compose_answer(graph, AnswerForm.CATEGORY, "table", [Fact(("2",), "near", ("4",)),
                                                               Fact(("2",), "near", ("5",))])
    assert got.sentence == "The table is near 2 chairs."


# ----------------------------------------------------------------------------- item 9
class _Counting(ScriptedModel):
    def __init__(self, replies):
        super().__init__(replies)
        self.counted: list[int] = []

    def count_tokens(self, text: str) -> int:
        self.counted.append(len(text))
        return super().count_tokens(text)


def test_the_full_graph_is_rendered_and_counted_once_per_revision(store):
    llm = _Counting([final("Hi.", short="hi"), final("Hi again.", short="hi"),
                     _plan(("update_name", {"item_id_list": ["7"], "new_name_list": ["floor lamp"]})),
                     final("Noted.", short="lamp"), final("Hi.", short="hi")])
    session = AgentSession(store, "room", llm)
    session.ask("Hello there")
    session.ask("Hello again")
    big = [n for n in llm.counted if n > 500]
    assert len(big) == 1  # the second turn reused the count: same revision
    session.ask("The lamp (id 7) is a floor lamp.")
    assert store.load("room").get("7").category == "floor lamp"
    session.ask("Hello once more")
    assert len([n for n in llm.counted if n > 500]) == 2  # the edit made a new revision


def test_the_loop_moves_through_named_phases(store):
    from synergai.agent.loop import Phase

    assert [p.value for p in Phase] == ["plan", "look", "correct", "answer", "close", "done"]
    loop = AgentLoop(ScriptedModel([]))
    assert not hasattr(loop, "first") and callable(loop.full_graph_tokens)


# ----------------------------------------------------------------------------- scene vocabulary
def _branch(schema: dict, action: str) -> dict:
    for b in schema["properties"]["plan"]["anyOf"][0]["items"]["anyOf"] if "properties" in schema \
            else schema["anyOf"]:
        if b["properties"]["action"]["const"] == action:
            return b["properties"]["action_input"]
    raise AssertionError(f"{action} not offered")


def test_each_reply_can_only_name_what_the_scene_holds(store):
    llm = ScriptedModel([_plan(("query_for_objects", {"category": "chair", "attributes": []})),
                         act("update_name", {"item_id_list": ["4"], "new_name_list": ["stool"]}),
                         final("Noted.", short="stool")])
    AgentSession(store, "room", llm).ask("The chair with id 4 is actually a stool.")
    first = llm.requests[0].json_schema
    query = _branch(first, "query_for_objects")
    assert query["properties"]["category"]["enum"] == ["chair", "cup", "floor", "lamp", "table", "tv", "wall"]
    attributes = set(query["properties"]["attributes"]["items"]["enum"])
    assert {"black", "brown", "ceramic", "plastic", "red", "white", "wooden"} <= attributes
    assert "sparkly" not in attributes and "next to" in query["properties"]["relations"]["items"][
        "properties"]["relation"]["enum"]
    relations = _branch(first, "query_for_relations")
    names = relations["properties"]["item_id_list"]["items"]["enum"]
    assert "piano" not in names and "marked" not in names and "table" in names and "5" not in names
    assert "4" in names  # the user wrote "id 4"
    assert "near" in relations["properties"]["relation"]["enum"]
    # the chairs' ids were observed: the next reply (the correction) may name them; new names stay free
    rename = _branch(llm.requests[1].json_schema, "update_name")
    assert {"4", "5"} <= set(rename["properties"]["item_id_list"]["items"]["enum"])
    assert "enum" not in rename["properties"]["new_name_list"]["items"]
    assert store.load("room").get("4").category == "stool"


def test_a_question_admits_only_the_attribute_words_it_says(store):
    plain = ScriptedModel([_plan(("query_for_objects", {"category": "chair"})), _typed("black")])
    AgentSession(store, "room", plain).ask("What color is the chair next to the table?")
    query = _branch(plain.requests[0].json_schema, "query_for_objects")
    # no colour said: the model cannot add "white"; a plan writes only the fields its question says (the
    # examples show none empty), and relations only when it names some
    assert "attributes" not in query["properties"] and "superlative" not in query["properties"]
    assert query["required"] == ["category"] and "relations" in query["properties"]
    assert "chair" in query["properties"]["category"]["enum"]  # every category stays nameable
    red = ScriptedModel([_plan(("query_for_objects", {"category": "cup", "attributes": ["red"]})),
                         _typed("on the table")])
    AgentSession(store, "room", red).ask("Where is the red cup?")
    query = _branch(red.requests[0].json_schema, "query_for_objects")
    assert query["properties"]["attributes"]["items"]["enum"] == ["red"]
    navy = ScriptedModel([_plan(("query_for_objects", {"category": "chair"})), _typed("on the floor")])
    AgentSession(store, "room", navy).ask("Where is the navy chair?")  # an everyday word for a palette name
    query = _branch(navy.requests[0].json_schema, "query_for_objects")
    assert query["properties"]["attributes"]["items"]["enum"] == ["dark blue"]


def test_marked_is_a_name_only_when_an_object_is_marked(store):
    llm = ScriptedModel([_plan(("find_marked_object", {})), _typed("chair")])
    session = AgentSession(store, "room", llm, marked="4")
    session.ask("What is this?")
    names = _branch(llm.requests[0].json_schema, "query_for_relations")["properties"]["item_id_list"]
    assert "marked" in names["items"]["enum"]


def test_typed_query_narrows_by_attribute_and_says_when_it_cannot(store):
    from synergai.agent import tools as T
    from synergai.agent.context import TurnContext

    ctx = TurnContext(store, "room", "q")
    red = T.query_for_objects(ctx, T.QueryArgs(category="cup", attributes=["red"]))
    assert str(red).startswith("Best match for 'red cup': cup 3") and "is on brown table (id: 2)" in str(red)
    blue = T.query_for_objects(ctx, T.QueryArgs(category="chair", attributes=["blue"]))
    assert str(blue).startswith("No object matches 'blue chair' fully")
    assert blue.facts == ()  # two chairs: neither is singled out
    lone = T.query_for_objects(ctx, T.QueryArgs(category="table", attributes=["red"]))
    assert str(lone).startswith("No object matches 'red table' fully")
    assert [f.subjects for f in lone.facts] == [("2",)]  # the room's only table is the evidence
    both = T.query_for_objects(ctx, T.QueryArgs(category="chair", attributes=["black"]))
    assert str(both).startswith("2 objects match 'black chair' equally")  # a tie is reported, not hidden
    miss = T.query_for_objects(ctx, T.QueryArgs(category="piano"))
    assert str(miss).startswith("There is no piano in this room") and "chair" in str(miss)


def test_a_word_outside_the_vocabulary_is_mapped_to_the_scene(demo):
    from synergai.agent import tools as T
    from synergai.agent.context import TurnContext

    graph = demo.load("demo")
    sofas = {o.id for o in graph if o.category == "sofa"}
    assert sofas
    obs = T.query_for_objects(TurnContext(demo, "demo", "q"), T.QueryArgs(category="couch"))
    assert all(f"(id: {i})" in str(obs) for i in sofas)


def test_the_lamp_next_to_the_bed_is_found_through_the_proximity_family(demo):
    graph = demo.load("demo")
    bed = next(o.id for o in graph if o.category == "bed")
    lamp = next(o.id for o in graph.by_category("lamp") if bed in {x for _, x in graph.relations_of(o.id)})
    colour = graph.get(lamp).attributes[0]
    llm = ScriptedModel([_plan(("query_for_relations", {"item_id_list": ["bed"], "relation": "next to"}))])
    result = AgentSession(demo, "demo", llm).ask("What colour is the lamp next to the bed?")
    observed = next(t["observation"] for t in result.trace if t["type"] == "action")
    assert f"(id: {lamp})" in observed
    # the lamp's one colour is the only answer the observations allow: given with no answer call
    assert result.answer == f"The lamp is {colour}." and result.objects == [lamp]
    assert result.usage.calls == 1 and result.edits == []


# ----------------------------------------------------------------------------- the grounding engine
def test_a_described_object_is_resolved_by_the_engine_in_one_call(demo):
    graph = demo.load("demo")
    lamp = next(o for o in graph.by_category("lamp") if "white" in o.attributes)
    llm = ScriptedModel([
        _plan(("query_for_objects", {"category": "lamp", "relations": [
            {"relation": "next to", "anchors": [{"category": "bed"}]}]})),
    ])
    result = AgentSession(demo, "demo", llm).ask("What colour is the lamp next to the bed?")
    observed = next(t["observation"] for t in result.trace if t["type"] == "action")
    assert observed.startswith(f"Best match for 'lamp next to bed': lamp {lamp.id}")
    assert result.answer == "The lamp is white." and result.objects == [lamp.id] and result.usage.calls == 1


def test_ties_are_reported_and_bad_descriptions_are_errors_not_crashes(demo):
    from synergai.agent import tools as T
    from synergai.agent.context import TurnContext

    ctx = TurnContext(demo, "demo", "q")
    chairs = demo.load("demo").by_category("chair")
    tie = T.query_for_objects(ctx, T.QueryArgs(category="chair", superlative="largest"))
    assert str(tie).startswith(f"{len(chairs)} objects match 'largest chair' equally")
    assert set(tie.facts[0].subjects) == {c.id for c in chairs}
    with pytest.raises(T.ToolError, match="bad description"):
        bad = [{"relation": "levitating over", "anchors": [{"category": "bed"}]}]
        T.query_for_objects(ctx, T.QueryArgs(category="lamp", relations=bad))
    piano = T.query_for_objects(ctx, T.QueryArgs(category="piano", relations=[
        {"relation": "near", "anchors": [{"category": "bed"}]}]))
    assert str(piano).startswith("There is no piano in this room; the closest categories are")
    assert demo.edits("demo") == []


def test_a_shape_answer_is_read_from_the_objects_box_without_a_model_call(store):
    from synergai.agent.answer_forms import AnswerForm, answer_form
    from synergai.scene.attributes import box_shape

    assert answer_form("What shape is the table?") is AnswerForm.SHAPE
    assert answer_form("What is the shape of the curtain behind the fridge?") is AnswerForm.SHAPE
    assert answer_form("Is the table round or square?") is AnswerForm.CHOICE
    assert box_shape((1.6, 0.8, 0.75)) == "rectangular" and box_shape((0.9, 0.85, 0.4)) == "square"
    assert box_shape((0.05, 1.2, 0.7)) == "rectangular"  # a tv: its front, not its depth
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "table"}))])
    session = AgentSession(store, "room", llm)
    result = session.ask("What shape is the table?")
    table = store.load("room").get(result.objects[0])
    assert result.usage.calls == 1 and result.short_answer == box_shape(table.size)
    assert result.answer == f"The table is {result.short_answer}."
    assert any(t.get("from_graph") for t in result.trace)


def test_what_type_of_thing_an_object_is_is_read_from_the_graph_without_a_model_call(store):
    from synergai.agent.answer_forms import kind_asked_at

    assert kind_asked_at("What type of table is in the room?") == 3
    assert kind_asked_at("Which lamp is it?") == 1
    assert kind_asked_at("What type of shape is the table?") is None
    assert kind_asked_at("What is on the table?") is kind_asked_at("Which object is on the table?") is None
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "table"}))])
    result = AgentSession(store, "room", llm).ask("What type of table is in the room?")
    assert result.usage.calls == 1 and result.short_answer == "brown wooden table"
    assert result.answer == "It is a brown wooden table." and result.objects == ["2"]
    assert with_article("orange chair") == "an orange chair"
    assert any(t.get("from_graph") for t in result.trace)
    llm = ScriptedModel([_plan(("query_for_relations", {"item_id_list": ["table"], "relation": "near"}))])
    result = AgentSession(store, "room", llm).ask("Which chair is closest to the table?")
    assert result.usage.calls == 1 and result.short_answer == "black chair"
    # the object observed is not the kind asked ("prism"): not read as a kind (the one category
    # observed is the only answer the schema allows)
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "table"}))])
    result = AgentSession(store, "room", llm).ask("What type of prism is the table?")
    assert result.usage.calls == 1 and result.short_answer != "brown wooden table"
    assert [t.get("only_value") for t in result.trace if t["type"] == "final"] == [result.short_answer]


def test_an_answer_the_observations_fix_is_given_without_a_model_call(store):
    # the table was observed with the cup on it: "cup" is the one category the answer may name
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "table"}))])
    result = AgentSession(store, "room", llm).ask("What is on the table?")
    assert result.usage.calls == 1 and result.short_answer == "cup" and "cup" in result.answer
    assert [t.get("only_value") for t in result.trace if t["type"] == "final"] == ["cup"]
    # the lamp's one colour
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "lamp"}))])
    result = AgentSession(store, "room", llm).ask("What colour is the lamp?")
    assert (result.usage.calls, result.answer, result.objects) == (1, "The lamp is white.", ["7"])
    # the one colour observed is the TV's, not the wall's asked about: never given as the wall's colour
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "tv"})), _typed("white")])
    wall = AgentSession(store, "room", llm).ask("What colour is the wall behind the tv?")
    assert (wall.usage.calls, wall.short_answer) == (2, "white")
    assert not any(t.get("only_value") for t in wall.trace)
    # the lamp not observed (the table and the cup were): its colour, never theirs
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "table"}))])
    lamp = AgentSession(store, "room", llm).ask("What colour is the lamp?")
    assert (lamp.usage.calls, lamp.short_answer) == (1, "white")
    # two colours observed (the brown table, the red cup) for a question naming none: the model is asked
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "table"})), _typed("red")])
    assert AgentSession(store, "room", llm).ask("What colour is it?").usage.calls == 2
    # a count of what the lookup matched: the objects found, with no answer call
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "chair"}))])
    counted = AgentSession(store, "room", llm).ask("How many chairs are there?")
    assert (counted.usage.calls, counted.short_answer, counted.objects) == (1, "2", ["4", "5"])
    assert [t.get("count") for t in counted.trace if t["type"] == "final"] == [2]
    # a count of what no lookup matched (the chairs' legs, the cups when only the table was looked up):
    # the model counts
    for question, looked_up in (("How many legs does the chair have?", "chair"),
                                ("How many cups are there?", "table")):
        llm = ScriptedModel([_plan(("query_for_objects", {"query": looked_up})), _typed(4)])
        assert AgentSession(store, "room", llm).ask(question).usage.calls == 2, question
    # a count no object of the room can be ("100" legs, 8 objects) and the graph has none: not given
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "chair"})), _typed(100)])
    legs = AgentSession(store, "room", llm).ask("How many legs does the chair have?")
    assert (legs.short_answer, legs.answer) == ("", CANNOT_COUNT)
    assert [t["short_answer"] for t in legs.trace if t["type"] == "answer-check"] == ["100"]
    # the lookup found chairs near the table: both; the one lamp is not on the table (a match in part
    # only): the model counts
    near, on = ({"category": c, "relations": [{"relation": r, "anchors": [{"category": "table"}]}]}
                for c, r in (("chair", "near"), ("lamp", "on")))
    llm = ScriptedModel([_plan(("query_for_objects", near))])
    assert AgentSession(store, "room", llm).ask("How many chairs are near the table?").short_answer == "2"
    llm = ScriptedModel([_plan(("query_for_objects", on)), _typed(0)])
    assert AgentSession(store, "room", llm).ask("How many lamps are on the table?").usage.calls == 2


def test_a_questions_relations_are_the_ones_its_words_can_mean(store):
    llm = ScriptedModel([_plan(("query_for_objects", {"category": "table", "attributes": []})),
                         _typed("cup")])
    AgentSession(store, "room", llm).ask("What is to the right of the table?")
    first = llm.requests[0].json_schema
    relations = _branch(first, "query_for_relations")["properties"]["relation"]["enum"]
    assert relations == ["", "to the right of"]  # "": every relation, for a lookup the words do not name
    query = _branch(first, "query_for_objects")
    assert query["properties"]["relations"]["items"]["properties"]["relation"]["enum"] == ["right of"]
    llm = ScriptedModel([_plan(("query_for_objects", {"category": "table", "attributes": []})),
                         _typed(2)])
    AgentSession(store, "room", llm).ask("How many chairs are there?")
    wide = _branch(llm.requests[0].json_schema, "query_for_relations")["properties"]["relation"]["enum"]
    assert "next to" in wide and "to the left of" in wide  # no relation said: every one


def test_a_count_takes_every_object_that_fits_not_only_the_nearest(tmp_path: Path) -> None:
    plain = room()  # both chairs stored near the table; chair 4 moved back, so chair 5 is the nearer
    moved = SceneGraph("room", [dataclasses.replace(o, center=(0.5, 2.0, 0.45)) if o.id == "4" else o
                                for o in plain], list(plain.edges), scene_type=plain.scene_type)
    store = SceneStore(tmp_path / "moved.sqlite3")
    store.register(moved, {"builder": "test"})
    near = {"category": "chair", "relations": [{"relation": "near", "anchors": [{"category": "table"}]}]}
    llm = ScriptedModel([_plan(("query_for_objects", near))])
    result = AgentSession(store, "room", llm).ask("How many chairs are near the table?")
    assert (result.usage.calls, result.short_answer, sorted(result.objects)) == (1, "2", ["4", "5"])
    store.close()
