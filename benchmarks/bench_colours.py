"""Colour naming against what people say: ScanQA's colour questions, before and after colour correction.

    python benchmarks/bench_colours.py [--data DIR] [--json]

Questions of ``scanqa/scanqa_val_dev.json`` that ask "what colo(u)r" and whose ``object_ids`` all exist
in ``scannet/objects_gt.json`` (ScanQA's ids are ScanNet's ground-truth ids), and whose reference
answers name at least one colour. For each colour-correction method of
:class:`synergai.scene.attributes.CorrectionMethod`, the objects file is loaded with that correction and
a question *agrees* when the most common colour name among its objects (the first named on a tie) is
compatible with a colour of any reference answer (:func:`synergai.eval.words.colors_compatible`:
same colour family or listed neighbours). "objects" scores every referenced object on its own. "answer"
is stricter: the basic colour term a short answer says of that name
(:func:`synergai.scene.vocabulary.basic_color`) is one of the references' colours exactly; "family" is
the same with the name's family instead ("gray" for "dark gray", what short answers said before).
The two halves (scenes in even / odd position of the file) show whether a method's gain holds on
scenes it was not chosen on. "gt~pred" is how steady a method's estimate is across perception: the
median relative difference of the exposure gain (green channel) estimated from a scene's ground-truth
objects and from its 3D-VisTA predictions (``objects_pred_3dvista.json``), the robot's perception.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from synergai.eval.words import colors_compatible, colour_words
from synergai.scene.attributes import DEFAULT_CORRECTION, ColorCorrection, CorrectionMethod
from synergai.scene.builders.objects_json import ObjectsFile, load_objects_file
from synergai.scene.vocabulary import basic_color, color_family

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
_COLOUR_QUESTION = re.compile(r"\bwhat colou?rs?\b", re.IGNORECASE)


def colour_questions(questions: list[dict], objects: ObjectsFile) -> list[dict]:
    """The colour questions whose objects all exist and whose answers name a colour."""
    out = []
    for q in questions:
        if not _COLOUR_QUESTION.search(q["question"]) or q["scene_id"] not in objects:
            continue
        ids = {o.id for o in objects.objects(q["scene_id"])}
        refs = [c for a in q["answers"] for c in colour_words(a)]
        if q["object_ids"] and all(str(i) in ids for i in q["object_ids"]) and refs:
            out.append(q | {"reference_colours": refs})
    return out


def agreement(questions: list[dict], objects: ObjectsFile, scene_half: dict[str, int]) -> dict:
    """Agreement of one loaded objects file with the reference colours (overall, per object, halves)."""
    agree = per_object = n_objects = answer = family = 0
    halves = [[0, 0], [0, 0]]
    for q in questions:
        by_id = {o.id: o for o in objects.objects(q["scene_id"])}
        names = [by_id[str(i)].attributes[0] for i in q["object_ids"] if by_id[str(i)].attributes]
        refs = q["reference_colours"]
        top = Counter(names).most_common(1)[0][0] if names else ""
        ok = bool(names) and any(colors_compatible(top, r) for r in refs)
        agree += ok
        answer += bool(names) and basic_color(top) in refs
        family += bool(names) and color_family(top) in refs
        per_object += sum(any(colors_compatible(n, r) for r in refs) for n in names)
        n_objects += len(q["object_ids"])
        half = halves[scene_half[q["scene_id"]]]
        half[0] += 1
        half[1] += ok
    n = len(questions)
    return {
        "n": n,
        "agreement": agree / n if n else 0.0,
        "object_agreement": per_object / n_objects if n_objects else 0.0,
        "answer": answer / n if n else 0.0,
        "family": family / n if n else 0.0,
        "even_scenes": halves[0][1] / halves[0][0] if halves[0][0] else 0.0,
        "odd_scenes": halves[1][1] / halves[1][0] if halves[1][0] else 0.0,
    }


def gain_spread(gt: ObjectsFile, pred: ObjectsFile, method: CorrectionMethod) -> float:
    """Median relative difference of the green gain estimated from ground truth and from predictions."""
    diffs = []
    for sid in gt.scene_ids:
        if sid not in pred:
            continue
        a, b = (
            ColorCorrection.estimate(f.objects(sid), method).gains[1]
            for f in (gt, pred)
        )
        diffs.append(abs(a - b) / a)
    return statistics.median(diffs) if diffs else 0.0


def run(data: Path) -> dict:
    """Agreement per correction method, with the default method and timing."""
    t0 = time.perf_counter()
    questions = json.loads((data / "scanqa" / "scanqa_val_dev.json").read_text(encoding="utf-8"))
    path = data / "scannet" / "objects_gt.json"
    files = {m: load_objects_file(path, colour_correction=m) for m in CorrectionMethod}
    selected = colour_questions(questions, files[CorrectionMethod.NONE])
    scene_half = {s: k % 2 for k, s in enumerate(files[CorrectionMethod.NONE].scene_ids)}
    pred = load_objects_file(
        data / "scannet" / "objects_pred_3dvista.json", colour_correction=CorrectionMethod.NONE
    )
    methods = {
        m.value: agreement(selected, f, scene_half)
        | {"gain_spread": gain_spread(files[CorrectionMethod.NONE], pred, m)}
        for m, f in files.items()
    }
    return {"methods": methods, "default": DEFAULT_CORRECTION.value, "seconds": time.perf_counter() - t0}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DATA, help="shared data directory (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print one line of JSON instead of the table")
    args = p.parse_args()
    report = run(args.data)
    if args.json:
        print(json.dumps(report))
        return
    table = Table(title="Colour naming vs ScanQA reference answers (dev split, ground-truth objects)")
    columns = ("correction", "questions", "agreement", "objects", "answer", "family", "even scenes",
               "odd scenes", "gt~pred")
    for col in columns:
        table.add_column(col, justify="left" if col == "correction" else "right")
    for name, m in report["methods"].items():
        label = f"{name} *" if name == report["default"] else name
        table.add_row(
            label,
            str(m["n"]),
            *(
                f"{100 * m[k]:.1f} %"
                for k in ("agreement", "object_agreement", "answer", "family", "even_scenes", "odd_scenes",
                          "gain_spread")
            ),
        )
    console = Console(width=110)
    console.print(table)
    console.print(f"* default correction; {report['seconds']:.1f} s")


if __name__ == "__main__":
    main()
