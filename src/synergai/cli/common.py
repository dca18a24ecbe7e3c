"""What the commands share: scene, store and model options, pose parsing, JSON output and the errors
that end a command with a one-line message (exit 2)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from synergai.geometry.errors import GeometryError
from synergai.geometry.frames import SQA3D_FACING, Viewpoint
from synergai.llm.base import LLMError
from synergai.scene.catalog import DEMO_SCENE_ID, SceneCatalog
from synergai.scene.model import SceneError
from synergai.scene.store import SceneStore

if TYPE_CHECKING:
    from synergai.llm import ChatModel

#: Errors caused by the user's input or environment: one line on stderr, exit code 2.
USER_ERRORS = (SceneError, GeometryError, LLMError, ValueError, OSError)


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


def add_llm_options(p: argparse.ArgumentParser) -> None:
    """--llm, --base-url, --no-cache."""
    p.add_argument("--llm", default="embedded",
                   help="embedded (default), openai:MODEL or scripted:FILE")
    p.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint for --llm openai:MODEL")
    p.add_argument("--no-cache", action="store_true", help="do not reuse cached replies (temperature 0)")


def open_llm(args: argparse.Namespace) -> ChatModel:
    """The chat model the options name (cached unless scripted or --no-cache)."""
    from synergai.llm import make_model

    cache = not args.no_cache and not args.llm.startswith("scripted:")
    return make_model(args.llm, base_url=args.base_url, cache=cache)


def parse_pose(text: str) -> Viewpoint:
    """``x,y,z,qx,qy,qz,qw`` -> the agent's viewpoint (SQA3D convention: facing R(q)·[-1, 0, 0])."""
    try:
        v = [float(t) for t in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"pose must be 7 numbers x,y,z,qx,qy,qz,qw, got {text!r}") from None
    if len(v) != 7:
        raise argparse.ArgumentTypeError(f"pose must be 7 numbers x,y,z,qx,qy,qz,qw, got {len(v)}")
    try:
        return Viewpoint.from_pose((v[0], v[1], v[2]), (v[3], v[4], v[5], v[6]), facing_local=SQA3D_FACING)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def print_json(data: Any) -> None:
    """Machine-readable output on stdout."""
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
