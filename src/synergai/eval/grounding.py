"""Utterance grounding (Sr3D, Nr3D): does the top candidate of the grounded expression name the target?

Nr3D records carry the same fields, with ``relation`` the ReferIt3D breakdown ("easy-view-dependent"):
the metrics add those buckets (easy / hard, view-dependent / view-independent).

Each Sr3D record (``utterance``, ``target_id``, ``scene_id``, ``relation``, ``target_label``,
``anchor_labels``) is turned into a typed referring expression, either

* by the model (:func:`~synergai.agent.grounding_parse.ground_description`: one call per utterance,
  a second only when the reading left a tie while the sentence says a relation or a feature; the same
  path a person's free sentence takes), or
* by a scripted oracle built from the record's structured fields (target label, relation, anchor
  labels; never the utterance's wording), which measures the engine alone;

then resolved by :func:`~synergai.scene.grounding.ground` among ALL objects of the scene. A record is
correct when the top candidate is the target and no other candidate shares its score.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from synergai.agent.grounding_parse import ground_description
from synergai.eval.runner import ResumableRun
from synergai.eval.split import Half, select
from synergai.llm.base import ChatModel, ChatReply, LLMError
from synergai.scene.build import build_graph
from synergai.scene.builders.objects_json import ObjectsFile, load_objects_file
from synergai.scene.grounding import ObjectRef, SceneVocabulary, ground, scene_vocabulary
from synergai.scene.model import SceneError, SceneGraph

#: Sr3D relation -> the expression's relation name (the oracle's only vocabulary).
ORACLE_RELATION: dict[str, str] = {
    "closest": "closest to", "farthest": "farthest from", "between": "between", "left": "left of",
    "right": "right of", "front": "in front of", "back": "behind", "above": "above", "below": "below",
    "supported-by": "on", "supporting": "supporting",
}
REQUIRED = ("scene_id", "target_id", "utterance", "relation")


def check_records(records: object, source: str) -> list[dict[str, Any]]:
    """The Sr3D records of a file, each with the fields the benchmark reads (SceneError otherwise)."""
    if not isinstance(records, list):
        raise SceneError(f"{source}: expected a JSON list of Sr3D records")
    for k, r in enumerate(records):
        if not isinstance(r, dict):
            raise SceneError(f"{source}: record {k} is not an object")
        missing = [f for f in REQUIRED if f not in r]
        if missing:
            raise SceneError(f"{source}: record {k} lacks {', '.join(missing)}")
    return records


def record_id(index: int, record: Mapping[str, Any]) -> str:
    """A stable id: position in the file, scene and target."""
    return f"{index}:{record['scene_id']}:{record['target_id']}"


def oracle_expression(record: Mapping[str, Any]) -> ObjectRef:
    """The expression a perfect parser would write, from the record's structured fields only."""
    rel = str(record["relation"])
    if rel not in ORACLE_RELATION:
        raise SceneError(f"unknown Sr3D relation {rel!r}; known: {', '.join(ORACLE_RELATION)}")
    anchors = [{"category": str(label)} for label in record.get("anchor_labels", [])]
    return ObjectRef.model_validate({
        "category": str(record["target_label"]),
        "relations": [{"relation": ORACLE_RELATION[rel], "anchors": anchors}],
    })


def _new_prompt_tokens(reply: ChatReply) -> int:
    """Prompt tokens the model processed anew (the backend's cache count where it reports one)."""
    new = getattr(reply, "new_prompt_tokens", None)
    if isinstance(new, int):
        return new
    return max(0, reply.prompt_tokens - int(getattr(reply, "cached_tokens", 0) or 0))


class Scenes:
    """Graphs and vocabularies built once per scene of one run."""

    def __init__(self, objects: ObjectsFile) -> None:
        self.objects = objects
        self._graphs: dict[str, tuple[SceneGraph, SceneVocabulary]] = {}

    def get(self, scene_id: str) -> tuple[SceneGraph, SceneVocabulary]:
        if scene_id not in self._graphs:
            if scene_id not in self.objects.scene_ids:
                raise SceneError(f"scene {scene_id} is not in the objects file")
            g = build_graph(scene_id, self.objects.objects(scene_id),
                            scene_type=self.objects.scene_type(scene_id))
            self._graphs[scene_id] = (g, scene_vocabulary(g))
        return self._graphs[scene_id]


