"""A stored scene as the tabletop's world, and the simulator's positions back in the scene's frame.

The table is the scene's surface whose objects (stored ``supported_by`` edges; floors, walls and ceilings
are not surfaces) the arm's workspace takes the most of (then the one holding the most; the first of
equals). The objects it holds become the simulator's objects: boxes of their stored size and colour
(cylinders when their attributes say ``cylindrical`` or ``round``), named by category (numbered in id
order when a category repeats: ``cup 1``, ``cup 2``). The frame puts the table top's centre at the centre
of the arm's workspace, its top at z = 0, and turns the scene a quarter turn when the table is longer
along the scene's x than along its y (the workspace is longest along the arm's y).
Objects whose centre falls outside the workspace, or whose footprint overlaps an object already placed,
are left out (listed in :attr:`StoredTable.left_out`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from synergai.robots.errors import RobotError
from synergai.robots.tabletop.objects import ObjectSpec, TableBounds
from synergai.scene.model import ObjectKind, Relation, SceneGraph, SceneObject

_ROUND = frozenset({"cylindrical", "round"})
_GREY = (180, 180, 180)


@dataclass(frozen=True)
class TableFrame:
    """Scene <-> simulator: the table top's centre in the scene (``top``), the workspace centre it maps
    to, and whether the scene is turned a quarter turn (scene +x becomes the arm's +y)."""

    top: tuple[float, float, float]
    workspace_center: tuple[float, float]
    quarter_turn: bool

    def to_sim(self, center: Sequence[float]) -> tuple[float, float]:
        dx, dy = center[0] - self.top[0], center[1] - self.top[1]
        if self.quarter_turn:
            dx, dy = -dy, dx
        return (self.workspace_center[0] + dx, self.workspace_center[1] + dy)

    def to_scene(self, sim_center: Sequence[float]) -> tuple[float, float, float]:
        dx, dy = sim_center[0] - self.workspace_center[0], sim_center[1] - self.workspace_center[1]
        if self.quarter_turn:
            dx, dy = dy, -dx
        return (self.top[0] + dx, self.top[1] + dy, self.top[2] + sim_center[2])

    def size_to_sim(self, size: Sequence[float]) -> tuple[float, float, float]:
        return (size[1], size[0], size[2]) if self.quarter_turn else (size[0], size[1], size[2])


@dataclass(frozen=True)
class StoredTable:
    """The tabletop world a stored scene gives: the table, the frame, the objects and their stored ids."""

    scene_id: str
    table: SceneObject
    frame: TableFrame
    objects: tuple[ObjectSpec, ...]
    ids: Mapping[str, str]  # simulator name -> stored object id
    left_out: tuple[str, ...]  # stored ids on the table that the simulator does not hold, with why


def _held_by(graph: SceneGraph) -> dict[str, list[SceneObject]]:
    """Surface id -> the objects a stored ``supported_by`` edge puts on it."""
    out: dict[str, list[SceneObject]] = {}
    for e in graph.edges:
        if e.relation is Relation.SUPPORTED_BY and e.subject in graph and e.object in graph:
            holder, obj = graph.get(e.object), graph.get(e.subject)
            if holder.kind is ObjectKind.OBJECT and obj.kind is ObjectKind.OBJECT:
                out.setdefault(holder.id, []).append(obj)
    return out


def _names(objects: Sequence[SceneObject]) -> dict[str, str]:
    """Stored id -> a readable, unique simulator name (category, numbered when it repeats)."""
    count: dict[str, int] = {}
    for o in objects:
        count[o.category] = count.get(o.category, 0) + 1
    seen: dict[str, int] = {}
    names = {}
    for o in objects:
        seen[o.category] = seen.get(o.category, 0) + 1
        names[o.id] = o.category if count[o.category] == 1 else f"{o.category} {seen[o.category]}"
    return names


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return abs(a[0] - b[0]) * 2 < a[2] + b[2] and abs(a[1] - b[1]) * 2 < a[3] + b[3]


def _on_table(graph: SceneGraph, table: SceneObject, held: Sequence[SceneObject],
              bounds: TableBounds) -> StoredTable:
    """The world ``table`` and the objects it holds make (those the workspace cannot take left out)."""
    top = (table.center[0], table.center[1], table.center[2] + table.size[2] / 2)
    frame = TableFrame(top, ((bounds.x[0] + bounds.x[1]) / 2, (bounds.y[0] + bounds.y[1]) / 2),
                       table.size[0] > table.size[1])
    on_table = sorted(held, key=lambda o: (len(o.id), o.id))
    names = _names(on_table)
    specs: list[ObjectSpec] = []
    footprints: list[tuple[float, float, float, float]] = []
    ids: dict[str, str] = {}
    left_out: list[str] = []
    for o in on_table:
        x, y = frame.to_sim(o.center)
        sx, sy, sz = frame.size_to_sim(o.size)
        if not bounds.contains(x, y):
            left_out.append(f"{o.id} ({o.category}): outside the arm's workspace")
            continue
        round_ = bool(_ROUND & set(o.attributes))
        if round_:
            sx = sy = max(sx, sy)
        box = (x, y, sx, sy)
        if any(_overlap(box, other) for other in footprints):
            left_out.append(f"{o.id} ({o.category}): overlaps another object on the table")
            continue
        try:
            spec = ObjectSpec(names[o.id], o.category, (x, y), "cylinder" if round_ else "box",
                              (max(sx, 0.01), max(sy, 0.01), max(sz, 0.01)), o.color or _GREY)
        except RobotError as exc:
            left_out.append(f"{o.id} ({o.category}): {exc}")
            continue
        specs.append(spec)
        footprints.append(box)
        ids[spec.name] = o.id
    return StoredTable(graph.scene_id, table, frame, tuple(specs), ids, tuple(left_out))


def table_from_scene(graph: SceneGraph, bounds: TableBounds | None = None) -> StoredTable:
    """The tabletop world of a stored scene (see the module doc-string); RobotError when the scene has no
    surface holding an object the arm's workspace can take."""
    bounds = bounds or TableBounds()
    held = _held_by(graph)
    if not held:
        raise RobotError(f"scene {graph.scene_id} has no table with objects on it (no stored "
                         "'supported_by' relation between two objects): nothing for the arm to act on")
    worlds = [_on_table(graph, graph.get(k), objs, bounds) for k, objs in held.items()]
    best = max(worlds, key=lambda w: (len(w.objects), len(w.objects) + len(w.left_out)))  # first of equals
    if not best.objects:
        raise RobotError(f"scene {graph.scene_id}: no object on a table fits the arm's workspace (e.g. on "
                         f"{best.table.category} {best.table.id}: {'; '.join(best.left_out)}): nothing for "
                         "the arm to act on")
    return best
