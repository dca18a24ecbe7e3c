"""What the commands share: scene, store and model options, pose parsing, JSON output and the errors
that end a command with a one-line message (exit 2)."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from synergai.cli.config import KEYS, Settings, resolve_settings
from synergai.cli.safe_text import json_safe
from synergai.geometry.errors import GeometryError
from synergai.geometry.frames import SQA3D_FACING, Viewpoint
from synergai.llm.base import LLMError
from synergai.llm.trace import TRACE_ENV, TracedModel, TraceLog, check_trace_path
from synergai.masking import mask_secrets
from synergai.scene.catalog import DEMO_SCENE_ID, SceneCatalog
from synergai.scene.model import SceneError
from synergai.scene.store_location import store_location

if TYPE_CHECKING:
    from synergai.llm import ChatModel
    from synergai.llm.weights import Progress
    from synergai.scene.store import SceneStore

log = logging.getLogger(__name__)

#: What --objects takes (every command that reads benchmark scenes says it the same way).
OBJECTS_HELP = ("objects file: the shared ScanNet boxes JSON, {scene id: [{id, label, center_position, "
                "size, ...}]} or {\"scenes\": ...} (objects_gt.json, objects_pred_3dvista.json); a scan goes "
                "in with `scene build`, a scene-graph file with `scene import`")

#: Errors caused by the user's input or environment: one line on stderr, exit code 2.
USER_ERRORS = (SceneError, GeometryError, LLMError, ValueError, OSError)


def add_scene_options(p: argparse.ArgumentParser, *, objects_required: bool = False) -> None:
    """--scene, --objects, --db, --json."""
    p.add_argument("--scene", default=DEMO_SCENE_ID, help="scene id (default: the built-in demo)")
    p.add_argument("--objects", type=Path, required=objects_required, help=OBJECTS_HELP)
    p.add_argument("--db", type=store_location, default=None,
                   help="scene store: a SQLite file or postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME "
                        "(default: user data directory) [env SYNERGAI_STORE, config store]")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


def settings(args: argparse.Namespace) -> Settings:
    """The settings in force for this command: flags over environment over config file over defaults.

    Resolved once; the values are written back into ``args`` (``llm``, ``base_url``, ``threads``, ``db``,
    where the command has those options) so that the command reads them as if given as flags.
    """
    cached = getattr(args, "settings_in_force", None)
    if isinstance(cached, Settings):
        return cached
    resolved = resolve_settings({k.dest: getattr(args, k.dest, None) for k in KEYS})
    if hasattr(args, "llm"):
        args.llm = resolved["llm"]
        args.base_url = resolved.llm_base_url()
        args.threads = resolved["threads"]
    if hasattr(args, "db"):
        args.db = resolved["store"]
    if hasattr(args, "trace"):  # a trace file that cannot be written: an error now, before any model call
        args.trace = args.trace or (Path(os.environ[TRACE_ENV]) if os.environ.get(TRACE_ENV) else None)
        if args.trace is not None:
            check_trace_path(args.trace)
    args.settings_in_force = resolved
    for name, setting in resolved.values.items():
        value = mask_secrets(setting.value) if isinstance(setting.value, str) else setting.value
        log.info("%s = %s [%s]", name, value, setting.source)
    return resolved


def open_store(args: argparse.Namespace) -> SceneStore:
    """The store ``--db`` names, closed when the command ends (closing writes a SQLite store's log into
    its file: a later command then finds the file as this one left it)."""
    from synergai.scene.store import SceneStore

    store = SceneStore(args.db)
    closing = getattr(args, "closing", None)
    if isinstance(closing, contextlib.ExitStack):
        closing.callback(store.close)
    return store


def open_catalog(args: argparse.Namespace) -> SceneCatalog:
    """The store and catalog the options name."""
    settings(args)
    return SceneCatalog(open_store(args), args.objects)


def add_llm_options(p: argparse.ArgumentParser, *, trace: bool = True) -> None:
    """--llm, --base-url, --threads, --timeout, --no-cache (unset flags fall back to the config; see
    `config show`) and, where the command calls the model, --trace."""
    p.add_argument("--llm", default=None,
                   help="embedded (default), openai:MODEL or scripted:FILE [env SYNERGAI_LLM, config llm]")
    p.add_argument("--base-url", default=None,
                   help="OpenAI-compatible endpoint for --llm openai:MODEL "
                        "[env SYNERGAI_BASE_URL, config base_url]")
    p.add_argument("--threads", type=int, default=None,
                   help="CPU threads of the embedded model (default: all cores) [env SYNERGAI_THREADS]")
    p.add_argument("--timeout", dest="llm_timeout", default=None, metavar="SECONDS",
                   help="overall deadline of one call to an openai:MODEL endpoint, retries included "
                        "(default 120) [env SYNERGAI_TIMEOUT, config timeout]")
    p.add_argument("--no-cache", action="store_true", help="do not reuse cached replies (temperature 0)")
    if trace:
        p.add_argument("--trace", type=Path, default=None, metavar="FILE.jsonl",
                       help="append every model call (prompt, reply, tokens, seconds) to this file, one JSON "
                            f"line each; read it with `synergai trace show` [env {TRACE_ENV}]")


def open_llm(args: argparse.Namespace, progress: Progress | None = None) -> ChatModel:
    """The chat model the options and settings name (cached unless scripted or --no-cache); ``progress``
    hears of the embedded model's slow first-time stages."""
    from synergai.llm import make_model

    given = settings(args)
    cache = not args.no_cache and not args.llm.startswith("scripted:")
    # threads from the environment or the file concern only the embedded model; a flag is always passed
    threads_flag = given.values["threads"].source.startswith("flag")
    threads = args.threads if args.llm.strip() == "embedded" or threads_flag else None
    model = make_model(args.llm, base_url=args.base_url, cache=cache, threads=threads,
                       timeout=given["timeout"])
    inner = getattr(model, "inner", model)  # under the reply cache
    if progress is not None and hasattr(inner, "progress"):
        inner.progress = progress
    if getattr(args, "trace", None) is None:
        return model
    if not isinstance(getattr(args, "trace_log", None), TraceLog):  # one log for every model of a command
        args.trace_log = TraceLog(args.trace)
    return TracedModel(model, args.trace_log)


