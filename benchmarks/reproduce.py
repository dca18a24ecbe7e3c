"""Reproduce one figure of the README's results table: the command in full, run (each prints its table).

    python benchmarks/reproduce.py                 # the names and their commands
    python benchmarks/reproduce.py nr3d            # run one (resumes where it stopped)
    python benchmarks/reproduce.py nr3d --dry-run  # print the command only
    python benchmarks/reproduce.py sqa3d -- --no-cache --concurrency 4   # pass options on

Data is read from ``../shared/data`` beside the repository (never copied into it); model-bound runs write
their results under ``benchmarks/results/NAME`` (not committed). docs/benchmarks.md says what each
measures and how long it takes.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
OUT = ROOT / "benchmarks" / "results"


def commands() -> dict[str, list[str]]:
    """Benchmark name -> its command (argv), in the README's order."""
    gt = str(DATA / "scannet" / "objects_gt.json")
    scanqa = str(DATA / "scanqa" / "scanqa_val_dev.json")
    eval_ = [sys.executable, "-m", "synergai", "eval"]
    check = ["--half", "check"]  # the scenes never read while developing (synergai.eval.split)
    robots = [sys.executable, str(ROOT / "benchmarks" / "bench_robots.py"), "--out", str(OUT / "robots.json")]
    return {
        "relations": [sys.executable, str(ROOT / "benchmarks" / "bench_relations.py")],
        "sr3d": [*eval_, "grounding", "--utterances", str(DATA / "sr3d" / "sr3d_test_relations_dev.json"),
                 "--objects", gt, *check, "--sample", "100", "--seed", "0", "--out", str(OUT / "sr3d")],
        "nr3d": [*eval_, "grounding", "--utterances", str(DATA / "nr3d" / "nr3d_test_dev.json"),
                 "--objects", gt, *check, "--sample", "100", "--seed", "0", "--out", str(OUT / "nr3d")],
        "colours": [sys.executable, str(ROOT / "benchmarks" / "bench_colours.py")],
        "places": [sys.executable, str(ROOT / "benchmarks" / "bench_places.py")],
        "scanqa": [*eval_, "scanqa", "--questions", scanqa, "--objects", gt, *check, "--limit", "100",
                   "--out", str(OUT / "scanqa")],
        "sqa3d": [*eval_, "sqa3d", "--questions", str(DATA / "sqa3d" / "sqa3d_test_dev.json"),
                  "--objects", gt, "--mode", "program", *check, "--limit", "50", "--out", str(OUT / "sqa3d")],
        "directions": [sys.executable, str(ROOT / "benchmarks" / "bench_directions.py")],
        "alignment": [*eval_, "alignment", "--questions", scanqa, "--objects", gt,
                      "--pred-objects", str(DATA / "scannet" / "objects_pred_3dvista.json"),
                      "--limit", "52", "--no-table-a2", "--out", str(OUT / "alignment")],  # all: --limit 104
        "tabletop": [*robots, "--only", "tabletop"],
        "team": [*robots, "--only", "team"],
    }


def main(argv: list[str] | None = None) -> int:
    table = commands()
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1:] if "--" in argv else []  # options passed on to the command
    own = argv[:argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description="Reproduce one figure of the README's results table; options "
                                            "after -- are passed on to the command.")
    p.add_argument("name", nargs="?", choices=sorted(table), help="which benchmark (none: list them all)")
    p.add_argument("--dry-run", action="store_true", help="print the command, do not run it")
    args = p.parse_args(own)
    if args.name is None:
        for name, cmd in table.items():
            print(f"{name:10} {shlex.join(cmd)}")
        return 0
    if not DATA.is_dir():
        print(f"reproduce: the benchmark data is not at {DATA} (see the README's Data section)",
              file=sys.stderr)
        return 2
    cmd = [*table[args.name], *extra]
    print(shlex.join(cmd), flush=True)
    if args.dry_run:
        return 0
    return subprocess.run(cmd, check=False, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
