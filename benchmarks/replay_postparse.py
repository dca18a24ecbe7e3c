"""Re-apply the post-parse fixes of `agent.grounding_fixes` to the model's recorded expressions, and ground.

A results file of `synergai eval grounding` holds each utterance's expression as the model wrote it and the
fixes of its commit applied. This applies the current fixes (:func:`post_parse`, from the utterance's words
and the scene's vocabulary narrowed by them) and grounds both with the current engine, so a change to the
fixes is measured without the model. Accuracy by relation bucket and by scene half (even / odd scene
number: look at the failures of one half, keep a change when the other gains too).

    python benchmarks/replay_postparse.py DIR/results.jsonl \
        --utterances ../shared/data/nr3d/nr3d_test_dev.json --objects ../shared/data/scannet/objects_gt.json
"""

from __future__ import annotations

import collections
import json

from rich.console import Console
from rich.table import Table

from grounding_replay import replay_arguments, scene_half, utterance_index
from synergai.agent.grounding_fixes import post_parse
from synergai.agent.grounding_parse import offers_any_object
from synergai.eval.grounding import Scenes, breakdown
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.grounding import ObjectRef, ground


def main() -> None:
    """Print accuracy by bucket and scene half, as re-resolved and with the current post-parse fixes."""
    ap = replay_arguments(__doc__.splitlines()[0])
    ap.add_argument("--show", action="store_true", help="print each utterance whose outcome changes")
    args = ap.parse_args()
    scenes = Scenes(load_objects_file(args.objects))
    utterances = json.loads(args.utterances.read_text(encoding="utf-8"))
    rows: dict[str, list[tuple[bool, bool]]] = collections.defaultdict(list)
    for line in args.results.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        sid, target = r["scene_id"], str(r["target_id"])
        sentence = str(utterances[utterance_index(r["id"])]["utterance"])
        graph, vocab = scenes.get(sid)
        before = after = False
        if r.get("expression") is not None:
            ref = ObjectRef.model_validate(r["expression"])
            words = vocab.narrowed(sentence)
            fixed = post_parse(ref, sentence, words, any_object=offers_any_object(sentence, vocab, words))
            g, h = ground(graph, ref), ground(graph, fixed)
            before = g.top is not None and g.top.id == target and g.tied == 1
            after = h.top is not None and h.top.id == target and h.tied == 1
            if args.show and before != after:
                print(f"{'+' if after else '-'} {sentence}\n    {ref.describe()}\n -> {fixed.describe()}")
        half = scene_half(sid)
        buckets = breakdown(str(r["relation"]))
        for b in ["all", f"{half} scenes", *buckets, *(f"{half}: {x}" for x in buckets)]:
            rows[b].append((before, after))
    table = Table("bucket", "n", "re-resolved", "post-parse fixes",
                  title=f"post-parse replay, {args.results}")
    for name, v in sorted(rows.items()):
        table.add_row(name, str(len(v)), f"{100 * sum(a for a, _ in v) / len(v):.1f} %",
                      f"{100 * sum(b for _, b in v) / len(v):.1f} %")
    Console().print(table)


if __name__ == "__main__":
    main()
