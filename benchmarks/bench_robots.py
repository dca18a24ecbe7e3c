"""Robot modes with a real model: the tabletop suite with and without the critic (MultiTalk's ablation)
and the house suite with and without execution feedback (MHRC's), from the packaged task files (or any
task files), plus the simulator's rate.

Success is the generic goal checker's verdict on the final world (pybullet state / house state). The
simulated person answers the planner with the task's answers, in order, then says it has nothing to add.
Every tabletop episode records which component caught which error (rules, the model's critique, the
simulator; "goal checker" marks an executed plan that missed the goal), summed per ablation. Every episode
records its tokens: prompt tokens, new prompt tokens (those the model processed, not served from its prefix
cache) and completion tokens, summed over its LLM replies (retries included); the table shows the mean new
prompt and completion tokens per episode.

    .venv/bin/python benchmarks/bench_robots.py --out benchmarks/results/robots.json
    .venv/bin/python benchmarks/bench_robots.py --only tabletop --tabletop-file my_tasks.json --no-ablation

With ``--out``, a rerun resumes: episodes already in the file are kept and skipped.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from synergai.llm import ChatModel, EmbeddedModel, make_model
from synergai.llm.base import TOKEN_KEYS
from synergai.robots.tabletop.multitalk import MultiTalkConfig, run_multitalk
from synergai.robots.tabletop.plan import parse_plan_text
from synergai.robots.tabletop.sim import TabletopSim
from synergai.robots.task_file import NOTHING_TO_ADD, load_task_file, packaged_task, packaged_task_file
from synergai.robots.team.team import TeamConfig, run_team

SWAP_PLAN = """grasp((0.32, -0.33))
move((0.3, -0.1))
grasp((0.35, 0.35))
move((0.32, -0.33))
grasp((0.3, -0.1))
move((0.35, 0.35))
home()"""


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def already_run(rows: list[dict[str, Any]], mode: str, task: str, ablation: str) -> bool:
    """Whether an earlier (resumed) run of this file holds this episode."""
    return any((r["mode"], r["task"], r["ablation"]) == (mode, task, ablation) for r in rows)


def tokens(result: Any) -> dict[str, int]:
    """An episode's token sums (prompt, new prompt, completion) over all its LLM replies."""
    return {key: getattr(result.usage, key) for key in TOKEN_KEYS}


def mean_of(rows: list[dict[str, Any]], key: str) -> str:
    """The mean of ``key`` over the rows that record it ('-' when none does: episodes from before it was
    recorded)."""
    values = [r[key] for r in rows if key in r]
    return f"{statistics.fmean(values):.0f}" if values else "-"


def bench_tabletop(model: ChatModel, tasks: list[Any], rounds: int, ablations: list[bool],
                   rows: list[dict[str, Any]], save: Callable[[], None]) -> None:
    for task in tasks:
        for critic in ablations:
            ablation = "critic" if critic else "no critic"
            if already_run(rows, "tabletop", task.name, ablation):
                continue
            with TabletopSim(task.objects) as sim:
                r = run_multitalk(task.text, sim, model, checker=task.check, answers=task.answers,
                                  ask_user=lambda question: NOTHING_TO_ADD,
                                  config=MultiTalkConfig(max_rounds=rounds, use_critic=critic))
            row = {"mode": "tabletop", "task": task.name, "ablation": ablation, "success": r.success,
                   "executed": r.executed, "rounds": r.rounds, "llm_calls": r.usage.calls,
                   "questions": len(r.questions), "seconds": round(r.seconds, 1), "check": r.check_reason,
                   "stop": r.stop_reason, "caught": r.caught, **tokens(r), "log": r.log}
            rows.append(row)
            save()
            caught = ",".join(c["by"] for c in r.caught) or "-"
            log(f"tabletop {task.name:16s} {ablation:10s} success={r.success} rounds={r.rounds} "
                f"calls={r.usage.calls} new_prompt={r.new_prompt_tokens} completion={r.completion_tokens} "
                f"{r.seconds:.0f}s caught={caught} ({r.check_reason}; {r.stop_reason})")


def bench_team(model: ChatModel, tasks: list[Any], rounds: int, ablations: list[bool],
               rows: list[dict[str, Any]], save: Callable[[], None]) -> None:
    for task in tasks:
        for feedback in ablations:
            ablation = "feedback" if feedback else "no feedback"
            if already_run(rows, "team", task.name, ablation):
                continue
            r = run_team(task, model, TeamConfig(max_rounds=rounds, use_feedback=feedback))
            row = {"mode": "team", "task": task.name, "ablation": ablation, "success": r.success,
                   "steps": r.steps, "rounds": r.rounds, "messages": r.messages,
                   "failed_actions": r.failed_actions, "llm_calls": r.usage.calls,
                   "seconds": round(r.seconds, 1),
                   "check": r.check_reason, "stop": r.stop_reason, **tokens(r), "log": r.log}
            rows.append(row)
            save()
            log(f"team {task.name:16s} {ablation:11s} success={r.success} steps={r.steps} "
                f"failed={r.failed_actions} msgs={r.messages} calls={r.usage.calls} "
                f"new_prompt={r.new_prompt_tokens} completion={r.completion_tokens} {r.seconds:.0f}s "
                f"({r.check_reason})")


