"""Relation families over arrays of boxes (one module per family) and their thresholds.

Every function here is pure and vectorised over index arrays of pairs ``(i[k], j[k])`` read as
``subject RELATION object``; ``synergai.scene.build`` turns them into a stored graph and answers
viewpoint-dependent and comparative questions on it.
"""

from synergai.scene.relations.allocentric import (
    aabb_corners,
    clock_directions,
    oriented_corners,
    side_relations,
    view_relations,
)
from synergai.scene.relations.comparative import between_mask, extreme, object_distance
from synergai.scene.relations.horizontal import far, horizontal_relations, within_reach_of_point
from synergai.scene.relations.thresholds import RelationThresholds
from synergai.scene.relations.vertical import (
    above,
    choose_support,
    ground_level,
    hanging_contact,
    holding_relations,
    on_floor,
    vertical_relations,
)

__all__ = [
    "RelationThresholds",
    "aabb_corners",
    "above",
    "between_mask",
    "choose_support",
    "clock_directions",
    "extreme",
    "far",
    "ground_level",
    "hanging_contact",
    "holding_relations",
    "horizontal_relations",
    "object_distance",
    "on_floor",
    "oriented_corners",
    "side_relations",
    "vertical_relations",
    "view_relations",
    "within_reach_of_point",
]
