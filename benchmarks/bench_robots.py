"""Robot modes with a real model: MultiTalk's three tabletop tasks with and without the critic, three MHRC
tray tasks with and without execution feedback (the ablation both papers make), and the simulator's rate.

Success is the task checker's verdict on the final world (pybullet state / house state). The simulated
person answers the planner with the task's scripted answers, then with its whole intent.

    .venv/bin/python benchmarks/bench_robots.py                   # embedded model, capped rounds
    .venv/bin/python benchmarks/bench_robots.py --only tabletop --tabletop-rounds 4 --out results.json

With ``--out``, a rerun resumes: episodes already in the file are kept and skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from synergai.llm import ChatModel, EmbeddedModel, make_model
from synergai.robots.tabletop.multitalk import MultiTalkConfig, run_multitalk
from synergai.robots.tabletop.plan import parse_plan_text
from synergai.robots.tabletop.scenes import SEED_TASKS
from synergai.robots.tabletop.sim import TabletopSim
from synergai.robots.team.flat import house_task, house_task_keys
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


def bench_tabletop(model: ChatModel, keys: list[str], rounds: int, rows: list[dict[str, Any]],
                   save: Callable[[], None]) -> None:
    for key in keys:
        task = SEED_TASKS[key]
        for critic in (True, False):
            if already_run(rows, "tabletop", key, "critic" if critic else "no critic"):
                continue
            with TabletopSim(task.objects) as sim:
                r = run_multitalk(task.text, sim, model, checker=task.check, answers=task.answers,
                                  ask_user=lambda q, t=task: t.preference,
                                  config=MultiTalkConfig(max_rounds=rounds, use_critic=critic))
            row = {"mode": "tabletop", "task": key, "ablation": "critic" if critic else "no critic",
                   "success": r.success, "executed": r.executed, "rounds": r.rounds, "llm_calls": r.llm_calls,
                   "questions": len(r.questions), "seconds": round(r.seconds, 1), "check": r.check_reason,
                   "stop": r.stop_reason, "log": r.log}
            rows.append(row)
            save()
            log(f"tabletop {key:12s} {row['ablation']:10s} success={r.success} rounds={r.rounds} "
                f"calls={r.llm_calls} {r.seconds:.0f}s ({r.check_reason}; {r.stop_reason})")


def bench_team(model: ChatModel, keys: list[str], rounds: int, rows: list[dict[str, Any]],
               save: Callable[[], None]) -> None:
    for key in keys:
        task = house_task(key)
        for feedback in (True, False):
            if already_run(rows, "team", key, "feedback" if feedback else "no feedback"):
                continue
            r = run_team(task, model, TeamConfig(max_rounds=rounds, use_feedback=feedback))
            row = {"mode": "team", "task": key, "ablation": "feedback" if feedback else "no feedback",
                   "success": r.success, "steps": r.steps, "rounds": r.rounds, "messages": r.messages,
                   "failed_actions": r.failed_actions, "llm_calls": r.llm_calls,
                   "seconds": round(r.seconds, 1),
                   "check": r.check_reason, "stop": r.stop_reason, "log": r.log}
            rows.append(row)
            save()
            log(f"team {key:8s} {row['ablation']:11s} success={r.success} steps={r.steps} "
                f"failed={r.failed_actions} msgs={r.messages} {r.seconds:.0f}s ({r.check_reason})")


def bench_simulator() -> dict[str, float]:
    with TabletopSim(SEED_TASKS["interchange"].objects) as sim:
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
    print(f"{'mode':9s} {'task':12s} {'ablation':12s} {'success':>7s} {'steps':>5s} {'rounds':>6s} "
          f"{'msgs':>4s} {'calls':>5s} {'sec':>6s}  verdict")
    for r in rows:
        steps = r.get("steps", "-")
        msgs = r.get("messages", r.get("questions", "-"))
        ok = "yes" if r["success"] else "no"
        print(f"{r['mode']:9s} {r['task']:12s} {r['ablation']:12s} {ok:>7s} {steps!s:>5s} {r['rounds']:>6d} "
              f"{msgs!s:>4s} {r['llm_calls']:>5d} {r['seconds']:>6.0f}  {r['check']}")
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["mode"], r["ablation"]), []).append(r)
    print("\nsuccess rate by mode and ablation")
    for (mode, ablation), rs in groups.items():
        ok = sum(r["success"] for r in rs)
        mean_rounds = sum(r["rounds"] for r in rs) / len(rs)
        extra = ""
        if mode == "team":
            extra = f", mean steps {sum(r['steps'] for r in rs) / len(rs):.1f}"
        print(f"  {mode:9s} {ablation:12s} {ok}/{len(rs)}  mean rounds {mean_rounds:.1f}{extra}")
    print(f"\nsimulator: {sim['steps_per_second']} pybullet steps/s (Panda + 4 objects, DIRECT); "
          f"a 7-step swap plan checks and runs in {sim['seven_step_plan_seconds']} s "
          f"({sim['plan_sim_steps']} physics steps)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--llm", default="embedded")
    p.add_argument("--base-url", default=None)
    p.add_argument("--only", choices=["tabletop", "team", "sim"], default=None)
    p.add_argument("--tabletop-tasks", default=",".join(SEED_TASKS))
    p.add_argument("--team-tasks", default=",".join(house_task_keys()))
    p.add_argument("--tabletop-rounds", type=int, default=4)
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
        if args.only in (None, "tabletop"):
            bench_tabletop(model, args.tabletop_tasks.split(","), args.tabletop_rounds, rows, save)
        if args.only in (None, "team"):
            bench_team(model, args.team_tasks.split(","), args.team_rounds, rows, save)
    print_table(rows, sim)
    print(f"model: {args.llm}" + (f" ({args.threads} threads)" if args.threads else ""))
    save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
