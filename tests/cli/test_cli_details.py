"""CLI details a newcomer meets first: `scene show` never cuts an id, edit messages name the object's id
and then its label, and every option that takes a file says which formats or sources it accepts."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from synergai.cli.build_cmd import SOURCES
from synergai.cli.main import COMMANDS, build_parser
from synergai.scene.edits import rename_object
from synergai.scene.formats import READ_FORMATS, WRITE_FORMATS
from synergai.scene.model import ObjectKind, SceneGraph, SceneObject
from synergai.scene.store import SceneStore

LONG_ID = "dishwasher_under_the_kitchen_counter_left_of_the_sink_0042"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "s.sqlite3"
    objects = [SceneObject("0", "floor", (2.0, 2.0, -0.05), (4.0, 4.0, 0.1), kind=ObjectKind.FLOOR),
               SceneObject(LONG_ID, "dishwasher", (1.0, 1.0, 0.45), (0.6, 0.6, 0.9),
                           attributes=("white", "metal", "with a long description of its front panel")),
               SceneObject("tray", "tray", (1.0, 1.0, 0.92), (0.4, 0.3, 0.04))]
    with SceneStore(path) as store:
        store.register(SceneGraph("kitchen", objects), {"builder": "test"})
    return path


@pytest.mark.parametrize("columns", [40, 80, 200])
def test_scene_show_prints_every_id_whole_at_any_width(db: Path, columns: int, cli: Any) -> None:
    r = cli("scene", "show", "--scene", "kitchen", "--db", str(db), env={"COLUMNS": str(columns)})
    assert r.returncode == 0, r.stderr
    assert LONG_ID in r.stdout and "…" not in r.stdout
    lines = r.stdout.splitlines()
    table = lines[:next(k for k, line in enumerate(lines) if line.endswith(" relations"))]
    assert table[-1].startswith("└") and table[-1].rstrip().endswith("┘")  # not cropped either
    assert any(line.startswith("│ tray ") for line in table)


def test_edit_messages_name_the_id_then_the_label(db: Path, cli: Any) -> None:
    with SceneStore(db) as store:
        graph = store.load("kitchen")
        edit = rename_object(graph, "tray", "cutting board", "user", "that is a cutting board")
        store.apply("kitchen", edit)
    r = cli("scene", "edits", "--scene", "kitchen", "--db", str(db), env={"COLUMNS": "80"})
    assert "user renamed tray (tray) -> cutting board: 'that is a cutting board'" in r.stdout, r.stdout
    r = cli("scene", "undo", "--scene", "kitchen", "--db", str(db), env={"COLUMNS": "80"})
    assert r.stdout.startswith("undone: user renamed tray (tray) -> cutting board"), r.stdout


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    out = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out.extend(_parsers(sub))
    return out


def test_every_option_that_takes_a_file_says_what_it_accepts() -> None:
    missing = []
    for command in COMMANDS:
        for parser in _parsers(build_parser(command)):
            for action in parser._actions:
                if action.type is Path and not (action.help and action.help != argparse.SUPPRESS):
                    missing.append(f"{parser.prog} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


def test_import_export_and_build_help_name_every_format_and_source(cli: Any) -> None:
    helps = {cmd: cli("scene", cmd, "--help", env={"COLUMNS": "300"}).stdout
             for cmd in ("import", "export", "build")}
    for name in READ_FORMATS:
        assert name in helps["import"], name
    for name in WRITE_FORMATS:
        assert name in helps["export"], name
    for name in SOURCES:
        assert name in helps["build"], name
    assert "scene export` wrote" not in helps["import"] and "--no-relations" in helps["import"]
    top = cli("scene", "--help", env={"COLUMNS": "300"}).stdout
    assert all(name in top for name in READ_FORMATS)
