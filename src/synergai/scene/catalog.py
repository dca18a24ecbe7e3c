"""Where scenes come from: the built-in demo apartment and house, an objects file, or the store; one
place to open them.

The first time a scene is opened it is built (objects -> relation graph) and registered in the store
as its base state; afterwards the store's current state (base + edit log) is what every face sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from synergai.scene.builders.objects_json import ObjectsFile, load_objects_file
from synergai.scene.model import SceneError, SceneGraph
from synergai.scene.store import SceneStore

if TYPE_CHECKING:  # building and meshes import scipy / trimesh: only when a scene is built
    from synergai.geometry.mesh import TriMesh
    from synergai.scene.builders.demo import DemoScene

DEMO_SCENE_ID = "demo"
#: The built-in several-room house (``synergai.scene.builders.house``).
HOUSE_SCENE_ID = "house"
BUILT_IN_SCENES = (DEMO_SCENE_ID, HOUSE_SCENE_ID)


@dataclass
class SceneCatalog:
    """Opens scenes by id from the demo builder, an optional objects file and the store."""

    store: SceneStore
    objects_path: Path | None = None

    @cached_property
    def objects_file(self) -> ObjectsFile | None:
        """The parsed objects file, when one was given."""
        if self.objects_path is None:
            return None
        return load_objects_file(self.objects_path)

    @cached_property
    def demo(self) -> DemoScene:
        """The built-in demo apartment (built once per catalog)."""
        from synergai.scene.builders.demo import demo_scene

        return demo_scene()

    def scene_ids(self) -> list[str]:
        """Every scene that can be opened: the built-in ones, the objects file's, and the store's."""
        ids = list(BUILT_IN_SCENES)
        if self.objects_file is not None:
            ids += self.objects_file.scene_ids
        ids += [info.id for info in self.store.scenes()]
        return list(dict.fromkeys(ids))

    def _file_with(self, scene_id: str) -> ObjectsFile | None:
        """The objects file, when it holds the scene."""
        objects_file = self.objects_file
        return objects_file if objects_file is not None and scene_id in objects_file.scene_ids else None

    def _in_file(self, scene_id: str) -> bool:
        return self._file_with(scene_id) is not None

    def _source(self, scene_id: str) -> dict[str, object]:
        """How the scene would be built (the store keys its base graph by this)."""
        if self.objects_path is not None and self._in_file(scene_id):
            return {"builder": "objects_json", "path": str(Path(self.objects_path).resolve()),
                    "scene": scene_id}
        if scene_id == DEMO_SCENE_ID:
            return {"builder": "demo", "version": 1}
        if scene_id == HOUSE_SCENE_ID:
            return {"builder": "house", "version": 1}
        raise SceneError(
            f"unknown scene {scene_id!r}: not a built-in scene ({', '.join(BUILT_IN_SCENES)}), "
            "not in the objects file"
            f"{'' if self.objects_path else ' (none given: use --objects PATH)'}, and not in the store"
        )

    def _build(self, scene_id: str) -> SceneGraph:
        from synergai.scene.build import build_graph  # lazy: listing scenes needs no relation engine

        objects_file = self._file_with(scene_id)
        if objects_file is not None:
            objs = objects_file.objects(scene_id)
            return build_graph(scene_id, objs, scene_type=objects_file.scene_type(scene_id))
        if scene_id == HOUSE_SCENE_ID:
            from synergai.scene.builders.house import house_objects, house_rooms

            return build_graph(HOUSE_SCENE_ID, house_objects(), scene_type="House", rooms=house_rooms())
        return build_graph(self.demo.scene_id, self.demo.objects, scene_type=self.demo.scene_type)

    def ensure(self, scene_id: str = DEMO_SCENE_ID) -> None:
        """Register the scene (built on first use) unless the store already has it from the same source.

        A scene of the objects file that the store holds from another source is refused (the store keeps
        its edits; another --db or ``scene drop`` starts afresh).
        """
        if self.store.has_scene(scene_id) and not self._in_file(scene_id):
            return
        source = self._source(scene_id)
        if self.store.has_scene(scene_id) and self.store.source(scene_id) == source:
            return
        try:
            self.store.register(self._build(scene_id), source)
        except SceneError as exc:
            raise SceneError(f"{exc} (use another --db, or `synergai scene drop --scene {scene_id}`)") \
                from None

    def open(self, scene_id: str = DEMO_SCENE_ID) -> SceneGraph:
        """The scene's current graph (built and registered on first use, see :meth:`ensure`)."""
        self.ensure(scene_id)
        return self.store.load(scene_id)

    def meshes(self, scene_id: str) -> dict[str, TriMesh]:
        """Per-object meshes where the source has them (the demo does; box-only files do not)."""
        if scene_id == DEMO_SCENE_ID:
            return dict(self.demo.meshes)
        return {}
