"""`synergai eval alignment`: the automatic perception-alignment benchmark (SynergAI Tables III, IV, A.2)."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from synergai.cli.common import add_llm_options, concurrency, open_llm, print_json
from synergai.cli.progress import shows_bar
from synergai.scene.model import SceneError
from synergai.scene.serialization import parse_json

#: What `--json` leaves out (the plot groups; everything is in metrics.json).
JSON_SKIP = ("by_difficulty", "by_category", "by_transfer")


def register(esub: argparse._SubParsersAction) -> None:
    """Add `alignment` to the `eval` sub-commands."""
    p = esub.add_parser(
        "alignment", help="perception alignment with a simulated user (SynergAI Tables III/IV)"
    )
    p.add_argument(
        "--questions",
        type=Path,
        required=True,
        help="ScanQA questions file: its scenes found in both objects files are the dev scenes",
    )
    p.add_argument(
        "--objects", type=Path, required=True, help="ground truth (objects_gt.json): what the user sees"
    )
    p.add_argument(
        "--pred-objects",
        type=Path,
        required=True,
        help="predicted instances (objects_pred_3dvista.json): the robot's perception",
    )
    p.add_argument(
        "--labels", type=Path, default=None, help="scannetv2-labels.combined.tsv (default: beside --objects)"
    )
    p.add_argument("--scenes", nargs="+", default=None, metavar="ID", help="only these dev scenes")
    p.add_argument("--limit", type=int, default=None, help="a fixed spread-out subset of N alignment tasks")
    p.add_argument("--per-scene", type=int, default=4, help="most tasks generated per scene (default 4)")
    p.add_argument("--seed", type=int, default=0, help="task selection and user wording seed")
    p.add_argument("--max-turns", type=int, default=4, help="most correction turns per task (default 4)")
    p.add_argument("--no-table-a2", action="store_true", help="skip SynergAI's Table A.2 tasks")
    p.add_argument(
        "--out",
        type=Path,
        default=Path("benchmarks/results/alignment"),
        help="results.jsonl (resumable), metrics.json, report.md, plots, the two scene stores",
    )
    p.add_argument("--concurrency", type=concurrency, default=1,
                   help="parallel tasks (remote endpoints), 1..256")
    add_llm_options(p)
    p.add_argument("--json", action="store_true", help="print the metrics as JSON")
    p.set_defaults(func=cmd_alignment)


def _questions(path: Path) -> list[dict[str, Any]]:
    try:
        data = parse_json(path.read_bytes(), str(path))
    except OSError as exc:
        raise SceneError(f"cannot read {path}: {exc.strerror}") from None
    if not isinstance(data, list) or not all(isinstance(q, dict) and "scene_id" in q for q in data):
        raise SceneError(f"{path}: expected a JSON list of questions with scene_id")
    return data


def cmd_alignment(args: argparse.Namespace) -> int:
    from synergai.eval.alignment.report import alignment_metrics, write_alignment_report
    from synergai.eval.alignment.run import prepare, run_alignment

    for name in ("limit", "per_scene", "max_turns", "concurrency"):
        value = getattr(args, name)
        if value is not None and value < (0 if name == "limit" else 1):
            raise SceneError(
                f"--{name.replace('_', '-')} must be {'>= 0' if name == 'limit' else '>= 1'}, got {value}"
            )
    setup = prepare(
        _questions(args.questions),
        args.objects,
        args.pred_objects,
        labels_path=args.labels,
        scenes=args.scenes,
        per_scene=args.per_scene,
        seed=args.seed,
        limit=args.limit,
        table_a2=not args.no_table_a2,
    )
    results = run_alignment(
        setup,
        open_llm(args),
        args.out,
        max_turns=args.max_turns,
        seed=args.seed,
        concurrency=args.concurrency,
        progress=shows_bar(args),
    )
    metrics = alignment_metrics(results, setup.matching())
    write_alignment_report(args.out, metrics, "synergai " + " ".join(shlex.quote(a) for a in sys.argv[1:]))
    if args.json:
        print_json({k: v for k, v in metrics.items() if k not in JSON_SKIP}, one_line=True)
    else:
        print_tables(metrics, Console(), str(args.out / "report.md"))
    return 0


def _cell(d: Mapping[str, Any], key: str) -> str:
    v, ci = d.get(key), d.get(f"{key}_ci95")
    if v is None:
        return "–"
    return f"{v:.2f}" + (f" ± {ci:.2f}" if ci is not None else "")


def print_tables(metrics: Mapping[str, Any], console: Console, where: str = "") -> None:
    """Table III, Table IV and the Table A.2 summary, for people."""
    t3 = Table(
        "",
        "tasks",
        "SR_init %",
        "SR %",
        "#Inter./Task",
        "#Action/Inter.",
        "QR %",
        title=f"Alignment tasks (Table III){' - ' + where if where else ''}",
    )
    for name, d in (("EASY", metrics["easy"]), ("HARD", metrics["hard"]), ("OVERALL", metrics)):
        t3.add_row(
            name,
            str(d["tasks"]),
            *(
                _cell(d, k)
                for k in ("SR_init", "SR", "interactions_per_task", "actions_per_interaction", "query_ratio")
            ),
        )
    console.print(t3)
    t4 = Table("", "tasks", "Init. %", "In-context %", "Ours %", title="Knowledge transfer (Table IV)")
    tr = metrics["transfer"]
    for name, d in (("EASY", tr["easy"]), ("HARD", tr["hard"]), ("OVERALL", tr)):
        t4.add_row(name, str(d["tasks"]), *(_cell(d, k) for k in ("init", "in_context", "ours")))
    console.print(t4)
    sr = metrics.get("table_a2_SR_init")
    console.print(
        f"Table A.2: {metrics.get('table_a2_judged', 0)} judged tasks, SR_init "
        f"{'–' if sr is None else f'{sr:.1f} %'}; {len(metrics.get('table_a2', []))} listed; "
        f"errors: {metrics.get('errors', 0)}"
    )
