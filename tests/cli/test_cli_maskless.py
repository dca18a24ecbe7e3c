"""`scene build` of scans without instance masks (issue 39): the real scene0000_00 cloud and RGB-D frames
rendered from it become floor, walls and unnamed objects that a person names by talking; a model that reads
images may name them from their crops (a scripted one, and a fake endpoint on 127.0.0.1); bad input is one
line, exit 2, and the store as it was."""

from __future__ import annotations

import base64
import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from real_frames import SCENE, labelled_cloud, orbit_frames

from synergai.cli.main import main
from synergai.scene.store import SceneStore

UNNAMED = "object"


@pytest.fixture(scope="module")
def cloud(shared_data: Path) -> dict:
    return labelled_cloud(shared_data)


def shown(db: Path, scene: str, capsys) -> list[dict]:
    capsys.readouterr()
    assert main(["scene", "show", "--db", str(db), "--scene", scene, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["objects"]


def stored(db: Path) -> list:
    with SceneStore(db) as store:
        return [(i.id, i.n_objects, i.n_active_edits, i.updated_at) for i in store.scenes()]


def write_frames(d: Path, frames: list) -> Path:
    """ScanNet's exported-frames layout without instance masks."""
    import imageio.v3 as iio

    for sub in ("depth", "color", "pose", "intrinsic"):
        (d / sub).mkdir(parents=True)
    (d / "intrinsic" / "intrinsic_depth.txt").write_text(
        "\n".join(" ".join(map(str, r)) for r in frames[0].intrinsics.tolist()))
    for n, frame in enumerate(frames):
        iio.imwrite(d / "depth" / f"{n}.png", np.round(frame.depth * 1000).astype(np.uint16))
        iio.imwrite(d / "color" / f"{n}.png", frame.color)
        pose = frame.cam_to_world.tolist()
        (d / "pose" / f"{n}.txt").write_text("\n".join(" ".join(map(str, r)) for r in pose))
    return d


@pytest.fixture(scope="module")
def frames_dir(cloud, tmp_path_factory) -> Path:
    return write_frames(tmp_path_factory.mktemp("rgbd") / "frames", orbit_frames(cloud, n=8, size=(180, 240),
                                                                                  f=120.0))


def script(path: Path, replies: list[str]) -> Path:
    path.write_text(json.dumps(replies))
    return path


def test_the_real_cloud_without_instances_is_segmented_and_named_by_talking(cloud, tmp_path, capsys):
    db = tmp_path / "s.db"
    argv = ["scene", "build", "--from", "pointcloud", str(cloud["path"]), "--axis-alignment",
            str(cloud["alignments"]), "--scene-id", SCENE, "--db", str(db)]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"built {SCENE} from pointcloud: ")
    unnamed_line = [line for line in out if "unnamed" in line]
    assert len(unnamed_line) == 1 and 'that is a chair' in unnamed_line[0] and "--mark ID" in unnamed_line[0]
    objects = shown(db, SCENE, capsys)
    labels = [o["label"] for o in objects]
    assert labels.count("floor") == 1 and labels.count("wall") >= 4 and labels.count(UNNAMED) >= 10
    assert set(labels) <= {"floor", "wall", "ceiling", UNNAMED}
    assert all(o["attributes"] for o in objects if o["label"] == UNNAMED)  # each has its colour
    # a person names one: the correction path renames it, and only it
    target = next(o for o in objects if o["label"] == UNNAMED and o["level"] >= 0)
    rename = json.dumps({"thought": "t", "plan": [{"action": "update_name", "action_input": {
        "item_id_list": [target["id"]], "new_name_list": ["chair"]}}]})
    done = json.dumps({"thought": "t", "action": "final_answer", "action_input": {
        "answer": "Noted: it is a chair.", "short_answer": "chair", "item_id_list": [target["id"]]}})
    code = main(["ask", "that is a chair", "--scene", SCENE, "--mark", target["id"], "--db", str(db),
                 "--llm", f"scripted:{script(tmp_path / 'rename.json', [rename, done])}"])
    assert code == 0
    after = {o["id"]: o["label"] for o in shown(db, SCENE, capsys)}
    assert after[target["id"]] == "chair"
    assert {i: lab for i, lab in after.items() if i != target["id"]} == {
        o["id"]: o["label"] for o in objects if o["id"] != target["id"]}
    # unnamed objects export like any other
    out_file = tmp_path / "scene.sceneverse.json"
    assert main(["scene", "export", "--scene", SCENE, "--db", str(db), "--format", "sceneverse",
                 "--out", str(out_file)]) == 0
    exported = json.loads(out_file.read_text())["objects"]
    assert sum(o["label"] == UNNAMED for o in exported) == labels.count(UNNAMED) - 1


def test_rgbd_frames_without_masks_are_fused_and_segmented(cloud, frames_dir, tmp_path, capsys):
    db = tmp_path / "s.db"
    assert main(["scene", "build", "--from", "rgbd", str(frames_dir), "--scene-id", "frames", "--db", str(db),
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["unnamed"] >= 3 and summary["named_by_model"] == 0 and "--mark ID" in summary["note"]
    objects = shown(db, "frames", capsys)
    floor = [o for o in objects if o["label"] == "floor"]
    assert len(floor) == 1 and abs(floor[0]["center"][2] - floor[0]["size"][2] / 2) < 0.1
    lo, hi = cloud["aligned"].min(axis=0) - 0.05, cloud["aligned"].max(axis=0) + 0.05
    for o in objects:  # fused from views of the real scan: inside it
        c, s = np.array(o["center"]), np.array(o["size"])
        assert np.all(c - s / 2 >= lo) and np.all(c + s / 2 <= hi), o


def test_a_scripted_image_model_names_segments_from_their_crops(frames_dir, tmp_path, capsys):
    db = tmp_path / "s.db"
    replies = ["A Chair.", "unknown", "trash can", "this is a very long sentence about it"] + ["lamp"] * 400
    argv = ["scene", "build", "--from", "rgbd", str(frames_dir), "--scene-id", "named", "--db", str(db),
            "--json", "--name-with", f"scripted:{script(tmp_path / 'names.json', replies)}"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    labels = [o["label"] for o in shown(db, "named", capsys)]
    assert "chair" in labels and "trash can" in labels  # articles and full stops cut away
    named = [lab for lab in labels if lab not in ("floor", "wall", "ceiling", UNNAMED)]
    assert summary["named_by_model"] == len(named) >= 3 and set(named) <= {"chair", "trash can", "lamp"}
    assert labels.count(UNNAMED) >= 2  # "unknown" and the sentence leave their segments unnamed


def test_a_bag_without_a_mask_topic_is_segmented_and_named_from_a_second_pass(cloud, tmp_path, capsys):
    from synergai.scene.builders.rosbag_writer import BAG_TOPICS, write_rgbd_bag

    frames = orbit_frames(cloud, n=6, size=(150, 200), f=100.0)
    bag = write_rgbd_bag(tmp_path / "scan.bag", frames, fmt="ros1")
    db = tmp_path / "s.db"
    names = script(tmp_path / "names.json", ["shelf"] + ["unknown"] * 400)
    code = main(["scene", "build", "--from", "rosbag", str(bag), "--depth-topic", BAG_TOPICS["depth"],
                 "--color-topic", BAG_TOPICS["color"], "--camera-info-topic", BAG_TOPICS["camera_info"],
                 "--pose-topic", BAG_TOPICS["pose"], "--scene-id", "bag", "--db", str(db), "--json",
                 "--name-with", f"scripted:{names}"])
    assert code == 0, capsys.readouterr().err
    summary = json.loads(capsys.readouterr().out)
    assert summary["frames"] == 6 and summary["named_by_model"] == 1 and summary["unnamed"] >= 2
    labels = [o["label"] for o in shown(db, "bag", capsys)]
    assert labels.count("shelf") == 1 and labels.count("floor") == 1


class _VisionServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, status: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.status = status
        self.images: list[bytes] = []


class _Handler(BaseHTTPRequestHandler):
    server: _VisionServer

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        content = body["messages"][0]["content"]
        url = next(part["image_url"]["url"] for part in content if part["type"] == "image_url")
        self.server.images.append(base64.b64decode(url.removeprefix("data:image/png;base64,")))
        if self.server.status != 200:
            # a careless server echoes the credentials it was sent
            echoed = f"vision model crashed for {self.headers.get('Authorization')}"
            payload: dict[str, Any] = {"error": {"message": echoed}}
        else:
            payload = {"id": "1", "object": "chat.completion", "created": 0, "model": "fake-vl",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": "box"},
                                    "finish_reason": "stop"}]}
        data = json.dumps(payload).encode()
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(params=[200, 500])
def vision_server(request, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = _VisionServer(request.param)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_an_openai_compatible_endpoint_gets_png_crops(frames_dir, vision_server, tmp_path, capsys):
    from PIL import Image

    db = tmp_path / "s.db"
    url = f"http://127.0.0.1:{vision_server.server_address[1]}/v1"
    code = main(["scene", "build", "--from", "rgbd", str(frames_dir), "--scene-id", "named", "--db", str(db),
                 "--name-with", "openai:fake-vl", "--base-url", url, "--timeout", "20"])
    captured = capsys.readouterr()
    assert vision_server.images and Image.open(io.BytesIO(vision_server.images[0])).mode == "RGB"
    if vision_server.status == 200:
        assert code == 0 and "box" in [o["label"] for o in shown(db, "named", capsys)]
    else:  # the endpoint failed: one line, exit 2, nothing stored
        assert code == 2 and len(captured.err.strip().splitlines()) == 1 and "HTTP 500" in captured.err
        assert stored(db) == []


def test_naming_uses_the_configured_endpoint_and_never_prints_its_key(frames_dir, tmp_path, capsys,
                                                                         monkeypatch):
    server = _VisionServer(401)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        config = tmp_path / "config.toml"
        config.write_text(f'base_url = "http://127.0.0.1:{server.server_address[1]}/v1"\ntimeout = 20\n')
        monkeypatch.setenv("SYNERGAI_CONFIG", str(config))
        monkeypatch.setenv("OPENAI_API_KEY", "sk-naming-secret-4711")
        db = tmp_path / "s.db"
        code = main(["scene", "build", "--from", "rgbd", str(frames_dir), "--scene-id", "named", "--db",
                     str(db), "--name-with", "openai:fake-vl"])
        err = capsys.readouterr().err
    finally:
        server.shutdown()
        server.server_close()
    assert server.images, "the endpoint of the config file was not asked"
    assert code == 2 and len(err.strip().splitlines()) == 1 and "HTTP 401" in err
    assert "sk-naming-secret-4711" not in err and "crashed for" in err
    assert stored(db) == []


def test_bad_input_is_one_line_exit_2_and_leaves_the_store(cloud, frames_dir, tmp_path, capsys):
    db = tmp_path / "s.db"
    assert main(["scene", "build", "--from", "pointcloud", str(cloud["path"]), "--scene-id", "kept",
                 "--db", str(db), "--min-points", "50"]) == 0
    before = stored(db)
    one = tmp_path / "one.npy"
    np.save(one, np.array([[1.0, 2.0, 3.0, 10, 20, 30]]))
    same = tmp_path / "same.npy"
    np.save(same, np.tile([1.0, 2.0, 3.0, 10, 20, 30], (1000, 1)))
    nan = tmp_path / "nan.txt"
    nan.write_text("0 0 0 1 1 1\n1 0 0 1 1 1\nnan 1 0 1 1 1\n1 1 1 1 1 1\n")
    huge = tmp_path / "huge.bin"
    with huge.open("wb") as f:  # 100 MB (sparse: no disk used)
        f.truncate(100 * 2**20)
    cases = [
        (["pointcloud", str(one)], "the cloud has 1 point: nothing to segment"),
        (["pointcloud", str(same)], "all 1000 points of the cloud are at one place"),
        (["pointcloud", str(nan)], "NaN or infinite"),
        (["pointcloud", str(huge)], "holds more than 2,000,000 points"),
        (["pointcloud", str(cloud["path"]), "--name-with", "scripted:x.json"], "--from rgbd or rosbag"),
        (["rgbd", str(frames_dir), "--name-with", "embedded"], "the embedded model reads no images"),
        (["rgbd", str(frames_dir), "--labels", str(tmp_path / "l.json")], "drop --labels"),
    ]
    for argv, message in cases:
        assert main(["scene", "build", "--from", *argv, "--scene-id", "kept", "--db", str(db),
                     "--replace"]) == 2, argv
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and message in err, (argv, err)
    assert stored(db) == before


def _room_file(path: Path) -> Path:
    """A 4 x 4 m room (floor, four walls) with a red box: rows x y z r g b, no instance column."""
    rng = np.random.default_rng(5)
    g = np.arange(0.0, 4.0001, 0.04)
    a, b = (m.ravel() for m in np.meshgrid(g, g[g <= 2.6]))
    f1, f2 = (m.ravel() for m in np.meshgrid(g, g))
    zero = 0 * a
    parts = [np.column_stack([f1, f2, 0 * f1]),
             np.column_stack([zero, a, b]), np.column_stack([zero + 4, a, b]),
             np.column_stack([a, zero, b]), np.column_stack([a, zero + 4, b])]
    box = rng.uniform([1.0, 1.0, 0.02], [1.6, 1.5, 0.7], (4000, 3))
    box[np.arange(4000) % 3 == 0, 2] = 0.7  # its top
    xyz = np.concatenate([*parts, box]) + rng.normal(0, 0.002, (sum(map(len, parts)) + 4000, 3))
    rgb = np.concatenate([np.full((len(xyz) - 4000, 3), 200.0), np.tile([200.0, 30, 30], (4000, 1))])
    np.save(path, np.column_stack([xyz, rgb]))
    return path


def test_segments_are_stored_renamed_and_undone_on_both_backends(store_location, tmp_path, capsys):
    db = str(store_location)
    room = _room_file(tmp_path / "room.npy")
    assert main(["scene", "build", "--from", "pointcloud", str(room), "--db", db, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    objects = shown(db, "room", capsys)
    labels = sorted(o["label"] for o in objects)
    assert labels == ["floor", UNNAMED, "wall", "wall", "wall", "wall"] and summary["unnamed"] == 1
    box = next(o for o in objects if o["label"] == UNNAMED)
    assert box["attributes"] == ["red"] and abs(box["center"][0] - 1.3) < 0.05
    rename = json.dumps({"thought": "t", "plan": [{"action": "update_name", "action_input": {
        "item_id_list": [box["id"]], "new_name_list": ["cabinet"]}}]})
    done = json.dumps({"thought": "t", "action": "final_answer", "action_input": {
        "answer": "It is a cabinet.", "short_answer": "cabinet", "item_id_list": [box["id"]]}})
    assert main(["ask", "that is a cabinet", "--scene", "room", "--mark", box["id"], "--db", db,
                 "--llm", f"scripted:{script(tmp_path / 'r.json', [rename, done])}"]) == 0
    assert {o["id"]: o["label"] for o in shown(db, "room", capsys)}[box["id"]] == "cabinet"
    assert main(["scene", "undo", "--scene", "room", "--db", db]) == 0
    assert shown(db, "room", capsys) == objects
