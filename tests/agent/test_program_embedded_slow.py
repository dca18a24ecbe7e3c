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


def test_counting_question_with_a_program(embedded_model: EmbeddedModel):
    demo = demo_scene()
    graph = build_graph(demo.scene_id, demo.objects, scene_type=demo.scene_type)
    n_chairs = sum(1 for o in graph if category_matches("chair", o.category))  # office chair counts
    viewpoint = Viewpoint((1.7, 0.6, 1.2), (0.0, 1.0, 0.0))
    result = ProgramLoop(embedded_model, ProgramLimits(max_rounds=4)).run(
        graph, "How many chairs are there in the room?", "I am standing in the kitchen.", viewpoint
    )
    programs = [t for t in result.trace if t["type"] == "program"]
    assert programs, result.trace
    assert any(t["ok"] and str(n_chairs) in t["stdout"] for t in programs), programs
    words = {4: "four", 5: "five", 6: "six"}
    assert str(n_chairs) in result.answer or words.get(n_chairs, "?") in result.answer.lower(), result.answer


def test_situated_sqa3d_question_on_a_dev_scene_is_answered_by_a_program_that_runs(
        shared_data, embedded_model: EmbeddedModel):
    """SQA3D 220602001791 (scene0427_00): "How many chairs are on my right?" with the agent placed at the
    question's position and facing; a program must run in the sandbox and the answer must be a number."""
    import json

    import numpy as np

    from synergai.eval.sqa3d import situated_viewpoint
    from synergai.scene.builders.objects_json import load_objects_file

    records = json.loads((shared_data / "sqa3d" / "sqa3d_test_dev.json").read_text())
    q = next(r for r in records if str(r["question_id"]) == "220602001791")
    objects = load_objects_file(shared_data / "scannet" / "objects_gt.json")
    graph = build_graph(q["scene_id"], objects.objects(q["scene_id"]))
    alignments = json.loads((shared_data / "scannet" / "axis_alignment_matrices.json").read_text())
    viewpoint = situated_viewpoint(q, graph, np.asarray(alignments[q["scene_id"]]))
    result = ProgramLoop(embedded_model).run(graph, q["question"], q["situation"], viewpoint)
    ran = [t for t in result.trace if t["type"] == "program" and t["stage"] == "sandbox" and t["ok"]]
    assert ran and any(t["stdout"].strip() for t in ran), result.trace
    assert result.error is None and result.answer_form == "number"
    assert result.short_answer.isdigit(), result.to_dict()
