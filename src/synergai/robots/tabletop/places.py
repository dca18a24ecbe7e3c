"""Where a move puts the held object when the plan names a place by a relation to another object
("on the soup can", "next to the mug", "left of the bottle") instead of coordinates.

The model says which relation and which object; the geometry is computed here, as the scene graph's
relation engine grounds "the lamp next to the bed": the model never adds half-widths. Directions are in the
robot base frame the planner sees (x forward from the base, y to its left): "in front of" is nearer the
arm, "behind" farther. A side place is the free, reachable grid point nearest a point just beyond the
anchor on that side; "next to" is the free, reachable point nearest the anchor itself; "on" is the anchor's
centre at its top (a stack). None when no such place exists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from synergai.robots.tabletop.objects import TableBounds
from synergai.robots.tabletop.rules import free_spot
from synergai.scene.grounding.vocabulary import relations_said
from synergai.scene.vocabulary import EXCHANGE_WORDS, words_of

#: The relations a move may name, with the (x, y) direction of the side they put the held object on.
PLACE_RELATIONS: Mapping[str, tuple[float, float]] = {
    "on": (0.0, 0.0),
    "next to": (0.0, 0.0),
    "left of": (0.0, 1.0),
    "right of": (0.0, -1.0),
    "in front of": (-1.0, 0.0),
    "behind": (1.0, 0.0),
}
#: The relation that puts the held object where the anchor stood when the plan began (to exchange two
#: objects: one aside, the other in place of it, then the first in place of the other).
IN_PLACE_OF = "in place of"
#: Every relation a move may name.
MOVE_RELATIONS = (*PLACE_RELATIONS, IN_PLACE_OF)
#: The step that makes two objects change places (one aside, the other in its place, the first in the
#: other's): offered when the instruction asks for an exchange (``EXCHANGE_WORDS``).
SWAP = "swap"
#: Gap aimed for between the held object and the anchor on a side place, metres.
SIDE_GAP = 0.04
#: Least clearance kept from every other object when placing, metres: the gripper's fingers need it (at
#: 0.015 m they hit the neighbour while placing), as the rules' free places do.
PLACE_CLEARANCE = 0.03
#: How far above the anchor's top a stacked object is released, metres (as the planner is told).
STACK_LIFT = 0.01


def place_target(relation: str, anchor: str, holding: str, where: Mapping[str, tuple[float, float]],
                 half: Mapping[str, tuple[float, float]], top: Mapping[str, float], bounds: TableBounds,
                 reachable: Callable[[float, float], bool] | None = None) -> tuple[float, ...] | None:
    """Where a move of ``holding`` to ``relation`` ``anchor`` releases it: (x, y, z) on top of the anchor,
    (x, y) on the table, given where every object stands at this point of the plan (``where``: centre xy,
    ``half``: half footprint, ``top``: top height above the table); None when no free reachable place
    fits."""
    ax, ay = where[anchor]
    if relation == "on":
        return (ax, ay, round(top[anchor] + STACK_LIFT, 3))
    dx, dy = PLACE_RELATIONS[relation]
    target = (ax + dx * (half[anchor][0] + half[holding][0] + SIDE_GAP),
              ay + dy * (half[anchor][1] + half[holding][1] + SIDE_GAP))
    spot = free_spot(target, holding, dict(where), dict(half), bounds, clearance=PLACE_CLEARANCE,
                     reachable=reachable)
    if spot is None or not (dx or dy):
        return spot
    # on that side: beyond the anchor's face along the direction, within its span across it
    along = (spot[0] - ax) * dx + (spot[1] - ay) * dy
    across = abs((spot[0] - ax) * dy - (spot[1] - ay) * dx)
    face = half[anchor][0] * abs(dx) + half[anchor][1] * abs(dy)
    span = half[anchor][1] * abs(dx) + half[anchor][0] * abs(dy) + half[holding][1] * abs(dx) + \
        half[holding][0] * abs(dy)
    return spot if along > face and across < span else None


def asks_exchange(text: str) -> bool:
    """Whether an instruction (with its answers) asks for objects to change places."""
    return bool(EXCHANGE_WORDS & set(words_of(text)))


def move_relations_said(text: str) -> tuple[str, ...]:
    """The move relations an instruction's words can mean ("to the right of" -> right of; "swap" -> in
    place of); every relation when it names none of them, so the plan is never left without one."""
    said = relations_said(text, tuple(PLACE_RELATIONS))
    if asks_exchange(text):
        said = (*said, IN_PLACE_OF)
    return said or MOVE_RELATIONS


def aside_spot(name: str, other: str, where: Mapping[str, tuple[float, float]],
               half: Mapping[str, tuple[float, float]], bounds: TableBounds,
               reachable: Callable[[float, float], bool] | None = None) -> tuple[float, float] | None:
    """A free, reachable place nearest ``name`` to set it down while ``other`` takes its place (so the
    place ``name`` leaves is kept free for ``other``)."""
    keep = "\0place of " + name  # not an object name: the place that must stay free
    obstacles = {**where, keep: where[name]}
    sizes = {**half, keep: (max(half[name][0], half[other][0]), max(half[name][1], half[other][1]))}
    return free_spot(where[name], name, obstacles, sizes, bounds, clearance=PLACE_CLEARANCE,
                     reachable=reachable)
