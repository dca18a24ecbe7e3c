"""Re-resolve the model's expressions of a `synergai eval grounding` results file with the current engine.

The model's parse is the slow part of the grounding benchmark; this separates it from the engine: each
recorded expression is grounded again, and the table shows accuracy by relation (correct = the top
candidate is the target and nothing ties with it, as in the benchmark).

    python benchmarks/regrade_grounding.py benchmarks/results/grounding/results.jsonl \
        --objects ../shared/data/scannet/objects_gt.json
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from synergai.eval.grounding import breakdown
from synergai.scene.build import build_graph
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.grounding import ObjectRef, ground
from synergai.scene.model import SceneGraph


def main() -> None:
    """Print accuracy by relation, as recorded and as re-resolved."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path)
    ap.add_argument("--objects", type=Path, default=Path("../shared/data/scannet/objects_gt.json"))
    args = ap.parse_args()
    objects = load_objects_file(args.objects)
    graphs: dict[str, SceneGraph] = {}
    rows: dict[str, list[tuple[bool, bool]]] = collections.defaultdict(list)
    for line in args.results.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        sid = r["scene_id"]
        if sid not in graphs:
            graphs[sid] = build_graph(sid, objects.objects(sid), scene_type=objects.scene_type(sid))
        now = False
        if r.get("expression") is not None:
            g = ground(graphs[sid], ObjectRef.model_validate(r["expression"]))
            now = g.top is not None and g.top.id == str(r["target_id"]) and g.tied == 1
        rows[r["relation"]].append((bool(r["correct"]), now))
    table = Table("relation", "n", "recorded", "re-resolved", title=f"grounding, {args.results}")
    every = [x for v in rows.values() for x in v]
    buckets: dict[str, list[tuple[bool, bool]]] = collections.defaultdict(list)
    for name, v in rows.items():
        for b in breakdown(name):  # Nr3D: easy / hard, view-dependent / view-independent
            buckets[b] += v
    for name, v in [*sorted(rows.items()), *sorted(buckets.items()), ("all", every)]:
        table.add_row(name, str(len(v)), f"{100 * sum(a for a, _ in v) / len(v):.1f} %",
                      f"{100 * sum(b for _, b in v) / len(v):.1f} %")
    Console().print(table)


if __name__ == "__main__":
    main()
