"""Where a move puts the held object when the plan names a place by a relation to another object
("on the soup can", "next to the mug", "left of the bottle") instead of coordinates.

The model says which relation and which object; the geometry is computed here, as the scene graph's
relation engine grounds "the lamp next to the bed": the model never adds half-widths. Directions are in the
robot base frame the planner sees (x forward from the base, y to its left): "in front of" is nearer the
arm, "behind" farther. A side place is the free, reachable grid point nearest a point just beyond the
anchor on that side; "next to" is the nearest of the four side places; "on" is the anchor's centre at its
top (a stack). None when no such place exists.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from synergai.robots.errors import RobotError
from synergai.robots.tabletop.objects import TableBounds
from synergai.robots.tabletop.rules import free_spot, overlaps
from synergai.scene.grounding.vocabulary import relation_words, relations_said
from synergai.scene.vocabulary import EXCHANGE_WORDS, LINE_WORDS, RELATION_CUES, words_of

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
#: Relations whose two objects cannot trade roles ("the can left of the bottle" is not "the bottle left
#: of the can"; "next to" is symmetric).
DIRECTED_RELATIONS = frozenset({"on", "left of", "right of", "in front of", "behind"})
#: The step that makes two objects change places (one aside, the other in its place, the first in the
#: other's): offered when the instruction asks for an exchange (``EXCHANGE_WORDS``).
SWAP = "swap"
#: The step that puts several objects in a straight line along x or y: offered when the instruction asks
#: for one (``LINE_WORDS``).
LINE_UP = "line_up"
#: How far the line may be shifted from where its objects stand (or from the coordinate asked for) to
#: find a free, reachable place for all of them, metres.
LINE_SHIFT = 0.3
#: Gap between neighbours along y (in a line along y, and left of / right of an anchor), metres: wider
#: than ``SIDE_GAP``, since the fingers open along y and reach past the held object on both sides when it
#: is set down beside its neighbour (along x ``SIDE_GAP`` holds).
LINE_GAP = 0.08
#: Gap aimed for between the held object and the anchor in front of or behind it, metres.
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
    if relation == "next to":  # the nearest of the four sides, each with its own gap for the fingers
        sides = {side: place_target(side, anchor, holding, where, half, top, bounds, reachable)
                 for side in ("in front of", "behind", "left of", "right of")}
        found = [spot for spot in sides.values() if spot is not None]
        if top[anchor] > top[holding] and sides["behind"] is not None and len(found) > 1:
            # to set an object down behind a taller one the arm reaches over it and hits it (a cube behind
            # a mustard bottle, in the simulator, at every bottle position tried): another side first
            found.remove(sides["behind"])
        return min(found, key=lambda p: (p[0] - ax) ** 2 + (p[1] - ay) ** 2) if found else None
    dx, dy = PLACE_RELATIONS[relation]
    gap = LINE_GAP if dy else SIDE_GAP  # left / right: the fingers open towards the anchor
    target = (ax + dx * (half[anchor][0] + half[holding][0] + gap),
              ay + dy * (half[anchor][1] + half[holding][1] + gap))
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


def _says(words: frozenset[str], text: str) -> bool:
    return not words.isdisjoint(words_of(text))


def asks_exchange(text: str) -> bool:
    """Whether an instruction (with its answers) asks for objects to change places."""
    return _says(EXCHANGE_WORDS, text)


def asks_line(text: str) -> bool:
    """Whether an instruction (with its answers) asks for objects in a line."""
    return _says(LINE_WORDS, text)


#: A place said relative to the person or the robot ("in front of me", "to my left"): not an object's.
_SPEAKER_PLACE = re.compile(r"\b(?:(?:in front of|behind|next to|beside|near|(?:to the )?(?:left|right) of) "
                            r"(?:me|you|us)|(?:to|on|at) (?:my|your|our) (?:left|right))\b", re.IGNORECASE)
#: A point given in numbers, "(0.35, 0.0)".
_POINT = re.compile(r"\(\s*-?\d*\.?\d+\s*,\s*-?\d*\.?\d+\s*(?:,\s*-?\d*\.?\d+\s*)?\)")


def move_relations_said(text: str) -> tuple[str, ...]:
    """The move relations an instruction's words can mean ("to the right of" -> right of), leaving out
    places said relative to the person ("in front of me"); none when it gives a point in numbers and no
    relation to an object (the move goes there); otherwise every relation when it names none of them, so
    the plan is never left without one. An exchange is the ``swap`` step's: "in place of" is not offered
    beside it (a small model mixes the two)."""
    objects_only = _SPEAKER_PLACE.sub(" ", text)
    said = relations_said(objects_only, tuple(PLACE_RELATIONS))
    if said:
        return said
    if _POINT.search(text):
        return ()
    return tuple(r for r in MOVE_RELATIONS if r != IN_PLACE_OF) if asks_exchange(text) else MOVE_RELATIONS


def _mention(tokens: Sequence[str], names: Sequence[str]) -> int | None:
    """Where the first of ``names`` (each one or more words) first stands in ``tokens``."""
    best: int | None = None
    for name in names:
        words = name.split()
        for k in range(len(tokens) - len(words) + 1):
            if list(tokens[k:k + len(words)]) == words:
                best = k if best is None else min(best, k)
                break
    return best


def roles_reversed(text: str, relation: str, moved: tuple[str, ...], anchor: tuple[str, ...]) -> bool:
    """Whether ``text`` puts the ``anchor`` object ``relation`` the ``moved`` one, the other way round from
    a move of ``moved`` ``relation`` ``anchor`` ("put the soup can right of the mustard bottle" against a
    move of the bottle right of the can). Each object is given by the words that can name it (its name,
    its kind); False when the text does not say the relation between one mention of each."""
    if relation not in DIRECTED_RELATIONS:
        return False
    tokens = relation_words(text)
    cue = next((k for k, t in enumerate(tokens) if t in RELATION_CUES[relation]), None)
    if cue is None:
        return False
    first_anchor, first_moved = _mention(tokens[:cue], anchor), _mention(tokens[:cue], moved)
    after_anchor, after_moved = _mention(tokens[cue:], anchor), _mention(tokens[cue:], moved)
    said_first = first_anchor is not None and first_moved is None
    return said_first and after_moved is not None and after_anchor is None


def aside_spot(name: str, other: str, where: Mapping[str, tuple[float, float]],
               half: Mapping[str, tuple[float, float]], bounds: TableBounds,
               reachable: Callable[[float, float], bool] | None = None) -> tuple[float, float] | None:
    """A free, reachable place nearest ``name`` to set it down while ``other`` takes its place (so the
    place ``name`` leaves is kept free for ``other``)."""
    room = (max(half[name][0], half[other][0]), max(half[name][1], half[other][1]))
    return free_spot(where[name], name, where, half, bounds, clearance=PLACE_CLEARANCE, reachable=reachable,
                     keep_clear=[(where[name], room)])


def line_targets(names: Sequence[str], axis: str, at: float | None,
                 where: Mapping[str, tuple[float, float]], half: Mapping[str, tuple[float, float]],
                 bounds: TableBounds, reachable: Callable[[float, float], bool] | None = None
                 ) -> dict[str, tuple[float, float]] | None:
    """Places that put ``names`` in a straight line along ``axis`` ("x" or "y"): in their present order
    along it, ``SIDE_GAP`` (along x) or ``LINE_GAP`` (along y) apart, the line through ``at`` on the
    other axis (else through their mean), centred where they stand; the nearest shift (up to
    ``LINE_SHIFT``) where every place is on the table, reachable and clear of the other objects. None
    when there is none."""
    a = 0 if axis == "x" else 1
    b = 1 - a
    order = sorted(names, key=lambda n: where[n][a])
    lengths = [2 * half[n][a] for n in order]
    gap = SIDE_GAP if a == 0 else LINE_GAP
    total = sum(lengths) + gap * (len(order) - 1)
    centre = sum(where[n][a] for n in order) / len(order)
    line = at if at is not None else sum(where[n][b] for n in order) / len(order)
    others = [n for n in where if n not in names]
    steps = [k * 0.025 for k in range(int(LINE_SHIFT / 0.025) + 1)]
    shifts = sorted({(da, db) for da in (*steps, *(-v for v in steps))
                     for db in ((0.0,) if at is not None else (*steps, *(-v for v in steps)))},
                    key=lambda d: (abs(d[0]) + abs(d[1]), d))
    for da, db in shifts:
        start = centre + da - total / 2
        places: dict[str, tuple[float, float]] = {}
        for n, length in zip(order, lengths, strict=True):
            p = [0.0, 0.0]
            p[a], p[b] = start + length / 2, line + db
            start += length + gap
            places[n] = (round(p[0], 3), round(p[1], 3))
        if all(bounds.contains(*places[n]) and (reachable is None or reachable(*places[n]))
               and not any(overlaps(places[n], half[n], where[o], half[o], PLACE_CLEARANCE) for o in others)
               for n in order):
            return places
    return None


def line_moves(goals: Mapping[str, tuple[float, float]], where: dict[str, tuple[float, float]],
               half: Mapping[str, tuple[float, float]], bounds: TableBounds,
               reachable: Callable[[float, float], bool] | None = None
               ) -> list[tuple[str, tuple[float, float]]]:
    """The moves that bring each object to its place in the line (``goals``, from :func:`line_targets`),
    in an order where a place is free when an object goes there (an object standing on another's place is
    set aside first, clear of every place of the line); ``where`` is updated as they move."""
    moves: list[tuple[str, tuple[float, float]]] = []
    pending = [n for n in goals if where[n] != goals[n]]
    line = [(goals[n], half[n]) for n in goals]
    while pending:
        free = [n for n in pending if not any(overlaps(goals[n], half[n], where[o], half[o], PLACE_CLEARANCE)
                                              for o in where if o != n)]
        if free:
            name, goal = free[0], goals[free[0]]
            pending.remove(name)
        else:
            name = pending[0]
            spot = free_spot(where[name], name, where, half, bounds, clearance=PLACE_CLEARANCE,
                             reachable=reachable, keep_clear=line)
            if spot is None:
                raise RobotError("there is no free place to set an object aside while lining up")
            goal = spot
        moves.append((name, goal))
        where[name] = goal
    return moves
