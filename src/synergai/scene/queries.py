"""Relations that are never stored, answered on demand: viewpoint-dependent ones (left / right / in
front of / behind, clock directions), comparative ones (closest, farthest, between), FAR and
WITHIN_REACH."""


from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from synergai.geometry.boxes import BoxArray, box_gap
from synergai.geometry.frames import Viewpoint
from synergai.scene.model import (
    STRUCTURE_KINDS,
    VIEW_DEPENDENT,
    Relation,
    SceneError,
    SceneGraph,
    SceneObject,
)
from synergai.scene.relations.allocentric import (
    aabb_corners,
    clock_directions,
    oriented_corners,
    view_relations,
)
from synergai.scene.relations.comparative import between_mask, extreme, object_distance
from synergai.scene.relations.horizontal import far as far_mask
from synergai.scene.relations.horizontal import within_reach_of_point
from synergai.scene.relations.thresholds import RelationThresholds


# ----------------------------------------------------------------------------- queries
def _boxes_of(graph: SceneGraph, ids: Sequence[str]) -> tuple[BoxArray, np.ndarray]:
    """Boxes of the objects and their footprint corners (oriented where the object has an obb)."""
    objs = [graph.get(i) for i in ids]
    b = graph.box_array([o.id for o in objs])
    corners = aabb_corners(b)
    for k, o in enumerate(objs):
        if o.obb is not None:
            corners[k] = oriented_corners(np.asarray(o.obb.center[:2]), np.asarray(o.obb.size[:2]),
                                          np.asarray([o.obb.yaw]))[0]
    return b, corners


def facing_viewpoint(obj: SceneObject, distance: float = 1.0) -> Viewpoint | None:
    """The viewpoint of someone standing ``distance`` in front of ``obj`` and looking at it
    ("looking at the front of the desk"), or None when the object has no known front."""
    if obj.front is None:
        return None
    f = np.array([obj.front[0], obj.front[1], 0.0])
    n = float(np.linalg.norm(f))
    if n < 1e-9:
        return None
    f /= n
    c = np.asarray(obj.obb.center if obj.obb is not None else obj.center, dtype=float)
    pos = c + f * distance
    return Viewpoint((float(pos[0]), float(pos[1]), float(c[2])), (float(-f[0]), float(-f[1]), 0.0))


def view_relation(
    graph: SceneGraph,
    subject_ids: Sequence[str],
    anchor_id: str,
    relation: Relation,
    viewpoint: Viewpoint,
    thresholds: RelationThresholds | None = None,
) -> list[str]:
    """The subjects that are LEFT_OF / RIGHT_OF / IN_FRONT_OF / BEHIND the anchor as seen from
    ``viewpoint`` (in front = between the anchor and the viewer)."""
    if relation not in VIEW_DEPENDENT:
        raise SceneError(f"{relation.value} is not viewpoint-dependent; use one of "
                         + ", ".join(sorted(r.value for r in VIEW_DEPENDENT)))
    th = thresholds or RelationThresholds()
    subjects = [graph.get(s).id for s in subject_ids if graph.get(s).id != str(anchor_id)]
    if not subjects:
        return []
    b, corners = _boxes_of(graph, [*subjects, graph.get(anchor_id).id])
    i = np.arange(len(subjects))
    masks = view_relations(b, i, np.full(len(i), len(subjects)), viewpoint, th, corners)
    return [s for s, m in zip(subjects, masks[relation], strict=True) if m]


def clock_direction(graph: SceneGraph, ids: Sequence[str], viewpoint: Viewpoint) -> dict[str, int]:
    """Clock hour of each object's centre seen from ``viewpoint`` (12 = straight ahead, 3 = right)."""
    objs = [graph.get(i) for i in ids]
    if not objs:
        return {}
    hours = clock_directions(np.array([o.center for o in objs], dtype=float), viewpoint)
    return {o.id: int(h) for o, h in zip(objs, hours, strict=True)}


