"""One schema-constrained model call turns a description into a typed expression over the scene's words."""

from __future__ import annotations

import json

from synergai.agent.grounding_parse import (
    SYSTEM_PROMPT,
    expression_messages,
    expression_schema,
    parse_expression,
)
from synergai.llm import ScriptedModel
from synergai.scene.grounding import RELATION_NAMES, ground, scene_vocabulary
from synergai.scene.grounding.vocabulary import SceneVocabulary
from synergai.scene.model import SceneGraph, SceneObject

VOCAB = SceneVocabulary(categories=("bed", "lamp", "sofa", "trash can"), attributes=("small", "white"))


def _enums(schema: dict, key: str) -> list[list]:
    """Every enum under property ``key``, at every nesting level."""
    found = []
    if isinstance(schema, dict):
        for k, v in schema.items():
            if k == key and isinstance(v, dict) and "enum" in v:
                found.append(v["enum"])
            elif k == key and isinstance(v, dict) and "items" in v and "enum" in v["items"]:
                found.append(v["items"]["enum"])
            found += _enums(v, key)
    elif isinstance(schema, list):
        for v in schema:
            found += _enums(v, key)
    return found


def test_schema_enums_hold_only_the_scenes_words_at_every_level() -> None:
    assert _enums(expression_schema(VOCAB), "category")[0] == ["bed", "lamp", "sofa", "trash can"]
    schema = expression_schema(VOCAB, any_object=True)
    cats = _enums(schema, "category")
    assert len(cats) == 3  # target, anchor, anchor's anchor
    assert all(c == ["bed", "lamp", "sofa", "trash can", "object"] for c in cats)
    assert all("couch" not in c for c in cats)  # a name outside the scene cannot be emitted
    assert all(a == ["small", "white"] for a in _enums(schema, "attributes"))
    assert all(r == list(RELATION_NAMES) for r in _enums(schema, "relation"))
    assert "relations" not in json.dumps(schema["properties"]["relations"]["items"]["properties"]["anchors"]
                                         ["items"]["properties"]["relations"]["items"]["properties"]
                                         ["anchors"]["items"])


