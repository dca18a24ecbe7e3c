"""Support hierarchy: levels from support edges (things the floor holds up are level 0)."""

from __future__ import annotations

from collections import deque

from synergai.scene.model import STRUCTURE_KINDS, SUPPORT_RELATIONS, ObjectKind, SceneGraph


def compute_levels(graph: SceneGraph) -> dict[str, int]:
    """Level of every object: floor/walls/ceiling and unsupported objects are 0, and an object
    held up by a level-k object (support, inside, mounted on, ...) is at level k + 1,
    except that objects standing on the floor stay at level 0 (SynergAI: V_0 = supported by floor).
    """
    parents: dict[str, list[str]] = {o.id: [] for o in graph}
    for e in graph.edges:
        if e.relation in SUPPORT_RELATIONS:
            parents[e.subject].append(e.object)
    levels: dict[str, int] = {}
    structural = {o.id for o in graph if o.kind in STRUCTURE_KINDS}
    floors = {o.id for o in graph if o.kind is ObjectKind.FLOOR}
    children: dict[str, list[str]] = {o.id: [] for o in graph}
    for child, ps in parents.items():
        for p in ps:
            children[p].append(child)
    queue: deque[str] = deque()
    for oid in parents:
        own = [p for p in parents[oid] if p not in floors]
        if oid in structural or not own:
            levels[oid] = 0
            queue.append(oid)
    while queue:
        p = queue.popleft()
        for c in children[p]:
            if c in levels or p in floors:
                continue
            levels[c] = levels[p] + 1 if p not in structural else 1
            queue.append(c)
    for oid in parents:  # cycles of mutual support: put them at level 0
        levels.setdefault(oid, 0)
    return levels
