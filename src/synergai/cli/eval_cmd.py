"""`synergai eval ...`: benchmark runners."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from types import MappingProxyType

from rich.console import Console
from rich.table import Table

from synergai.cli import alignment_cmd
from synergai.cli.common import (
    OBJECTS_HELP,
    add_llm_options,
    concurrency,
    open_llm,
    print_json,
    require_extra,
    require_java,
)
from synergai.cli.progress import shows_bar
from synergai.eval.report import format_figure, write_report
from synergai.eval.split import HALVES
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.model import SceneError
from synergai.scene.serialization import parse_json

#: What --questions takes, per benchmark.
QUESTIONS_HELP = MappingProxyType({
    "scanqa": "ScanQA questions JSON: [{question_id, scene_id, question, answers, object_ids, ...}] "
              "(scanqa_val_dev.json)",
    "sqa3d": "SQA3D questions JSON: [{scene_id, situation, question, answers, position, rotation, ...}] "
             "(sqa3d_test_dev.json)",
})


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `eval` command group."""
    ev = sub.add_parser("eval", help="run benchmarks")
    esub = ev.add_subparsers(dest="eval_cmd", required=True)
    p = esub.add_parser("relations", help="Sr3D check: does the graph single out each target?")
    p.add_argument("--relations", type=Path, required=True,
                   help="Sr3D records JSON: [{scene_id, target_id, relation, anchor_ids, utterance, ...}] "
                        "(sr3d_test_relations_dev.json)")
    p.add_argument("--objects", type=Path, required=True, help=OBJECTS_HELP)
    p.add_argument("--json", action="store_true")
    p.add_argument("--out", type=Path, default=None, help="also write metrics.json / report.md / plots here")
    p.set_defaults(func=cmd_relations)
    for name, help_ in [("scanqa", "ScanQA with the SynergAI agent"), ("sqa3d", "SQA3D situated questions")]:
        p = esub.add_parser(name, help=help_)
        p.add_argument("--questions", type=Path, required=True, help=QUESTIONS_HELP[name])
        p.add_argument("--objects", type=Path, required=True, help=OBJECTS_HELP)
        if name == "scanqa":
            p.add_argument("--pred-objects", type=Path, default=None,
                           help="answer on predicted instances (e.g. objects_pred_3dvista.json) instead")
        else:
            p.add_argument("--alignments", type=Path, default=None,
                           help="axis_alignment_matrices.json (default: beside the objects file)")
            p.add_argument("--mode", choices=("program", "react"), default="program")
        p.add_argument("--limit", type=int, default=None, help="a fixed spread-out subset of N questions")
        _add_half(p)
        default = Path("benchmarks/results/scanqa") if name == "scanqa" else None  # sqa3d: sqa3d_MODE
        p.add_argument("--out", type=Path, default=default,
                       help="results.jsonl (resumable), metrics.json, report.md, plots "
                            f"(default: {default or 'benchmarks/results/sqa3d_MODE'})")
        p.add_argument("--concurrency", type=concurrency, default=1,
                       help="parallel questions (remote endpoints), 1..256")
        if name == "scanqa":
            p.add_argument("--no-meteor", action="store_true",
                           help="skip METEOR and use the pure-Python tokenizer (no Java needed)")
        add_llm_options(p)
        p.add_argument("--json", action="store_true")
        p.set_defaults(func=cmd_scanqa if name == "scanqa" else cmd_sqa3d)
    p = esub.add_parser("grounding", help="Sr3D / Nr3D utterances: is the grounded expression's top "
                                          "candidate the target, among all objects of the scene?")
    p.add_argument("--utterances", type=Path, required=True,
                   help="Sr3D or Nr3D records JSON: [{scene_id, target_id, utterance, relation, ...}] "
                        "(sr3d_test_relations_dev.json, nr3d_test_dev.json)")
    p.add_argument("--objects", type=Path, required=True, help=OBJECTS_HELP)
    p.add_argument("--limit", type=int, default=None, help="a fixed spread-out subset of N utterances")
    p.add_argument("--sample", type=int, default=None,
                   help="a seeded random draw of N utterances instead (see --seed; not with --limit)")
    p.add_argument("--seed", type=int, default=0, help="the random draw's seed (default 0)")
    _add_half(p)
    p.add_argument("--out", type=Path, default=None,
                   help="results.jsonl (resumable), metrics.json, report.md, plots "
                        "(default: benchmarks/results/grounding, or grounding_oracle with --oracle)")
    p.add_argument("--oracle", action="store_true",
                   help="expressions from the records' structured fields, not the model (the engine alone)")
    add_llm_options(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_grounding)
    alignment_cmd.register(esub)


def _add_half(p: argparse.ArgumentParser) -> None:
    p.add_argument("--half", choices=HALVES, default=None,
                   help="only the scenes of one half of the dev split: read (look at failures, choose "
                        "mechanisms) or check (only measured); composes with --limit")


def read_json(path: Path) -> object:
    """Parse a JSON file, with a one-line error naming it."""
    try:
        return parse_json(path.read_bytes(), str(path))
    except OSError as exc:
        raise SceneError(f"cannot read {path}: {exc.strerror}") from None


