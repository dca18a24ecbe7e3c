"""Program mode with the REAL embedded model on the demo scene: a counting question (slow)."""

from __future__ import annotations

import pytest

from synergai.agent.matching import category_matches
from synergai.agent.program.loop import ProgramLimits, ProgramLoop
from synergai.geometry.frames import Viewpoint
from synergai.llm import EmbeddedModel
from synergai.scene.build import build_graph
from synergai.scene.builders.demo import demo_scene

pytestmark = pytest.mark.slow


def test_counting_question_with_a_program():
    demo = demo_scene()
    graph = build_graph(demo.scene_id, demo.objects, scene_type=demo.scene_type)
    n_chairs = sum(1 for o in graph if category_matches("chair", o.category))  # office chair counts
    viewpoint = Viewpoint((1.7, 0.6, 1.2), (0.0, 1.0, 0.0))
    with EmbeddedModel() as model:
        result = ProgramLoop(model, ProgramLimits(max_rounds=4)).run(
            graph, "How many chairs are there in the room?", "I am standing in the kitchen.", viewpoint
        )
    programs = [t for t in result.trace if t["type"] == "program"]
    assert programs, result.trace
    assert any(t["ok"] and str(n_chairs) in t["stdout"] for t in programs), programs
    words = {4: "four", 5: "five", 6: "six"}
    assert str(n_chairs) in result.answer or words.get(n_chairs, "?") in result.answer.lower(), result.answer
