"""The one-call grounding parse with the REAL embedded model on the demo scene (slow)."""

from __future__ import annotations

import pytest

from synergai.agent.grounding_parse import parse_expression
from synergai.llm import EmbeddedModel
from synergai.scene.build import build_graph
from synergai.scene.builders.demo import demo_scene
from synergai.scene.grounding import ground, scene_vocabulary

pytestmark = pytest.mark.slow


def test_free_sentences_ground_to_the_right_objects(embedded_model: EmbeddedModel) -> None:
    demo = demo_scene()
    graph = build_graph(demo.scene_id, demo.objects, scene_type=demo.scene_type)
    vocab = scene_vocabulary(graph)
    lamp_by_bed = demo.keys["table_lamp"]
    lamp = parse_expression(embedded_model, "the lamp next to the bed", vocab)
    on_table = parse_expression(embedded_model, "what is on the coffee table", vocab)
    couch = parse_expression(embedded_model, "the couch", vocab)
    assert lamp.calls == 1 and lamp.ref is not None, lamp.problem
    assert ground(graph, lamp.ref).top.id == lamp_by_bed
    assert on_table.ref is not None, on_table.problem
    held = {graph.get(i).category for i in ground(graph, on_table.ref).tied_ids()}
    assert {"laptop", "remote control"} <= held, on_table.ref
    assert couch.ref is not None and couch.ref.category == "sofa"


def test_nr3d_dev_utterances_of_three_kinds_ground_to_their_targets(
        shared_data, embedded_model: EmbeddedModel) -> None:
    """People's own words with the real model: an order in the group, isolation, a relation with a colour."""
    import json

    from synergai.scene.builders.objects_json import load_objects_file

    records = json.loads((shared_data / "nr3d" / "nr3d_test_dev.json").read_text(encoding="utf-8"))
    objects = load_objects_file(shared_data / "scannet" / "objects_gt.json")
    said = ("The cup in the middle", "The box all by itself.", "the monitor is beside the white printer")
    for utterance in said:
        record = next(r for r in records if r["utterance"] == utterance)
        sid = record["scene_id"]
        graph = build_graph(sid, objects.objects(sid), scene_type=objects.scene_type(sid))
        parsed = parse_expression(embedded_model, utterance, scene_vocabulary(graph))
        assert parsed.calls == 1 and parsed.ref is not None, parsed.problem
        g = ground(graph, parsed.ref)
        assert g.unique and g.top.id == str(record["target_id"]), (utterance, parsed.ref, g.message())
