"""`synergai robots tabletop` (MultiTalk: planner, critic, pybullet simulator) and `synergai robots team`
(MHRC: Alice, Bob and David in a house). Exit code 0 when the task checker accepts the final world,
1 when not.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from rich.console import Console

from synergai.cli.common import add_llm_options, open_llm, print_json, require_extra

if TYPE_CHECKING:
    from synergai.robots.multitalk import MultiTalkResult
    from synergai.robots.team import TeamResult

# synergai.robots imports pybullet, which prints a banner on stdout: import it only when a robot
# command runs, so that other commands' --json output stays clean.


def register(sub: argparse._SubParsersAction) -> None:
    """Add `robots tabletop` and `robots team`."""
    robots = sub.add_parser("robots", help="robot modes: a tabletop arm (MultiTalk) or a robot team (MHRC)")
    rsub = robots.add_subparsers(dest="robots_command", required=True)

    t = rsub.add_parser("tabletop", help="plan, critique and simulate a task for a Franka arm on a table")
    t.add_argument("task", help='e.g. "Give me something to eat"')
    t.add_argument("--answers", nargs="+", action="extend", default=[], metavar="ANSWER",
                   help="answers to the planner's questions, in order (else asked on a terminal)")
    t.add_argument("--scene", default=None,
                   help="table scene (default: the seed task's scene, else 'pairs')")
    t.add_argument("--no-critic", action="store_true", help="skip the Analyzer (the papers' ablation)")
    t.add_argument("--max-rounds", type=int, default=8, help="planner rounds at most (default 8)")
    t.add_argument("--json", action="store_true", help="print JSON instead of text")
    add_llm_options(t)
    t.set_defaults(func=cmd_tabletop)

    m = rsub.add_parser("team", help="Alice, Bob and David fill the tray in a house")
    m.add_argument("task", help='"seed", "snack", "evening" or e.g. "Put the apple and fork into the tray"')
    m.add_argument("--no-feedback", action="store_true", help="robots do not see their actions' feedback")
    m.add_argument("--max-rounds", type=int, default=12, help="rounds of three turns at most (default 12)")
    m.add_argument("--json", action="store_true", help="print JSON instead of text")
    add_llm_options(m)
    m.set_defaults(func=cmd_team)


def _ask_on_terminal(question: str) -> str | None:
    """Ask the person on stderr / stdin (stdout stays clean for --json)."""
    print(f"Planner asks: {question}", file=sys.stderr)
    print("> ", end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    return line.strip() or None


def cmd_tabletop(args: argparse.Namespace) -> int:
    require_extra("robots", "pybullet")
    from synergai.robots.multitalk import MultiTalkConfig, run_multitalk
    from synergai.robots.sim_tabletop import TabletopSim
    from synergai.robots.tabletop_tasks import SCENES, find_task, scene_objects

    if args.scene is not None and args.scene not in SCENES:
        raise ValueError(f"unknown table scene {args.scene!r}; legal: {', '.join(sorted(SCENES))}")
    seed = find_task(args.task)
    scene = args.scene or (seed.scene if seed else "pairs")
    checker = seed.check if seed is not None and scene == seed.scene else None
    config = MultiTalkConfig(max_rounds=args.max_rounds, use_critic=not args.no_critic)
    model = open_llm(args)
    ask = _ask_on_terminal if sys.stdin.isatty() else None
    with TabletopSim(scene_objects(scene)) as sim:
        result = run_multitalk(args.task, sim, model, checker=checker, answers=args.answers, ask_user=ask,
                               config=config)
    if args.json:
        print_json(tabletop_json(result))
    else:
        _print_tabletop(Console(), result)
    return 0 if result.success else 1


def tabletop_json(result: MultiTalkResult) -> dict[str, Any]:
    """The `robots tabletop --json` document."""
    return {"success": result.success, "rounds": result.rounds, "messages": result.dialogue_messages,
            "log": result.log, "task": result.task, "executed": result.executed, "checked": result.checked,
            "check": result.check_reason, "stop_reason": result.stop_reason,
            "pending_questions": result.pending_questions, "final_plan": result.final_plan,
            "llm_calls": result.llm_calls}


def cmd_team(args: argparse.Namespace) -> int:
    require_extra("robots", "pybullet")  # the robots package loads the simulator
    from synergai.robots.house_tasks import task_from_text
    from synergai.robots.team import TeamConfig, run_team

    task = task_from_text(args.task)
    config = TeamConfig(max_rounds=args.max_rounds, use_feedback=not args.no_feedback)
    result = run_team(task, open_llm(args), config)
    if args.json:
        print_json(team_json(result))
    else:
        _print_team(Console(), result)
    return 0 if result.success else 1


def team_json(result: TeamResult) -> dict[str, Any]:
    """The `robots team --json` document."""
    return {"success": result.success, "steps": result.steps, "messages": result.messages, "log": result.log,
            "task": result.task, "rounds": result.rounds, "check": result.check_reason,
            "stop_reason": result.stop_reason, "failed_actions": result.failed_actions,
            "llm_calls": result.llm_calls}


def _print_tabletop(console: Console, r: MultiTalkResult) -> None:
    for e in r.log:
        console.rule(f"round {e['round']}: {e['planner']}")
        for key in ("problem", "questions", "answers", "environment", "plan", "critique", "simulator"):
            if key in e:
                value = e[key]
                text = "\n  ".join(value) if isinstance(value, list) else str(value)
                console.print(f"[bold]{key}[/bold]: {text}", highlight=False)
    for q in r.pending_questions:
        console.print(f"[yellow]unanswered question:[/yellow] {q}", highlight=False)
    verdict = "[green]success[/green]" if r.success else "[red]not done[/red]"
    check = f" ({r.check_reason})" if r.checked else " (no checker for this task: executed = success)"
    console.print(f"{verdict}{check}; {r.rounds} rounds, {r.llm_calls} LLM calls, {r.seconds:.1f} s; "
                  f"{r.stop_reason}", highlight=False)


def _print_team(console: Console, r: TeamResult) -> None:
    for e in r.log:
        mark = "[green]ok[/green]" if e["ok"] else "[red]failed[/red]"
        console.print(f"[bold]{e['round']}.{e['robot']}[/bold] {e['command'] or '(no command)'} {mark}: "
                      f"{e['feedback']}", highlight=False)
    verdict = "[green]success[/green]" if r.success else "[red]not done[/red]"
    console.print(f"{verdict} ({r.check_reason}); {r.steps} steps, {r.messages} messages, {r.llm_calls} LLM "
                  f"calls, {r.seconds:.1f} s; {r.stop_reason}", highlight=False)
