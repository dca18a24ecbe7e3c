"""CLI smoke tests: scene list / show / edits / undo / export, eval relations, and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from synergai.cli.main import main


def run(*args: str) -> subprocess.CompletedProcess:
    """``python -m synergai ARGS`` in a child (where the process matters; else the ``cli`` fixture)."""
    return subprocess.run([sys.executable, "-m", "synergai", *args], capture_output=True, text=True)


def test_scene_show_json_shape(tmp_path, capsys):
    assert main(["scene", "show", "--db", str(tmp_path / "s.db"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scene"] == "demo"
    assert len(data["objects"]) >= 40
    obj = data["objects"][0]
    assert set(obj) == {"id", "label", "center", "size", "attributes", "level"}
    rels = {(r["subject"], r["relation"], r["object"]) for r in data["relations"]}
    labels = {o["id"]: o["label"] for o in data["objects"]}
    assert any(labels[s] == "tv" and r == "mounted_on" and labels[o] == "wall" for s, r, o in rels)
    assert any(labels[s] == "book" and r == "inside" and labels[o] == "bookshelf" for s, r, o in rels)
    assert any(labels[s] == "picture" and r == "hanging_on" and labels[o] == "wall" for s, r, o in rels)


def test_scene_list_edits_undo_and_export(tmp_path, capsys, shared_data):
    db = str(tmp_path / "s.db")
    objects = str(shared_data / "scannet" / "objects_gt.json")
    assert main(["scene", "list", "--db", db, "--objects", objects, "--json"]) == 0
    ids = [s["id"] for s in json.loads(capsys.readouterr().out)["scenes"]]
    assert ids[:2] == ["demo", "house"] and "scene0011_00" in ids and len(ids) == 104
    assert main(["scene", "edits", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["edits"] == []
    assert main(["scene", "undo", "--db", db]) == 0
    assert "nothing to undo" in capsys.readouterr().out
    out = tmp_path / "g.json"
    for fmt in ("json", "networkx", "sceneverse", "conceptgraphs"):
        assert (
            main(
                [
                    "scene",
                    "export",
                    "--db",
                    db,
                    "--scene",
                    "scene0011_00",
                    "--objects",
                    objects,
                    "--format",
                    fmt,
                    "--out",
                    str(out),
                ]
            )
            == 0
        )
        assert json.loads(out.read_text())
    capsys.readouterr()
    # the exported own JSON imports into a fresh store under the same id
    main(["scene", "export", "--db", db, "--format", "json", "--out", str(out)])
    capsys.readouterr()
    assert main(["scene", "import", str(out), "--db", str(tmp_path / "other.db"), "--json"]) == 0
    imported = json.loads(capsys.readouterr().out)
    assert imported["scene"] == "demo" and imported["objects"] >= 40 and imported["relations"] > 0


def test_edits_and_undo_through_the_cli(tmp_path, cli):
    from synergai.scene.edits import rename_object
    from synergai.scene.store import SceneStore

    db = tmp_path / "s.db"
    assert cli("scene", "show", "--db", str(db), "--json").returncode == 0
    with SceneStore(db) as store:
        g = store.load("demo")
        store.apply("demo", rename_object(g, "24", "saucer", "user", "that plate is a saucer"))
    edits = json.loads(cli("scene", "edits", "--db", str(db), "--json").stdout)["edits"]
    assert [(e["op"], e["actor"], e["utterance"]) for e in edits] == [
        ("update_name", "user", "that plate is a saucer")
    ]
    shown = json.loads(cli("scene", "show", "--db", str(db), "--json").stdout)
    assert {o["id"]: o["label"] for o in shown["objects"]}["24"] == "saucer"
    undone = cli("scene", "undo", "--db", str(db))
    assert undone.returncode == 0 and "undone" in undone.stdout
    shown = json.loads(cli("scene", "show", "--db", str(db), "--json").stdout)
    assert {o["id"]: o["label"] for o in shown["objects"]}["24"] == "plate"


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ('{"scenes": {"s1": [{"id": 1}]}}', "s1"),
        ("ply\nformat ascii 1.0\nelement vertex 3\n", "not valid JSON"),
        # each of these used to exit 2 *after* registering a scene no later command could read
        ('{"s1": [{"id": 1, "label": "cup", "center_position": [0, 0, 1], "size": [1, 1, 1], '
         '"avg_rgba": [300, 0, 0]}]}', "0..255"),
        ('{"s1": [{"id": 1, "label": "", "center_position": [0, 0, 1], "size": [1, 1, 1]}]}', "label"),
        ('{"": [{"id": 1, "label": "cup", "center_position": [0, 0, 1], "size": [1, 1, 1]}], '
         '"s1": [{"id": 1, "label": "cup", "center_position": [0, 0, 1], "size": [1, 1, 1]}]}',
         "scene id must not be empty"),
        ("[" * 50000 + "]" * 50000, "not valid JSON"),
    ],
)
def test_bad_objects_file_is_one_line_error_exit_2(tmp_path, content, message, cli):
    db = tmp_path / "s.db"
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    before = cli("scene", "show", "--db", str(db), "--json")
    assert before.returncode == 0
    snapshot = db.read_bytes()
    r = cli("scene", "show", "--db", str(db), "--objects", str(bad), "--scene", "s1")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert message in r.stderr
    assert db.read_bytes() == snapshot


def test_unknown_scene_and_object_are_clear_errors(tmp_path, cli):
    db = str(tmp_path / "s.db")
    r = cli("scene", "show", "--db", db, "--scene", "scene9999_00")
    assert r.returncode == 2 and "unknown scene 'scene9999_00'" in r.stderr and "Traceback" not in r.stderr
    r = cli("ask", "what is this?", "--db", db, "--mark", "9999", "--llm", "scripted:/nonexistent.json")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_eval_relations_json(tmp_path, shared_data, cli):
    records = json.loads((shared_data / "sr3d" / "sr3d_test_relations_dev.json").read_text())
    subset = tmp_path / "sr3d.json"
    subset.write_text(json.dumps(records[::40]))
    r = cli(
        "eval",
        "relations",
        "--relations",
        str(subset),
        "--objects",
        str(shared_data / "scannet" / "objects_gt.json"),
        "--json",
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["n"] == len(records[::40])
    assert 0.8 <= data["accuracy"] <= 1.0
    assert set(data["by_relation"]) >= {"closest", "farthest"}
    assert all(set(v) == {"n", "accuracy"} for v in data["by_relation"].values())
    bad = cli(
        "eval",
        "relations",
        "--relations",
        str(Path(tmp_path / "missing.json")),
        "--objects",
        str(shared_data / "scannet" / "objects_gt.json"),
    )
    assert bad.returncode == 2 and "cannot read" in bad.stderr


def test_scene_list_does_not_wait_for_a_writer(tmp_path, cli):
    import sqlite3
    import time

    db = tmp_path / "s.db"
    assert cli("scene", "show", "--db", str(db), "--json").returncode == 0
    writer = sqlite3.connect(db, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        writer.execute("UPDATE scenes SET updated_at = 'x'")
        t0 = time.monotonic()
        assert main(["scene", "list", "--db", str(db), "--json"]) == 0
        assert time.monotonic() - t0 < 1.0
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_db_pointing_at_another_programs_sqlite_file_is_refused_untouched(tmp_path):
    import sqlite3

    db = tmp_path / "notes.sqlite"
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE notes (body TEXT)")
    c.close()
    before = db.read_bytes()
    r = run("scene", "list", "--db", str(db))  # a real process: its exit code and its stderr
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "not a synergai scene store" in r.stderr
    assert db.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite"]


def test_a_corrupted_store_is_a_one_line_error(tmp_path):
    db = tmp_path / "s.db"
    assert run("scene", "show", "--db", str(db), "--json").returncode == 0
    data = bytearray(db.read_bytes())
    for off in range(2 * 4096, len(data), 4096):  # every page but the header's
        data[off:off + 64] = b"\xff" * 64
    db.write_bytes(bytes(data))
    for cmd in (("scene", "list"), ("scene", "show"), ("scene", "edits")):
        r = run(*cmd, "--db", str(db))
        assert r.returncode == 2, (cmd, r.stderr)
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
        assert "malformed" in r.stderr


def test_scanqa_without_java_stops_before_the_first_question(tmp_path, shared_data):
    """METEOR needs Java: without it the run refuses to start (one line with the fix), answering nothing."""
    out = tmp_path / "out"
    script = tmp_path / "script.json"
    script.write_text("[]")  # any model call would fail: none may happen
    r = subprocess.run(
        [sys.executable, "-m", "synergai", "eval", "scanqa", "--questions",
         str(shared_data / "scanqa" / "scanqa_val_dev.json"), "--objects",
         str(shared_data / "scannet" / "objects_gt.json"), "--limit", "2", "--llm", f"scripted:{script}",
         "--out", str(out)],
        capture_output=True, text=True, env={**os.environ, "PATH": str(tmp_path / "no-bin")})
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "needs Java" in r.stderr and "--no-meteor" in r.stderr
    assert not (out / "results.jsonl").exists()


@pytest.mark.parametrize("argv", [["scene", "show", "--json"], ["scene", "list"]])
def test_a_command_closes_the_store_it_opened(tmp_path, capsys, argv):
    """The store is closed when the command returns, not whenever the garbage collector runs: its log is
    written into the file, so the file is the same bytes to whoever reads it next."""
    import gc

    db = tmp_path / "s.db"
    gc.disable()
    try:
        assert main([*argv, "--db", str(db)]) == 0
        left = sorted(p.name for p in tmp_path.iterdir())
        size = db.stat().st_size
    finally:
        gc.enable()
    assert left == ["s.db"] and size > 8192
