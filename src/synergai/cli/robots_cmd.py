"""`synergai robots tabletop` (MultiTalk: planner, critic, pybullet simulator) and `synergai robots team`
(MHRC: Alice, Bob and David in a house). Exit code 0 when the task checker accepts the final world
(every task of a --task-file), 1 when not, 2 on bad input (a task file naming an unknown object, kind,
scene or predicate; a --scene the store does not hold or that has nothing to act on; a store that cannot
be written).

With ``--scene ID`` the episode starts from that stored scene (``robots/tabletop/stored.py`` and
``robots/team/stored.py`` say how a scene becomes the robots' world) and every action that changes the
world is written to it as an edit by ``robot:<name>`` (``robots/recorder.py``). When the stored scene
changes under the robots so that an action cannot be written (a person deleted its object, the scene was
dropped or registered again), the episode stops: one line on stderr, exit 1, and ``--json`` still prints
what was recorded. An episode that stops early sets down what a gripper still holds. ``--save-scene ID``
refuses an ID the store already holds unless ``--replace`` is given.

While the robots work, one line per round or action goes to stderr (``-q``: none), with the spinner of
``synergai ask`` on a terminal (``cli/robots_talk.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from synergai.cli.common import add_llm_options, open_llm, print_json, require_extra
from synergai.cli.robots_talk import TerminalTalk
from synergai.cli.safe_text import json_safe, visible
from synergai.llm.usage import Outcome
from synergai.scene.store_location import store_location

if TYPE_CHECKING:
    from synergai.robots.tabletop.multitalk import MultiTalkResult
    from synergai.robots.team.team import TeamResult

# synergai.robots imports pybullet, which prints a banner on stdout: import it only when a robot
# command runs, so that other commands' --json output stays clean.


def register(sub: argparse._SubParsersAction) -> None:
    """Add `robots tabletop` and `robots team`."""
    robots = sub.add_parser("robots", help="robot modes: a tabletop arm (MultiTalk) or a robot team (MHRC)")
    rsub = robots.add_subparsers(dest="robots_command", required=True)

    t = rsub.add_parser("tabletop", help="plan, critique and simulate a task for a Franka arm on a table")
    t.add_argument("task", nargs="?", default=None,
                   help='a task name or text, e.g. "eat" or "Give me something to eat" (or use --task-file)')
    t.add_argument("--task-file", type=Path, default=None,
                   help="a JSON task file: run every task in it (see README, 'Robot tasks as data')")
    t.add_argument("--answers", nargs="+", action="extend", default=[], metavar="ANSWER",
                   help="answers to the planner's questions, in order (else asked on a terminal)")
    t.add_argument("--table", default=None, metavar="NAME",
                   help="built-in table scene for a free-text task: pairs (default), snack, toys")
    _add_scene_option(t, "the objects on its table")
    t.add_argument("--no-critic", action="store_true", help="skip the Analyzer (the papers' ablation)")
    t.add_argument("--max-rounds", type=int, default=8, help="planner rounds at most (default 8)")
    t.add_argument("--json", action="store_true", help="print JSON instead of text")
    _add_save_options(t)
    add_llm_options(t)
    t.set_defaults(func=cmd_tabletop)

    m = rsub.add_parser("team", help="Alice, Bob and David act in a house")
    m.add_argument("task", nargs="?", default=None,
                   help='a packaged house task name, e.g. "seed", "snack", "evening", or an instruction in '
                        'words, e.g. "Put the apple in the fridge" (or use --task-file)')
    m.add_argument("--task-file", type=Path, default=None, help="a JSON task file: run every task in it")
    m.add_argument("--no-feedback", action="store_true", help="robots do not see their actions' feedback")
    m.add_argument("--no-shared-map", action="store_true",
                   help="each robot knows only what it has seen (MHRC's setting; default: one team map)")
    m.add_argument("--max-rounds", type=int, default=12, help="rounds of three turns at most (default 12)")
    m.add_argument("--json", action="store_true", help="print JSON instead of text")
    _add_scene_option(m, "its furniture and the objects on or in it")
    _add_save_options(m)
    add_llm_options(m)
    m.set_defaults(func=cmd_team)


def _add_scene_option(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--scene", default=None, metavar="SCENE_ID",
                   help=f"start from this stored scene ({what}) and record every action as an edit by "
                        "robot:<name> (default: the built-in world, nothing written)")


def _add_save_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--save-scene", default=None, metavar="SCENE_ID",
                   help="store the final world's scene graph under this id (then e.g. `synergai ask "
                        "QUESTION --scene SCENE_ID`); single tasks only; an id the store holds is refused "
                        "unless --replace")
    p.add_argument("--replace", action="store_true",
                   help="with --save-scene: replace a stored scene of the same id (its edits stay in the "
                        "log, discarded)")
    p.add_argument("--db", type=store_location, default=None,
                   help="scene store for --scene and --save-scene: a path (SQLite) or a postgresql:// URL "
                        "(default: user data directory)")


def _check_save_options(args: argparse.Namespace) -> None:
    if args.save_scene is not None and args.task_file is not None:
        raise ValueError("--save-scene stores one task's final world: give a task, not --task-file")
    if args.replace and args.save_scene is None:
        raise ValueError("--replace goes with --save-scene")


def _check_save_scene(args: argparse.Namespace) -> None:
    """Before any model runs: ``--save-scene`` must not replace a stored scene without ``--replace``,
    and the store must be writable."""
    from synergai.scene.model import SceneError
    from synergai.scene.store import SceneStore

    if args.save_scene is None:
        return
    with SceneStore(args.db) as store:
        if store.read_only:
            raise SceneError(f"scene store {store.where} cannot be written by this user: --save-scene "
                             "could not store the final world; nothing was run")
        if store.has_scene(args.save_scene) and not args.replace:
            raise SceneError(f"scene {args.save_scene} is already in the scene store {store.where}: pass "
                             "--replace to replace it (its edits stay in the log, discarded), or choose "
                             "another --save-scene")


def _save_graph(graph: Any, args: argparse.Namespace, mode: str, task: Any) -> None:
    """Register the final world's graph in the scene store (replacing a stored scene only with
    ``--replace``)."""
    from datetime import UTC, datetime

    from synergai.scene.store import SceneStore

    source = {"builder": f"robots {mode}", "task": task.name, "text": task.text,
              "saved_at": datetime.now(UTC).isoformat()}
    with SceneStore(args.db) as store:
        if store.has_scene(graph.scene_id) and not args.replace:  # stored by another process meanwhile
            raise ValueError(f"scene {graph.scene_id} was stored by another process during the episode: "
                             "the final world was not saved (pass --replace to replace it)")
        store.register(graph, source, replace_existing=args.replace)


def _open_stored(args: argparse.Namespace, task_text: str) -> tuple[Any, Any]:
    """The store and a recorder holding the current graph of ``--scene`` (a built-in scene is built on
    first use); checked before any model runs: an unknown scene or a store this user cannot write is an
    error."""
    from synergai.cli.common import settings
    from synergai.robots.recorder import SceneRecorder
    from synergai.scene.catalog import SceneCatalog
    from synergai.scene.model import SceneError
    from synergai.scene.store import SceneStore

    if args.save_scene is not None:
        raise ValueError("--scene records the robots' actions in that scene; --save-scene is for the "
                         "built-in worlds")
    if args.task_file is not None:
        raise ValueError("--scene runs one task: give a task, not --task-file")
    settings(args)
    store = SceneStore(args.db)
    try:
        catalog = SceneCatalog(store)
        known = catalog.scene_ids()  # the built-in scenes (built on first use) and the store's
        if args.scene not in known:
            raise SceneError(f"unknown scene {args.scene!r} in the scene store {store.where} "
                             f"(scenes: {', '.join(known)})")
        catalog.ensure(args.scene)
        return store, SceneRecorder(store, args.scene, task_text)
    except BaseException:
        store.close()
        raise


def _recorded(recorder: Any) -> list[dict[str, Any]]:
    """The edits an episode wrote, for --json and the text report."""
    return [{"seq": r.seq, "actor": r.who, "op": r.op, "summary": r.summary()} for r in recorder.records]


def _stopped(code: int, why: str | None) -> int:
    """The exit code: 1 with one line on stderr when recording stopped the episode, else ``code``."""
    if why is None:
        return code
    print(f"synergai: {visible(why)}", file=sys.stderr)
    return 1


def _ask_on_terminal(question: str) -> str | None:
    """Ask the person on stderr / stdin (stdout stays clean for --json)."""
    print(f"Planner asks: {visible(question)}", file=sys.stderr)
    print("> ", end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    return line.strip() or None


def _one_of_task_or_file(args: argparse.Namespace) -> None:
    if (args.task is None) == (args.task_file is None):
        raise ValueError("give either a task or --task-file FILE")


def _print_line(data: dict[str, Any]) -> None:
    print(json_safe(json.dumps(data, ensure_ascii=False)), flush=True)


def cmd_tabletop(args: argparse.Namespace) -> int:
    require_extra("robots", "pybullet")
    from synergai.robots.tabletop.multitalk import MultiTalkConfig

    _one_of_task_or_file(args)
    _check_save_options(args)
    config = MultiTalkConfig(max_rounds=args.max_rounds, use_critic=not args.no_critic)
    talk = TerminalTalk(args)
    if args.task_file is not None:
        from synergai.robots.task_file import NOTHING_TO_ADD, load_task_file

        tasks = load_task_file(args.task_file, "tabletop")
        return _run_suite(tasks, lambda task, model: run_tabletop_task(
            task, model, config, ask_user=lambda question: NOTHING_TO_ADD, talk=talk), args, "rounds", talk)
    if args.scene is not None:
        return _tabletop_on_stored_scene(args, config, talk)
    task = _tabletop_task_from_words(args.task, args.table)
    _check_save_scene(args)
    talk.line(f"tabletop: the arm's planner takes \"{task.text}\" on table {task.scene} "
              f"({_at_most(args.max_rounds)})")
    model = open_llm(args)
    ask = talk.asking(_ask_on_terminal) if sys.stdin.isatty() else None
    save = None
    if args.save_scene is not None:
        def save(graph: Any) -> None:
            _save_graph(graph, args, "tabletop", task)
    with talk.running("starting"):
        result = run_tabletop_task(task, model, config, answers=args.answers, ask_user=ask, save=save,
                                   scene_id=args.save_scene or "tabletop", talk=talk)
    _last_line(talk, "tabletop", result)
    if args.json:
        print_json(tabletop_json(result))
    else:
        _print_tabletop(Console(), result)
    return 0 if result.success else 1


def _last_line(talk: TerminalTalk, mode: str, result: Any) -> None:
    verdict = "success" if result.success else "not done"
    talk.line(f"{mode}: {verdict}, {result.stop_reason} ({result.seconds:.1f} s)")


TABLETOP_ROBOT = "panda"  # the tabletop arm's name in the edit log (robot:panda)


def _tabletop_on_stored_scene(args: argparse.Namespace, config: Any, talk: TerminalTalk) -> int:
    """A task in words (a packaged task's words, without its goal) on the table of a stored scene, with
    no checker; each move of the executed plan is written to the scene."""
    from synergai.robots.errors import EpisodeStopped
    from synergai.robots.tabletop.stored import table_from_scene
    from synergai.robots.task_file import TabletopTask

    if args.table is not None:
        raise ValueError("give --scene (a stored scene) or --table (a built-in table), not both")
    packaged = _packaged_tabletop_task(args.task)  # its words only: its goal belongs to its own table
    text = packaged.text if packaged is not None else args.task
    store, recorder = _open_stored(args, text)
    stopped = None
    with store:
        stored = table_from_scene(recorder.graph)
        task = TabletopTask("free text", text, stored.objects, (), (), args.scene)
        talk.line(f"tabletop: the arm's planner takes \"{text}\" on table {stored.table.id} of scene "
                  f"{args.scene} ({_at_most(args.max_rounds)})")
        model = open_llm(args)
        ask = talk.asking(_ask_on_terminal) if sys.stdin.isatty() else None
        with talk.running("starting"):
            result = run_tabletop_task(task, model, config, answers=args.answers, ask_user=ask, talk=talk)
        try:
            for state in result.placed if result.executed else ():
                recorder.move(TABLETOP_ROBOT, stored.ids[state.name], stored.frame.to_scene(state.center),
                              f"{TABLETOP_ROBOT}: move {state.name}")
        except EpisodeStopped as exc:
            stopped = str(exc)
        recorded = _recorded(recorder)
    _last_line(talk, "tabletop", result)
    if args.json:
        print_json({**tabletop_json(result), "scene": args.scene, "table": stored.table.id,
                    "left_out": list(stored.left_out), "edits": recorded, "notes": recorder.notes,
                    "stopped": stopped})
    else:
        console = Console()
        _print_tabletop(console, result)
        _print_recorded(console, args.scene, recorded, stored.left_out, recorder.notes)
    return _stopped(0 if result.success else 1, stopped)


def _print_recorded(console: Console, scene: str, recorded: list[dict[str, Any]],
                    left_out: Any = (), notes: Any = ()) -> None:
    for why in left_out:
        console.print(f"[yellow]left out:[/yellow] {escape(str(why))}", highlight=False)
    console.print(f"{len(recorded)} edit(s) written to scene {escape(scene)}", highlight=False)
    for r in recorded:
        console.print(f"  {r['seq']}. {escape(r['summary'])}", highlight=False)
    for note in notes:
        console.print(f"[yellow]not written:[/yellow] {_safe(note)}", highlight=False)


def _packaged_tabletop_task(words: str, scene: str | None = None) -> Any:
    """The packaged task named by its name or exact words (on built-in table ``scene`` if given), or None."""
    from synergai.robots.task_file import load_task_file, packaged_task_file

    norm = " ".join(words.lower().replace(".", " ").split())
    for task in load_task_file(packaged_task_file("tabletop_suite.json"), "tabletop"):
        if norm in (task.name.lower(), " ".join(task.text.lower().replace(".", " ").split())) and (
                scene is None or scene == task.scene):
            return task
    return None


def _tabletop_task_from_words(words: str, scene: str | None) -> Any:  # scene: a built-in table
    """A packaged task named by its name or exact words, else a free-text task on ``scene`` (no goal)."""
    from synergai.robots.tabletop.scenes import scene_objects
    from synergai.robots.task_file import TabletopTask

    task = _packaged_tabletop_task(words, scene)
    if task is not None:
        return task
    name = scene or "pairs"
    return TabletopTask("free text", words, scene_objects(name), (), (), name)


def run_tabletop_task(task: Any, model: Any, config: Any, *, answers: Any = None, ask_user: Any = None,
                      save: Any = None, scene_id: str = "tabletop", talk: Any = None) -> MultiTalkResult:
    """One tabletop task in a fresh simulator; the goal (if any) judges success. ``save`` receives the
    final world's scene graph (built by the robot's perception, the same builder the agent's scenes use).
    ``ask_user`` answers questions beyond the task's answers (suites: the person's "nothing to add")."""
    from synergai.robots.tabletop.multitalk import run_multitalk
    from synergai.robots.tabletop.perception import tabletop_graph
    from synergai.robots.tabletop.sim import TabletopSim
    with TabletopSim(task.objects) as sim:
        result = run_multitalk(task.text, sim, model, checker=task.check if task.goal else None,
                               answers=task.answers if answers is None else answers,
                               ask_user=ask_user, config=config, talk=talk)
        if save is not None:
            save(tabletop_graph(sim.states(), sim.table_box(), scene_id))
    return result


def _run_suite(tasks: list[Any], run: Any, args: argparse.Namespace, count: str, talk: TerminalTalk) -> int:
    """Run every task; --json prints one line per task and a last line with solved / n."""
    talk.line(f"{len(tasks)} task(s) from {args.task_file}")
    model = open_llm(args)
    console = Console(stderr=False)
    solved = 0
    for k, task in enumerate(tasks, start=1):
        talk.line(f"task {k} of {len(tasks)}: {task.name}")
        with talk.running("starting"):
            result = run(task, model)
        solved += bool(result.success)
        line = {"name": task.name, "success": bool(result.success), count: getattr(result, count),
                "seconds": round(result.seconds, 1), **_tokens(result)}
        if args.json:
            _print_line(line)
        else:
            verdict = "[green]solved[/green]" if result.success else "[red]not solved[/red]"
            console.print(f"{_safe(task.name)}: {verdict}; {count} {line[count]}, {result.usage.calls} LLM "
                          "calls "
                          f"({_token_text(result)}), {line['seconds']} s ({_safe(result.check_reason)})",
                          highlight=False)
    if args.json:
        _print_line({"solved": solved, "n": len(tasks)})
    else:
        console.print(f"solved {solved} of {len(tasks)}", highlight=False)
    return 0 if solved == len(tasks) else 1


def _tokens(result: Outcome) -> dict[str, int]:
    """The episode's calls and token sums (every LLM reply, retries included)."""
    usage = result.usage.to_dict()
    return {k: usage[k] for k in ("llm_calls", "prompt_tokens", "new_prompt_tokens", "completion_tokens")}


