"""`scene build --from scannet-raw | pointcloud | rgbd` and `scene import --format ...` on real ScanNet data.

The point cloud is the real scene0000_00 scan (../shared/data/geometry). Its instance labels are made
without clustering (floor slab, ceiling slab, 1 m cells in between), so every builder's boxes can be
checked against plain numpy on the same points; the raw-scan directory and the RGB-D frames are written
from those real points.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from real_frames import SCENE, expected_boxes, labelled_cloud, orbit_frames

from synergai.cli.main import main
from synergai.scene.store import SceneStore


@pytest.fixture(scope="module")
def cloud(shared_data: Path) -> dict:
    """The real points (raw frame), their alignment, and instance ids / labels made in the aligned frame."""
    return labelled_cloud(shared_data)


def shown(db: Path, scene: str, capsys) -> dict:
    capsys.readouterr()
    assert main(["scene", "show", "--db", str(db), "--scene", scene, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def boxes_of(objects: list[dict]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {
        o["id"]: (
            np.array(o["center"]) - np.array(o["size"]) / 2,
            np.array(o["center"]) + np.array(o["size"]) / 2,
        )
        for o in objects
    }


def write_labels(tmp_path: Path, labels: dict[int, str]) -> Path:
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({str(k): v for k, v in labels.items()}))
    return path


def test_pointcloud_from_the_shared_file_is_stored_and_answers(cloud, tmp_path, capsys):
    db = tmp_path / "s.db"
    np.save(tmp_path / "inst.npy", cloud["inst"])
    argv = [
        "scene",
        "build",
        "--from",
        "pointcloud",
        str(cloud["path"]),
        "--instances",
        str(tmp_path / "inst.npy"),
        "--labels",
        str(write_labels(tmp_path, cloud["labels"])),
        "--axis-alignment",
        str(cloud["alignments"]),
        "--scene-id",
        SCENE,
        "--scene-type",
        "Bedroom",
        "--db",
        str(db),
        "--json",
    ]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    expected = expected_boxes(cloud, 10)
    assert summary["scene"] == SCENE and summary["objects"] == len(expected) and summary["relations"] > 0
    data = shown(db, SCENE, capsys)
    got = boxes_of(data["objects"])
    assert set(got) == set(expected)
    for oid, (lo, hi) in expected.items():
        assert np.allclose(got[oid][0], lo, atol=1e-3) and np.allclose(got[oid][1], hi, atol=1e-3), oid
    assert {o["label"] for o in data["objects"] if o["id"] == "1"} == {"floor"}
    # building it again is refused (the store is left as it was), --replace replaces
    assert main(argv) == 2
    assert "already in the store" in capsys.readouterr().err
    assert main([*argv, "--replace"]) == 0
    # `ask` uses the stored scene
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                json.dumps(
                    {
                        "thought": "t",
                        "action": "final_answer",
                        "action_input": {
                            "answer": "A floor.",
                            "short_answer": "floor",
                            "item_id_list": ["1"],
                        },
                    }
                )
            ]
        )
    )
    capsys.readouterr()
    assert (
        main(
            [
                "ask",
                "What is here?",
                "--scene",
                SCENE,
                "--db",
                str(db),
                "--llm",
                f"scripted:{script}",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["objects"] == ["1"]


def _write_ply(path: Path, xyz: np.ndarray, rgb: np.ndarray) -> None:
    head = (
        "ply\nformat binary_little_endian 1.0\n"
        f"element vertex {len(xyz)}\nproperty float x\nproperty float y\nproperty float z\n"
        "property uchar red\nproperty uchar green\nproperty uchar blue\nproperty uchar alpha\n"
        "element face 0\nproperty list uchar int vertex_indices\nend_header\n"
    ).encode()
    rec = np.zeros(len(xyz), dtype=[("p", "<f4", 3), ("c", "u1", 4)])
    rec["p"], rec["c"][:, :3], rec["c"][:, 3] = xyz, rgb.astype(np.uint8), 255
    path.write_bytes(head + rec.tobytes())


def test_scannet_raw_directory_gives_the_same_boxes(cloud, tmp_path, capsys):
    scan = tmp_path / "scans" / SCENE
    scan.mkdir(parents=True)
    _write_ply(scan / f"{SCENE}_vh_clean_2.ply", cloud["xyz"], cloud["rgb"])
    # two over-segments per instance, as ScanNet has many per object
    seg = cloud["inst"] * 2 + (np.arange(len(cloud["inst"])) % 2)
    (scan / f"{SCENE}_vh_clean_2.0.010000.segs.json").write_text(json.dumps({"segIndices": seg.tolist()}))
    groups = [
        {"objectId": int(i), "label": cloud["labels"][int(i)], "segments": [int(i) * 2, int(i) * 2 + 1]}
        for i in np.unique(cloud["inst"])
    ]
    (scan / f"{SCENE}.aggregation.json").write_text(json.dumps({"segGroups": groups}))
    (scan / f"{SCENE}.txt").write_text(
        "axisAlignment = " + " ".join(map(str, cloud["matrix"].ravel())) + "\n"
    )
    db = tmp_path / "s.db"
    assert main(["scene", "build", "--from", "scannet-raw", str(scan), "--db", str(db)]) == 0
    assert f"built {SCENE} from scannet-raw" in capsys.readouterr().out
    got = boxes_of(shown(db, SCENE, capsys)["objects"])
    expected = expected_boxes(cloud, 1)
    assert set(got) == set(expected)
    for oid, (lo, hi) in expected.items():
        assert np.allclose(got[oid][0], lo, atol=1e-3) and np.allclose(got[oid][1], hi, atol=1e-3), oid


def test_rgbd_frames_rendered_from_the_real_cloud(cloud, tmp_path, capsys):
    import imageio.v3 as iio

    d = tmp_path / "frames"
    for sub in ("depth", "color", "pose", "instance", "intrinsic"):
        (d / sub).mkdir(parents=True)
    frames = orbit_frames(cloud)
    k4 = np.eye(4)
    k4[:3, :3] = frames[0].intrinsics  # ScanNet writes the intrinsics as a 4x4 matrix
    (d / "intrinsic" / "intrinsic_depth.txt").write_text(
        "\n".join(" ".join(map(str, r)) for r in k4.tolist())
    )
    for n, frame in enumerate(frames):
        iio.imwrite(d / "depth" / f"{n}.png", np.round(frame.depth * 1000).astype(np.uint16))
        iio.imwrite(d / "color" / f"{n}.png", frame.color)
        iio.imwrite(d / "instance" / f"{n}.png", frame.instance.astype(np.uint16))
        (d / "pose" / f"{n}.txt").write_text(
            "\n".join(" ".join(map(str, r)) for r in frame.cam_to_world.tolist())
        )
    db = tmp_path / "s.db"
    assert (
        main(
            [
                "scene",
                "build",
                "--from",
                "rgbd",
                str(d),
                "--labels",
                str(write_labels(tmp_path, cloud["labels"])),
                "--scene-id",
                "frames",
                "--min-points",
                "5",
                "--db",
                str(db),
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["objects"] >= 10
    objects = shown(db, "frames", capsys)["objects"]
    expected = expected_boxes(cloud, 1)
    labels = {o["id"]: o["label"] for o in objects}
    assert labels.get("1") == "floor" and set(labels) <= set(expected)
    for oid, (lo, hi) in boxes_of(objects).items():  # seen parts of a real object: inside its true box
        assert np.all(lo >= expected[oid][0] - 0.05) and np.all(hi <= expected[oid][1] + 0.05), oid
    floor_lo, floor_hi = boxes_of(objects)["1"]
    true_lo, true_hi = expected["1"]
    assert np.prod((floor_hi - floor_lo)[:2]) > 0.3 * np.prod((true_hi - true_lo)[:2])


@pytest.mark.parametrize("fmt", ["json", "sceneverse", "conceptgraphs"])
def test_import_round_trips_what_export_writes(fmt, shared_data, tmp_path, capsys):
    objects = str(shared_data / "scannet" / "objects_gt.json")
    db, other = tmp_path / "s.db", tmp_path / "other.db"
    out = tmp_path / f"scene0011_00.{fmt}.json"
    assert (
        main(
            [
                "scene",
                "export",
                "--db",
                str(db),
                "--objects",
                objects,
                "--scene",
                "scene0011_00",
                "--format",
                fmt,
                "--out",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert (
        main(["scene", "show", "--db", str(db), "--objects", objects, "--scene", "scene0011_00", "--json"])
        == 0
    )
    original = json.loads(capsys.readouterr().out)
    assert (
        main(
            [
                "scene",
                "import",
                str(out),
                "--format",
                fmt,
                "--scene-id",
                "scene0011_00",
                "--db",
                str(other),
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["objects"] == len(original["objects"])
    again = shown(other, "scene0011_00", capsys)
    key = {
        o["id"]: (o["label"], [round(c, 3) for c in o["center"]], [round(s, 3) for s in o["size"]])
        for o in original["objects"]
    }
    assert {
        o["id"]: (o["label"], [round(c, 3) for c in o["center"]], [round(s, 3) for s in o["size"]])
        for o in again["objects"]
    } == key
    rel = {(r["subject"], r["relation"], r["object"]) for r in original["relations"]}
    if fmt == "conceptgraphs":  # ConceptGraphs has only "on" and "in" facts
        inside = {"supported_by": "supported_by", "inside": "inside", "embedded_in": "inside"}
        rel = {(s, inside[r], o) for s, r, o in rel if r in inside}
        assert rel
    assert {(r["subject"], r["relation"], r["object"]) for r in again["relations"]} == rel


def test_import_refuses_a_file_of_another_format(shared_data, tmp_path, capsys):
    db = tmp_path / "s.db"
    out = tmp_path / "cg.json"
    assert main(["scene", "export", "--db", str(db), "--format", "conceptgraphs", "--out", str(out)]) == 0
    assert main(["scene", "import", str(out), "--format", "sceneverse", "--db", str(tmp_path / "o.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("synergai: error:") and len(err.strip().splitlines()) == 1


def test_build_input_errors_are_one_line_and_leave_the_store(cloud, tmp_path, capsys):
    db = tmp_path / "s.db"
    assert main(["scene", "show", "--db", str(db), "--json"]) == 0

    def stored() -> list:
        with SceneStore(db) as store:
            return [(i.id, i.n_objects, i.n_active_edits, i.updated_at) for i in store.scenes()]

    before = stored()
    for argv, message in [
        (
            ["pointcloud", str(cloud["path"]), "--labels", str(write_labels(tmp_path, {1: "x"}))],
            "--instances",
        ),
        (["pointcloud", str(cloud["path"]), "--instances", str(tmp_path / "none.npy")], "none.npy"),
        (["rgbd", str(tmp_path)], "no depth/*.png"),
        (["scannet-raw", str(tmp_path)], "_vh_clean_2.ply"),
        (["pointcloud", str(tmp_path / "missing.bin")], "file not found"),
    ]:
        assert main(["scene", "build", "--from", argv[0], *argv[1:], "--db", str(db)]) == 2, argv
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and message in err, (argv, err)
    assert stored() == before
