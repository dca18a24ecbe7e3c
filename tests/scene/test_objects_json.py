"""Loader of the shared objects files (ground truth and 3D-VisTA predictions)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from synergai.scene.attributes import ColorCorrection, CorrectionMethod
from synergai.scene.builders import load_objects_file
from synergai.scene.model import ObjectKind, SceneError, SceneObject


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


def _room(wall: list[int], cup: list[int], *, walls: bool = True) -> dict:
    def rec(i: int, label: str, rgb: list[int]) -> dict:
        return {**GOOD, "id": i, "label": label, "avg_rgba": [*rgb, 255]}

    objs = [rec(1, "cup", cup), rec(2, "box", [40, 30, 20])]
    if walls:
        objs += [rec(3, "wall", wall), rec(4, "wall", wall), rec(5, "ceiling", wall)]
    return {"scenes": {"s1": objs}}


def test_colour_names_follow_the_scenes_exposure_and_the_raw_colour_is_kept(tmp_path: Path) -> None:
    # a dim room: walls captured at luminance 100, a cup of the same grey is as white as the walls
    path = _write(tmp_path, _room([100, 100, 100], [110, 110, 110]))
    cup = load_objects_file(path).objects("s1")[0]
    assert cup.color == (110, 110, 110) and cup.attributes == ("white",)
    raw = load_objects_file(path, colour_correction=CorrectionMethod.NONE).objects("s1")[0]
    assert raw.color == (110, 110, 110) and raw.attributes == ("gray",)
    # the same cup in a room whose walls are captured at WALL_GREY stays grey
    bright = load_objects_file(_write(tmp_path, _room([200, 200, 200], [110, 110, 110]))).objects("s1")[0]
    assert bright.attributes == ("gray",)


def _coloured(kind: ObjectKind, rgb: tuple[int, int, int], size: float = 1.0) -> SceneObject:
    return SceneObject(id=str(rgb), category=kind.value, center=(0.0, 0.0, 0.0), size=(size, size, size),
                       color=rgb, kind=kind)


def test_colour_correction_methods() -> None:
    tinted = [_coloured(ObjectKind.WALL, (120, 100, 80)), _coloured(ObjectKind.CEILING, (120, 100, 80)),
              _coloured(ObjectKind.OBJECT, (60, 50, 40))]
    exposure = ColorCorrection.estimate(tinted, CorrectionMethod.WALLS_EXPOSURE)
    assert exposure.gains[0] == pytest.approx(exposure.gains[2]) and exposure.gains[0] > 1.0  # hue kept
    balance = ColorCorrection.estimate(tinted, CorrectionMethod.WALLS_BALANCE)
    assert balance.apply((120, 100, 80)) == (200, 200, 200)  # the walls become neutral
    assert ColorCorrection.estimate(tinted, CorrectionMethod.NONE).apply((60, 50, 40)) == (60, 50, 40)
    assert ColorCorrection.estimate([]).gains == (1.0, 1.0, 1.0)
    # bright surfaces: the large bright box sets the exposure, however many small dark objects there are
    boxes = [_coloured(ObjectKind.OBJECT, (100, 100, 100), size=3.0)]
    boxes += [_coloured(ObjectKind.OBJECT, (20, 20, 20 + k), size=0.1) for k in range(20)]
    bright = ColorCorrection.estimate(boxes, CorrectionMethod.BRIGHT_SURFACES)
    assert bright.apply((100, 100, 100)) == (200, 200, 200)
    # no walls: the wall methods fall back to the bright surfaces
    assert ColorCorrection.estimate(boxes) == bright
    grey_world = ColorCorrection.estimate(boxes, CorrectionMethod.GREY_WORLD)
    assert grey_world != bright and grey_world.gains != (1.0, 1.0, 1.0)
    assert ColorCorrection((3.0, 3.0, 3.0)).apply((100, 0, 90)) == (255, 0, 255)  # clipped


def test_a_white_cabinet_in_scannet_is_named_white(gt_path: Path) -> None:
    # ScanQA: "What color is the cabinet on the toilet?" -> "white"; captured as beige (186, 174, 148)
    cabinet = {o.id: o for o in load_objects_file(gt_path).objects("scene0246_00")}["11"]
    assert cabinet.color == (186, 174, 148) and cabinet.attributes == ("white",)
    raw = load_objects_file(gt_path, colour_correction=CorrectionMethod.NONE).objects("scene0246_00")
    assert {o.id: o for o in raw}["11"].attributes == ("beige",)
