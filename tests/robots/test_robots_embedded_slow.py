"""One real-model episode per robot mode with the embedded model (runs, logs; success may vary).

Run by the coordinator only: ``pytest -q -m slow tests/robots/test_robots_embedded_slow.py``.
"""

from __future__ import annotations

import pytest

from synergai.llm import EmbeddedModel
from synergai.robots.tabletop.multitalk import MultiTalkConfig, run_multitalk
from synergai.robots.tabletop.sim import TabletopSim
from synergai.robots.task_file import packaged_task
from synergai.robots.team.team import TeamConfig, run_team


@pytest.mark.slow
def test_embedded_model_runs_a_tabletop_episode(embedded_model: EmbeddedModel):
    task = packaged_task("eat", "tabletop")
    with TabletopSim(task.objects) as sim:
        result = run_multitalk(task.text, sim, embedded_model, checker=task.check, answers=task.answers,
                               config=MultiTalkConfig(max_rounds=4))
    assert 1 <= result.rounds <= 4 and len(result.log) == result.rounds
    assert result.usage.calls >= result.rounds
    assert result.checked and result.check_reason
    for entry in result.log:
        assert entry["planner"] in ("plan", "questions", "perception_rerun", "invalid")
        if entry["planner"] == "plan":
            assert entry["plan"] and ("critique" in entry or "simulator" in entry or entry.get("repeat"))
    assert result.executed or not result.success  # success needs an executed plan
    assert all(c["by"] in ("rules", "llm", "simulator", "goal checker") for c in result.caught)


@pytest.mark.slow
def test_embedded_model_runs_a_house_episode(embedded_model: EmbeddedModel):
    task = packaged_task("hold_phone", "house")
    result = run_team(task, embedded_model, TeamConfig(max_rounds=2))  # 2: a round follows the first
    # a robot with nothing to do and nothing to read waits without a model call ("auto")
    called = [e for e in result.log if e["command"] is not None and not e.get("auto")]
    assert 1 <= result.rounds <= 2 and result.steps >= 1 and result.usage.calls >= len(called)
    assert result.check_reason
    # feasible-action decoding: no robot navigates to where it stands or repeats a just-failed action
    assert not any("already at" in (e.get("feedback") or "") for e in result.log)
