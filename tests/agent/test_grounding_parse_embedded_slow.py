"""The one-call grounding parse with the REAL embedded model on the demo scene (slow)."""

from __future__ import annotations

import pytest

from synergai.agent.grounding_parse import parse_expression
from synergai.llm import EmbeddedModel
from synergai.scene.build import build_graph
from synergai.scene.builders.demo import demo_scene
from synergai.scene.grounding import ground, scene_vocabulary

pytestmark = pytest.mark.slow


def test_free_sentences_ground_to_the_right_objects() -> None:
    demo = demo_scene()
    graph = build_graph(demo.scene_id, demo.objects, scene_type=demo.scene_type)
    vocab = scene_vocabulary(graph)
    lamp_by_bed = demo.keys["table_lamp"]
    with EmbeddedModel() as model:
        lamp = parse_expression(model, "the lamp next to the bed", vocab)
        on_table = parse_expression(model, "what is on the coffee table", vocab)
        couch = parse_expression(model, "the couch", vocab)
    assert lamp.calls == 1 and lamp.ref is not None, lamp.problem
    assert ground(graph, lamp.ref).top.id == lamp_by_bed
    assert on_table.ref is not None, on_table.problem
    held = {graph.get(i).category for i in ground(graph, on_table.ref).tied_ids()}
    assert {"laptop", "remote control"} <= held, on_table.ref
    assert couch.ref is not None and couch.ref.category == "sofa"
