"""Options every command shares, and opening the store and catalog they name."""

from __future__ import annotations

import argparse
import json
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
    """Machine-readable output on stdout."""
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
