"""The plan + Thought/Action/Observation loop with a scripted model: answers, repair, bounds."""

from __future__ import annotations

import json

from agent_scripting import act, final

from synergai.agent.loop import LoopLimits, parse_action
from synergai.agent.prompt import action_schema, plan_schema, system_prompt
from synergai.agent.session import OUTDATED, AgentSession
from synergai.agent.tools import TOOLS
from synergai.llm import ScriptedModel

EDITS = frozenset(t.name for t in TOOLS if t.edits)


#: The model answers what the graph would (a count of the chairs found is given with no answer call).
MODEL_ANSWERS = LoopLimits(graph_answers=False)


def test_prompt_is_built_from_tool_docstrings():
    prompt = system_prompt()
    for tool in TOOLS:
        assert f"{tool.name}:" in prompt
        assert "Arguments:" in tool.doc and "Return:" in tool.doc
    assert "Hints:" in prompt
    assert prompt.startswith("You are an assistant agent in a room")
    assert 'The first reply has "plan"' in prompt and '"thought"' not in prompt


def test_action_schema_is_typed_per_tool():
    schema = action_schema()
    names = [b["properties"]["action"]["const"] for b in schema["anyOf"]]
    assert names == [t.name for t in TOOLS]
    q = next(b for b in schema["anyOf"] if b["properties"]["action"]["const"] == "query_for_objects")
    assert q["properties"]["action_input"]["properties"]["query"]["maxLength"] == 60
    assert "plan" not in q["properties"]


def test_what_is_on_the_table(store):
    llm = ScriptedModel(
        [
            act("query_for_objects", {"query": "table"}, plan=["find the table", "its relations", "answer"]),
            act("query_for_relations", {"item_id_list": ["2"], "relation": "supporting"}),
            final("Yes, the red cup (id: 3) is on the table.", ["3"], "yes"),
        ]
    )
    session = AgentSession(store, "room", llm)
    result = session.ask("Is there anything on the table?")
    # the sentence is composed from the typed short answer, not copied
    assert result.answer == "Yes."
    assert result.short_answer == "yes"
    assert result.plan == ["find the table", "its relations", "answer"]
    assert result.usage.calls == 3
    observations = [t["observation"] for t in result.trace if t["type"] == "action"]
    assert "On the table (id: 2): red cup (id: 3)." in observations[1]
    # relation filter: only "supporting" facts about the table, not the chairs near it
    assert "chair" not in observations[1]
    # the second call saw the first observation, in the paper's template
    second_prompt = llm.requests[1].messages[-1]["content"]
    assert second_prompt.startswith("Observation:") and "The position of the table (id: 2)" in second_prompt
    assert 0 < result.query_ratio < 0.5
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0


def test_malformed_replies_get_corrective_observations(store):
    llm = ScriptedModel(
        [
            "this is not json",
            {"text": '{"thought": "cut', "finish_reason": "length"},
            act("fly_to_the_moon", {}),
            act("query_for_objects", {"query": 42}),
            act("query_for_relations", {"item_id_list": ["99"]}),
            final("I could not find that object.", []),
        ]
    )
    session = AgentSession(store, "room", llm, limits=LoopLimits(max_steps=8, max_retries=5))
    result = session.ask("What is on 99?")
    assert result.answer == "I could not find that object."
    errors = [t["error"] for t in result.trace if t["type"] == "error"]
    assert any("not valid JSON" in e for e in errors)
    assert any("cut off" in e for e in errors)
    assert any("unknown action 'fly_to_the_moon'" in e for e in errors)
    assert any("bad action_input for query_for_objects: query" in e for e in errors)
    tool_errors = [t["observation"] for t in result.trace if t["type"] == "action" and t.get("error")]
    assert tool_errors == [
        "Error: there is no object with id or name '99'; use query_for_objects to find ids"
    ]
    # each corrective observation was sent back to the model
    assert "Error:" in llm.requests[1].messages[-1]["content"]
    assert result.usage.calls == 6


def test_retries_are_bounded_and_a_final_answer_is_forced(store):
    llm = ScriptedModel(["{", "{", "{", final("Forced answer.", [])])
    result = AgentSession(store, "room", llm, limits=LoopLimits(max_retries=2)).ask("Hello?")
    assert result.answer == "Forced answer."
    assert result.usage.calls == 4
    # the forced call only allows final_answer
    forced_schema = llm.requests[-1].json_schema
    assert [b["properties"]["action"]["const"] for b in forced_schema["anyOf"]] == ["final_answer"]