def bench_simulator() -> dict[str, float]:
    with TabletopSim(packaged_task("interchange", "tabletop").objects) as sim:
        rate = sim.step_rate(5000)
        plan = parse_plan_text(SWAP_PLAN)
        start = time.perf_counter()
        n = 5
        for _ in range(n):
            report = sim.execute(plan, commit=False)
        per_plan = (time.perf_counter() - start) / n
        assert report.ok, report.feedback()
    return {"steps_per_second": round(rate), "seven_step_plan_seconds": round(per_plan, 3),
            "plan_sim_steps": report.sim_steps}


def print_table(rows: list[dict[str, Any]], sim: dict[str, float]) -> None:
    print(f"{'mode':9s} {'task':16s} {'ablation':12s} {'success':>7s} {'steps':>5s} {'rounds':>6s} "
          f"{'calls':>5s} {'new pr.':>7s} {'compl.':>6s} {'sec':>6s}  verdict")
    for r in rows:
        ok = "yes" if r["success"] else "no"
        print(f"{r['mode']:9s} {r['task']:16s} {r['ablation']:12s} {ok:>7s} {r.get('steps', '-')!s:>5s} "
              f"{r['rounds']:>6d} {r['llm_calls']:>5d} {r.get('new_prompt_tokens', '-')!s:>7s} "
              f"{r.get('completion_tokens', '-')!s:>6s} {r['seconds']:>6.0f}  {r['check']}")
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["mode"], r["ablation"]), []).append(r)
    print("\nsuccess rate, median episode time, mean new prompt / completion tokens per episode and what "
          "caught the errors, by mode and ablation")
    for (mode, ablation), rs in groups.items():
        ok = sum(r["success"] for r in rs)
        median = statistics.median(r["seconds"] for r in rs)
        extra = ""
        if mode == "tabletop":
            caught = Counter(c["by"] for r in rs for c in r.get("caught", []))
            extra = "; caught: " + (", ".join(f"{k} {v}" for k, v in sorted(caught.items())) or "none")
        else:
            extra = (f"; failed actions {sum(r['failed_actions'] for r in rs)}, "
                     f"mean steps {sum(r['steps'] for r in rs) / len(rs):.1f}")
        print(f"  {mode:9s} {ablation:12s} {ok}/{len(rs)} ({100 * ok / len(rs):.0f} %), "
              f"median {median:.0f} s, tokens {mean_of(rs, 'new_prompt_tokens')} new prompt / "
              f"{mean_of(rs, 'completion_tokens')} completion{extra}")
    print(f"\nsimulator: {sim['steps_per_second']} pybullet steps/s (Panda + 4 objects, DIRECT); "
          f"a 7-step swap plan checks and runs in {sim['seven_step_plan_seconds']} s "
          f"({sim['plan_sim_steps']} physics steps)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--llm", default="embedded")
    p.add_argument("--base-url", default=None)
    p.add_argument("--only", choices=["tabletop", "team", "sim"], default=None)
    p.add_argument("--tabletop-file", type=Path, default=packaged_task_file("tabletop_suite.json"),
                   help="tabletop task file (default: the packaged suite)")
    p.add_argument("--house-file", type=Path, default=packaged_task_file("house_suite.json"),
                   help="house task file (default: the packaged suite)")
    p.add_argument("--tasks", default=None, help="only these task names (comma-separated)")
    p.add_argument("--no-ablation", action="store_true",
                   help="run only with the critic / with feedback (not the ablated runs)")
    p.add_argument("--tabletop-rounds", type=int, default=6)
    p.add_argument("--team-rounds", type=int, default=12)
    p.add_argument("--threads", type=int, default=None,
                   help="CPU threads of the embedded model (default: all; 1 is faster on a busy machine)")
    p.add_argument("--out", type=Path, default=None,
                   help="JSON file for every run (with logs); episodes already in it are kept")
    args = p.parse_args(argv)
    sim = bench_simulator()
    log(f"simulator: {sim}")
    rows: list[dict[str, Any]] = []
    if args.out and args.out.is_file():
        rows = list(json.loads(args.out.read_text())["runs"])
        log(f"resuming: {len(rows)} episodes already in {args.out}")

    def save() -> None:  # after every episode, so a long run can be stopped without losing results
        if args.out:
            args.out.write_text(json.dumps({"simulator": sim, "runs": rows}, indent=1))

    if args.only != "sim":
        model: ChatModel
        if args.llm == "embedded" and args.threads:
            model = EmbeddedModel(threads=args.threads)
        else:
            model = make_model(args.llm, base_url=args.base_url)
        ablations = [True] if args.no_ablation else [True, False]
        wanted = set(args.tasks.split(",")) if args.tasks else None

        def pick(tasks: list[Any]) -> list[Any]:
            return [t for t in tasks if wanted is None or t.name in wanted]

        if args.only in (None, "tabletop"):
            tasks = pick(load_task_file(args.tabletop_file, "tabletop"))
            bench_tabletop(model, tasks, args.tabletop_rounds, ablations, rows, save)
        if args.only in (None, "team"):
            tasks = pick(load_task_file(args.house_file, "house"))
            bench_team(model, tasks, args.team_rounds, ablations, rows, save)
    print_table(rows, sim)
    print(f"model: {args.llm}" + (f" ({args.threads} threads)" if args.threads else ""))
    save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
