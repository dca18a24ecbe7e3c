"""Replay ScanQA or SQA3D results through the answer check, with no model: what the check's fallback
alone (no send-back) would change (one command, prints a table).

    python benchmarks/replay_answer_check.py RUN_DIR --objects ../shared/data/scannet/objects_gt.json

For each answered question of ``RUN_DIR/results.jsonl`` the recorded short answer is checked
(:func:`synergai.agent.answer_check.check_answer`) against the question and its scene's graph; a failed
check with a fallback replaces it. Prints how many answers failed (by reason kind), how many were
replaced, and exact match before and after. ``--show`` lists the changes: use it on read-half runs only
(the check half is measured, not read).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from synergai.agent.answer_check import check_answer
from synergai.agent.question import Question
from synergai.eval.metrics import exact_match
from synergai.scene.build import build_graph
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.model import SceneGraph


def _kind(reason: str) -> str:
    for key, kind in (("tools' own text", "tool text"), ("has no", "absent object"), ("asks for", "form"),
                      ("empty", "empty")):
        if key in reason:
            return kind
    return "subject"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--objects", type=Path, required=True)
    parser.add_argument("--show", action="store_true", help="list every change (read-half runs only)")
    args = parser.parse_args(argv)
    objects = load_objects_file(args.objects)
    graphs: dict[str, SceneGraph] = {}
    latest = {}
    for line in (args.run / "results.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            latest[record["id"]] = record
    failed: Counter[str] = Counter()
    before = after = replaced = n = 0
    for r in latest.values():
        if r.get("error"):
            continue
        n += 1
        scene = str(r["scene_id"])
        if scene not in graphs:
            graphs[scene] = build_graph(scene, objects.objects(scene), scene_type=objects.scene_type(scene))
        graph = graphs[scene]
        short = str(r.get("short") or r.get("short_answer") or "")
        refs = list(r["answers"])
        verdict = check_answer(Question.parse(str(r["question"]), sorted(graph.categories())), short, graph)
        new = short
        if not verdict.ok:
            failed[_kind(verdict.reason)] += 1
            if verdict.fallback is not None:
                new = verdict.fallback
                replaced += 1
                if args.show:
                    print(f"{r['question']!r}: {short!r} -> {new!r} ({verdict.reason}); refs {refs}")
        before += exact_match(short, refs)
        after += exact_match(new, refs)
    if not n:
        print("no answered questions", file=sys.stderr)
        return 2
    print(f"{'answers':28} {n}")
    for kind, count in sorted(failed.items()):
        print(f"{'failed: ' + kind:28} {count}")
    print(f"{'replaced by the fallback':28} {replaced}")
    print(f"{'EM short before / after':28} {100 * before / n:.1f} / {100 * after / n:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
