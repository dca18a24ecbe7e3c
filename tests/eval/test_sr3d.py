"""The Sr3D evaluator on real records and on a hand-made scene."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from synergai.eval.sr3d import SR3D_RELATIONS, evaluate_sr3d, load_sr3d_records, resolve
from synergai.scene.build import build_graph
from synergai.scene.builders.objects_json import ObjectsFile, load_objects_file
from synergai.scene.model import SceneError
from synergai.scene.relations import RelationThresholds


@pytest.fixture(scope="module")
def records(shared_data: Path) -> list[dict]:
    return load_sr3d_records(shared_data / "sr3d" / "sr3d_test_relations_dev.json")


@pytest.fixture(scope="module")
def gt(shared_data: Path) -> ObjectsFile:
    return load_objects_file(shared_data / "scannet" / "objects_gt.json")


def test_handful_of_real_records_per_relation(records: list[dict], gt: ObjectsFile) -> None:
    assert len(records) == 4212
    assert set(Counter(r["relation"] for r in records)) == set(SR3D_RELATIONS)
    picked: list[dict] = []
    for rel in SR3D_RELATIONS:
        picked += [r for r in records if r["relation"] == rel][:8]
    rep = evaluate_sr3d(picked, gt)
    d = rep.to_dict()
    assert set(d) == {"n", "accuracy", "by_relation"}
    assert d["n"] == len(picked) == 88
    assert set(d["by_relation"]) == set(SR3D_RELATIONS)
    assert all(v["n"] == 8 and 0.0 <= v["accuracy"] <= 1.0 for v in d["by_relation"].values())
    assert d["accuracy"] >= 0.85
    json.dumps(d)  # plain JSON types


def test_a_known_record_and_its_negation(records: list[dict], gt: ObjectsFile) -> None:
    rec = next(r for r in records if r["relation"] == "supported-by" and r["scene_id"] == "scene0221_00")
    g = build_graph(rec["scene_id"], gt.objects(rec["scene_id"]))
    th = RelationThresholds()
    assert resolve(g, rec, th)  # "the bag that is on the table"
    swapped = {**rec, "target_id": rec["distractor_ids"][0], "distractor_ids": [rec["target_id"]]}
    assert not resolve(g, swapped, th)
    with pytest.raises(SceneError):
        resolve(g, {**rec, "relation": "on-top-ish"}, th)


def test_a_record_fails_when_a_distractor_also_qualifies(tmp_path: Path) -> None:
    table = {"id": 1, "label": "table", "center_position": [0, 0, 0.375], "size": [1.6, 0.8, 0.75]}
    cups = [{"id": k, "label": "cup", "center_position": [x, 0, 0.8], "size": [0.08, 0.08, 0.1]}
            for k, x in ((2, -0.5), (3, 0.5))]
    floor_cup = {"id": 4, "label": "cup", "center_position": [3, 0, 0.05], "size": [0.08, 0.08, 0.1]}
    path = tmp_path / "objects.json"
    path.write_text(json.dumps({"s": [table, *cups, floor_cup]}), encoding="utf-8")
    objs = load_objects_file(path)
    on = {"scene_id": "s", "relation": "supported-by", "anchor_ids": [1], "target_id": 2}
    assert evaluate_sr3d([{**on, "distractor_ids": [4]}], objs).accuracy == 1.0
    assert evaluate_sr3d([{**on, "distractor_ids": [3, 4]}], objs).accuracy == 0.0  # both cups are on it
    closest = {"scene_id": "s", "relation": "closest", "anchor_ids": [4], "target_id": 3,
               "distractor_ids": [2]}
    farthest = {**closest, "relation": "farthest", "target_id": 2, "distractor_ids": [3]}
    rep = evaluate_sr3d([closest, farthest], objs)
    assert rep.to_dict()["by_relation"] == {
        "closest": {"n": 1, "accuracy": 1.0}, "farthest": {"n": 1, "accuracy": 1.0}}
