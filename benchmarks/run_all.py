"""Run the fast benchmarks one after another (each prints its own table).

    .venv/bin/python benchmarks/run_all.py

The model-bound ones take minutes to hours on a laptop CPU and run on their own:
bench_agent.py (ScanQA subset), bench_llm.py, bench_gui.py, bench_robots.py, and the
`synergai eval scanqa | sqa3d | alignment` runners (see the README's results section).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

FAST = ("bench_relations.py", "bench_graph_speed.py", "bench_pick.py", "bench_sandbox.py")


def main() -> int:
    here = Path(__file__).resolve().parent
    failed = []
    for name in FAST:
        print(f"\n=== {name}", flush=True)
        if subprocess.run([sys.executable, str(here / name)], check=False).returncode != 0:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
