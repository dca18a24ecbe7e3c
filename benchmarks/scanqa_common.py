"""ScanQA figures of several runs on the questions they all answered (partial runs compared fairly;
one command, prints a line per run).

    python benchmarks/scanqa_common.py RUN_DIR RUN_DIR [...]

Each RUN_DIR holds a ``results.jsonl`` of ``synergai eval scanqa --out RUN_DIR`` (METEOR needs Java).
"""

from __future__ import annotations

import sys
from pathlib import Path

from synergai.eval.metrics import CaptionScorer
from synergai.eval.runner import read_results
from synergai.eval.scanqa import scanqa_metrics

KEYS = ("n", "EM_short", "CIDEr_short", "EM", "CIDEr", "llm_calls_per_question", "median_latency_s", "errors")


def main(argv: list[str]) -> int:
    dirs = [Path(d) for d in argv]
    runs = [{str(r["id"]): r for r in read_results(d / "results.jsonl")} for d in dirs]
    common = sorted(set.intersection(*(set(r) for r in runs))) if runs else []
    if not common:
        print("no question answered by every run", file=sys.stderr)
        return 2
    print(f"{len(common)} questions answered by every run")
    with CaptionScorer() as scorer:
        for d, run in zip(dirs, runs, strict=True):
            m = scanqa_metrics([run[i] for i in common], scorer)
            shown = (f"{k}={m[k]:.3f}" if isinstance(m[k], float) else f"{k}={m[k]}" for k in KEYS)
            print(d.name, " ".join(shown))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
