"""CLI tests run with no user configuration: an empty config directory and none of synergai's variables."""

from __future__ import annotations

import pytest

from synergai.cli.config import API_KEY_ENV, CONFIG_ENV, KEYS


@pytest.fixture(autouse=True)
def no_user_config(tmp_path_factory, monkeypatch):
    """Point the user config directory at an empty one and clear the variables settings read."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg_config")))
    for name in [CONFIG_ENV, API_KEY_ENV, "OPENAI_BASE_URL", *(k.env for k in KEYS)]:
        monkeypatch.delenv(name, raising=False)
