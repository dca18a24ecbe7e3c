"""Options every command shares, and opening the store and catalog they name."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from synergai.scene.catalog import DEMO_SCENE_ID, SceneCatalog
from synergai.scene.store import SceneStore


def add_scene_options(p: argparse.ArgumentParser, *, objects_required: bool = False) -> None:
    """--scene, --objects, --db, --json."""
    p.add_argument("--scene", default=DEMO_SCENE_ID, help="scene id (default: the built-in demo)")
    p.add_argument("--objects", type=Path, required=objects_required,
                   help="objects file (shared format, e.g. objects_gt.json)")
    p.add_argument("--db", type=Path, default=None, help="scene store (default: user data directory)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


def open_catalog(args: argparse.Namespace) -> SceneCatalog:
    """The store and catalog the options name."""
    return SceneCatalog(SceneStore(args.db), args.objects)


def print_json(data: Any) -> None:
    """Machine-readable output on stdout, written whole: a string stdout cannot encode (eg. a lone
    surrogate in a model's reply) is escaped as \\uXXXX, never a half-written document."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=2, ensure_ascii=True)
    sys.stdout.write(text + "\n")


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds > 0, got {text!r}")
    return value
