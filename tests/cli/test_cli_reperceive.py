"""`scene import --update` and `scene build --update` (issue 39): a new perception of a stored scene keeps
people's corrections; `--json` prints one document; bad input is one line on stderr, exit 2, and the
store exactly as it was; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from synergai.cli.main import main
from synergai.scene import edits as E
from synergai.scene.model import Edge, ObjectKind, Relation, SceneGraph, SceneObject
from synergai.scene.serialization import dumps
from synergai.scene.store import SceneStore

KEYS = {"scene", "matched", "added", "removed", "carried", "conflicts"}


def kitchen(offset: int = 0, shift: float = 0.0, drop: str = "") -> SceneGraph:
    objs = [SceneObject("1", "floor", (2, 2, -0.05), (4, 4, 0.1), kind=ObjectKind.FLOOR),
            SceneObject("2", "table", (2, 2, 0.4), (1.2, 0.8, 0.8)),
            SceneObject("3", "box", (2.1, 2, 0.9), (0.4, 0.3, 0.2)),
            SceneObject("4", "chair", (1, 2, 0.45), (0.5, 0.5, 0.9)),
            SceneObject("5", "lamp", (3.5, 3.5, 0.6), (0.3, 0.3, 1.2))]
    objs = [o.with_changes(id=str(int(o.id) + offset), center=(o.center[0] + shift, *o.center[1:]))
            for o in objs if o.id != drop]
    edges = [Edge(str(int(s) + offset), Relation.SUPPORTED_BY, str(int(o) + offset))
             for s, o in (("2", "1"), ("3", "2"), ("4", "1"), ("5", "1")) if drop not in (s, o)]
    return SceneGraph("kitchen", objs, edges)


@pytest.fixture
def db(store_location: str | Path, tmp_path: Path) -> str:
    """A store holding the kitchen, where a person said the box is a printer."""
    (tmp_path / "first.json").write_text(dumps(kitchen()))
    assert main(["scene", "import", str(tmp_path / "first.json"), "--db", str(store_location)]) == 0
    with SceneStore(store_location) as s:
        s.apply("kitchen", E.rename_object(s.load("kitchen"), "3", "printer", "user", "that is a printer"))
    return str(store_location)


def state(db: str) -> tuple[str, int, int]:
    with SceneStore(db) as s:
        return dumps(s.load("kitchen")), len(s.edits("kitchen", include_undone=True)), s.last_event()


def test_import_update_prints_one_document_and_keeps_the_correction(db: str, tmp_path: Path, capsys) -> None:
    path = tmp_path / "again.json"
    path.write_text(dumps(kitchen(offset=10, shift=0.03, drop="5")))
    capsys.readouterr()
    assert main(["scene", "import", str(path), "--update", "--db", db, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == KEYS and doc["matched"] == 4 and doc["removed"] == 1 and doc["carried"] == 1
    assert doc["conflicts"] == []
    with SceneStore(db) as s:
        g = s.load("kitchen")
        assert g.get("3").category == "printer" and "5" not in g
        assert s.edits("kitchen")[-1].who == "perception:json"
    assert main(["scene", "undo", "--scene", "kitchen", "--db", db]) == 0


def test_import_update_text_names_the_conflict(db: str, tmp_path: Path, capsys) -> None:
    path = tmp_path / "again.json"
    path.write_text(dumps(kitchen(offset=10, drop="3")))
    capsys.readouterr()
    assert main(["scene", "import", str(path), "--update", "--db", db]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("updated kitchen from json: 4 matched, 0 added, 1 removed, 0 edit(s) carried, "
                      "1 conflict(s)")
    assert out[1].startswith("conflict: edit #1: object 3 (printer) is not in the new perception")
    assert out[2] == "undo it with: synergai scene undo --scene kitchen"


def test_build_update_from_a_point_cloud_keeps_the_correction(tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(0)

    def cloud(shift: float) -> Path:
        rows = []
        for inst, lo, hi in ((1, (0, 0, 0), (1.2, 0.8, 0.75)), (2, (0.3, 0.3, 0.75), (0.6, 0.5, 0.9)),
                             (3, (2, 0, 0), (2.5, 0.5, 0.9))):
            pts = rng.uniform(lo, hi, size=(400, 3)) + np.array([shift, 0, 0])
            rows.append(np.hstack([pts, np.full((400, 3), 128.0), np.full((400, 1), inst)]))
        path = tmp_path / f"cloud{shift}.txt"
        np.savetxt(path, np.vstack(rows))
        return path

    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"1": "table", "2": "box", "3": "chair"}))
    db = str(tmp_path / "s.sqlite3")
    common = ["--labels", str(labels), "--scene-id", "desk", "--db", db]
    assert main(["scene", "build", "--from", "pointcloud", str(cloud(0.0)), *common]) == 0
    with SceneStore(db) as s:
        n, box = len(s.load("desk")), next(o.id for o in s.load("desk") if o.category == "box")
        s.apply("desk", E.rename_object(s.load("desk"), box, "printer", "user"))
    capsys.readouterr()
    again = ["scene", "build", "--from", "pointcloud", str(cloud(0.02)), *common, "--update", "--json"]
    assert main(again) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == {"scene": "desk", "matched": n, "added": 0, "removed": 0, "carried": 1, "conflicts": []}
    with SceneStore(db) as s:
        assert s.load("desk").get(box).category == "printer"
        assert s.edits("desk")[-1].who == "perception:pointcloud"


def test_another_scene_is_refused_unless_replace(db: str, tmp_path: Path, capsys) -> None:
    far = SceneGraph("kitchen", [o.with_changes(id=f"x{o.id}", center=(o.center[0] + 40, *o.center[1:]))
                                 for o in kitchen()])
    path = tmp_path / "far.json"
    path.write_text(dumps(far))
    before = state(db)
    capsys.readouterr()
    assert main(["scene", "import", str(path), "--update", "--db", db]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "looks like another scene" in err and "--replace" in err
    assert state(db) == before
    assert main(["scene", "import", str(path), "--update", "--replace", "--db", db, "--json"]) == 0
    with SceneStore(db) as s:
        assert sorted(s.load("kitchen").ids) == sorted(f"x{i}" for i in "12345")


def _bad_files(tmp_path: Path) -> dict[str, Path]:
    doc = json.loads(dumps(kitchen(offset=10)))
    empty = dict(doc, objects=[], edges=[])
    nan = json.loads(dumps(kitchen(offset=10)))
    nan["objects"][1]["size"][0] = float("nan")
    files = {"empty": json.dumps(empty), "nan": json.dumps(nan).replace("NaN", "NaN")}
    out = {}
    for name, text in files.items():
        out[name] = tmp_path / f"{name}.json"
        out[name].write_text(text)
    big = tmp_path / "big.json"
    with big.open("wb") as f:  # 100 MB (sparse: NUL bytes), no JSON at all
        f.truncate(100 * 2**20)
    out["100MB"] = big
    return out


@pytest.mark.parametrize("case", ["empty", "nan", "100MB"])
def test_bad_input_is_one_line_exit_2_and_the_store_as_it_was(db: str, tmp_path: Path, capsys,
                                                              case: str) -> None:
    path = _bad_files(tmp_path)[case]
    before = state(db)
    capsys.readouterr()
    assert main(["scene", "import", str(path), "--update", "--db", db, "--scene-id", "kitchen"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert captured.err.startswith("synergai: error: ")
    assert state(db) == before


@pytest.mark.parametrize("fmt", ["sceneverse", "conceptgraphs"])
def test_import_update_reads_every_format(db: str, tmp_path: Path, capsys, fmt: str) -> None:
    from synergai.scene import export

    again = kitchen(offset=10, shift=0.03)
    doc = export.to_sceneverse(again) if fmt == "sceneverse" else export.to_conceptgraphs(again)
    path = tmp_path / f"again.{fmt}.json"
    path.write_text(json.dumps(doc))
    capsys.readouterr()
    argv = ["scene", "import", str(path), "--format", fmt, "--scene-id", "kitchen", "--update", "--db", db,
            "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["matched"] == 5 and report["carried"] == 1 and report["conflicts"] == []
    with SceneStore(db) as s:
        assert s.load("kitchen").get("3").category == "printer"
        assert s.edits("kitchen")[-1].who == f"perception:{fmt}"
