"""Click-to-mark: the first drawn object a click ray hits (object meshes, or boxes for objects without one).

Objects with a mesh are tested on their triangles (:class:`~synergai.geometry.raycast.RayPicker`); objects
without one on their box (slab test). The nearer of the two hits wins. Only the objects the user can see
are pickable (hidden walls or ceiling never catch a click).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from synergai.geometry.mesh import TriMesh
from synergai.geometry.raycast import PickHit, RayPicker, pick_boxes
from synergai.scene.model import SceneGraph

Vector = Sequence[float] | np.ndarray


class ScenePicker:
    """Picks among ``ids`` of ``graph``: meshes where given, else boxes."""

    def __init__(self, graph: SceneGraph, meshes: Mapping[str, TriMesh], ids: Iterable[str] | None = None,
                 *, ray_picker: Callable[[frozenset[str]], RayPicker] | None = None) -> None:
        """``ray_picker`` may supply (e.g. from a cache) the mesh picker for a set of meshed ids."""
        wanted = list(graph.ids if ids is None else ids)
        present = [i for i in wanted if i in graph]
        meshed = frozenset(i for i in present if i in meshes and meshes[i].n_faces > 0)
        self.box_ids: list[str] = [i for i in present if i not in meshed]
        self._boxes = graph.box_array(self.box_ids)
        self._mesh_picker: RayPicker | None = None
        if meshed:
            build = ray_picker or (lambda ids: RayPicker({i: meshes[i] for i in ids}))
            self._mesh_picker = build(meshed)
        self.ids = frozenset(present)

    def hit(self, origin: Vector, direction: Vector) -> PickHit | None:
        """The nearest hit along the ray, or None."""
        hits = []
        if self._mesh_picker is not None:
            hits.append(self._mesh_picker.pick(origin, direction))
        if self.box_ids:
            hits.append(pick_boxes(self._boxes, self.box_ids, origin, direction))
        found = [h for h in hits if h is not None]
        return min(found, key=lambda h: h.distance) if found else None

    def pick(self, origin: Vector, direction: Vector) -> str | None:
        """Id of the first object the ray hits, or None."""
        h = self.hit(origin, direction)
        return None if h is None else h.object_id
