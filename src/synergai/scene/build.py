"""The graph builder's public names in one place: building (:mod:`synergai.scene.building`), the
refresh after a move (:mod:`synergai.scene.refresh`) and the relations answered on demand
(:mod:`synergai.scene.queries`)."""

from __future__ import annotations

from synergai.scene.building import build_graph, prepare_objects, structure_kind
from synergai.scene.queries import (
    between,
    clock_direction,
    closest,
    facing_viewpoint,
    far,
    farthest,
    view_relation,
    within_reach,
)
from synergai.scene.refresh import refresh_object, remove_object
from synergai.scene.relation_index import SYNTHETIC_FLOOR_ID, SYNTHETIC_FLOOR_PROVENANCE, RelationIndex

__all__ = [
    "SYNTHETIC_FLOOR_ID",
    "SYNTHETIC_FLOOR_PROVENANCE",
    "RelationIndex",
    "between",
    "build_graph",
    "clock_direction",
    "closest",
    "facing_viewpoint",
    "far",
    "farthest",
    "prepare_objects",
    "refresh_object",
    "remove_object",
    "structure_kind",
    "view_relation",
    "within_reach",
]
