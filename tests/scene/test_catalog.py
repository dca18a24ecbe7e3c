"""The scene catalog: scenes are built once, then read from the store (on both databases)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synergai.scene.catalog import SceneCatalog
from synergai.scene.model import Relation, SceneError
from synergai.scene.store import SceneStore

OBJECTS = {"s1": [{"id": 1, "label": "table", "center_position": [0, 0, 0.375], "size": [1.2, 0.8, 0.75]},
                  {"id": 2, "label": "cup", "center_position": [0.1, 0, 0.8], "size": [0.08, 0.08, 0.1]}]}


def test_a_registered_scene_is_not_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           store_location: str | Path) -> None:
    path = tmp_path / "objects.json"
    path.write_text(json.dumps(OBJECTS), encoding="utf-8")
    with SceneStore(store_location) as store:
        catalog = SceneCatalog(store, path)
        assert catalog.open("s1").has_edge("2", Relation.SUPPORTED_BY, "1")

        def no_build(scene_id: str) -> None:
            raise AssertionError(f"{scene_id} rebuilt")

        monkeypatch.setattr(catalog, "_build", no_build)
        catalog.ensure("s1")
        assert len(catalog.open("s1")) == 3  # two objects and the synthetic floor
        other = SceneCatalog(store, tmp_path / "elsewhere.json")
        (tmp_path / "elsewhere.json").write_text(json.dumps(OBJECTS), encoding="utf-8")
        monkeypatch.undo()
        with pytest.raises(SceneError, match="already registered"):  # same id, another source
            other.ensure("s1")
        with pytest.raises(SceneError, match="unknown scene 'nope'"):
            catalog.ensure("nope")
