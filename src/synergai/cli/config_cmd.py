"""`synergai config show | init`: the settings in force and where each came from; a starter file."""

from __future__ import annotations

import argparse
import os

from synergai.cli.common import add_llm_options, print_json, settings
from synergai.cli.config import API_KEY_ENV, KEYS, TEMPLATE, config_path
from synergai.cli.safe_text import visible
from synergai.masking import mask_secrets
from synergai.scene.store_location import store_location


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `config` command group."""
    cfg = sub.add_parser("config", help="the settings in force (model endpoint, threads, store)")
    csub = cfg.add_subparsers(dest="config_cmd", required=True)
    p = csub.add_parser("show", help="each setting in force and where it came from")
    add_llm_options(p, trace=False)
    p.add_argument("--db", type=store_location, default=None, help="scene store")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=cmd_show)
    p = csub.add_parser("init", help="write a commented config file (not over an existing one)")
    p.set_defaults(func=cmd_init, uses_settings=False)  # the file it writes may be the one missing


def _shown(name: str, value: object) -> str:
    """A value for people (credentials masked): what a default of None means."""
    if isinstance(value, str):
        return mask_secrets(value)  # never print a password, a token or a key
    if value is not None:
        return str(value)
    if name == "threads":
        return f"all cores ({os.cpu_count() or 1})"
    if name == "store":
        from synergai.scene.store import default_path

        return str(default_path())
    return "-"


def _json_value(name: str, value: object) -> object:
    """JSON form: paths as text, the store's default as its path (threads' default stays null), every
    text with its credentials masked."""
    if name == "store" or isinstance(value, str):
        return _shown(name, value)
    return value


def cmd_show(args: argparse.Namespace) -> int:
    s = settings(args)
    if args.json:
        print_json({
            "config_file": str(s.config_path), "config_file_exists": s.config_exists,
            "settings": {k.name: {"value": _json_value(k.name, s[k.name]), "source": s.values[k.name].source}
                         for k in KEYS},
            "api_key": {"set": s.api_key_set, "source": f"env {API_KEY_ENV}"},
        })
        return 0
    state = "" if s.config_exists else " (absent: `synergai config init` writes a commented one)"
    print(visible(f"config file: {s.config_path}{state}"))
    width = max(len(k.name) for k in KEYS)
    for k in KEYS:
        setting = s.values[k.name]
        print(visible(f"{k.name:<{width}}  {_shown(k.name, setting.value)}  [{setting.source}]"))
    print(f"{'api key':<{width}}  {'set' if s.api_key_set else 'not set'}  [env {API_KEY_ENV}]")
    if s.values["base_url"].value is not None and s.llm_base_url() is None:
        print(visible(f"note: base_url is ignored while llm is {s['llm']!r} (it applies to openai:MODEL)"))
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    path = config_path(os.environ)
    if path.exists():
        raise ValueError(f"{path} already exists; edit it, or remove it first")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(TEMPLATE, encoding="utf-8")
    print(visible(f"wrote {path}"))
    return 0