def parse_viewpoint(text: str) -> Viewpoint:
    """``x,y,z,fx,fy,fz`` -> a viewpoint (finite numbers, a facing direction that is not vertical)."""
    try:
        return Viewpoint.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


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


def require_extra(extra: str, *modules: str) -> None:
    """A one-line error naming the install command when an optional extra's modules are missing."""
    import importlib.util

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise ValueError(f"this command needs the '{extra}' extra ({', '.join(missing)} missing): "
                         f"pip install 'synergai[{extra}]' (make install installs every extra)")


def require_java(purpose: str) -> None:
    """A one-line error with the fix when Java is not on PATH."""
    import shutil

    if shutil.which("java") is None:
        raise ValueError(f"{purpose} needs Java, which is not on PATH: install a Java runtime "
                         "(Debian/Ubuntu: sudo apt-get install -y default-jre-headless) or pass --no-meteor")


def print_json(data: Any, *, one_line: bool = False) -> None:
    """Machine-readable output on stdout, written whole: a string stdout cannot encode (eg. a lone
    surrogate in a model's reply) is escaped as \\uXXXX, never a half-written document. ``one_line``
    writes a single line (the benchmarks' metrics, one JSON line per run). Control and bidi characters
    are escaped (:func:`~synergai.cli.safe_text.json_safe`)."""
    indent = None if one_line else 2
    text = json_safe(json.dumps(data, indent=indent, ensure_ascii=False))
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=indent, ensure_ascii=True)
    sys.stdout.write(text + "\n")


#: Most parallel workers a command may be given (a larger number is a typo, not a machine).
MAX_CONCURRENCY = 256


def concurrency(text: str) -> int:
    """An argparse type: a whole number of parallel workers in 1..MAX_CONCURRENCY."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 1 <= value <= MAX_CONCURRENCY:
        raise argparse.ArgumentTypeError(f"expected 1..{MAX_CONCURRENCY} parallel workers, got {text!r}")
    return value


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds > 0, got {text!r}")
    return value
