"""The docs: the API reference matches the texts the model reads; every relative link resolves."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_api_reference_is_up_to_date():
    render = runpy.run_path(str(ROOT / "docs" / "make_api_reference.py"))["render"]
    assert (ROOT / "docs" / "api-reference.md").read_text(encoding="utf-8") == render(), (
        "docs/api-reference.md is stale: run python docs/make_api_reference.py")


def test_relative_links_resolve():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    assert len(pages) >= 7
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" not in target:
                assert (page.parent / target).exists(), f"{page.name}: broken link {target}"


def test_readme_keeps_exactly_its_two_set_up_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [line.split("#")[0].strip() for line in text.splitlines() if line.startswith("    make ")]
    assert commands == ["make demo", "make test"]


def test_make_demo_installs_show_pips_progress():
    """`make demo` takes minutes on a fresh machine: its pip installs must not be quietened."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    installs = [line for line in text.splitlines() if "pip install" in line]
    assert len(installs) >= 3
    for line in installs:
        assert not re.search(r"\s(-q+|--quiet|--progress-bar[ =]off)\b", line), line


def _results_section() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("\n## Results", 1)[1].split("\n## ", 1)[0].splitlines()


def test_readme_results_fit_one_screen_with_one_command_per_row_and_no_commit_hashes():
    lines = _results_section()
    assert len(lines) <= 30  # a terminal screen, with the heading
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| benchmark")]
    names = runpy.run_path(str(ROOT / "benchmarks" / "reproduce.py"))["commands"]()
    commands = [re.search(r"`python benchmarks/reproduce\.py (\w+)`", row) for row in rows]
    assert all(commands) and sorted(m.group(1) for m in commands if m) == sorted(names)
    hashes = [w for line in lines for w in re.findall(r"\b[0-9a-f]{7,40}\b", line)
              if re.search(r"[a-f]", w) and re.search(r"\d", w)]
    assert hashes == []
    reproduce = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in reproduce for name in names)