def _token_text(result: Outcome) -> str:
    return f"{result.usage.new_prompt_tokens} new prompt tokens, {result.usage.completion_tokens} generated"


def tabletop_json(result: MultiTalkResult) -> dict[str, Any]:
    """The `robots tabletop --json` document."""
    return {"success": result.success, "rounds": result.rounds, "messages": result.dialogue_messages,
            "log": result.log, "task": result.task, "executed": result.executed, "checked": result.checked,
            "check": result.check_reason, "stop_reason": result.stop_reason,
            "pending_questions": result.pending_questions, "final_plan": result.final_plan,
            "caught": result.caught, **_tokens(result)}


def cmd_team(args: argparse.Namespace) -> int:
    from synergai.robots.team.team import TeamConfig, run_team

    _one_of_task_or_file(args)
    _check_save_options(args)
    talk = TerminalTalk(args)
    config = TeamConfig(max_rounds=args.max_rounds, use_feedback=not args.no_feedback,
                        shared_map=not args.no_shared_map, talk=talk)
    from synergai.robots.task_file import load_task_file, packaged_task_file

    if args.task_file is not None:
        tasks = load_task_file(args.task_file, "house")
        return _run_suite(tasks, lambda task, model: run_team(task, model, config), args, "steps", talk)
    known = {t.name: t for t in load_task_file(packaged_task_file("house_suite.json"), "house")}
    if not args.task.strip():
        raise ValueError("the task must not be empty")
    if args.scene is not None:
        return _team_on_stored_scene(args, config, known.get(args.task), talk)
    task = known.get(args.task) or _house_task_from_words(args.task)
    _check_save_scene(args)
    house = task.make_house()
    _first_team_line(talk, task.text, "the built-in house", args.max_rounds)
    model = open_llm(args)
    with talk.running("starting"):
        result = run_team(task, model, config, house=house)
    _last_line(talk, "team", result)
    if args.save_scene is not None:
        _save_graph(house.scene_graph(args.save_scene), args, "team", task)
    if args.json:
        print_json(team_json(result))
    else:
        _print_team(Console(), result)
    return 0 if result.success else 1


