"""The tabletop's perception: the simulator's object boxes, optionally degraded like a real detector
(objects missed, positions jittered), turned into a scene graph by :func:`synergai.scene.build.build_graph`.

Every scan is a fresh detection. Objects in ``PerceptionNoise.missing`` are occluded in the first scan
only (a rescan finds them: what MultiTalk's "Perception Rerun Required" is for); ``drop_rate`` and
``position_sigma`` apply to every scan, drawn from a seeded generator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from synergai.geometry.frames import vec3
from synergai.robots.errors import RobotError
from synergai.robots.tabletop.objects import ObjectState
from synergai.scene.attributes import color_name
from synergai.scene.build import build_graph
from synergai.scene.model import Relation, SceneGraph, SceneObject

if TYPE_CHECKING:
    from synergai.robots.tabletop.sim import TabletopSim

TABLE_ID = "table"
_RELATION_WORDS = MappingProxyType({Relation.SUPPORTED_BY: "on", Relation.INSIDE: "in", Relation.NEAR: "near",
                                    Relation.NEXT_TO: "near", Relation.BESIDE: "near"})


@dataclass(frozen=True)
class PerceptionNoise:
    """How the detector errs: occluded-at-first objects, a per-scan miss rate, xy jitter (metres)."""

    missing: tuple[str, ...] = ()
    drop_rate: float = 0.0
    position_sigma: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.drop_rate < 1.0:
            raise RobotError(f"drop_rate must be in [0, 1), got {self.drop_rate}")
        if not (self.position_sigma >= 0.0 and np.isfinite(self.position_sigma)):
            raise RobotError(f"position_sigma must be a finite number >= 0, got {self.position_sigma}")


class TabletopPerception:
    """Scans a :class:`TabletopSim` into scene graphs."""

    def __init__(self, sim: TabletopSim, noise: PerceptionNoise | None = None) -> None:
        self.sim = sim
        self.noise = noise or PerceptionNoise()
        unknown = set(self.noise.missing) - set(sim.names)
        if unknown:
            raise RobotError(f"perception noise names unknown objects: {', '.join(sorted(unknown))}")
        self._rng = np.random.default_rng(self.noise.seed)
        self.scans = 0

    def scan(self) -> SceneGraph:
        """Detect the objects now on the table and build their scene graph (the table included)."""
        first = self.scans == 0
        self.scans += 1
        seen: dict[str, ObjectState] = {}
        for name, st in self.sim.states().items():
            if (first and name in self.noise.missing) or self._rng.random() < self.noise.drop_rate:
                continue
            if self.noise.position_sigma > 0:
                c = np.asarray(st.center, dtype=float)
                c[:2] += self._rng.normal(0.0, self.noise.position_sigma, 2)
                st = ObjectState(st.name, st.category, vec3(c), st.size, st.upright,
                                 st.color)
            seen[name] = st
        return tabletop_graph(seen, self.sim.table_box())


def tabletop_graph(states: Mapping[str, ObjectState],
                   table: tuple[Sequence[float], Sequence[float]] | None = None,
                   scene_id: str = "tabletop") -> SceneGraph:
    """The scene graph of objects on the table (and the table, given its (centre, size)), built by the
    same :func:`~synergai.scene.build.build_graph` the agent's scenes use; ids are the objects' names."""
    objects = []
    if table is not None:
        objects.append(SceneObject(TABLE_ID, "table", vec3(table[0]), vec3(table[1]), (255, 255, 255),
                                   ("white",), provenance="sim-perception"))
    for name, st in states.items():
        objects.append(SceneObject(name, st.category, st.center, st.size, st.color, (color_name(st.color),),
                                   provenance="sim-perception"))
    return build_graph(scene_id, objects, scene_type="tabletop")


def movable_objects(graph: SceneGraph) -> list[SceneObject]:
    """The objects on the table (not the table, floor or walls)."""
    return [o for o in graph if o.id != TABLE_ID and o.kind.value == "object"]


def environment_text(graph: SceneGraph) -> str:
    """MultiTalk's environment dict: ``{name: ((length, width, height), (x, y, z))}``, rounded to cm."""
    parts = []
    for o in movable_objects(graph):
        size = ", ".join(f"{round(v, 3):g}" for v in o.size)
        center = ", ".join(f"{round(v, 2):g}" for v in o.center)
        parts.append(f'"{o.id}": (({size}), ({center}))')
    return "{" + ", ".join(parts) + "}"


def relations_text(graph: SceneGraph, ids: Sequence[str] | None = None) -> str:
    """MultiTalk's observed relations ``[((holder, object), 'on'), ...]`` over stored edges."""
    keep = set(ids) if ids is not None else {o.id for o in movable_objects(graph)} | {TABLE_ID}
    out = []
    for e in graph.edges:
        word = _RELATION_WORDS.get(e.relation)
        if word and e.subject in keep and e.object in keep:
            out.append(f"(('{e.object}', '{e.subject}'), '{word}')")
    return "[" + ", ".join(out) + "]"
