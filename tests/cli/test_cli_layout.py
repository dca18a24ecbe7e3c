"""The command modules form no import cycle: the entry point imports them and none of them imports the
entry point or `agent_cmd` (shared helpers live in `common`), wherever the import statement sits."""

from __future__ import annotations

import ast
from pathlib import Path

import synergai.cli

CLI_DIR = Path(synergai.cli.__file__).parent


def cli_imports(path: Path) -> set[str]:
    """The synergai.cli modules a source file imports, at any depth of its syntax tree."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "synergai.cli":
            found |= {f"synergai.cli.{a.name}" for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("synergai.cli."):
            found.add(node.module or "")
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("synergai.cli.")}
    return found


def test_no_command_module_imports_the_entry_point_or_agent_helpers():
    modules = sorted(p for p in CLI_DIR.glob("*.py") if p.stem not in ("main", "__init__"))
    assert {"common", "agent_cmd", "scene_cmd"} <= {p.stem for p in modules}
    for path in modules:
        imports = cli_imports(path)
        assert "synergai.cli.main" not in imports, path.name
        assert "synergai.cli.agent_cmd" not in imports, path.name
    assert cli_imports(CLI_DIR / "common.py") <= {"synergai.cli.config", "synergai.cli.safe_text"}
    assert cli_imports(CLI_DIR / "config.py") == set()
    assert cli_imports(CLI_DIR / "safe_text.py") == set()