def test_steps_are_bounded_even_when_forced_answer_fails(store):
    queries = [act("query_for_objects", {"query": q}) for q in ("cup", "mug", "table")]
    llm = ScriptedModel([*queries, "garbage"])
    result = AgentSession(store, "room", llm, limits=LoopLimits(max_steps=3)).ask("Describe the cup.")
    assert result.usage.calls == 4
    assert "could not" in result.answer


def test_a_repeated_action_is_not_run_again_and_forces_the_answer(store):
    query = act("query_for_objects", {"query": "cup"})
    llm = ScriptedModel([query, query, final("The cup is on the table.", ["3"])])
    result = AgentSession(store, "room", llm).ask("Describe the cup.")
    assert result.usage.calls == 3 and result.answer == "The cup is on the table."
    assert result.actions == 2  # the query once, then final_answer
    assert any(t.get("error") == "repeated action" for t in result.trace)
    assert "You already did that" in llm.requests[2].messages[-1]["content"]


def test_a_step_repeated_within_the_plan_is_padding_and_dropped(store):
    filler = ("calculate_mid_point", {"item_id_list": ["chair"]})
    llm = ScriptedModel([
        _plan(("query_for_objects", {"query": "chair"}), filler, filler),
        final("There are 2 chairs.", ["4", "5"], short="2"),
    ])
    result = AgentSession(store, "room", llm, limits=MODEL_ANSWERS).ask("How many chairs are there?")
    assert result.answer == "There are 2 chairs." and result.usage.calls == 2
    assert [t["action"] for t in result.trace if t["type"] == "action"] == [
        "query_for_objects", "calculate_mid_point", "final_answer"]
    assert not any(t.get("error") for t in result.trace)
    assert len(json.loads(llm.requests[1].messages[2]["content"])["plan"]) == 2
    assert "You already did that" not in json.dumps(llm.requests[1].messages)


def test_final_answer_as_plain_string_is_accepted():
    _, _, tool, args = parse_action(
        json.dumps({"thought": "t", "action": "Final Answer", "action_input": "Two chairs."})
    )
    assert tool.name == "final_answer" and args.answer == "Two chairs."


def test_history_is_kept_across_turns(store):
    llm = ScriptedModel([final("There are 2 chairs.", ["4", "5"]), final("They are black.", ["4", "5"])])
    session = AgentSession(store, "room", llm)
    session.ask("How many chairs are there?")
    session.ask("What colour are they?")
    msgs = llm.requests[1].messages
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert msgs[1]["content"] == (
        "Earlier, the user said: How many chairs are there?\nYou answered: There are 2 chairs.\n"
        "User input: What colour are they?"
    )
    # the system prompt (cached prefix) is identical for both turns
    assert llm.requests[0].messages[0] == llm.requests[1].messages[0]


def test_the_model_sees_its_plan_without_the_guess_it_wrote_before_observing(store):
    llm = ScriptedModel([
        _plan(("query_for_objects", {"query": "lamp"}), thought="The lamp is blue."),
        final("No, the lamp is white.", ["7"], short="no"),
    ])
    result = AgentSession(store, "room", llm).ask("Is the lamp green?")
    assert result.answer == "No."
    shown = json.loads(llm.requests[1].messages[2]["content"])
    assert shown == {"plan": [{"action": "query_for_objects", "action_input": {"query": "lamp"}}]}
    assert "blue" not in json.dumps(llm.requests[1].messages[1:])
    assert result.trace[0] == {"type": "plan", "plan": result.plan, "thought": "The lamp is blue."}
    # the same plan for "what colour": the one colour observed is given with no second call
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "lamp"}), thought="The lamp is blue.")])
    assert AgentSession(store, "room", llm).ask("What colour is the lamp?").answer == "The lamp is white."


def test_answers_from_before_a_correction_are_not_replayed(store):
    rename = act("update_name", {"item_id_list": ["marked"], "new_name_list": ["stool"]}, plan=["rename"])
    llm = ScriptedModel([
        final("There are 2 chairs.", ["4", "5"]),
        rename, final("Renamed.", ["5"]),
        final("There is 1 chair.", ["4"]),
        act("update_name", {"item_id_list": ["marked"], "new_name_list": ["bench"]}, plan=["rename"]),
        final("Renamed again.", ["5"]),
    ])
    session = AgentSession(store, "room", llm)
    session.ask("How many chairs are there?")
    session.mark("5")
    session.ask("This is a stool.")
    session.ask("How many chairs are there?")
    text = llm.requests[-1].messages[1]["content"]
    # the answer given before the correction is not repeated to the model, the question is
    assert "2 chairs" not in text and f"How many chairs are there?\nYou answered: {OUTDATED}\n" in text
    assert "You answered: The chair is now called stool.\n" in text and text.count(OUTDATED) == 1
    session.ask("No, it is a bench.")
    assert [a == OUTDATED for _, a in session.history] == [True, True, True, False]


