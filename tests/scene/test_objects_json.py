"""Loader of the shared objects files (ground truth and 3D-VisTA predictions)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from synergai.scene.builders import load_objects_file
from synergai.scene.model import ObjectKind, SceneError


@pytest.fixture(scope="module")
def gt_path(shared_data: Path) -> Path:
    return shared_data / "scannet" / "objects_gt.json"


def test_ground_truth_file(gt_path: Path) -> None:
    f = load_objects_file(gt_path)
    assert len(f) == 102 and f.object_count() == 3467
    assert f.provenance == "scannet-gt"
    assert f.scene_type("scene0011_00") == "Kitchen"
    objs = {o.id: o for o in f.objects("scene0011_00")}
    floor, cabinets = objs["0"], objs["1"]
    assert floor.kind is ObjectKind.FLOOR and floor.category == "floor"
    assert cabinets.category == "kitchen cabinets" and cabinets.kind is ObjectKind.OBJECT
    assert cabinets.center == pytest.approx((1.4162, 1.0126, 0.4058))
    assert cabinets.size == pytest.approx((0.1873, 3.2061, 0.8379))
    assert cabinets.color == (61, 42, 30) and cabinets.attributes == ("dark brown",)
    assert cabinets.confidence == 1.0 and cabinets.provenance == "scannet-gt"
    # Scan2CAD front: from the oriented box centre towards front_point (facing -x here)
    assert cabinets.front is not None and math.hypot(*cabinets.front[:2]) == pytest.approx(1.0)
    assert cabinets.front[0] < -0.99
    assert cabinets.obb is not None and cabinets.obb.yaw == pytest.approx(0.0035)
    assert floor.front is None and floor.obb is None
    kinds = {o.kind for s in f.scene_ids for o in f.objects(s)}
    assert kinds == {ObjectKind.OBJECT, ObjectKind.FLOOR, ObjectKind.WALL, ObjectKind.CEILING}
    assert f.objects("scene0011_00") is not f.objects("scene0011_00")  # fresh lists


def test_predicted_file(shared_data: Path) -> None:
    f = load_objects_file(shared_data / "scannet" / "objects_pred_3dvista.json")
    assert len(f) == 102 and f.object_count() == 5100
    assert f.provenance == "3dvista" and f.scene_type("scene0011_00") is None
    first = f.objects("scene0011_00")[0]
    assert first.category == "ceiling" and first.kind is ObjectKind.CEILING
    assert first.confidence == pytest.approx(0.9998) and first.color == (159, 154, 161)
    assert all(0.0 <= o.confidence <= 1.0 for s in f.scene_ids[:5] for o in f.objects(s))
    renamed = load_objects_file(shared_data / "scannet" / "objects_pred_3dvista.json", "mask3d")
    assert renamed.provenance == "mask3d"


def _write(tmp_path: Path, payload: object, raw: str | None = None) -> Path:
    p = tmp_path / "objects.json"
    p.write_text(raw if raw is not None else json.dumps(payload), encoding="utf-8")
    return p


GOOD = {"id": 1, "label": "cup", "center_position": [0, 0, 0.5], "size": [0.1, 0.1, 0.1]}


@pytest.mark.parametrize(("payload", "raw", "message"), [
    (None, "{not json", "not valid JSON"),
    ([GOOD], None, "expected a JSON object"),
    ({"scenes": [GOOD]}, None, "'scenes' must map"),
    ({"s1": {"id": 1}}, None, "must be a list of objects"),
    ({"s1": [{"id": 1, "center_position": [0, 0, 0], "size": [1, 1, 1]}]}, None, "object without 'label'"),
    ({"s1": [{**GOOD, "center_position": [0, "x", 0]}]}, None, "object #0"),
    ({"s1": [{**GOOD, "size": [1, 1]}]}, None, "size must be a list of 3 numbers"),
    ({"s1": [{**GOOD, "size": [1, -1, 1]}]}, None, "negative size"),
    ({"s1": [{**GOOD, "center_position": [0, float("nan"), 0]}]}, None, "non-finite"),
    ({"s1": [GOOD, GOOD]}, None, "duplicate object id 1"),
    ({"s1": ["cup"]}, None, "must be a JSON object"),
    ({"s1": [{**GOOD, "avg_rgba": [300, 0, 0]}]}, None, "colour channels must lie in 0..255"),
    ({"s1": [{**GOOD, "median_rgba": [10, -1, 0]}]}, None, "colour channels must lie in 0..255"),
    ({"s1": [{**GOOD, "label": ""}]}, None, "label must be a non-empty string"),
    ({"s1": [{**GOOD, "label": 7}]}, None, "label must be a non-empty string"),
    ({"s1": [{**GOOD, "id": ""}]}, None, "id must be a non-empty string"),
    ({"": [GOOD]}, None, "scene id must not be empty"),
    ({"s1": [GOOD]}, '{"s1": [{"id": 1, "label": "cup", "center_position": [0, 0, 1' + "0" * 400
     + '], "size": [1, 1, 1]}]}', "too large"),
    (None, "[" * 100000 + "]" * 100000, "not valid JSON"),
    (None, '{"s1": ' + "1" * 5000 + "}", "not valid JSON"),
    ({"s1": [{**GOOD, "score": "high"}]}, None, "score must be"),
    ({"scenes": {"s1": [GOOD]}, "scene_type": {"s1": ["Office"]}}, None, "scene_type of 's1'"),
])
def test_malformed_files_raise_scene_error_naming_the_file(
    tmp_path: Path, payload: object, raw: str | None, message: str
) -> None:
    path = _write(tmp_path, payload, raw)
    with pytest.raises(SceneError) as err:
        load_objects_file(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_missing_file_and_unknown_scene(tmp_path: Path) -> None:
    with pytest.raises(SceneError, match="cannot read"):
        load_objects_file(tmp_path / "nope.json")
    f = load_objects_file(_write(tmp_path, {"scenes": {"s1": [GOOD]}, "scene_type": {"s1": "Office"}}))
    assert f.scene_ids == ["s1"] and f.scene_type("s1") == "Office" and f.provenance == "scannet-gt"
    obj = f.objects("s1")[0]
    assert obj.id == "1" and obj.color is None and obj.attributes == ()
    with pytest.raises(SceneError, match="unknown scene 's2'"):
        f.objects("s2")
    with pytest.raises(SceneError, match="unknown scene"):
        f.scene_type("s2")
