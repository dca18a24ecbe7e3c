"""Support hierarchy: levels from support edges (things the floor holds up are level 0)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

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


def update_levels(graph: SceneGraph, changed: Iterable[str]) -> bool:
    """Bring ``graph.levels`` (right before some objects changed) up to date, touching only the
    ``changed`` objects (added, re-kinded, or whose holders changed) and what they hold up, directly
    or not. Returns False, changing nothing, where the result could differ from
    :func:`compute_levels` (an object with several holders, a support cycle): recompute then."""
    region: dict[str, None] = {}
    queue = deque(changed)
    while queue:
        oid = queue.popleft()
        if oid not in region and oid in graph:
            region[oid] = None
            queue.extend(graph.held(oid))
    memo: dict[str, int] = {}

    def level_of(oid: str, chain: frozenset[str]) -> int | None:
        if oid in memo:
            return memo[oid]
        own = [h for h in graph.holders(oid) if graph.get(h).kind is not ObjectKind.FLOOR]
        if graph.get(oid).kind in STRUCTURE_KINDS or not own:
            level = 0
        elif len(own) > 1 or own[0] in chain:
            return None  # several holders (BFS order decides) or a cycle: not worth mimicking here
        elif graph.get(own[0]).kind in STRUCTURE_KINDS:
            level = 1
        else:
            up = level_of(own[0], chain | {oid})
            if up is None:
                return None
            level = up + 1
        memo[oid] = level
        return level

    for oid in region:
        if level_of(oid, frozenset()) is None:
            return False
    graph.levels.update((oid, memo[oid]) for oid in region)
    return True