def _first_team_line(talk: TerminalTalk, text: str, where: str, rounds: int) -> None:
    talk.line(f"team: Bob, Alice and David take \"{text}\" in {where} ({_at_most(rounds)})")


def _at_most(rounds: int) -> str:
    return f"{rounds} round{'' if rounds == 1 else 's'} at most"


def _house_task_from_words(words: str, items: Any = None) -> Any:
    """An instruction in words: no goal (success is the team's claim), on the seed house unless ``items``."""
    from synergai.robots.team.flat import HouseTask, seed_items

    return HouseTask("free text", words, seed_items() if items is None else tuple(items), (), (), "words")


def _stored_team_task(args: argparse.Namespace, packaged: Any, house: Any) -> Any:
    """The instruction on a stored scene's house; a packaged task keeps its goal when the scene has every
    furniture and item it names."""
    from dataclasses import replace

    from synergai.robots.errors import RobotError

    text = packaged.text if packaged is not None else args.task
    task = _house_task_from_words(text, house.items.values())
    if packaged is not None:
        names = {n for p in packaged.goal for n in p.objects()} - set(house.robots)
        missing = sorted(names - set(house.furniture) - set(house.items))
        if missing:
            raise RobotError(f"task {packaged.name!r} names {', '.join(missing)}, which scene "
                             f"{args.scene} does not have: give the instruction in words instead")
        task = replace(task, name=packaged.name, goal=packaged.goal)
    return task


