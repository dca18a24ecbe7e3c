"""The honest development split: read / check halves by room, stable, composable with a subset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synergai.eval.split import scene_half, scene_room, select


def test_a_rooms_scans_share_a_half_and_unseen_scenes_get_one() -> None:
    assert scene_room("scene0011_01") == "scene0011" and scene_room("demo") == "demo"
    assert scene_half("scene0011_00") == scene_half("scene0011_01")
    halves = {scene_half(f"scene{k:04d}_00") for k in range(900, 1000)}  # not in any dev file
    assert halves == {"read", "check"}
    assert [scene_half("scene0707_00")] * 3 == [scene_half("scene0707_00") for _ in range(3)]


@pytest.mark.parametrize("name", ["scanqa/scanqa_val_dev.json", "sqa3d/sqa3d_test_dev.json",
                                  "nr3d/nr3d_test_dev.json"])
def test_each_dev_set_splits_into_two_halves_of_disjoint_rooms(shared_data: Path, name: str) -> None:
    records = json.loads((shared_data / name).read_text())
    read = select(records, lambda r: r["scene_id"], half="read")
    check = select(records, lambda r: r["scene_id"], half="check")
    assert len(read) + len(check) == len(records) and min(len(read), len(check)) > len(records) / 4
    assert not {scene_room(r["scene_id"]) for r in read} & {scene_room(r["scene_id"]) for r in check}


def test_a_half_composes_with_a_spread_subset_and_a_seeded_draw() -> None:
    items = [(f"scene{k % 40:04d}_00", k) for k in range(400)]
    check = select(items, lambda i: i[0], half="check")
    limited = select(items, lambda i: i[0], half="check", limit=10)
    assert len(limited) == 10 and set(limited) <= set(check) and limited[-1][1] > check[len(check) // 2][1]
    drawn = select(items, lambda i: i[0], half="check", sample=10, seed=3)
    assert drawn == select(items, lambda i: i[0], half="check", sample=10, seed=3)
    assert drawn != select(items, lambda i: i[0], half="check", sample=10, seed=4)
    assert drawn != check[:10] and set(drawn) <= set(check) and drawn == sorted(drawn, key=lambda i: i[1])
    with pytest.raises(ValueError, match="not both"):
        select(items, lambda i: i[0], limit=3, sample=3)
    with pytest.raises(ValueError, match="half must be"):
        select(items, lambda i: i[0], half="train")  # type: ignore[arg-type]
