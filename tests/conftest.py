"""Shared fixtures: where the benchmark data lives (read in place, never copied)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the repository root."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"benchmark data not found at {SHARED_DATA}")
    return SHARED_DATA