def _team_on_stored_scene(args: argparse.Namespace, config: Any, packaged: Any, talk: TerminalTalk) -> int:
    """The team in the house a stored scene gives; each action that changes it is written to the scene.
    An episode that does not succeed (an error, the round limit, Ctrl-C, a change under the robots) sets
    down what a gripper still holds."""
    from synergai.robots.team.stored import HouseChanges, house_from_scene
    from synergai.robots.team.team import STOPPED, run_team

    text = packaged.text if packaged is not None else args.task
    store, recorder = _open_stored(args, text)
    with store:
        stored = house_from_scene(recorder.graph)
        task = _stored_team_task(args, packaged, stored.house)
        changes = HouseChanges(stored, recorder)
        _first_team_line(talk, text, f"scene {args.scene}", args.max_rounds)
        try:
            model = open_llm(args)
            with talk.running("starting"):
                result = run_team(task, model, config, house=stored.house, on_action=changes,
                                  renamed=changes.renamed)
        except BaseException as exc:
            _settle(changes, "interrupted" if isinstance(exc, KeyboardInterrupt) else "the episode failed")
            raise
        if not result.success:
            _settle(changes, "the episode ended unfinished")
        recorded = _recorded(recorder)
    _last_line(talk, "team", result)
    stopped = result.stop_reason.removeprefix(STOPPED) if result.stop_reason.startswith(STOPPED) else None
    if args.json:
        print_json({**team_json(result), "scene": args.scene, "edits": recorded, "notes": recorder.notes,
                    "stopped": stopped})
    else:
        console = Console()
        _print_team(console, result)
        _print_recorded(console, args.scene, recorded, notes=recorder.notes)
    return _stopped(0 if result.success else 1, stopped)