def ground_record(scenes: Scenes, record: Mapping[str, Any], model: ChatModel | None) -> dict[str, Any]:
    """One record: its expression (oracle when ``model`` is None), the grounding and the costs."""
    start = time.perf_counter()
    graph, vocab = scenes.get(str(record["scene_id"]))
    out: dict[str, Any] = {"scene_id": record["scene_id"], "target_id": str(record["target_id"]),
                           "relation": record["relation"], "utterance": record["utterance"],
                           "llm_calls": 0, "prompt_tokens": 0, "new_prompt_tokens": 0, "completion_tokens": 0}
    found = None
    if model is None:
        ref: ObjectRef | None = oracle_expression(record)
        problem = ""
    else:
        try:
            parsed, found = ground_description(model, str(record["utterance"]), vocab, graph)
        except LLMError as exc:
            raise LLMError(f"record {record['scene_id']}/{record['target_id']}: {exc}") from None
        ref, problem = parsed.ref, parsed.problem
        out.update(llm_calls=parsed.calls,
                   prompt_tokens=sum(r.prompt_tokens for r in parsed.replies),
                   new_prompt_tokens=sum(_new_prompt_tokens(r) for r in parsed.replies),
                   completion_tokens=sum(r.completion_tokens for r in parsed.replies),
                   llm_seconds=sum(r.seconds for r in parsed.replies))
        if ref is None and parsed.raw is not None:
            out["raw"] = parsed.raw
    out["expression"] = ref.model_dump(exclude_defaults=True) if ref is not None else None
    out["problem"] = problem
    if ref is None:
        out.update(top=None, tied=0, missing="", correct=False, reason="")
    else:
        g = found or ground(graph, ref)
        top = g.top
        out.update(top=top.id if top else None, tied=g.tied, missing=g.message() if g.missing else "",
                   reason=top.reason if top else "",
                   correct=bool(top and top.id == str(record["target_id"]) and g.tied == 1))
    out["latency_s"] = time.perf_counter() - start
    return out


def run_grounding(
    records: Sequence[Mapping[str, Any]],
    objects_path: Path,
    model: ChatModel | None,
    out_dir: Path,
    *,
    limit: int | None = None,
    half: Half | None = None,
    sample: int | None = None,
    seed: int = 0,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Ground the records of one half of the dev split (all with ``half`` None), resumably, into
    ``out_dir``: a fixed spread-out subset of ``limit`` or a seeded random draw of ``sample`` of them."""
    indexed = select(list(enumerate(records)), lambda kr: str(kr[1]["scene_id"]), half=half, limit=limit,
                     sample=sample, seed=seed)
    settings = {"benchmark": "grounding", "mode": "oracle" if model is None else "llm",
                "llm": model.name if model is not None else "", "objects": Path(objects_path).name}
    run = ResumableRun(out_dir, settings)
    scenes = Scenes(load_objects_file(objects_path))
    return run.run(indexed, lambda kr: record_id(*kr), lambda kr: ground_record(scenes, kr[1], model),
                   desc="grounding", progress=progress)


def breakdown(relation: str) -> tuple[str, ...]:
    """The buckets a combined ReferIt3D label counts in: "hard-view-dependent" -> ("hard",
    "view-dependent"); () for a plain relation (Sr3D's "closest")."""
    head, sep, rest = relation.partition("-")
    return (head, rest) if sep and head in ("easy", "hard") else ()


def grounding_metrics(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``n``, ``accuracy``, ``by_relation``, the costs and how the failures split."""
    if not results:
        raise SceneError("no grounding results to score")
    by: dict[str, list[bool]] = {}
    for r in results:
        by.setdefault(str(r["relation"]), []).append(bool(r["correct"]))
    n = len(results)
    buckets: dict[str, list[bool]] = {}
    for r in results:
        for b in breakdown(str(r["relation"])):
            buckets.setdefault(b, []).append(bool(r["correct"]))
    return {
        "n": n,
        "accuracy": sum(bool(r["correct"]) for r in results) / n,
        "by_relation": {k: {"n": len(v), "accuracy": sum(v) / len(v)} for k, v in sorted(by.items())},
        "by_bucket": {k: {"n": len(v), "accuracy": sum(v) / len(v)} for k, v in sorted(buckets.items())},
        "llm_calls_per_question": statistics.fmean(r["llm_calls"] for r in results),
        "mean_new_prompt_tokens": statistics.fmean(r["new_prompt_tokens"] for r in results),
        "mean_completion_tokens": statistics.fmean(r["completion_tokens"] for r in results),
        "median_latency_s": statistics.median(r["latency_s"] for r in results),
        "unparsed": sum(1 for r in results if r["expression"] is None),
        "missing": sum(1 for r in results if r.get("missing")),
        "ties": sum(1 for r in results if r.get("tied", 0) > 1),
    }
