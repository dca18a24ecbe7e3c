"""Settings: flag over environment over config file over default; `config show` says which; -v / -q."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from synergai.cli.config import ConfigError, resolve_settings
from synergai.cli.main import main


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m synergai ARGS`` in a child (where the process matters; else the ``cli`` fixture)."""
    return subprocess.run([sys.executable, "-m", "synergai", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


FILE = 'llm = "openai:from-file"\nbase_url = "http://file:1/v1"\nthreads = 3\nstore = "~/file.sqlite3"\n'


def test_each_level_overrides_the_ones_below(tmp_path):
    cfg = str(write_config(tmp_path, FILE))
    none = {"llm": None, "base_url": None, "threads": None, "db": None}
    s = resolve_settings(none, {})
    assert {k: (v.value, v.source) for k, v in s.values.items()} == {
        "llm": ("embedded", "default"), "base_url": (None, "default"), "threads": (None, "default"),
        "store": (None, "default"), "timeout": (120.0, "default")}
    s = resolve_settings(none, {"SYNERGAI_CONFIG": cfg})
    assert (s["llm"], s["base_url"], s["threads"]) == ("openai:from-file", "http://file:1/v1", 3)
    assert s["store"] == Path("~/file.sqlite3").expanduser()
    assert {v.source for k, v in s.values.items() if k != "timeout"} == {f"file {cfg}"}
    env = {"SYNERGAI_CONFIG": cfg, "SYNERGAI_LLM": "openai:from-env", "SYNERGAI_THREADS": "2"}
    s = resolve_settings(none, env)
    assert (s["llm"], s.values["llm"].source) == ("openai:from-env", "env SYNERGAI_LLM")
    assert (s["threads"], s.values["threads"].source) == (2, "env SYNERGAI_THREADS")
    assert s.values["base_url"].source == f"file {cfg}"
    s = resolve_settings({**none, "llm": "openai:from-flag", "db": tmp_path / "flag.db"}, env)
    assert (s["llm"], s.values["llm"].source) == ("openai:from-flag", "flag --llm")
    assert (s["store"], s.values["store"].source) == (tmp_path / "flag.db", "flag --db")
    assert s.values["threads"].source == "env SYNERGAI_THREADS"


def test_a_configured_endpoint_applies_only_to_openai_models(tmp_path):
    env = {"SYNERGAI_BASE_URL": "http://localhost:11434/v1"}
    assert resolve_settings({"llm": "embedded"}, env).llm_base_url() is None
    assert resolve_settings({"llm": "openai:qwen"}, env).llm_base_url() == "http://localhost:11434/v1"
    # a flag is passed on even where it does not apply, so that the model reports the misuse
    assert resolve_settings({"llm": "embedded", "base_url": "http://x/v1"}, {}).llm_base_url() == "http://x/v1"


@pytest.mark.parametrize("text, message", [
    ("llm = ", "not valid TOML"),
    ('model = "x"\n', "unknown key 'model'"),
    ("threads = 0\n", "threads: expected a positive whole number"),
    ('threads = "many"\n', "threads: expected a positive whole number"),
    ("llm = 3\n", "llm: expected a non-empty string"),
    ("threads = 99999999999999999999\n", "threads: at most 1024 threads"),
    ("timeout = 0\n", "timeout: expected a finite number of seconds > 0"),
    ("timeout = inf\n", "timeout: expected a finite number of seconds > 0"),
])
def test_bad_config_file_is_a_one_line_error(tmp_path, text, message, cli):
    cfg = write_config(tmp_path, text)
    with pytest.raises(ConfigError, match=message):
        resolve_settings({}, {"SYNERGAI_CONFIG": str(cfg)})
    r = cli("scene", "list", "--db", str(tmp_path / "s.db"), env={"SYNERGAI_CONFIG": str(cfg)})
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and message in r.stderr
    assert not (tmp_path / "s.db").exists()


def test_bad_environment_and_missing_named_file_are_errors(tmp_path):
    with pytest.raises(ConfigError, match="SYNERGAI_THREADS"):
        resolve_settings({}, {"SYNERGAI_THREADS": "-1"})
    with pytest.raises(ConfigError, match="does not exist"):
        resolve_settings({}, {"SYNERGAI_CONFIG": str(tmp_path / "nope.toml")})


def test_config_show_json_names_every_source_and_never_the_key(tmp_path, cli):
    cfg = write_config(tmp_path, 'threads = 3\nbase_url = "http://file:1/v1"\n')
    env = {"SYNERGAI_CONFIG": str(cfg), "SYNERGAI_LLM": "openai:env-model", "OPENAI_API_KEY": "sk-secret-42"}
    r = cli("config", "show", "--json", "--db", str(tmp_path / "flag.db"), env=env)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["config_file"] == str(cfg) and data["config_file_exists"] is True
    assert data["settings"] == {
        "llm": {"value": "openai:env-model", "source": "env SYNERGAI_LLM"},
        "base_url": {"value": "http://file:1/v1", "source": f"file {cfg}"},
        "threads": {"value": 3, "source": f"file {cfg}"},
        "store": {"value": str(tmp_path / "flag.db"), "source": "flag --db"},
        "timeout": {"value": 120.0, "source": "default"},
    }
    assert data["api_key"] == {"set": True, "source": "env OPENAI_API_KEY"}
    text = cli("config", "show", env=env)
    assert text.returncode == 0
    assert "sk-secret-42" not in text.stdout + text.stderr and "sk-secret-42" not in r.stdout
    lines = {line.split()[0]: line for line in text.stdout.splitlines()}
    assert "[env SYNERGAI_LLM]" in lines["llm"] and f"[file {cfg}]" in lines["threads"]


def test_config_init_writes_a_file_that_parses_and_refuses_to_overwrite(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "sub" / "config.toml"
    monkeypatch.setenv("SYNERGAI_CONFIG", str(cfg))
    assert main(["config", "init"]) == 0
    assert cfg.is_file() and "SYNERGAI_BASE_URL" in cfg.read_text()
    s = resolve_settings({})
    assert s.config_exists and s.values["llm"].source == "default"  # every key is commented out
    assert main(["config", "init"]) == 2
    assert "already exists" in capsys.readouterr().err


def test_configured_store_and_model_are_the_ones_commands_use(tmp_path, cli):
    """The store from the file and the model from the environment reach `scene` and `ask`."""
    store = tmp_path / "configured.sqlite3"
    cfg = write_config(tmp_path, f'store = "{store}"\n')
    reply = json.dumps({"thought": "Greeting.", "action": "final_answer",
                        "action_input": {"answer": "Hello from the configured model.", "short_answer": "",
                                         "item_id_list": []}})
    script = tmp_path / "script.json"
    script.write_text(json.dumps([reply]))
    env = {"SYNERGAI_CONFIG": str(cfg), "SYNERGAI_LLM": f"scripted:{script}"}
    r = cli("scene", "show", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert store.is_file()
    r = cli("ask", "Hello!", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["answer"] == "Hello from the configured model."
    # a flag beats both: another store, and a model spec that does not exist is an error
    other = tmp_path / "flag.sqlite3"
    r = cli("ask", "Hello!", "--db", str(other), "--llm", f"scripted:{tmp_path / 'none.json'}", env=env)
    assert r.returncode == 2 and "none.json" in r.stderr
    assert cli("scene", "show", "--db", str(other), "--json", env=env).returncode == 0 and other.is_file()


def test_verbosity_flags_anywhere_and_logging_configured_once(tmp_path):
    db = str(tmp_path / "s.db")
    loud = run("scene", "edits", "--db", db, "--json", "-v")
    assert loud.returncode == 0 and json.loads(loud.stdout) == {"scene": "demo", "edits": []}
    assert "synergai: INFO: synergai.cli.common: llm = embedded [default]" in loud.stderr
    assert run("-v", "scene", "edits", "--db", db).stderr.count("store = ") == 1
    quiet = run("scene", "edits", "--db", db, "-q")
    assert quiet.returncode == 0 and quiet.stderr == ""
    both = run("scene", "edits", "--db", db, "-q", "-v")
    assert both.returncode == 2 and "not allowed with" in both.stderr
