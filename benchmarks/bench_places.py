"""Places against what people say: ScanQA's "where" questions, the graph's place of the asked object.

    python benchmarks/bench_places.py [--data DIR] [--json]

Questions of ``scanqa/scanqa_val_dev.json`` whose form is a place (:class:`synergai.agent.question.Question`)
and whose subject (:func:`synergai.agent.answer_check.question_subject`, on the ground-truth graph of
``scannet/objects_gt.json``) holds one of ScanQA's annotated objects. The first place the graph gives that
object (:func:`synergai.scene.grounding.place.places`, what the agent answers "where" with, no model) is
scored against the reference answers: EM and EM-R (:mod:`synergai.eval.metrics`) and CIDEr over these
questions only (its IDF is theirs, so it is not comparable with a whole benchmark's CIDEr). "any" counts
questions one of the first four places matches exactly. The read and check halves are
:func:`synergai.eval.split.scene_half`'s: places are chosen on the read half, kept when the check half gains.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from synergai.agent.answer_check import question_subject
from synergai.agent.answer_forms import AnswerForm
from synergai.agent.question import Question
from synergai.eval.metrics import caption_scores, exact_match, refined_exact_match
from synergai.eval.split import scene_half
from synergai.scene.build import build_graph
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.grounding.place import places
from synergai.scene.model import SceneGraph

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
HALVES = ("read", "check")


def score(data: Path) -> dict:
    """Per half: place questions, those scored, EM / EM-R / any counts and the subset's CIDEr."""
    t0 = time.perf_counter()
    questions = json.loads((data / "scanqa" / "scanqa_val_dev.json").read_text(encoding="utf-8"))
    objects = load_objects_file(data / "scannet" / "objects_gt.json")
    graphs: dict[str, SceneGraph] = {}
    halves = {h: {"questions": 0, "scored": 0, "em": 0, "em_r": 0, "any": 0, "preds": {}, "refs": {}}
              for h in HALVES}
    for q in questions:
        sid = q["scene_id"]
        if sid not in graphs:
            graphs[sid] = build_graph(sid, objects.objects(sid), scene_type=objects.scene_type(sid))
        graph = graphs[sid]
        asked = Question.parse(q["question"], sorted(graph.categories()))
        if asked.reply_form is not AnswerForm.PLACE:
            continue
        half = halves[str(scene_half(sid))]
        half["questions"] += 1
        subject = question_subject(asked, graph).ids
        said = next(([p.words(graph) for p in places(graph, str(i))] for i in q["object_ids"]
                     if str(i) in subject), [])
        if not said:
            continue
        half["scored"] += 1
        half["em"] += exact_match(said[0], q["answers"])
        half["em_r"] += refined_exact_match(said[0], q["answers"])
        half["any"] += any(exact_match(s, q["answers"]) for s in said)
        half["preds"][q["question_id"]], half["refs"][q["question_id"]] = said[0], q["answers"]
    for half in halves.values():
        preds, refs = half.pop("preds"), half.pop("refs")
        half["cider"] = caption_scores(preds, refs)["CIDEr"] if preds else 0.0
    return {"halves": halves, "seconds": time.perf_counter() - t0}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DATA, help="shared data directory (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print one line of JSON instead of the table")
    args = p.parse_args()
    report = score(args.data)
    if args.json:
        print(json.dumps(report))
        return
    table = Table(title="The graph's place vs ScanQA's 'where' answers (dev, ground-truth objects)")
    for col in ("half", "questions", "scored", "EM", "EM-R", "any of 4", "CIDEr (subset)"):
        table.add_column(col, justify="left" if col == "half" else "right")
    for name, h in report["halves"].items():
        n = h["scored"] or 1
        shares = (f"{h[k]} ({100 * h[k] / n:.1f} %)" for k in ("em", "em_r", "any"))
        table.add_row(name, str(h["questions"]), str(h["scored"]), *shares, f"{h['cider']:.1f}")
    console = Console(width=110)
    console.print(table)
    console.print(f"{report['seconds']:.1f} s")


if __name__ == "__main__":
    main()