def test_a_full_context_ends_the_turn_gracefully(store):
    from synergai.llm.base import ContextFullError

    class Overflowing(ScriptedModel):
        def chat(self, messages, **kw):
            if len(self.requests) == 1:
                self.requests.append(None)
                raise ContextFullError("request (4775 tokens) exceeds the available context size (4096)")
            return super().chat(messages, **kw)

    llm = Overflowing([act("query_for_objects", {"query": "chair"}, plan=["find"])])
    result = AgentSession(store, "room", llm, limits=MODEL_ANSWERS).ask("How many chairs are there?")
    # the turn ends after one call; the answer check gives the graph's typed answer, never the error text
    assert result.usage.calls == 1 and "context" not in result.answer
    assert any("exceeds the available context size" in t.get("error", "") for t in result.trace)


def _plan(*steps: tuple[str, dict], thought: str = "Look it up.") -> str:
    return json.dumps({"thought": thought, "plan": [{"action": a, "action_input": i} for a, i in steps]})


def planned_actions(schema: dict) -> set[str]:
    """Actions a multi-step plan may hold."""
    steps = schema["properties"]["plan"]["anyOf"][0]["items"]["anyOf"]
    return {b["properties"]["action"]["const"] for b in steps}


def test_plan_schema_lists_typed_actions():
    schema = plan_schema()
    lookups, alone = schema["properties"]["plan"]["anyOf"]
    planned = {t.name for t in TOOLS} - {"find_object_closest", "post_process", "final_answer"}
    assert planned_actions(schema) == planned
    assert lookups["maxItems"] == 3 and schema["required"] == ["plan"]  # no thought that nothing reads
    # final_answer only as the whole plan (a greeting), never written ahead of the observations
    assert alone["maxItems"] == 1 and alone["items"]["properties"]["action"]["const"] == "final_answer"
    assert planned_actions(plan_schema(marked=False)) == planned - {"find_marked_object"}
    question = plan_schema(question=True)
    assert planned_actions(question) == planned - EDITS
    assert question["properties"]["plan"]["anyOf"][0]["maxItems"] == 2  # a question's plan: 2 look-ups


def test_a_question_is_planned_without_edit_tools(store):
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "cup"})), final("It is red.", ["3"])])
    AgentSession(store, "room", llm).ask("What colour is the cup?")
    offered = planned_actions(llm.requests[0].json_schema)
    assert not offered & EDITS and "query_for_objects" in offered


def test_a_plan_runs_its_actions_in_order_then_the_model_answers(store):
    llm = ScriptedModel([
        _plan(("query_for_objects", {"query": "cup"}), ("query_for_relations", {"item_id_list": ["cup"],
                                                                                  "relation": "on"})),
        final("Yes, the red cup is on the table.", ["3", "2"], short="yes"),
    ])
    result = AgentSession(store, "room", llm).ask("Is the cup on the table?")
    assert result.usage.calls == 2 and result.answer == "Yes."
    assert [t["action"] for t in result.trace if t["type"] == "action"] == [
        "query_for_objects", "query_for_relations", "final_answer"]
    observed = llm.requests[1].messages[-1]["content"]
    assert observed.count("Observation:") == 2 and "The cup (id: 3) is on brown table (id: 2)." in observed
    assert result.plan[0].startswith("query_for_objects") and result.objects == ["3", "2"]


def test_a_plan_runs_past_a_failing_action_and_then_answers(store):
    llm = ScriptedModel([
        _plan(("query_for_relations", {"item_id_list": ["piano"]}), ("query_for_objects", {"query": "cup"})),
        final("There is no piano here; there is a red cup."),
    ])
    result = AgentSession(store, "room", llm).ask("What is near the piano?")
    actions = [t for t in result.trace if t["type"] == "action"]
    assert [a["action"] for a in actions] == ["query_for_relations", "query_for_objects", "final_answer"]
    assert actions[0]["error"] and not actions[1].get("error") and result.usage.calls == 2
    observed = llm.requests[1].messages[-1]["content"]
    assert "no object with id or name 'piano'" in observed and "The cup (id: 3)" in observed
    offered = {b["properties"]["action"]["const"] for b in llm.requests[1].json_schema["anyOf"]}
    assert offered == {"final_answer"}  # something was found: answer from it


def test_an_answer_planned_before_observing_is_not_given(store):
    llm = ScriptedModel([
        _plan(("query_for_objects", {"query": "chair"}), ("final_answer", {"answer": "Three chairs."})),
        final("There are 2 chairs.", ["4", "5"], short="2"),
    ])
    result = AgentSession(store, "room", llm, limits=MODEL_ANSWERS).ask("How many chairs are there?")
    assert result.answer == "There are 2 chairs." and result.usage.calls == 2


