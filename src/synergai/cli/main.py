"""The `synergai` command: one entry point, subcommands per face of the product."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from synergai import __version__
from synergai.cli import agent_cmd, config_cmd, eval_cmd, gui_cmd, robots_cmd, sandbox_cmd, scene_cmd
from synergai.cli.common import USER_ERRORS, add_llm_options, settings


def add_verbosity_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """-v / -q on ``parser`` and, recursively, on every subcommand (so they may follow the subcommand)."""
    default = 0 if top else argparse.SUPPRESS
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-v", "--verbose", action="count", default=default,
                       help="say more on stderr (-vv: debug)")
    group.add_argument("-q", "--quiet", action="count", default=default,
                       help="errors only on stderr: no progress, no notes")
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                add_verbosity_options(sub, top=False)


def configure_logging(verbose: int, quiet: int) -> None:
    """Configure logging once, for the whole command: warnings by default, -v info, -vv debug, -q errors."""
    level = logging.ERROR if quiet else (logging.DEBUG if verbose >= 2 else
                                         logging.INFO if verbose else logging.WARNING)
    logging.basicConfig(format="synergai: %(levelname)s: %(name)s: %(message)s", stream=sys.stderr,
                        level=logging.INFO if verbose >= 2 else logging.WARNING, force=True)
    logging.getLogger("synergai").setLevel(level)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser."""
    parser = argparse.ArgumentParser(
        prog="synergai", description="Human-robot collaboration grounded in 3D scene graphs."
    )
    parser.add_argument("--version", action="version", version=f"synergai {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    scene_cmd.register(sub)
    agent_cmd.register(sub)
    eval_cmd.register(sub)
    sandbox_cmd.register(sub)
    gui_cmd.register(sub)
    robots_cmd.register(sub)
    config_cmd.register(sub)
    demo = sub.add_parser("demo", help="the web GUI on the demo scene with the local model")
    add_llm_options(demo)
    demo.add_argument("--db", type=Path, default=None, help="scene store (default: user data directory)")
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--port", type=int, default=8080)
    demo.set_defaults(func=gui_cmd.run_demo)
    add_verbosity_options(parser, top=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose, args.quiet)
    try:
        if getattr(args, "uses_settings", True):
            settings(args)  # config errors end here, before any work
        return int(args.func(args) or 0)
    except BrokenPipeError:  # the reader went away (`synergai ... | head`): not an error
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keep the interpreter's final flush quiet
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except USER_ERRORS as exc:
        print(f"synergai: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
