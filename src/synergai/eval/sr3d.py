"""Sr3D spatial-relation check: do our relations single out the referred object?

Each Sr3D record names a target, its distractors (same category) and one or two anchors. A record
is resolved when, among target + distractors, the relation picks exactly the target:

* closest / farthest: the target is the unique extreme (:func:`~synergai.scene.build.closest`,
  with the epsilon rule);
* between: :func:`~synergai.scene.build.between` keeps the target and no distractor;
* left / right / front / back: Sr3D's relations are relative to the anchor's own front, so they are
  asked for the viewpoint of someone looking at that front
  (:func:`~synergai.scene.build.facing_viewpoint`);
* above / below / supported-by / supporting: read from the stored graph that
  :func:`~synergai.scene.build.build_graph` built (any holder relation counts as "on").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synergai.scene.build import between, build_graph, closest, facing_viewpoint, farthest, view_relation
from synergai.scene.builders.objects_json import ObjectsFile
from synergai.scene.model import SUPPORT_RELATIONS, Relation, SceneError, SceneGraph
from synergai.scene.relations.thresholds import RelationThresholds
from synergai.scene.serialization import parse_json

#: Sr3D relation name -> our relation.
SR3D_RELATIONS: dict[str, Relation] = {
    "closest": Relation.CLOSEST,
    "farthest": Relation.FARTHEST,
    "between": Relation.BETWEEN,
    "left": Relation.LEFT_OF,
    "right": Relation.RIGHT_OF,
    "front": Relation.IN_FRONT_OF,
    "back": Relation.BEHIND,
    "above": Relation.ABOVE,
    "below": Relation.BELOW,
    "supported-by": Relation.SUPPORTED_BY,
    "supporting": Relation.SUPPORTS,
}


@dataclass
class Sr3DReport:
    """Accuracy overall and per Sr3D relation."""

    n: int = 0
    correct: int = 0
    by_relation: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0

    def to_dict(self) -> dict[str, Any]:
        """``{"n", "accuracy", "by_relation": {relation: {"n", "accuracy"}}}``."""
        return {
            "n": self.n,
            "accuracy": self.accuracy,
            "by_relation": {
                k: {"n": int(v["n"]), "accuracy": v["accuracy"]} for k, v in self.by_relation.items()
            },
        }


def load_sr3d_records(path: str | Path) -> list[dict[str, Any]]:
    """The records of an Sr3D relations file (a JSON list)."""
    p = Path(path)
    try:
        data = parse_json(p.read_bytes(), str(p))
    except OSError as exc:
        raise SceneError(f"{p}: cannot read Sr3D records ({exc.strerror or exc})") from None
    if not isinstance(data, list):
        raise SceneError(f"{p}: expected a JSON list of Sr3D records")
    return data


def _holds_stored(graph: SceneGraph, subject: str, relation: Relation, anchor: str) -> bool:
    if relation is Relation.SUPPORTED_BY:
        return any(graph.has_edge(subject, r, anchor) for r in SUPPORT_RELATIONS)
    if relation is Relation.SUPPORTS:
        return any(graph.has_edge(anchor, r, subject) for r in SUPPORT_RELATIONS)
    return graph.has_edge(subject, relation, anchor)


def resolve(graph: SceneGraph, record: Mapping[str, Any], thresholds: RelationThresholds) -> bool:
    """Whether our relations single out the record's target among target + distractors."""
    name = record["relation"]
    if name not in SR3D_RELATIONS:
        raise SceneError(f"unknown Sr3D relation {name!r}; known: {', '.join(SR3D_RELATIONS)}")
    rel = SR3D_RELATIONS[name]
    target = str(record["target_id"])
    pool = [target, *(str(d) for d in record["distractor_ids"])]
    anchors = [str(a) for a in record["anchor_ids"]]
    if rel is Relation.CLOSEST:
        return closest(graph, anchors[0], pool, thresholds) == target
    if rel is Relation.FARTHEST:
        return farthest(graph, anchors[0], pool, thresholds) == target
    if rel is Relation.BETWEEN:
        if len(anchors) != 2:
            raise SceneError(f"Sr3D 'between' needs two anchors, got {len(anchors)}")
        return between(graph, pool, anchors[0], anchors[1], thresholds) == [target]
    if rel in (Relation.LEFT_OF, Relation.RIGHT_OF, Relation.IN_FRONT_OF, Relation.BEHIND):
        vp = facing_viewpoint(graph.get(anchors[0]))
        if vp is None:
            return False
        return view_relation(graph, pool, anchors[0], rel, vp, thresholds) == [target]
    hits = [p for p in pool if _holds_stored(graph, p, rel, anchors[0])]
    return hits == [target]


def evaluate_sr3d(
    records: Iterable[Mapping[str, Any]],
    objects: ObjectsFile,
    thresholds: RelationThresholds | None = None,
) -> Sr3DReport:
    """Resolve every record on graphs built from ``objects`` (one build per scene)."""
    th = thresholds or RelationThresholds()
    graphs: dict[str, SceneGraph] = {}
    report = Sr3DReport()
    for rec in records:
        sid = str(rec["scene_id"])
        if sid not in graphs:
            graphs[sid] = build_graph(
                sid, objects.objects(sid), scene_type=objects.scene_type(sid), thresholds=th
            )
        ok = resolve(graphs[sid], rec, th)
        stats = report.by_relation.setdefault(rec["relation"], {"n": 0, "correct": 0, "accuracy": 0.0})
        stats["n"] += 1
        stats["correct"] += int(ok)
        stats["accuracy"] = stats["correct"] / stats["n"]
        report.n += 1
        report.correct += int(ok)
    return report
