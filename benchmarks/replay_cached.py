"""Re-run a recorded `synergai eval grounding` through the current code, the model's replies from the cache.

Each utterance of a results file is parsed and grounded again by the current code with a model that only
reads the reply cache (`~/.cache/synergai/responses`): a prompt the recorded run asked replays its reply,
so a change to the post-parse fixes or the engine is measured exactly as a model run would measure it,
without the model; a prompt the current code changed is a miss (counted wrong, listed by `--misses`):
those utterances need the model. Accuracy by bucket and by scene half (even / odd scene number).

    python benchmarks/replay_cached.py DIR/results.jsonl --utterances ../shared/data/nr3d/nr3d_test_dev.json
"""

from __future__ import annotations

import collections
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from grounding_replay import replay_arguments, scene_half, utterance_index
from synergai.eval.grounding import Scenes, breakdown, ground_record
from synergai.llm.base import ChatReply, LLMError
from synergai.llm.cache import CachedModel
from synergai.llm.weights import QWEN_CODER_1_5B
from synergai.scene.builders.objects_json import load_objects_file


class CacheOnly:
    """A chat model that has no replies of its own: behind :class:`CachedModel`, a miss raises."""

    supports_grammar = False

    def __init__(self, name: str):
        self.name = name

    def chat(self, messages: Sequence[Mapping[str, str]], **_: Any) -> ChatReply:
        """Refuse: the prompt is not in the cache."""
        raise LLMError("not in the reply cache")

    def count_tokens(self, text: str) -> int:
        """A rough count (unused for replies from the cache)."""
        return len(text) // 4


def main() -> None:
    """Print accuracy overall, by bucket and by scene half; optionally the misses as a records file."""
    ap = replay_arguments(__doc__.splitlines()[0])
    ap.add_argument("--model", default=QWEN_CODER_1_5B.filename.removesuffix(".gguf"),
                    help="the model name the cache is keyed by")
    ap.add_argument("--out", type=Path, help="write the re-run results here (JSON lines)")
    ap.add_argument("--misses", type=Path, help="write the records whose prompt is not cached here")
    args = ap.parse_args()
    records = json.loads(args.utterances.read_text(encoding="utf-8"))
    scenes = Scenes(load_objects_file(args.objects))
    model = CachedModel(CacheOnly(args.model))
    rows: list[dict[str, Any]] = []
    missed: list[dict[str, Any]] = []
    for line in args.results.read_text(encoding="utf-8").splitlines():
        rid = str(json.loads(line)["id"])
        record = records[utterance_index(rid)]
        try:
            row = ground_record(scenes, record, model)
        except LLMError:
            missed.append(record)
            row = {"relation": record["relation"], "scene_id": record["scene_id"], "correct": False}
        rows.append({**row, "id": rid})
    by: dict[str, list[bool]] = collections.defaultdict(list)
    for r in rows:
        for key in ("all", scene_half(r["scene_id"]), *breakdown(str(r["relation"]))):
            by[key].append(bool(r["correct"]))
    for key, hits in sorted(by.items()):
        print(f"{key:18} {100 * sum(hits) / len(hits):5.1f} % of {len(hits)}")
    print(f"not in the cache: {len(missed)}")
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    if args.misses:
        args.misses.write_text(json.dumps(missed), encoding="utf-8")


if __name__ == "__main__":
    main()