def _extreme(graph: SceneGraph, anchor_id: str, candidate_ids: Sequence[str], largest: bool,
             thresholds: RelationThresholds | None) -> str | None:
    th = thresholds or RelationThresholds()
    anchor = graph.get(anchor_id).id
    cands = list(dict.fromkeys(graph.get(c).id for c in candidate_ids if graph.get(c).id != anchor))
    if not cands:
        return None
    b = graph.box_array([*cands, anchor])
    d = object_distance(b, np.arange(len(cands)), np.full(len(cands), len(cands)))
    k = extreme(d, th.epsilon, largest=largest)
    return cands[k] if k >= 0 else None


def closest(graph: SceneGraph, anchor_id: str, candidate_ids: Sequence[str],
            thresholds: RelationThresholds | None = None) -> str | None:
    """The candidate closest to the anchor, or None when the runner-up is within ``epsilon``."""
    return _extreme(graph, anchor_id, candidate_ids, False, thresholds)


def farthest(graph: SceneGraph, anchor_id: str, candidate_ids: Sequence[str],
             thresholds: RelationThresholds | None = None) -> str | None:
    """The candidate farthest from the anchor, or None when the runner-up is within ``epsilon``."""
    return _extreme(graph, anchor_id, candidate_ids, True, thresholds)


def between(graph: SceneGraph, candidate_ids: Sequence[str], anchor_a: str, anchor_b: str,
            thresholds: RelationThresholds | None = None) -> list[str]:
    """The candidates lying between the two anchors (Sr3D's convex-hull rule)."""
    th = thresholds or RelationThresholds()
    a, b_id = graph.get(anchor_a).id, graph.get(anchor_b).id
    if a == b_id:
        raise SceneError(f"between needs two different anchors, got {a!r} twice")
    cands = [c for c in dict.fromkeys(graph.get(c).id for c in candidate_ids) if c not in (a, b_id)]
    if not cands:
        return []
    boxes = graph.box_array([*cands, a, b_id])
    n = len(cands)
    m = between_mask(boxes, np.arange(n), np.full(n, n), np.full(n, n + 1), th)
    return [c for c, ok in zip(cands, m, strict=True) if ok]


def within_reach(graph: SceneGraph, point_or_id: str | Sequence[float], ids: Sequence[str] | None = None,
                 thresholds: RelationThresholds | None = None) -> list[str]:
    """Objects (all ordinary ones by default) whose box comes within ``reach`` of a point or of an
    object's box."""
    th = thresholds or RelationThresholds()
    pool = ids if ids is not None else [o.id for o in graph if o.kind not in STRUCTURE_KINDS]
    cand = [graph.get(i).id for i in pool]
    if isinstance(point_or_id, str):
        anchor = graph.get(point_or_id).id
        cand = [c for c in cand if c != anchor]
        if not cand:
            return []
        b = graph.box_array([*cand, anchor])
        gap = box_gap(b, np.arange(len(cand)), np.full(len(cand), len(cand)))
        return [c for c, g in zip(cand, gap, strict=True) if g <= th.reach]
    point = np.asarray(point_or_id, dtype=float)
    if point.shape != (3,) or not np.all(np.isfinite(point)):
        raise SceneError(f"within_reach needs an object id or a point x,y,z, got {point_or_id!r}")
    if not cand:
        return []
    m = within_reach_of_point(graph.box_array(cand), np.arange(len(cand)), point, th)
    return [c for c, ok in zip(cand, m, strict=True) if ok]


def far(graph: SceneGraph, anchor_id: str, ids: Sequence[str] | None = None,
        thresholds: RelationThresholds | None = None) -> list[str]:
    """Objects (all ordinary ones by default) far from the anchor (never stored: FAR is dense)."""
    th = thresholds or RelationThresholds()
    anchor = graph.get(anchor_id).id
    pool = ids if ids is not None else [o.id for o in graph if o.kind not in STRUCTURE_KINDS]
    cand = [c for c in (graph.get(i).id for i in pool) if c != anchor]
    if not cand:
        return []
    b = graph.box_array([*cand, anchor])
    m = far_mask(b, np.arange(len(cand)), np.full(len(cand), len(cand)), th)
    return [c for c, ok in zip(cand, m, strict=True) if ok]
