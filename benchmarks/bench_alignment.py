"""Perception alignment with a simulated user (SynergAI Tables III and IV, and Table A.2) on real 3D-VisTA
perception errors, with the embedded model by default.

Default: two fixed Table A.2 scenes (scene0144_00, scene0389_00: easy and hard tasks, a support error);
``--all`` runs every dev scene. Results are kept in --out (rerunning resumes; delete it to start afresh).

    .venv/bin/python benchmarks/bench_alignment.py [--all] [--limit N] [--llm embedded] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.console import Console

from synergai.cli.alignment_cmd import print_tables
from synergai.eval.alignment.report import alignment_metrics, write_alignment_report
from synergai.eval.alignment.run import prepare, run_alignment
from synergai.llm import make_model

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
DEFAULT_SCENES = ("scene0144_00", "scene0389_00")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--scenes", nargs="+", default=list(DEFAULT_SCENES))
    p.add_argument("--all", action="store_true", help="every dev scene instead of --scenes")
    p.add_argument("--limit", type=int, default=None, help="a fixed spread-out subset of N tasks")
    p.add_argument("--per-scene", type=int, default=4)
    p.add_argument("--max-turns", type=int, default=4)
    p.add_argument("--no-table-a2", action="store_true")
    p.add_argument("--llm", default="embedded")
    p.add_argument("--base-url", default=None)
    p.add_argument("--cache", type=Path, default=None, help="reply cache directory (reruns reuse replies)")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results/alignment"))
    args = p.parse_args()

    questions = json.loads((args.data / "scanqa" / "scanqa_val_dev.json").read_text())
    scannet = args.data / "scannet"
    setup = prepare(
        questions,
        scannet / "objects_gt.json",
        scannet / "objects_pred_3dvista.json",
        scenes=None if args.all else args.scenes,
        per_scene=args.per_scene,
        limit=args.limit,
        table_a2=not args.no_table_a2,
    )
    llm = make_model(args.llm, base_url=args.base_url, cache=args.cache or False)
    start = time.perf_counter()
    results = run_alignment(setup, llm, args.out, max_turns=args.max_turns)
    metrics = alignment_metrics(results, setup.matching())
    write_alignment_report(args.out, metrics, "python benchmarks/bench_alignment.py")
    console = Console()
    print_tables(metrics, console, f"{len(setup.analyses)} scenes, {llm.name}")
    console.print(f"matching: {metrics['matching']}")
    console.print(f"wall time {time.perf_counter() - start:.0f} s; report: {args.out / 'report.md'}")


if __name__ == "__main__":
    main()
