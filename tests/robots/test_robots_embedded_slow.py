"""The MultiTalk loop with the real embedded model on one seed task (runs, logs rounds; success may vary)."""

from __future__ import annotations

import pytest

from synergai.llm import make_model
from synergai.robots.tabletop.multitalk import MultiTalkConfig, run_multitalk
from synergai.robots.tabletop.sim import TabletopSim
from synergai.robots.task_file import packaged_task


@pytest.mark.slow
def test_embedded_model_runs_the_tabletop_loop():
    task = packaged_task("eat", "tabletop")
    model = make_model("embedded")
    with TabletopSim(task.objects) as sim:
        result = run_multitalk(task.text, sim, model, checker=task.check, answers=task.answers,
                               ask_user=lambda q: None, config=MultiTalkConfig(max_rounds=3))
    assert 1 <= result.rounds <= 3 and len(result.log) == result.rounds
    assert result.llm_calls >= result.rounds
    assert result.checked and result.check_reason
    for entry in result.log:
        assert entry["planner"] in ("plan", "questions", "perception_rerun", "invalid")
        if entry["planner"] == "plan":
            assert entry["plan"] and ("critique" in entry or "simulator" in entry)
        if entry["planner"] == "questions":
            assert entry["answers"]
    assert result.executed or not result.success  # success needs an executed plan
