"""The settings a command runs with, and where each came from.

Precedence, highest first: a command-line flag, an environment variable, the TOML config file
(``$SYNERGAI_CONFIG``, else ``config.toml`` in the user config directory), the built-in default.
The API key for ``openai:`` models is read only from ``OPENAI_API_KEY`` (never from the file, never
printed).
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from synergai.scene.store_location import store_location

CONFIG_ENV = "SYNERGAI_CONFIG"
API_KEY_ENV = "OPENAI_API_KEY"

TEMPLATE = """\
# synergai configuration: every key is optional; a command-line flag overrides it, and so does the
# environment variable named beside it.

# llm = "embedded"                          # SYNERGAI_LLM; or "openai:MODEL"
# base_url = "http://localhost:11434/v1"    # SYNERGAI_BASE_URL; the OpenAI-compatible endpoint
# threads = 4                               # SYNERGAI_THREADS; CPU threads of the embedded model
# store = "~/synergai/scenes.sqlite3"       # SYNERGAI_STORE; the scene store: a SQLite file or
#                                           # postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME
# timeout = 120                             # SYNERGAI_TIMEOUT; seconds one model call may take (retries too)
"""


class ConfigError(ValueError):
    """A config file or environment variable holds something unusable (one-line message)."""


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: expected a non-empty string, got {value!r}")
    return value.strip()


#: Most CPU threads the embedded model may be given (a larger number is a typo, not a machine).
MAX_THREADS = 1024


def _number(value: Any, where: str, read: Callable[[str], Any], expected: str) -> Any:
    """``value``, a number written as text read with ``read`` (a one-line error naming what was
    ``expected`` when it is not one)."""
    if isinstance(value, str):
        try:
            return read(value.strip())
        except ValueError:
            raise ConfigError(f"{where}: expected {expected}, got {value!r}") from None
    return value


def _threads(value: Any, where: str) -> int:
    value = _number(value, where, int, "a positive whole number")
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{where}: expected a positive whole number, got {value!r}")
    if value > MAX_THREADS:
        raise ConfigError(f"{where}: at most {MAX_THREADS} threads, got {value}")
    return value


def _seconds(value: Any, where: str) -> float:
    value = _number(value, where, float, "a number of seconds > 0")
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
        raise ConfigError(f"{where}: expected a finite number of seconds > 0, got {value!r}")
    return float(value)


def _store(value: Any, where: str) -> Path | str:
    return store_location(_text(value, where))


@dataclass(frozen=True)
class Key:
    """One setting: its name in the file, the flag's attribute, the environment variable, the parser."""

    name: str
    dest: str
    flag: str
    env: str
    parse: Callable[[Any, str], Any]
    help: str


KEYS = (
    Key("llm", "llm", "--llm", "SYNERGAI_LLM", _text, "the chat model: embedded or openai:MODEL"),
    Key("base_url", "base_url", "--base-url", "SYNERGAI_BASE_URL", _text,
        "OpenAI-compatible endpoint for openai:MODEL"),
    Key("threads", "threads", "--threads", "SYNERGAI_THREADS", _threads, "CPU threads of the embedded model"),
    Key("store", "db", "--db", "SYNERGAI_STORE", _store,
        "the scene store (a SQLite file or a postgresql:// URL)"),
    Key("timeout", "llm_timeout", "--timeout", "SYNERGAI_TIMEOUT", _seconds,
        "overall deadline of one model call to an endpoint, retries included (seconds)"),
)
DEFAULTS: dict[str, Any] = {"llm": "embedded", "base_url": None, "threads": None, "store": None,
                            "timeout": 120.0}


@dataclass(frozen=True)
class Setting:
    """A value in force and where it came from ("flag --llm", "env SYNERGAI_LLM", "file PATH", "default")."""

    value: Any
    source: str


@dataclass(frozen=True)
class Settings:
    """Every setting in force, the config file consulted and whether an API key is set."""

    values: dict[str, Setting]
    config_path: Path
    config_exists: bool
    api_key_set: bool

    def __getitem__(self, name: str) -> Any:
        return self.values[name].value

    def llm_base_url(self) -> str | None:
        """The endpoint to pass to the model: one from the environment or the file applies only to an
        ``openai:`` model (a flag always goes through, so that a misuse is reported)."""
        setting = self.values["base_url"]
        if setting.source.startswith("flag") or str(self["llm"]).startswith("openai:"):
            return setting.value
        return None


def config_path(env: Mapping[str, str]) -> Path:
    """``$SYNERGAI_CONFIG`` if set, else ``config.toml`` in the user config directory."""
    override = env.get(CONFIG_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir("synergai")) / "config.toml"


def read_config_file(path: Path, *, required: bool) -> dict[str, Any]:
    """The file's settings, checked; {} when it does not exist and is not required."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if required:
            raise ConfigError(f"config file {path} (from {CONFIG_ENV}) does not exist") from None
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path}: not valid TOML: {exc}") from None
    known = {k.name: k for k in KEYS}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(f"config file {path}: unknown key {unknown[0]!r}; known: {', '.join(known)}")
    return {name: known[name].parse(value, f"config file {path}: {name}") for name, value in data.items()}


def resolve_settings(flags: Mapping[str, Any], env: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``flags`` (attribute -> value, None when not given), ``env`` (default os.environ),
    the config file and the defaults."""
    env = os.environ if env is None else env
    path = config_path(env)
    from_file = read_config_file(path, required=bool(env.get(CONFIG_ENV, "").strip()))
    values: dict[str, Setting] = {}
    for key in KEYS:
        flag = flags.get(key.dest)
        raw_env = env.get(key.env, "").strip()
        if flag is not None:
            values[key.name] = Setting(key.parse(flag, key.flag) if key.name != "store" else flag,
                                       f"flag {key.flag}")
        elif raw_env:
            parsed = key.parse(raw_env, f"environment variable {key.env}")
            values[key.name] = Setting(parsed, f"env {key.env}")
        elif key.name in from_file:
            values[key.name] = Setting(from_file[key.name], f"file {path}")
        else:
            values[key.name] = Setting(DEFAULTS[key.name], "default")
    return Settings(values, path, path.is_file(), bool(env.get(API_KEY_ENV)))
