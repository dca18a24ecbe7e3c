"""Directions against what people say: SQA3D's direction and "where" questions answered from the graph.

    python benchmarks/bench_directions.py [--data DIR] [--json]

Questions of ``sqa3d/sqa3d_test_dev.json`` whose form is a direction ("which direction should I go to
open the window?", "is the door on my left or right?") or a place ("where is the table?": the agent stands
somewhere, so a direction from it). Program mode answers those that name an object of the room from the
graph, with no model call (:class:`synergai.agent.program.loop.ProgramLoop`: the
side of the nearest such object's clock hour as seen from the agent's pose); the others go to the model,
so here they are counted, not scored. "right" is LLM-TPC's soft match (:mod:`synergai.eval.metrics`)
against the references. The read and check halves are :func:`synergai.eval.split.scene_half`'s: the
reading was chosen on the read half.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from synergai.agent.answer_forms import AnswerForm, answer_form
from synergai.agent.program.loop import ProgramLoop
from synergai.eval.metrics import soft_match
from synergai.eval.split import HALVES, scene_half
from synergai.eval.sqa3d import situated_viewpoint
from synergai.llm import ScriptedModel
from synergai.llm.base import ScriptExhausted
from synergai.scene.build import build_graph
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.model import SceneGraph

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def score(data: Path) -> dict:
    """Per half and form: questions, those the graph answers, and how many of those are right."""
    t0 = time.perf_counter()
    questions = json.loads((data / "sqa3d" / "sqa3d_test_dev.json").read_text(encoding="utf-8"))
    objects = load_objects_file(data / "scannet" / "objects_gt.json")
    alignments = json.loads((data / "scannet" / "axis_alignment_matrices.json").read_text(encoding="utf-8"))
    graphs: dict[str, SceneGraph] = {}
    forms = (AnswerForm.DIRECTION, AnswerForm.PLACE)
    halves = {f"{h} {f.value}": {"questions": 0, "from_graph": 0, "right": 0} for h in HALVES for f in forms}
    loop = ProgramLoop(ScriptedModel([]))  # any question the graph does not answer stops at its first call
    for q in questions:
        sid = q["scene_id"]
        form = answer_form(q["question"])
        if form not in forms or sid not in objects or sid not in alignments:
            continue
        if sid not in graphs:
            graphs[sid] = build_graph(sid, objects.objects(sid), scene_type=objects.scene_type(sid))
        half = halves[f"{scene_half(sid)} {form.value}"]
        half["questions"] += 1
        viewpoint = situated_viewpoint(q, graphs[sid], np.asarray(alignments[sid]))
        try:
            result = loop.run(graphs[sid], q["question"], q["situation"], viewpoint)
        except ScriptExhausted:  # the model's question
            continue
        half["from_graph"] += 1
        half["right"] += soft_match(result.short_answer, q["answers"])
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
    table = Table(title="SQA3D directions and 'where' from the graph (ground-truth objects, no model)")
    for col in ("half, form", "questions", "from the graph", "right", "right %"):
        table.add_column(col, justify="left" if col == "half, form" else "right")
    for name, h in report["halves"].items():
        share = f"{100 * h['right'] / h['from_graph']:.1f} %" if h["from_graph"] else "-"
        table.add_row(name, str(h["questions"]), str(h["from_graph"]), str(h["right"]), share)
    console = Console(width=110)
    console.print(table)
    console.print(f"{report['seconds']:.1f} s")


if __name__ == "__main__":
    main()