def _settle(changes: Any, why: str) -> None:
    """Set down what a gripper still holds; what cannot be written is a warning on stderr."""
    for problem in changes.settle(why):
        print(f"synergai: warning: {visible(problem)}", file=sys.stderr)


def team_json(result: TeamResult) -> dict[str, Any]:
    """The `robots team --json` document (``verified`` false: no goal was checked, success is the claim)."""
    return {"success": result.success, "verified": result.verified, "steps": result.steps,
            "messages": result.messages, "log": result.log,
            "task": result.task, "rounds": result.rounds, "check": result.check_reason,
            "stop_reason": result.stop_reason, "failed_actions": result.failed_actions,
            **_tokens(result)}


def _safe(value: object) -> str:
    """Text from a task file or a model, for rich: control characters visible, markup escaped."""
    return escape(visible(value, multiline=True))


def _print_tabletop(console: Console, r: MultiTalkResult) -> None:
    for e in r.log:
        console.rule(f"round {e['round']}: {_safe(str(e['planner']))}")
        for key in ("problem", "questions", "answers", "environment", "plan", "critique", "simulator"):
            if key in e:
                value = e[key]
                text = "\n  ".join(value) if isinstance(value, list) else str(value)
                console.print(f"[bold]{key}[/bold]: {_safe(text)}", highlight=False)
    for q in r.pending_questions:
        console.print(f"[yellow]unanswered question:[/yellow] {_safe(str(q))}", highlight=False)
    verdict = "[green]success[/green]" if r.success else "[red]not done[/red]"
    check = (f" ({_safe(str(r.check_reason))})" if r.checked
             else " (no checker for this task: executed = success)")
    console.print(f"{verdict}{check}; {r.rounds} rounds, {r.usage.calls} LLM calls ({_token_text(r)}), "
                  f"{r.seconds:.1f} s; {_safe(str(r.stop_reason))}", highlight=False)


def _print_team(console: Console, r: TeamResult) -> None:
    for e in r.log:
        mark = "[green]ok[/green]" if e["ok"] else "[red]failed[/red]"
        command = _safe(str(e["command"] or "(no command)"))
        console.print(f"[bold]{e['round']}.{_safe(str(e['robot']))}[/bold] {command} {mark}: "
                      f"{_safe(str(e['feedback']))}", highlight=False)
    verdict = "[green]success[/green]" if r.success else "[red]not done[/red]"
    console.print(f"{verdict} ({_safe(str(r.check_reason))}); {r.steps} steps, {r.messages} messages, "
                  f"{r.usage.calls} LLM calls ({_token_text(r)}), {r.seconds:.1f} s; "
                  f"{_safe(str(r.stop_reason))}",
                  highlight=False)