def test_a_plan_can_rename_the_marked_object_by_name_free_id(store):
    llm = ScriptedModel([
        _plan(("update_name", {"item_id_list": ["marked"], "new_name_list": ["stool"]})),
        final("Noted: it is a stool.", ["4"]),
    ])
    session = AgentSession(store, "room", llm)
    session.mark("4")
    result = session.ask("The marked object is actually a stool.")
    assert result.usage.calls == 2 and store.load("room").get("4").category == "stool"
    assert result.edits and result.edits[0]["actor"] == "user"


def test_a_wrong_highlight_id_does_not_lose_the_answer(store):
    llm = ScriptedModel([final("The cup is red.", ["cup", "99"], short="red")])
    result = AgentSession(store, "room", llm).ask("What colour is the cup?")
    assert result.answer == "It is red." and result.short_answer == "red" and result.objects == ["3"]


def test_after_a_clean_plan_the_model_answers_or_finishes_its_correction(store):
    llm = ScriptedModel([
        _plan(("query_for_relations", {"item_id_list": ["piano"]})),  # fails: the next reply may look further
        act("query_for_objects", {"query": "table"}),
        final("The table is brown.", ["2"]),
    ])
    AgentSession(store, "room", llm).ask("What colour is the piano, or else the table?")
    second = {b["properties"]["action"]["const"] for b in llm.requests[1].json_schema["anyOf"]}
    assert "query_for_objects" in second
    llm = ScriptedModel([_plan(("query_for_objects", {"query": "table"})), final("Yes.", ["2"], "yes")])
    AgentSession(store, "room", llm).ask("Is the table brown?")
    after_clean = {b["properties"]["action"]["const"] for b in llm.requests[1].json_schema["anyOf"]}
    assert after_clean == {"final_answer"}  # a question: no edits, no more looking around
    llm = ScriptedModel([
        _plan(("query_for_objects", {"query": "lamp"}),
              ("update_attributes", {"object_id": "7", "new_attributes_list": ["red"]})),
        final("Noted: the lamp is red.", ["7"]),
    ])
    AgentSession(store, "room", llm).ask("The lamp is red, not white.")
    after_correction = {b["properties"]["action"]["const"] for b in llm.requests[1].json_schema["anyOf"]}
    assert after_correction == {"final_answer"}  # the edit is made: confirm it
    assert store.load("room").get("7").attributes == ("red",)


def test_questions_are_told_apart_from_corrections():
    from synergai.agent.intent import is_question

    assert is_question("What is on the table?") and is_question("how many chairs are there")
    assert is_question("Is the lamp on?") and not is_question("The marked object is actually a stool.")
    assert not is_question("That chair is red, not brown.") and not is_question("")


def test_a_correction_may_edit_after_looking_the_object_up(store):
    llm = ScriptedModel([
        _plan(("find_marked_object", {})),
        act("update_name", {"item_id_list": ["4"], "new_name_list": ["stool"]}),
        final("Noted: it is a stool.", ["4"]),
    ])
    session = AgentSession(store, "room", llm)
    session.mark("4")
    result = session.ask("The marked object is actually a stool.")
    offered = {b["properties"]["action"]["const"] for b in llm.requests[1].json_schema["anyOf"]}
    assert offered == {"final_answer", *EDITS} and store.load("room").get("4").category == "stool"
    assert result.usage.calls == 3


def test_a_colour_a_person_gave_is_said_back_in_their_words(store):
    """A perceived shade is said by its basic term ("dark gray" -> black); the same words given by a person
    are said back as given: the user who said "light gray" is not told "white"."""
    from synergai.scene import edits as E

    look = act("query_for_objects", {"query": "table"}, plan=[])
    perceive = E.set_attributes(store.load("room"), "2", ["dark gray", "wooden"], E.Actor.PERCEPTION)
    store.apply("room", perceive)
    perceived = AgentSession(store, "room", ScriptedModel([look])).ask("What colour is the table?")
    assert perceived.short_answer == "black"
    llm = ScriptedModel([act("update_attributes", {"object_id": "2", "new_attributes_list": ["light gray"]},
                             plan=[]), final("Done."), look])
    session = AgentSession(store, "room", llm, marked="2")
    session.ask("It is light gray.")
    assert store.load("room").get("2").attributes == ("light gray", "wooden")
    told = session.ask("What colour is the table?")
    assert (told.short_answer, told.answer) == ("light gray", "The table is light gray.")
