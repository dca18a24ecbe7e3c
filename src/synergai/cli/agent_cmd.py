"""`synergai ask` and `synergai chat`: talk to the agent about a scene."""

from __future__ import annotations

import argparse
import atexit
import sys
from pathlib import Path

import platformdirs
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from synergai.agent.intent import check_length
from synergai.agent.loop import AgentResult
from synergai.agent.program.loop import ProgramLoop
from synergai.agent.progress import StagedModel
from synergai.agent.session import AgentSession
from synergai.cli.common import (
    USER_ERRORS,
    add_llm_options,
    add_scene_options,
    open_catalog,
    open_llm,
    parse_pose,
    parse_viewpoint,
    print_json,
)
from synergai.cli.progress import StageDisplay, progress_mode
from synergai.cli.safe_text import visible
from synergai.llm import ChatModel
from synergai.masking import mask_secrets


def register(sub: argparse._SubParsersAction) -> None:
    """Add `ask` and `chat`."""
    for name, help_ in [("ask", "ask the agent one question"), ("chat", "talk with the agent (REPL)")]:
        p = sub.add_parser(name, help=help_)
        if name == "ask":
            p.add_argument("question")
        add_scene_options(p)
        add_llm_options(p)
        p.add_argument("--mark", default=None, help="id of the marked object")
        p.add_argument("--viewpoint", type=parse_viewpoint, default=None, metavar="X,Y,Z,FX,FY,FZ",
                       help="your position and facing direction (for left / right / front / behind)")
        if name == "ask":
            p.add_argument("--mode", choices=("react", "program"), default="react",
                           help="react: SynergAI tool loop (default); program: LLM-TPC programs")
            p.add_argument("--situation", default="", help="program mode: the agent's situation, in words")
            p.add_argument("--pose", type=parse_pose, default=None, metavar="X,Y,Z,QX,QY,QZ,QW",
                           help="program mode: the agent's position and orientation (quaternion scalar last, "
                                "facing R(q)·[-1,0,0] as SQA3D stores it)")
        p.set_defaults(func=cmd_ask if name == "ask" else cmd_chat)


def open_session(args: argparse.Namespace, model: ChatModel | None = None) -> AgentSession:
    """Scene, store and model for a session, as the options say."""
    catalog = open_catalog(args)
    catalog.open(args.scene)
    model = model if model is not None else open_llm(args)
    return AgentSession(catalog.store, args.scene, model, marked=args.mark, viewpoint=args.viewpoint)


def staged_model(args: argparse.Namespace, display: StageDisplay) -> StagedModel:
    """The model, reporting each agent step and the embedded model's first-time stages to ``display``."""
    return StagedModel(open_llm(args, progress=display.model_progress), display.stage)


def print_result(console: Console, result: AgentResult) -> None:
    """The answer, highlighted objects and edits, for people."""
    # the model's words, literally (no markup, no markdown, control characters made visible)
    console.print(Text(visible(result.answer, multiline=True)))
    if result.objects:
        console.print(f"[dim]objects: {escape(visible(', '.join(result.objects)))}[/dim]", highlight=False)
    for e in result.edits:
        console.print(f"[green]edit #{e['seq']}:[/green] {escape(visible(e['summary']))}", highlight=False)
    console.print(f"[dim]{result.usage.line()}, query ratio {100 * result.query_ratio:.1f} %, "
                  f"{result.seconds:.1f} s[/dim]")


def cmd_ask(args: argparse.Namespace) -> int:
    check_length(args.question)  # a too long question is refused before the scene or model is opened
    display = StageDisplay(progress_mode(args))
    if args.mode == "program":
        graph = open_catalog(args).open(args.scene)
        viewpoint = args.pose or args.viewpoint
        loop = ProgramLoop(staged_model(args, display))
        with display.running("starting"):
            program = loop.run(graph, args.question, args.situation, viewpoint)
        if args.json:
            d = program.to_dict()
            print_json({k: d[k] for k in ("answer", "short_answer", "answer_form", "error", "llm_calls",
                                          "prompt_tokens", "new_prompt_tokens", "completion_tokens",
                                          "trace")})
        else:
            console = Console()
            console.print(visible(program.answer, multiline=True), markup=False, highlight=False)
            console.print(f"[dim]{program.usage.line()}, {program.seconds:.1f} s[/dim]")
        return 0
    session = open_session(args, staged_model(args, display))
    with display.running("starting"):
        result = session.ask(args.question)
    if args.json:
        d = result.to_dict()
        keys = ("answer", "short_answer", "objects", "llm_calls", "prompt_tokens", "new_prompt_tokens",
                "completion_tokens", "query_ratio", "edits", "trace", "clarification", "error")
        print_json({k: d[k] for k in keys if k in d})
    elif result.error is None:
        print_result(Console(), result)
    if result.error is not None:  # a correction the store refused: nothing was changed
        print(visible(f"synergai: error: {result.error}"), file=sys.stderr)
        return 1
    return 0


CHAT_HELP = """commands: /mark ID (or /mark to clear), /edits, /undo, /redo, /scene ID, /help, /quit"""


def _chat_command(console: Console, session: AgentSession, line: str) -> bool:
    """Handle a /command; False to quit."""
    cmd, _, arg = line[1:].partition(" ")
    arg = arg.strip()
    store, scene = session.store, session.scene_id
    if cmd in ("quit", "exit", "q"):
        return False
    if cmd == "mark":
        session.mark(arg or None)
        console.print(Text(visible(f"marked {arg}") if arg else "mark cleared"))
    elif cmd == "edits":
        records = store.edits(scene, include_undone=True)
        for r in records:
            console.print(Text(visible(f"#{r.seq} [{r.state}] {r.summary()}")))
        if not records:
            console.print("no edits")
    elif cmd in ("undo", "redo"):
        rec = store.undo(scene) if cmd == "undo" else store.redo(scene)
        console.print(Text(visible(f"{cmd}: {rec.summary()}") if rec else f"nothing to {cmd}"))
    elif cmd == "scene":
        session.switch_scene(arg)
        console.print(Text(visible(f"now on scene {arg}")))
    else:
        console.print(CHAT_HELP)
    return True


def cmd_chat(args: argparse.Namespace) -> int:
    console = Console()
    display = StageDisplay(progress_mode(args), Console(stderr=True, highlight=False))
    model = staged_model(args, display)
    session = open_session(args, model)
    _enable_line_editing(Path(platformdirs.user_data_dir("synergai")) / "chat_history")
    console.print(f"[bold]SynergAI[/bold] on scene [cyan]{escape(visible(session.scene_id))}[/cyan] "
                  f"({len(session.store.load(session.scene_id))} objects). {CHAT_HELP}")
    while True:
        try:
            line = input("you> ").strip()
        except EOFError:
            break
        if not line:
            continue
        try:
            if line.startswith("/"):
                if not _chat_command(console, session, line):
                    break
                continue
            model.new_turn()
            with display.running("thinking"):
                result = session.ask(line)
            print_result(console, result)
        except USER_ERRORS as exc:
            console.print(f"[red]error:[/red] {escape(visible(mask_secrets(exc)))}", highlight=False)
    return 0


def _enable_line_editing(history: Path) -> None:
    """Arrow keys and a persistent input history for input(), where readline exists."""
    try:
        import readline
    except ImportError:
        return
    history.parent.mkdir(parents=True, exist_ok=True)
    if history.exists():
        readline.read_history_file(history)
    atexit.register(readline.write_history_file, history)
