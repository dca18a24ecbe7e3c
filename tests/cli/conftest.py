"""CLI tests run with no user configuration: an empty config directory and none of synergai's variables.
``cli`` runs a command in this process, as ``python -m synergai`` would in a child (a few tests keep a
real child process where the process itself matters: exit on a pipe, encodings, logging set up once)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import pytest

from synergai.cli.config import API_KEY_ENV, CONFIG_ENV, KEYS
from synergai.cli.main import main


@pytest.fixture(autouse=True)
def no_user_config(tmp_path_factory, monkeypatch):
    """Point the user config directory at an empty one and clear the variables settings read."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg_config")))
    for name in [CONFIG_ENV, API_KEY_ENV, "OPENAI_BASE_URL", *(k.env for k in KEYS)]:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``cli(*args, env=...)``: ``synergai ARGS`` run by :func:`synergai.cli.main.main` in this process with
    ``env`` added to the environment for that command only; its exit code, stdout and stderr."""

    def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()  # what was printed before is not this command's
        with monkeypatch.context() as m:
            for name, value in (env or {}).items():
                m.setenv(name, value)
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse: usage errors and --help
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(list(args), code, out, err)

    return run
