"""`synergai eval ...`: benchmark runners."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from synergai.cli.common import print_json
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.model import SceneError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `eval` command group."""
    ev = sub.add_parser("eval", help="run benchmarks")
    esub = ev.add_subparsers(dest="eval_cmd", required=True)
    p = esub.add_parser("relations", help="Sr3D check: does the graph single out each target?")
    p.add_argument("--relations", type=Path, required=True, help="Sr3D relations file")
    p.add_argument("--objects", type=Path, required=True, help="objects file (objects_gt.json)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_relations)


def read_json(path: Path) -> object:
    """Parse a JSON file, with a one-line error naming it."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SceneError(f"cannot read {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise SceneError(f"{path}: malformed JSON at line {exc.lineno}: {exc.msg}") from None


def cmd_relations(args: argparse.Namespace) -> int:
    from synergai.eval.sr3d import evaluate_sr3d

    records = read_json(args.relations)
    if not isinstance(records, list):
        raise SceneError(f"{args.relations}: expected a JSON list of Sr3D records")
    report = evaluate_sr3d(records, load_objects_file(args.objects))
    data = report.to_dict()
    if args.json:
        print_json(data)
        return 0
    table = Table("relation", "n", "accuracy", title="Sr3D relation resolution")
    for rel, row in sorted(data["by_relation"].items()):
        table.add_row(rel, str(row["n"]), f"{100 * row['accuracy']:.1f} %")
    table.add_row("[bold]all[/bold]", str(data["n"]), f"{100 * data['accuracy']:.1f} %")
    Console().print(table)
    return 0
