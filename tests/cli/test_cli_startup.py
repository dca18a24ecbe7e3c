"""Start-up: `--help` imports no command module, `scene list` none of the heavy libraries; every command's
help line in the top-level help is the one its module registers."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

import pytest

from synergai.cli.main import COMMANDS, build_parser

HEAVY = ("scipy", "networkx", "trimesh", "openai", "viser", "synergai.agent", "synergai.scene.build")


def loaded_after(argv: list[str]) -> set[str]:
    """The top-level modules (and synergai sub-packages) imported by running the CLI with ``argv``."""
    code = (
        "import sys\nfrom synergai.cli.main import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "print('\\n'.join(sys.modules), file=sys.stderr)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(r.stderr.split())


def test_help_imports_no_command_module_nor_heavy_library():
    modules = loaded_after(["--help"])
    assert not {m for m in modules if m.startswith("synergai.cli.") and m != "synergai.cli.main"}
    assert not {m for m in modules for h in (*HEAVY, "numpy", "rich") if m == h or m.startswith(h + ".")}


def test_scene_list_imports_no_heavy_library(tmp_path):
    modules = loaded_after(["scene", "list", "--db", str(tmp_path / "s.db"), "--json"])
    assert "synergai.cli.scene_cmd" in modules and "synergai.scene.store" in modules
    assert not {m for m in modules for h in HEAVY if m == h or m.startswith(h + ".")}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_top_level_help_line_is_the_registered_one(command):
    module, help_line = COMMANDS[command]
    sub = argparse.ArgumentParser().add_subparsers()
    if module == "main":
        return  # `demo` is registered by main itself, from COMMANDS
    importlib.import_module(f"synergai.cli.{module}").register(sub)
    registered = {a.dest: a.help for a in sub._choices_actions}
    assert registered[command] == help_line
    full = build_parser(command)
    assert command in full._subparsers._group_actions[0].choices  # type: ignore[union-attr]
