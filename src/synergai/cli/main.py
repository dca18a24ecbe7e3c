"""The `synergai` command: one entry point, subcommands per face of the product.

Only the module of the command being run is imported (``synergai --help`` imports none), so start-up
costs what the command uses.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from synergai import __version__
from synergai.masking import mask_secrets
from synergai.scene.store_location import store_location

#: command -> (module under synergai.cli that registers it, help line). Kept in the help's order.
COMMANDS: dict[str, tuple[str, str]] = {
    "scene": ("scene_cmd", "inspect and edit scene graphs"),
    "ask": ("agent_cmd", "ask the agent one question"),
    "chat": ("agent_cmd", "talk with the agent (REPL)"),
    "eval": ("eval_cmd", "run benchmarks"),
    "sandbox": ("sandbox_cmd", "run untrusted programs against the scene APIs"),
    "serve": ("gui_cmd", "the web GUI: see the scene, click to mark an object, chat"),
    "robots": ("robots_cmd", "robot modes: a tabletop arm (MultiTalk) or a robot team (MHRC)"),
    "config": ("config_cmd", "the settings in force (model endpoint, threads, store)"),
    "trace": ("trace_cmd", "read a model-call log written with --trace"),
    "demo": ("main", "the web GUI on the demo scene with the local model"),
}


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
    logging.basicConfig(stream=sys.stderr, level=logging.INFO if verbose >= 2 else logging.WARNING,
                        force=True)
    for handler in logging.getLogger().handlers:
        handler.setFormatter(MaskingFormatter("synergai: %(levelname)s: %(name)s: %(message)s"))
    logging.getLogger("synergai").setLevel(level)


class MaskingFormatter(logging.Formatter):
    """Log lines (``-v``, ``serve``, tracebacks included) with every credential masked."""

    def format(self, record: logging.LogRecord) -> str:
        return mask_secrets(super().format(record))


def register_demo(sub: argparse._SubParsersAction) -> None:
    """Add `demo`: the GUI on the demo scene."""
    from synergai.cli import gui_cmd
    from synergai.cli.common import add_llm_options

    demo = sub.add_parser("demo", help=COMMANDS["demo"][1])
    add_llm_options(demo)
    demo.add_argument("--db", type=store_location, default=None,
                      help="scene store: a SQLite file or a postgresql:// URL (default: user data directory)")
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--port", type=int, default=8080)
    demo.set_defaults(func=gui_cmd.run_demo)


def command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option), if any."""
    return next((a for a in argv if not a.startswith("-")), None)


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (the usage is one --help away)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: ``command`` in full, the other commands as one-line entries of the help."""
    parser = OneLineParser(
        prog="synergai", description="Human-robot collaboration grounded in 3D scene graphs."
    )
    parser.add_argument("--version", action="version", version=f"synergai {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    if command in COMMANDS:
        module = COMMANDS[command][0]
        if module == "main":
            register_demo(sub)
        else:
            importlib.import_module(f"synergai.cli.{module}").register(sub)
    for name, (_module, help_) in COMMANDS.items():
        if name not in sub.choices:
            sub.add_parser(name, help=help_, add_help=False)  # listed in --help, built only when run
    add_verbosity_options(parser, top=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(command_of(argv)).parse_args(argv)
    configure_logging(args.verbose, args.quiet)
    from synergai.cli.common import USER_ERRORS, settings

    try:
        with contextlib.ExitStack() as closing:  # the stores a command opens close when it ends
            args.closing = closing
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
        print(f"synergai: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except RecursionError:  # eg. JSON nested deeper than Python's stack, in a file that was read
        print("synergai: error: input nested too deeply", file=sys.stderr)
        return 2
    except OverflowError as exc:  # eg. an integer of 309+ digits where a number was expected
        print(f"synergai: error: a number is out of range ({_one_line(exc)})", file=sys.stderr)
        return 2


def _one_line(exc: BaseException) -> str:
    """The error as one line, credentials masked, control characters made visible (a file's text may be
    in it)."""
    from synergai.cli.safe_text import visible

    return visible(mask_secrets(" ".join(str(exc).split()) or type(exc).__name__))


if __name__ == "__main__":
    sys.exit(main())
