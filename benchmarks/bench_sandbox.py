"""Sandbox latency and the hostile corpus: ``python benchmarks/bench_sandbox.py [--runs N] [--workers W]``.

Prints the wall time per run of three small programs (median / p95 / max) and, for the hostile corpus in
``tests/agent/hostile/``, how many programs were stopped, how many succeeded harmlessly and the max wall time.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from synergai.agent.program.sandbox import SandboxLimits, run_program

DEMO = "synergai.agent.program.sandbox:demo_api"
PROGRAMS = {
    "print only": ("print('hello')", None),
    "demo API": ("chairs = [o for o in scene() if o.category == 'chair']\n"
                 "print(sorted(query_attribute(c, 'distance') for c in chairs))", DEMO),
    "static reject": ("import os", None),
}
CORPUS = Path(__file__).resolve().parents[1] / "tests" / "agent" / "hostile"
CORPUS_LIMITS = SandboxLimits(cpu_seconds=1.0, wall_seconds=1.5, memory_mb=256, max_output_chars=2000)


def latency(runs: int) -> None:
    """Sequential runs of each small program."""
    for name, (code, factory) in PROGRAMS.items():
        walls = sorted(run_program(code, api_factory=factory).wall_s for _ in range(runs))
        p95 = walls[min(len(walls) - 1, round(0.95 * (len(walls) - 1)))]
        print(f"{name:14s} median {statistics.median(walls) * 1000:6.1f} ms  p95 {p95 * 1000:6.1f} ms  "
              f"max {walls[-1] * 1000:6.1f} ms  ({runs} runs)")


def corpus(workers: int) -> None:
    """Every hostile program once, ``workers`` at a time."""
    files = sorted(CORPUS.glob("*.py"))
    canary = tempfile.mkdtemp(prefix="sandbox-bench-")

    def one(path: Path) -> tuple[bool, float]:
        result = run_program(path.read_text().replace("CANARY_DIR", canary), api_factory=DEMO,
                             limits=CORPUS_LIMITS)
        return result.ok, result.wall_s

    start = time.monotonic()
    with ThreadPoolExecutor(workers) as pool:
        rows = list(pool.map(one, files))
    total = time.monotonic() - start
    stopped = sum(not ok for ok, _ in rows)
    print(f"hostile corpus: {len(rows)} programs, {stopped} stopped, {len(rows) - stopped} ran harmlessly, "
          f"max wall {max(w for _, w in rows):.2f} s, total {total:.1f} s with {workers} workers")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    latency(args.runs)
    corpus(args.workers)


if __name__ == "__main__":
    main()
