"""SynergAI agent on a fixed 30-question ScanQA subset with ground-truth objects.

Prints median latency per question, LLM calls per question, query ratio, EM and refined EM (raw and
short answers). Results are kept in --out (rerunning resumes; delete the folder to start afresh).

    .venv/bin/python benchmarks/bench_agent.py [--llm embedded] [--limit 30] [--out benchmarks/results/agent]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from synergai.eval.scanqa import check_questions, run_scanqa, scanqa_metrics
from synergai.llm import make_model

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--llm", default="embedded")
    p.add_argument("--base-url", default=None)
    p.add_argument("--limit", type=int, default=30)
    p.add_argument("--out", type=Path, default=Path("benchmarks/results/agent"))
    args = p.parse_args()

    source = args.data / "scanqa" / "scanqa_val_dev.json"
    questions = check_questions(json.loads(source.read_text()), str(source))
    llm = make_model(args.llm, base_url=args.base_url)
    objects = args.data / "scannet" / "objects_gt.json"
    results = run_scanqa(questions, objects, llm, args.out, limit=args.limit)
    m = scanqa_metrics(results)
    (args.out / "metrics.json").write_text(json.dumps(m, indent=2))

    table = Table(title=f"SynergAI agent, ScanQA val subset (n={m['n']}, GT objects, {llm.name})")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_column("target", justify="right")
    table.add_row("median latency per question", f"{m['median_latency_s']:.1f} s", "<= 10 s")
    table.add_row("LLM calls per question", f"{m['llm_calls_per_question']:.2f}", "<= 2.5")
    table.add_row("query ratio", f"{100 * m['query_ratio']:.2f} %", "<= 3 %")
    table.add_row("median harness overhead", f"{m['median_harness_s']:.3f} s", "")
    table.add_row("EM (raw answer)", f"{m['EM']:.1f}", "")
    table.add_row("EM-R (raw answer)", f"{m['EM_R']:.1f}", "")
    table.add_row("EM (short answer)", f"{m['EM_short']:.1f}", "")
    table.add_row("EM-R (short answer)", f"{m['EM_R_short']:.1f}", "")
    table.add_row("errors", str(m["errors"]), "0")
    Console().print(table)


if __name__ == "__main__":
    main()
