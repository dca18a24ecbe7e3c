"""Fixtures for the agent tests: the hand-made room in a temporary store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_scripting import room

from synergai.scene.store import SceneStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SceneStore]:
    """A store holding the room."""
    s = SceneStore(tmp_path / "store.sqlite3")
    s.register(room(), {"builder": "test"})
    yield s
    s.close()
