"""Every SynergAI tool on the hand-made room, and perception alignment through the store."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from agent_scripting import act, final, room

from synergai.agent import tools as T
from synergai.agent.context import ToolError, TurnContext
from synergai.agent.loop import BATCH_LIMITS
from synergai.agent.session import AgentSession
from synergai.geometry.frames import Viewpoint
from synergai.llm import ScriptedModel
from synergai.scene.edits import Actor
from synergai.scene.model import Relation


def ctx(store, utterance="", marked=None, viewpoint=None) -> TurnContext:
    return TurnContext(store, "room", utterance, marked=marked, viewpoint=viewpoint)


def test_query_for_objects_renders_position_and_attributes(store):
    obs = T.query_for_objects(ctx(store), T.QueryArgs(query="red cup"))
    assert str(obs).startswith("1 object matches 'red cup'.")
    assert "The position of the cup (id: 3) is [2.1, 2, 0.8] and its size is [0.08, 0.08, 0.1]." in str(obs)
    assert "The cup (id: 3) has attributes: ['red', 'ceramic']." in str(obs)


def test_query_for_objects_lists_at_most_a_few_objects(store):
    from synergai.scene.model import SceneGraph, SceneObject

    stools = [SceneObject(f"s{k}", "stool", (0.5 + 0.3 * k, 0.5, 0.3), (0.3, 0.3, 0.6)) for k in range(10)]
    store.register(SceneGraph("many", stools), {"builder": "test-many"})
    c = TurnContext(store, "many", "")
    obs = T.query_for_objects(c, T.QueryArgs(query="stools"))
    assert str(obs).startswith("10 objects match 'stools': stool (id: s0), stool (id: s1),")
    assert str(obs).endswith("stool (id: s7). Not shown: ids s8, s9.")
    assert "The position of" not in str(obs)
    two = T.query_for_objects(ctx(store), T.QueryArgs(query="chair"))  # few matches: the paper's templates
    text = str(two)
    assert text.count("The position of") == 2 and "The chair (id: 4) has attributes: ['black']." in text


def test_query_for_objects_plural_synonym_and_miss(store):
    assert "2 objects match 'chairs'" in str(T.query_for_objects(ctx(store), T.QueryArgs(query="chairs")))
    assert "(id: 6)" in str(T.query_for_objects(ctx(store), T.QueryArgs(query="television")))
    miss = T.query_for_objects(ctx(store), T.QueryArgs(query="piano"))
    assert str(miss).startswith("There is no piano in this room") and "chair" in str(miss)
    couch = T.query_for_objects(ctx(store), T.QueryArgs(query="telly stand"))
    assert "(id: 6)" in str(couch) or "closest categories are: tv" in str(couch)


def test_query_for_relations_reads_both_directions(store):
    obs = T.query_for_relations(ctx(store), T.RelationsArgs(item_id_list=["3"]))
    assert "The cup (id: 3) is on brown table (id: 2)." in str(obs)
    obs = T.query_for_relations(ctx(store), T.RelationsArgs(item_id_list=["6"], relation="mounted on"))
    assert "The tv (id: 6) is mounted on wall (id: 1)." in str(obs)
    obs = T.query_for_relations(ctx(store), T.RelationsArgs(item_id_list=["6"], relation="sideways"))
    text = str(obs)
    assert text.startswith("(No relation called 'sideways'; all relations shown.)") and "mounted on" in text


def test_query_for_relations_accepts_names_and_reads_a_filter_both_ways(store):
    obs = T.query_for_relations(ctx(store), T.RelationsArgs(item_id_list=["table"], relation="on"))
    # "what is on the table" and "what the table is on" are both answered, in plain English
    assert "The red cup (id: 3) is on the table (id: 2)." in str(obs)
    assert "The table (id: 2) is on floor (id: 0)." in str(obs)
    assert "chair" not in str(obs)
    with pytest.raises(ToolError, match="no object with id or name 'piano'"):
        T.query_for_relations(ctx(store), T.RelationsArgs(item_id_list=["piano"]))


def test_view_dependent_relations_follow_the_viewpoint(store):
    # Standing south of the table looking north (+y): chair 4 (x=1) is left, chair 5 (x=3) is right.
    north = Viewpoint((2.0, 0.0, 1.6), (0.0, 1.0, 0.0))
    obs = T.query_for_relations(
        ctx(store, viewpoint=north), T.RelationsArgs(item_id_list=["2"], relation="left")
    )
    assert "The black chair (id: 4) is to the left of the table" in str(obs)
    assert "(id: 5) is to the left" not in str(obs)
    # Turn around (standing north, looking south): left and right swap.
    south = Viewpoint((2.0, 3.5, 1.6), (0.0, -1.0, 0.0))
    obs = T.query_for_relations(
        ctx(store, viewpoint=south), T.RelationsArgs(item_id_list=["2"], relation="left")
    )
    assert "The black chair (id: 5) is to the left of the table" in str(obs)
    assert "(id: 4) is to the left" not in str(obs)


def test_find_marked_object(store):
    assert str(T.find_marked_object(ctx(store), T.NoArgs())).startswith("No object is marked")
    obs = T.find_marked_object(ctx(store, marked="3"), T.NoArgs())
    text = str(obs)
    assert text.startswith("The marked object is the cup (id: 3).") and "is on brown table (id: 2)" in text


def test_mid_point_and_closest(store):
    obs = T.calculate_mid_point(ctx(store), T.IdsArgs(item_id_list=["4", "5"]))
    assert obs.endswith("is [2.00, 2.00, 0.45]. The object closest to it is the brown table (id: 2).")
    obs = T.find_object_closest(ctx(store), T.PointArgs(point=[2.0, 2.0, 0.45]))
    assert str(obs).startswith("The object closest to [2.00, 2.00, 0.45] is the table (id: 2).")
    with pytest.raises(ToolError, match="no object with id or name '42'"):
        T.calculate_mid_point(ctx(store), T.IdsArgs(item_id_list=["4", "42"]))


def test_mid_point_of_a_name_is_the_middle_of_all_its_objects(store):
    obs = T.calculate_mid_point(ctx(store), T.IdsArgs(item_id_list=["chair"]))
    assert str(obs).startswith("The mid point of chair (id: 4), chair (id: 5) is [2.00, 2.00, 0.45].")
    assert obs.endswith("The object closest to it is the brown table (id: 2).")
    with pytest.raises(ToolError, match=r"needs two different objects.*only the cup \(id: 3\)"):
        T.calculate_mid_point(ctx(store), T.IdsArgs(item_id_list=["cup", "3"]))


def test_post_process_and_final_answer_set_highlights(store):
    c = ctx(store)
    T.post_process(c, T.IdsArgs(item_id_list=["3", "2", "3"]))
    assert c.highlights == ["3", "2"]
    assert T.final_answer(c, T.FinalArgs(answer="Here.", item_id_list=["7"])) == "Here."
    assert c.highlights == ["7"]


def test_update_name_on_marked_object_is_logged_with_utterance(store):
    c = ctx(store, "The marked object is actually a stool.", marked="4")
    obs = T.update_name(c, T.UpdateNameArgs(item_id_list=["4"], new_name_list=["stool"]))
    assert obs == "The chair (id: 4) is now called stool."
    assert store.edits("room") == [] and c.graph.get("4").category == "stool"  # held until the turn ends
    (rec,) = c.commit()
    assert store.edits("room")[-1] == rec
    assert (rec.actor, rec.op, rec.utterance) == (
        Actor.USER,
        "update_name",
        "The marked object is actually a stool.",
    )
    assert rec.before.objects[0].category == "chair" and rec.after.objects[0].category == "stool"
    assert store.load("room").get("4").category == "stool"


def test_rename_target_bearing_the_new_name_means_the_marked_object(store):
    # the model copies the new name (or an object that already has it) into the target
    for target in (["chair"], ["5"]):
        c = ctx(store, "This one is a chair, not a lamp.", marked="7")
        obs = T.update_name(c, T.UpdateNameArgs(item_id_list=target, new_name_list=["chair"]))
        assert obs == "The lamp (id: 7) is now called chair."
        c.commit()
        assert store.load("room").get("5").category == "chair"
        store.undo("room")
    # without a mark the target is taken as given; so is a target that does not bear the new name
    c = ctx(store, "The chair is a stool.")
    with pytest.raises(ToolError, match="2 objects match"):
        T.update_name(c, T.UpdateNameArgs(item_id_list=["chair"], new_name_list=["chair"]))
    c = ctx(store, "The lamp is a tv.", marked="3")
    T.update_name(c, T.UpdateNameArgs(item_id_list=["7"], new_name_list=["tv"]))
    c.commit()
    assert store.load("room").get("7").category == "tv" and store.load("room").get("3").category == "cup"


def test_a_rename_call_with_one_refused_target_renames_nothing(store):
    # the cup is named, the table is not: the call is refused whole, the cup's rename is not made alone
    c = ctx(store, "The cup is a mug.")
    with pytest.raises(ToolError, match="did not speak of the table"):
        T.update_name(c, T.UpdateNameArgs(item_id_list=["3", "2"], new_name_list=["mug", "desk"]))
    assert c.pending == [] and c.graph.get("3").category == "cup" and c.commit() == []
    with pytest.raises(ToolError, match="two new names"):
        T.update_name(c, T.UpdateNameArgs(item_id_list=["3", "3"], new_name_list=["mug", "beaker"]))
    assert c.pending == [] and store.edits("room") == []


def test_ambiguous_target_asks_instead_of_editing(store):
    c = ctx(store, "The chair is red, not black.")
    with pytest.raises(ToolError, match="ambiguous"):
        T.update_attributes(c, T.UpdateAttributesArgs(object_id="4", new_attributes_list=["red"]))
    assert c.clarification and "Which one do you mean" in c.clarification
    assert store.edits("room") == []
    # the same sentence with the chair marked is not ambiguous
    c = ctx(store, "The chair is red, not black.", marked="4")
    T.update_attributes(c, T.UpdateAttributesArgs(object_id="4", new_attributes_list=["red"]))
    c.commit()
    assert store.load("room").get("4").attributes == ("red",)


def test_unique_object_needs_no_mark(store):
    c = ctx(store, "The lamp is actually yellow.")
    T.update_attributes(c, T.UpdateAttributesArgs(object_id="7", new_attributes_list=["yellow"]))
    c.commit()
    assert store.load("room").get("7").attributes == ("yellow",)


@pytest.mark.parametrize(("said", "new", "after"), [
    # a new value of a kind replaces the old one of that kind; the rest stays
    ("The cup is blue.", ["blue"], ("blue", "ceramic")),
    ("The cup is glass, not ceramic.", ["red", "glass"], ("red", "glass")),
    # what the user names is removed even with nothing in its place
    ("The cup is not red.", ["ceramic"], ("ceramic",)),
    # a word of no known kind does not replace the colour or the material the user never spoke of
    ("This one is a mug, not a cup.", ["mug"], ("mug", "red", "ceramic")),
])
def test_an_attribute_correction_keeps_what_the_user_did_not_correct(store, said, new, after):
    c = ctx(store, said, marked="3")
    seen = T.update_attributes(c, T.UpdateAttributesArgs(object_id="3", new_attributes_list=new))
    c.commit()
    assert store.load("room").get("3").attributes == after
    assert ("not corrected by the user" in seen) == (len(after) > len(new))


@pytest.mark.parametrize("new", [["chair"], ["Chairs", "red"], ["television"]])
def test_an_attribute_that_names_an_object_kind_is_refused_as_a_name(store, new):
    with pytest.raises(ToolError, match="is what an object is called") as raised:
        T.update_attributes(ctx(store, "This one is a chair, not a cup.", marked="3"),
                            T.UpdateAttributesArgs(object_id="3", new_attributes_list=new))
    assert "update_name" in str(raised.value)
    assert store.load("room").get("3").attributes == ("red", "ceramic")


def test_add_and_delete_relation(store):
    c = ctx(store, "The lamp is next to the table.")
    assert (
        T.add_relation(c, T.RelationEditArgs(subject_id="7", relation="next to", object_id="2"))
        == "The lamp (id: 7) is now next to the table (id: 2)."
    )
    c.commit()
    assert store.load("room").has_edge("7", Relation.NEXT_TO, "2")
    c = ctx(store, "The cup is not on the table.")
    T.delete_relation(c, T.RelationEditArgs(subject_id="3", relation="on", object_id="2"))
    c.commit()
    assert not store.load("room").has_edge("3", Relation.SUPPORTED_BY, "2")
    with pytest.raises(ToolError, match="depends on the viewpoint"):
        T.add_relation(
            ctx(store, "lamp left of table"),
            T.RelationEditArgs(subject_id="7", relation="left", object_id="2"),
        )
    with pytest.raises(ToolError, match="no stored relation"):
        T.delete_relation(
            ctx(store, "the lamp is not on the tv"),
            T.RelationEditArgs(subject_id="7", relation="on", object_id="6"),
        )
    assert [r.op for r in store.edits("room")] == ["add_relation", "delete_relation"]


@pytest.mark.parametrize(("said", "still_on_table"), [
    ("The cup is on the lamp, not on the table.", False),  # the old support named: replaced
    ("The cup is on the lamp.", True),  # not named: the user did not say it is wrong
])
def test_a_new_support_replaces_the_one_the_user_names(store, said, still_on_table):
    c = ctx(store, said)
    seen = T.add_relation(c, T.RelationEditArgs(subject_id="3", relation="on", object_id="7"))
    c.commit()
    graph = store.load("room")
    assert graph.has_edge("3", Relation.SUPPORTED_BY, "7")
    assert graph.has_edge("3", Relation.SUPPORTED_BY, "2") == still_on_table
    assert ("no longer on the table (id: 2)" in seen) != still_on_table
    assert graph.holders("3") == (["2", "7"] if still_on_table else ["7"])


def test_a_support_said_again_still_drops_the_one_the_user_names(store):
    c = ctx(store, "The cup is also on the lamp.")
    T.add_relation(c, T.RelationEditArgs(subject_id="3", relation="on", object_id="7"))
    c.commit()
    assert store.load("room").holders("3") == ["2", "7"]
    c = ctx(store, "The cup is on the table, not on the lamp.")
    T.add_relation(c, T.RelationEditArgs(subject_id="3", relation="on", object_id="2"))
    c.commit()
    assert store.load("room").holders("3") == ["2"]
    with pytest.raises(ToolError, match="already stored"):  # nothing to replace: as before
        T.add_relation(ctx(store, "The cup is on the table."),
                       T.RelationEditArgs(subject_id="3", relation="on", object_id="2"))


@pytest.mark.parametrize(("said", "name", "refused"), [
    ("The marked cup is on the lamp, not on the table.", "lamp", "the user says where the cup is"),
    ("The cup is on the lamp, not on the table.", "cup", "already called cup"),
    ("It is a cup.", "cup", "already called cup"),
])
def test_a_rename_that_changes_nothing_or_names_an_anchor_is_refused(store, said, name, refused):
    with pytest.raises(ToolError, match=refused) as raised:
        T.update_name(ctx(store, said, marked="3"),
                      T.UpdateNameArgs(item_id_list=["3"], new_name_list=[name]))
    assert ("add_relation" in str(raised.value)) == (" on " in said)  # pointed to where a place is stored
    assert store.load("room").get("3").category == "cup"


def test_a_rename_beside_a_relation_still_renames(store):
    c = ctx(store, "The cup on the table is a mug.", marked="3")
    T.update_name(c, T.UpdateNameArgs(item_id_list=["3"], new_name_list=["mug"]))
    c.commit()
    assert store.load("room").get("3").category == "mug"


def test_alignment_turn_end_to_end(store):
    llm = ScriptedModel(
        [
            act("find_marked_object", {}, plan=["find the marked object", "rename it", "confirm"]),
            act("update_name", {"item_id_list": ["5"], "new_name_list": ["stool"]}),
            final("Thanks, the object (id: 5) is now a stool.", ["5"]),
        ]
    )
    session = AgentSession(store, "room", llm, marked="5")
    result = session.ask("The marked object is actually a stool.")
    assert [e["op"] for e in result.edits] == ["update_name"]
    assert result.objects == ["5"]
    assert store.load("room").get("5").category == "stool"


def test_ambiguous_turn_ends_with_a_question_and_no_edit(store):
    llm = ScriptedModel(
        [
            act("query_for_objects", {"query": "chair"}, plan=["find chair", "update"]),
            act("update_attributes", {"object_id": "5", "new_attributes_list": ["red"]}),
        ]
    )
    result = AgentSession(store, "room", llm).ask("The chair is red.")
    assert result.clarification and "Which one do you mean" in result.answer
    assert result.edits == [] and store.edits("room") == []
    assert result.usage.calls == 2


def test_corrections_persist_for_a_new_process(store, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                act("find_marked_object", {}, plan=["find it", "rename"]),
                act("update_name", {"item_id_list": ["7"], "new_name_list": ["floor lamp"]}),
                final("Noted: it is a floor lamp.", ["7"]),
            ]
        )
    )
    db = str(store.path)
    run = [sys.executable, "-m", "synergai"]
    out = subprocess.run(
        [
            *run,
            "ask",
            "This is a floor lamp.",
            "--scene",
            "room",
            "--db",
            db,
            "--mark",
            "7",
            "--llm",
            f"scripted:{script}",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(out.stdout)
    assert data["edits"][0]["op"] == "update_name" and data["objects"] == ["7"]
    assert set(data) >= {
        "answer",
        "objects",
        "llm_calls",
        "prompt_tokens",
        "completion_tokens",
        "query_ratio",
        "edits",
        "trace",
    }
    shown = subprocess.run(
        [*run, "scene", "show", "--scene", "room", "--db", db, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    labels = {o["id"]: o["label"] for o in json.loads(shown.stdout)["objects"]}
    assert labels["7"] == "floor lamp"
    # and a new session in this process answers from the corrected graph
    obs = T.query_for_objects(ctx(store), T.QueryArgs(query="floor lamp"))
    assert "floor lamp (id: 7)" in str(obs)


def test_query_for_relations_shows_the_other_relations_when_the_asked_one_is_missing(store):
    # nothing is recorded "next to" chair 4, but it is near the table: proximity relations are one family
    obs = T.query_for_relations(ctx(store), T.RelationsArgs(item_id_list=["4"], relation="next to"))
    assert "The chair (id: 4) is near brown table (id: 2)." in str(obs) and "has no" not in str(obs)
    bare = T.query_for_relations(ctx(store), T.RelationsArgs(item_id_list=["6"], relation="inside"))
    text = str(bare)
    assert "has no inside relations recorded; its other relations:" in text and "mounted on wall" in text


def _row_room(store, colours: tuple[str, ...] = ("", "", ""), name: str = "row") -> TurnContext:
    """Three chairs in a row along x (of the given colours), two tables: one among the chairs, one alone
    with a cup on it."""
    from synergai.scene.model import Edge, SceneGraph, SceneObject

    objs = [SceneObject(f"c{k}", "chair", (1.0 + k, 1.0, 0.45), (0.5, 0.5, 0.9),
                        attributes=(colours[k],) if colours[k] else ()) for k in range(3)]
    objs += [SceneObject("t1", "table", (2.0, 1.8, 0.375), (1.2, 0.6, 0.75)),
             SceneObject("t2", "table", (6.0, 5.0, 0.375), (0.8, 0.8, 0.75)),
             SceneObject("cup", "cup", (6.0, 5.0, 0.8), (0.08, 0.08, 0.1))]
    graph = SceneGraph(name, objs, [Edge("cup", Relation.SUPPORTED_BY, "t2")])
    store.register(graph, {"builder": "test-row"})
    return TurnContext(store, name, "")


def test_the_agent_grounds_order_and_isolation_with_the_same_engine(store):
    c = _row_room(store)
    obs = str(T.query_for_objects(c, T.QueryArgs(category="chair", order="middle")))
    assert obs.startswith("Best match for 'chair (middle of its kind)': chair c1:")
    obs = str(T.query_for_objects(c, T.QueryArgs(category="object", relations=[
        {"relation": "on", "anchors": [{"category": "table", "alone": True}]}])))
    assert "cup" in obs.split(".")[0] and c.clarification is None


def test_a_tie_on_a_description_of_one_object_makes_the_agent_ask_which(store):
    c = _row_room(store)
    obs = str(T.query_for_objects(c, T.QueryArgs(category="chair", order="end")))
    assert obs.startswith("2 objects match")
    assert c.clarification is not None and "Which one do you mean?" in c.clarification
    # the tied objects are held for the view to show; the question names them in words, never by id
    assert c.tied == ("c0", "c2") and "c0" not in c.clarification and "(id" not in c.clarification


def test_a_tie_is_not_asked_about_when_the_question_counts(store):
    _row_room(store)
    ask = act("query_for_objects", {"category": "chair", "order": "end"}, plan=["find the chairs", "count"])
    which = AgentSession(store, "row", ScriptedModel([ask])).ask("What color is the chair at the end?")
    assert which.clarification and "Which one do you mean?" in which.answer
    # the chairs found are counted: both, with no answer call
    counted = AgentSession(store, "row", ScriptedModel([ask])).ask(
        "How many chairs are at the end of the row?")
    assert not counted.clarification and counted.short_answer == "2" and counted.usage.calls == 1
    assert sorted(counted.objects) == ["c0", "c2"]


def test_a_batch_run_answers_a_tie_rather_than_asking_it_back(store):
    _row_room(store, colours=("red", "", "blue"))
    ask = act("query_for_objects", {"category": "chair", "order": "end"}, plan=["find the chairs", "answer"])
    answer = final("The chair at the end is blue.", ["c2"], short="blue")
    question = "What color is the chair at the end?"
    asked = AgentSession(store, "row", ScriptedModel([ask, answer])).ask(question)
    assert asked.clarification and asked.usage.calls == 1  # the user is asked which chair
    batch = AgentSession(store, "row", ScriptedModel([ask, answer]), limits=BATCH_LIMITS).ask(question)
    assert not batch.clarification and batch.short_answer == "blue" and batch.usage.calls == 2


def test_a_tie_is_asked_about_only_when_the_user_named_it_and_it_changes_the_answer(store):
    ask = act("query_for_objects", {"category": "chair", "order": "end"}, plan=["find the chair at the end"])
    _row_room(store, ("brown", "black", "brown"))  # the end chairs c0 and c2 share their colour
    shared = AgentSession(store, "row", ScriptedModel([ask])).ask("What color is the chair at the end?")
    # the colour they share is the one answer the observation allows: given with no answer call
    assert not shared.clarification and shared.short_answer == "brown" and shared.usage.calls == 1
    # the model's own choice of category ("thing" names none of the room's): its tie goes back to it
    # (here "chair", the one category observed, is the one answer: given with no answer call)
    unnamed = AgentSession(store, "row", ScriptedModel([ask])).ask("What is the thing at the end of the row?")
    assert not unnamed.clarification and unnamed.short_answer == "chair" and unnamed.usage.calls == 1
    _row_room(store, ("brown", "black", "white"), name="row2")
    differ = AgentSession(store, "row2", ScriptedModel([ask])).ask("What color is the chair at the end?")
    assert differ.clarification and "Which one do you mean?" in differ.answer and differ.usage.calls == 1


@pytest.mark.parametrize(("room", "question", "reply", "about_the_tie"), [
    # the end chairs differ in colour, but the question asks about the cup: the model answers
    ("row3", "What color is the cup near the chair at the end?", "There is no cup near it.",
     "What color is the chair at the end?"),
    # "what is next to the chair at the end" asks for another object: the tied chairs are only where it is
    ("row4", "What is next to the chair at the end?", "a table", "Which chair is at the end?"),
])
def test_a_tie_among_what_the_question_does_not_ask_about_is_not_asked_about(store, room, question, reply,
                                                                              about_the_tie):
    _row_room(store, ("brown", "black", "white"), name=room)
    ask = act("query_for_objects", {"category": "chair", "order": "end"}, plan=["find the chair at the end"])
    answered = AgentSession(store, room, ScriptedModel([ask, final(reply, [])])).ask(question)
    assert not answered.clarification and answered.usage.calls == 2
    asked = AgentSession(store, room, ScriptedModel([ask])).ask(about_the_tie)
    assert asked.clarification and asked.usage.calls == 1


def test_a_colour_question_is_answered_from_the_graph_only_when_the_observation_allows_one_colour(store):
    _row_room(store, ("brown", "black", "white"), name="row5")
    middle = act("query_for_objects", {"category": "chair", "order": "middle"}, plan=["find the chair"])
    # the middle chair alone is observed and has one colour: the one answer allowed, no answer call
    given = AgentSession(store, "row5", ScriptedModel([middle])).ask("What color is the chair in the middle?")
    assert given.short_answer == "black" and given.usage.calls == 1
    assert any(t.get("from_graph") and t.get("only_value") == "black" for t in given.trace)
    # three chairs of three colours observed: the model answers, not the first observed chair's colour
    # (a perceived colour answered from the graph lost on the ScanQA check half, session 31)
    chairs = act("query_for_objects", {"category": "chair"}, plan=["find the chairs"])
    llm = ScriptedModel([chairs, final("The chair is white.", [], "white")])
    told = AgentSession(store, "row5", llm).ask("What color is the chair next to the table?")
    assert told.short_answer == "white" and told.usage.calls == 2
    assert not any(t.get("from_graph") for t in told.trace)
    # the thing asked about is another object, or not in the room: the chair's colour is not its answer
    for question in ("What color is the cup near the chair in the middle?",
                     "What color is the piano near the chair in the middle?"):
        llm = ScriptedModel([middle, final("I cannot tell.", [])])
        other = AgentSession(store, "row5", llm).ask(question)
        assert not any(t.get("from_graph") and t.get("object") == "c1" for t in other.trace), question


def test_anything_finds_what_is_on_an_object_of_another_category(store):
    """ "What is on the table?": the cup, not a table; a room that labels something "object" keeps it."""
    obs = str(T.query_for_objects(ctx(store), T.QueryArgs(category="anything", relations=[
        {"relation": "on", "anchors": [{"category": "table"}]}])))
    assert obs.startswith("Best match for 'anything on table': cup 3: on table 2") and "table 2:" not in obs
    from synergai.scene.model import SceneGraph, SceneObject

    base = room()
    thing = SceneObject("9", "object", (0.3, 0.3, 0.2), (0.2, 0.2, 0.2))
    labelled = SceneGraph("labelled", [*base.objects, thing], base.edges)
    store.register(labelled, {"builder": "test-object-label"})
    on_table = str(T.query_for_objects(TurnContext(store, "labelled", ""), T.QueryArgs(
        category="anything", relations=[{"relation": "on", "anchors": [{"category": "table"}]}])))
    assert "cup 3: on table 2" in on_table and "object 9" not in on_table.split(".")[0]


@pytest.mark.parametrize(("said", "offered"), [("What is next to the bed?", True),
                                               ("Which object is on the table?", True),
                                               ("How many chairs are there?", False),
                                               ("The cup is actually blue.", False)])
def test_anything_is_offered_only_when_the_input_asks_about_an_unnamed_object(store, said, offered):
    from synergai.agent.prompt import action_schema, constrain, turn_vocabulary

    schema = constrain(action_schema(), turn_vocabulary(store.load("room"), said=said))
    query = next(b for b in schema["anyOf"] if b["properties"]["action"]["const"] == "query_for_objects")
    categories = query["properties"]["action_input"]["properties"]["category"]["enum"]
    assert ("anything" in categories) is offered and "object" not in categories


@pytest.mark.parametrize(("said", "relations"), [("Is there a rack in the room?", set()),
                                                 ("What color is the oven?", set()),
                                                 ("What is in here?", set()),
                                                 ("What is on the table in this room?", {"on"}),
                                                 ("What is in the cabinet?", {"inside"})])
def test_a_lookup_offers_only_the_relations_the_input_says(store, said, relations):
    """No relation word (or only "in the room", the whole place): the lookup has no relations to fill, so
    it cannot invent an anchor ("rack inside rack"); said relation words are offered, and nothing else."""
    from synergai.agent.prompt import action_schema, constrain, turn_vocabulary

    schema = constrain(action_schema(), turn_vocabulary(store.load("room"), said=said))
    query = next(b for b in schema["anyOf"] if b["properties"]["action"]["const"] == "query_for_objects")
    fields = query["properties"]["action_input"]["properties"]
    offered = set(fields["relations"]["items"]["properties"]["relation"]["enum"]) if "relations" in fields \
        else set()
    assert offered == relations


def test_a_relation_stored_already_points_to_the_object_the_user_names(store):
    """ "The cup is on the lamp, not on the table" with the stored table as the anchor: nothing to add,
    and the refusal names the lamp (the user's anchor), not a question about which table."""
    c = ctx(store, "The cup rests on the lamp, not on the table.")
    with pytest.raises(ToolError, match="already stored") as raised:
        T.add_relation(c, T.RelationEditArgs(subject_id="3", relation="on", object_id="2"))
    assert "the object the user names: lamp (id: 7)" in str(raised.value) and c.clarification is None
    assert store.load("room").holders("3") == ["2"] and not store.edits("room")
    T.add_relation(c, T.RelationEditArgs(subject_id="3", relation="on", object_id="7"))  # the retry
    c.commit()
    assert store.load("room").holders("3") == ["7"]
