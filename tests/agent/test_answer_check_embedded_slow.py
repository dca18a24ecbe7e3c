"""The answer check with the REAL embedded model, in each mode (slow: loads the 1.5B model on the CPU).

Whatever the small model replies, the answer given is checked: about an object the room lacks it says
there is none; no answer carries tool text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from synergai.agent.program.loop import ProgramLimits, ProgramLoop
from synergai.agent.session import AgentSession
from synergai.scene.catalog import SceneCatalog
from synergai.scene.store import SceneStore

pytestmark = pytest.mark.slow

#: Tool text no answer may carry (written here, not taken from the check under test).
TOOL_WORDS = ("(id", "objects fit", "query_for", "has attributes", "error:")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SceneStore]:
    s = SceneStore(tmp_path / "store.sqlite3")
    SceneCatalog(s).open("demo")
    yield s
    s.close()


def test_the_agent_says_a_missing_object_is_missing(embedded_model, store):
    result = AgentSession(store, "demo", embedded_model).ask("What colour is the piano?")
    assert "no piano" in result.answer.lower(), result.trace
    assert not any(w in result.answer.lower() for w in TOOL_WORDS)


def test_program_mode_says_a_missing_object_is_missing(embedded_model, store):
    graph = store.load("demo")
    result = ProgramLoop(embedded_model, ProgramLimits(max_rounds=2)).run(graph, "What colour is the piano?")
    assert "no piano" in result.answer.lower() or result.error, result.trace
    assert not any(w in result.answer.lower() for w in TOOL_WORDS)
