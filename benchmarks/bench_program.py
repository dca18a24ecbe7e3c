"""Program mode on SQA3D under different settings, on the same questions:
``python benchmarks/bench_program.py --limit 200 [--variants ordered,strict,nocheck]``.

Variants: ``ordered`` (the default: object sets nearest-first and indexable, static check on), ``strict``
(LLM-TPC's set contract: sets cannot be indexed), ``nocheck`` (ordered sets, every program goes straight
to the sandbox), ``longbudget``
(the budget before issue 15: 6 rounds, 400 tokens a reply, more programs may follow an output). Each
variant resumes in its own directory under ``--out``; the run settings record every limit, so a directory
made under other limits is refused. The table gives pass rate, soft / strict match, LLM calls, median
latency, new prompt tokens and generated tokens per question, then soft match and pass rate per SQA3D
question type and the commonest error classes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from synergai.agent.program.loop import ProgramLimits
from synergai.eval.sqa3d import check_questions, run_sqa3d, sqa3d_metrics
from synergai.llm import make_model

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
VARIANTS = {
    "ordered": ProgramLimits(),
    "strict": ProgramLimits(ordered_sets=False),
    "nocheck": ProgramLimits(static_check=False),
    "longbudget": ProgramLimits(max_rounds=6, max_tokens=400, answer_tokens=400, answer_after_output=False),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--variants", default="ordered,strict", help=f"comma-separated, of {list(VARIANTS)}")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/program"))
    parser.add_argument("--llm", default="embedded")
    args = parser.parse_args()
    names = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in names if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; choose from {list(VARIANTS)}")
    questions = check_questions(json.loads((DATA / "sqa3d" / "sqa3d_test_dev.json").read_text()), "SQA3D dev")
    alignments = json.loads((DATA / "scannet" / "axis_alignment_matrices.json").read_text())
    llm = make_model(args.llm)
    rows = {}
    for name in names:
        results = run_sqa3d(questions, DATA / "scannet" / "objects_gt.json", alignments, llm, args.out / name,
                            limit=args.limit, program_limits=VARIANTS[name])
        rows[name] = sqa3d_metrics(results)
    print(f"{'variant':11s} {'n':>4s} {'pass %':>7s} {'soft':>6s} {'strict':>6s} {'calls':>6s} "
          f"{'median s':>9s} {'new tok':>8s} {'gen tok':>8s}")
    for name, m in rows.items():
        print(f"{name:11s} {m['n']:4d} {m['program']['pass_rate']:7.1f} {m['soft_match']:6.1f} "
              f"{m['strict_match']:6.1f} {m['llm_calls_per_question']:6.2f} {m['median_latency_s']:9.1f} "
              f"{m['mean_new_prompt_tokens']:8.0f} {m['mean_completion_tokens']:8.0f}")
    for name, m in rows.items():
        by_type = m["program_by_question_type"]
        types = ", ".join(f"{k} {v['soft_match']:.1f} / {by_type[k]['pass_rate']:.0f} % (n={v['n']})"
                          for k, v in m["by_question_type"].items())
        errors = ", ".join(f"{k} {v}" for k, v in list(m["program_errors"].items())[:8])
        print(f"{name}: soft / pass by question type: {types}\n{name}: errors: {errors}")


if __name__ == "__main__":
    main()