def test_system_prompt_is_stable_and_the_user_message_carries_scene_words_and_synonyms() -> None:
    a = expression_messages("the lamp next to the couch", VOCAB)
    b = expression_messages("the bin by the bed", SceneVocabulary(categories=("bed",), attributes=()))
    assert a[0] == b[0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert "Room categories: bed, lamp, sofa, trash can; or object (any object)." in a[1]["content"]
    assert "couch = sofa" in a[1]["content"]
    assert "the lamp next to the couch" in a[1]["content"]
    assert "Synonyms" not in b[1]["content"]  # "bin" names nothing in that room


def test_one_call_gives_a_validated_expression_that_the_engine_grounds() -> None:
    graph = SceneGraph("s", [SceneObject("1", "bed", (0, 0, 0.3), (2, 1.6, 0.6)),
                             SceneObject("2", "lamp", (1.4, 0, 0.5), (0.3, 0.3, 1.0)),
                             SceneObject("3", "lamp", (5.0, 0, 0.5), (0.3, 0.3, 1.0))], [])
    reply = {"category": "lamp", "attributes": [], "superlative": "", "relations": [
        {"relation": "closest to", "anchors": [{"category": "bed", "attributes": [], "superlative": "",
                                               "relations": []}]}]}
    model = ScriptedModel([json.dumps(reply)])
    parsed = parse_expression(model, "the lamp next to the bed", scene_vocabulary(graph))
    assert parsed.calls == 1 and parsed.problem == ""
    assert model.requests[0].json_schema["properties"]["category"]["enum"] == ["bed", "lamp", "object"]
    assert parsed.ref.relations[0].relation == "closest to"
    assert ground(graph, parsed.ref).top.id == "2"


def test_a_descriptions_parse_names_anchors_without_relations_of_their_own() -> None:
    reply = {"category": "lamp", "relations": [{"relation": "on", "anchors": [{"category": "bed"}]}]}
    model = ScriptedModel([json.dumps(reply)])
    parse_expression(model, "the lamp on the bed next to the sofa", VOCAB)
    relation = model.requests[0].json_schema["properties"]["relations"]["items"]
    anchors = [item["properties"]["anchors"]["items"] for item in relation.get("anyOf", [relation])]
    assert anchors and all("relations" not in a["properties"] for a in anchors)  # PARSE_DEPTH: one level
    # the agent's lookups still describe an anchor by its own relations (SCHEMA_DEPTH)
    lookup = expression_schema(VOCAB)["properties"]["relations"]["items"]["properties"]["anchors"]["items"]
    assert "relations" in lookup["properties"]


def test_a_reply_that_breaks_the_expression_rules_is_a_problem_not_a_crash() -> None:
    bad = {"category": "lamp", "attributes": [], "superlative": "", "relations": [
        {"relation": "between", "anchors": [{"category": "bed", "attributes": [], "superlative": ""}]}]}
    parsed = parse_expression(ScriptedModel([json.dumps(bad)]), "the lamp between the bed", VOCAB)
    assert parsed.ref is None and "needs 2 anchor" in parsed.problem and parsed.calls == 1
    parsed = parse_expression(ScriptedModel(["not json", "still not"]), "a lamp", VOCAB)
    assert parsed.ref is None and "not valid JSON" in parsed.problem and parsed.calls == 2


def test_two_anchors_for_a_one_anchor_relation_read_as_two_relations() -> None:
    reply = {"category": "lamp", "attributes": [], "superlative": "", "relations": [
        {"relation": "near", "anchors": [{"category": "bed", "attributes": [], "superlative": ""},
                                         {"category": "sofa", "attributes": [], "superlative": ""}]}]}
    parsed = parse_expression(ScriptedModel([json.dumps(reply)]), "the lamp near the bed and the sofa", VOCAB)
    assert [(r.relation, r.anchors[0].category) for r in parsed.ref.relations] == [("near", "bed"),
                                                                                   ("near", "sofa")]


def test_the_schema_offers_only_what_the_sentence_can_mean() -> None:
    lamp = VOCAB.narrowed("the lamp next to the couch")
    assert lamp.categories == ("lamp", "sofa")  # "couch" names the sofa; bed and trash can are not said
    assert lamp.attributes == () and lamp.superlatives == ()
    schema = expression_schema(lamp, any_object=True)
    assert "attributes" not in schema["properties"] and "superlative" not in schema["properties"]
    assert _enums(schema, "category")[0] == ["lamp", "sofa", "object"]
    white = VOCAB.narrowed("the smallest white lamp")
    assert white.attributes == ("white",) and white.superlatives == ("smallest",)
    assert _enums(expression_schema(white), "attributes")[0] == ["white"]
    # words that name no category of the room keep the whole list: the object may have a name no table knows
    assert VOCAB.narrowed("the thingamajig over there").categories == VOCAB.categories


def test_parse_sends_the_narrowed_schema() -> None:
    sofa = {"category": "sofa", "relations": []}
    reply = json.dumps({"category": "lamp", "relations": [{"relation": "next to", "anchors": [sofa]}]})
    model = ScriptedModel([reply])
    parsed = parse_expression(model, "the lamp next to the couch", VOCAB)
    assert parsed.ref is not None and parsed.ref.category == "lamp"
    sent = model.requests[0].json_schema
    # "object" (any object) only when the sentence asks about an object it does not name
    assert _enums(sent, "category")[0] == ["lamp", "sofa"]
    assert "attributes" not in sent["properties"]
    assert _enums(sent, "relation")[0] == ["next to", "beside", "closest to"]  # what "next to" can mean
    model = ScriptedModel([json.dumps({"category": "lamp", "relations": [
        {"relation": "between", "anchors": [{"category": "bed"}, {"category": "sofa"}]}]})])
    assert parse_expression(model, "the lamp in the middle of the bed and the couch", VOCAB).ref is not None
    items = model.requests[0].json_schema["properties"]["relations"]["items"]
    assert items["properties"]["relation"]["enum"] == ["between"]  # "between" has exactly two anchors
    assert items["properties"]["anchors"]["minItems"] == items["properties"]["anchors"]["maxItems"] == 2
    model = ScriptedModel([json.dumps({"category": "object", "relations": [
        {"relation": "on", "anchors": [{"category": "bed"}]}]})])
    assert parse_expression(model, "what is on the bed?", VOCAB).ref is not None
    sent = model.requests[0].json_schema
    assert _enums(sent, "category")[0] == ["bed", "object"] and _enums(sent, "relation")[0] == ["on"]


def test_can_as_a_verb_names_no_object_and_as_a_noun_does() -> None:
    vocab = SceneVocabulary(categories=("book", "desk", "soup can", "trash can"), attributes=())
    assert vocab.categories_said("Can I see the book where I am standing?") == ("book",)
    assert vocab.categories_said("What can keep me warm?") == ()
    assert vocab.categories_said("Is the trash can full?") == ("trash can",)
    assert vocab.categories_said("How many cans are on the desk?") == ("desk", "soup can", "trash can")
    assert vocab.categories_said("Where is the red can?") == ("soup can", "trash can")


def test_a_longer_category_said_exactly_is_not_also_its_head_noun_and_short_names_count() -> None:
    vocab = SceneVocabulary(categories=("cabinet", "desk", "kitchen cabinets", "tv"), attributes=())
    assert vocab.narrowed("the kitchen cabinets near the desk").categories == ("desk", "kitchen cabinets")
    assert vocab.narrowed("the cabinet by the tv").categories == ("cabinet", "tv")
    # ScanNet names "kitchen cabinet" and "kitchen cabinets" apart: the one said is the one offered
    both = SceneVocabulary(categories=("bag", "door", "doors", "kitchen cabinet", "kitchen cabinets"),
                           attributes=())
    assert both.narrowed("the kitchen cabinet near the bag").categories == ("bag", "kitchen cabinet")
    assert both.narrowed("the kitchen cabinets near the bag").categories == ("bag", "kitchen cabinets")
    assert both.narrowed("the door far from the bag").categories == ("bag", "door")


def test_the_relations_a_sentence_can_mean() -> None:
    said = VOCAB.narrowed
    assert said("facing the front of the bed, the lamp on the right of it").relations == ("right of",)
    assert said("the lamp in the middle of the bed and the sofa").relations == ("between",)
    assert said("the lamp farthest from the bed").relations == ("farthest from",)
    assert said("the lamp, the bed").relations == VOCAB.relations  # no relation word: all of them