def cmd_relations(args: argparse.Namespace) -> int:
    if args.out is not None:
        require_extra("eval", "matplotlib")  # the report's plots
    from synergai.eval.sr3d import evaluate_sr3d

    records = read_json(args.relations)
    if not isinstance(records, list):
        raise SceneError(f"{args.relations}: expected a JSON list of Sr3D records")
    report = evaluate_sr3d(records, load_objects_file(args.objects))
    data = report.to_dict()
    if args.out is not None:
        write_report(args.out, "Sr3D relation resolution", data, _command())
    if args.json:
        print_json(data, one_line=True)
        return 0
    table = Table("relation", "n", "accuracy", title="Sr3D relation resolution")
    for rel, row in sorted(data["by_relation"].items()):
        table.add_row(rel, str(row["n"]), f"{100 * row['accuracy']:.1f} %")
    table.add_row("[bold]all[/bold]", str(data["n"]), f"{100 * data['accuracy']:.1f} %")
    Console().print(table)
    return 0


def _command() -> str:
    return "synergai " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def _print_table(title: str, metrics: dict) -> None:
    table = Table("figure", "value", title=title)
    for k, v in metrics.items():
        if not isinstance(v, dict):
            table.add_row(k, format_figure(k, v))
    Console().print(table)


def cmd_scanqa(args: argparse.Namespace) -> int:
    require_extra("eval", "pycocoevalcap", "matplotlib")
    if not args.no_meteor:
        require_java("ScanQA's METEOR (and its PTB tokenizer)")  # before any question is answered
    from synergai.eval.metrics import CaptionScorer
    from synergai.eval.scanqa import check_questions, run_scanqa, scanqa_metrics

    questions = check_questions(read_json(args.questions), str(args.questions))
    objects = args.pred_objects or args.objects
    results = run_scanqa(questions, objects, open_llm(args), args.out, limit=args.limit, half=args.half,
                         concurrency=args.concurrency, progress=shows_bar(args))
    with CaptionScorer(meteor=False, tokenizer="simple") if args.no_meteor else CaptionScorer() as scorer:
        metrics = scanqa_metrics(results, scorer)
    write_report(args.out, "ScanQA (SynergAI agent)", metrics, _command())
    if args.json:
        keys = ("n", "EM", "EM_R", "BLEU-1", "BLEU-4", "METEOR", "ROUGE-L", "CIDEr", "llm_calls_per_question",
                "query_ratio", "median_latency_s", "mean_new_prompt_tokens", "mean_completion_tokens")
        short = {k.replace("_short", ""): v for k, v in metrics.items() if "_short" in k}
        print_json({k: metrics.get(k) for k in keys} | {"short": short}, one_line=True)
    else:
        _print_table(f"ScanQA, n={metrics['n']} ({args.out / 'report.md'})", metrics)
    return 0


def cmd_grounding(args: argparse.Namespace) -> int:
    from synergai.eval.grounding import check_records, grounding_metrics, run_grounding

    records = check_records(read_json(args.utterances), str(args.utterances))
    if args.limit is not None and args.limit < 1:
        raise SceneError(f"--limit must be at least 1, got {args.limit}")
    if args.sample is not None and (args.sample < 1 or args.limit is not None):
        raise SceneError("--sample must be at least 1 and cannot be combined with --limit")
    out = args.out or Path("benchmarks/results") / ("grounding_oracle" if args.oracle else "grounding")
    model = None if args.oracle else open_llm(args)
    results = run_grounding(records, args.objects, model, out, limit=args.limit, half=args.half,
                            sample=args.sample, seed=args.seed, progress=shows_bar(args))
    metrics = grounding_metrics(results)
    source = "scripted oracle" if model is None else f"model {model.name}"
    title = f"utterance grounding ({source})"
    write_report(out, title, metrics, _command())
    if args.json:
        print_json(metrics, one_line=True)
        return 0
    table = Table("relation", "n", "accuracy", title=f"{title}, {out / 'report.md'}")
    for rel, row in metrics["by_relation"].items():
        table.add_row(rel, str(row["n"]), f"{100 * row['accuracy']:.1f} %")
    for bucket, row in metrics["by_bucket"].items():
        table.add_row(f"[italic]{bucket}[/italic]", str(row["n"]), f"{100 * row['accuracy']:.1f} %")
    table.add_row("[bold]all[/bold]", str(metrics["n"]), f"{100 * metrics['accuracy']:.1f} %")
    Console().print(table)
    _print_table("costs", {k: v for k, v in metrics.items() if k not in ("n", "accuracy", "by_bucket")})
    return 0


def cmd_sqa3d(args: argparse.Namespace) -> int:
    require_extra("eval", "matplotlib")
    from synergai.eval.sqa3d import check_questions, run_sqa3d, sqa3d_metrics

    questions = check_questions(read_json(args.questions), str(args.questions))
    out = args.out or Path(f"benchmarks/results/sqa3d_{args.mode}")
    alignments = read_json(args.alignments or args.objects.parent / "axis_alignment_matrices.json")
    if not isinstance(alignments, dict):
        raise SceneError("axis alignments must be a JSON object {scene_id: [16 numbers]}")
    results = run_sqa3d(questions, args.objects, alignments, open_llm(args), out, mode=args.mode,
                        limit=args.limit, half=args.half, concurrency=args.concurrency,
                        progress=shows_bar(args))
    metrics = sqa3d_metrics(results)
    write_report(out, f"SQA3D ({args.mode} mode)", metrics, _command())
    if args.json:
        print_json(metrics, one_line=True)
    else:
        _print_table(f"SQA3D ({args.mode}), n={metrics['n']} ({out / 'report.md'})", metrics)
    return 0
