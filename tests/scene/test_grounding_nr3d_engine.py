"""The engine reading people's own words (Nr3D) on real ScanNet scenes: recorded-style expressions, no
model; each picks the target among its same-category distractors, or reports the tie."""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path
from typing import Any

from synergai.scene.build import build_graph
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.grounding import ObjectRef, ground
from synergai.scene.model import SceneGraph
from synergai.scene.relations.thresholds import RelationThresholds


@cache
def _graph(data: Path, scene_id: str) -> SceneGraph:
    objects = load_objects_file(data / "scannet" / "objects_gt.json")
    return build_graph(scene_id, objects.objects(scene_id), scene_type=objects.scene_type(scene_id))


def _ref(**fields: Any) -> ObjectRef:
    return ObjectRef.model_validate(fields)


def test_the_closest_is_read_with_a_readers_margin_not_a_writers(shared_data: Path) -> None:
    """ "The window that is closest to the desk": one window touches a desk, the other is 0.2 m off. The
    Sr3D margin for saying "closest" (0.2 m) ties them; reading it, the nearer one is meant."""
    graph = _graph(shared_data, "scene0222_00")
    said = _ref(category="window", relations=[{"relation": "closest to", "anchors": [{"category": "desk"}]}])
    g = ground(graph, said)
    assert g.unique and g.top is not None and g.top.id == "29"
    writers = dataclasses.replace(RelationThresholds(), closest_tie=RelationThresholds().epsilon)
    assert ground(graph, said, thresholds=writers).tied == 2


def test_above_without_the_stored_edge_means_directly_above(shared_data: Path) -> None:
    """ "The sign above the sink": no sign clears the sink by the above gap (the graph stores no edge),
    and two signs touch it. The one over its centre is meant, not a tie of the two nearest boxes."""
    graph = _graph(shared_data, "scene0328_00")
    said = _ref(category="sign", relations=[{"relation": "above", "anchors": [{"category": "sink"}]}])
    g = ground(graph, said)
    assert g.unique and g.top is not None and g.top.id == "27"
    assert "off the vertical of sink" in g.top.reason
    below = _ref(category="sign", relations=[{"relation": "below", "anchors": [{"category": "sink"}]}])
    top = ground(graph, below).top
    assert top is not None and "not below it" in top.reason  # the side counts: every sign hangs higher
