"""Sr3D relation resolution: how often our relations single out the referred object.

    python benchmarks/bench_relations.py [--data DIR] [--json]

Builds every scene of ``scannet/objects_gt.json`` (Sr3D's object ids are ScanNet's ground-truth
ids) with ``build_graph`` and resolves the Sr3D test relations in ``sr3d/sr3d_test_relations_dev.json``;
prints accuracy per relation, per Sr3D family and overall, and the thresholds used.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from synergai.eval.sr3d import evaluate_sr3d, load_sr3d_records
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.relations.thresholds import RelationThresholds

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
FAMILIES = {
    "horizontal": ("closest", "farthest"),
    "between": ("between",),
    "allocentric": ("left", "right", "front", "back"),
    "vertical": ("above", "below"),
    "support": ("supported-by", "supporting"),
}


def run(data: Path) -> dict:
    """The report as a dict: overall, per relation, per family, thresholds and timing."""
    name = "objects_gt.json"
    t0 = time.perf_counter()
    objs = load_objects_file(data / "scannet" / name)
    records = load_sr3d_records(data / "sr3d" / "sr3d_test_relations_dev.json")
    th = RelationThresholds()
    report = evaluate_sr3d(records, objs, th).to_dict()
    by_rel = report["by_relation"]
    families = {}
    for fam, rels in FAMILIES.items():
        n = sum(by_rel[r]["n"] for r in rels if r in by_rel)
        ok = sum(by_rel[r]["n"] * by_rel[r]["accuracy"] for r in rels if r in by_rel)
        families[fam] = {"n": n, "accuracy": ok / n if n else 0.0}
    report.update(objects=name, by_family=families, thresholds=th.as_dict(), seconds=time.perf_counter() - t0)
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="shared data directory (default: %(default)s)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()
    rep = run(args.data)
    if args.json:
        print(json.dumps(rep, indent=2))
        return
    print(f"Sr3D relations on {rep['objects']} ({rep['seconds']:.1f} s)")
    print(f"{'relation':<14}{'n':>6}{'accuracy':>10}")
    for rel, v in rep["by_relation"].items():
        print(f"{rel:<14}{v['n']:>6}{100 * v['accuracy']:>9.1f}%")
    print("-" * 30)
    for fam, v in rep["by_family"].items():
        print(f"{'[' + fam + ']':<14}{v['n']:>6}{100 * v['accuracy']:>9.1f}%")
    print(f"{'overall':<14}{rep['n']:>6}{100 * rep['accuracy']:>9.1f}%")
    print("thresholds: " + ", ".join(f"{k}={v}" for k, v in rep["thresholds"].items()))


if __name__ == "__main__":
    main()
