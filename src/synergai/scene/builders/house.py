"""The built-in house (scene ``house``): five rooms of the robot team's flat, furnished and stocked.

The furniture boxes are those of MHRC's flat that the robot team works in
(:func:`synergai.robots.team.flat.house_furniture`; a test keeps the two equal), with the object ids
the robots use (``table_0``, ``fridge``, ``book_case`` ...), the seed task's items where it puts them,
and what makes the flat a house: a floor and a door per room, chairs, a desk lamp, a laptop, a toilet.
Rooms are rectangles in a 9.2 x 12 m plan (z up, metres, floor top at z = 0); each object is in the
room whose footprint holds its centre. Deterministic: the same objects on every call.
"""

from __future__ import annotations

from dataclasses import dataclass

from synergai.scene.attributes import color_name
from synergai.scene.model import ObjectKind, Room, SceneObject

HOUSE_SCENE_ID = "house"

RGB = tuple[int, int, int]

#: id, category, name, (x0, y0, x1, y1): the rooms of the plan.
_ROOMS: tuple[tuple[str, str, str, tuple[float, float, float, float]], ...] = (
    ("kitchen", "kitchen", "kitchen", (0.0, 0.0, 4.6, 7.0)),
    ("dining_room", "dining room", "dining room", (0.0, 7.0, 4.6, 9.6)),
    ("office", "office", "office", (0.0, 9.6, 4.6, 12.0)),
    ("living_room", "living room", "living room", (4.6, 0.0, 9.2, 10.0)),
    ("bathroom", "bathroom", "bathroom", (4.6, 10.0, 9.2, 12.0)),
)

WHITE, LGRAY, GRAY, DGRAY = (235, 235, 235), (185, 185, 185), (128, 128, 128), (75, 75, 75)
BLACK, BROWN, DBROWN, BEIGE = (25, 25, 25), (120, 80, 50), (70, 45, 30), (205, 185, 150)
RED, BLUE, GREEN, YELLOW = (190, 40, 40), (50, 90, 180), (60, 140, 60), (225, 205, 60)
ORANGE = (225, 125, 40)


@dataclass(frozen=True)
class _Piece:
    id: str
    category: str
    xy: tuple[float, float]  # box centre in the floor plane
    size: tuple[float, float, float]
    z0: float  # box bottom
    color: RGB
    material: str

    def object(self) -> SceneObject:
        center = (self.xy[0], self.xy[1], self.z0 + self.size[2] / 2)
        return SceneObject(self.id, self.category, center, self.size, color=self.color,
                           attributes=(color_name(self.color), self.material), provenance="house")


#: The robot team's furniture (same ids and boxes as ``robots.team.flat.house_furniture``).
_FURNITURE = (
    _Piece("table_0", "table", (1.0, 1.0), (1.6, 1.2, 0.75), 0.0, BROWN, "wooden"),
    _Piece("tray", "tray", (0.58, 0.6), (0.4, 0.3, 0.12), 0.75, GRAY, "plastic"),
    _Piece("drawer", "drawer", (4.0, 2.0), (0.6, 0.5, 0.9), 0.0, WHITE, "wooden"),
    _Piece("dishwasher", "dishwasher", (4.0, 3.5), (0.6, 0.6, 0.85), 0.0, LGRAY, "metal"),
    _Piece("microwave", "microwave", (4.0, 5.0), (0.5, 0.4, 0.3), 0.9, BLACK, "metal"),
    _Piece("fridge", "refrigerator", (4.0, 6.5), (0.7, 0.7, 1.8), 0.0, LGRAY, "metal"),
    _Piece("cabinet_0", "cabinet", (0.3, 4.0), (0.5, 0.8, 0.9), 0.0, WHITE, "wooden"),
    _Piece("cabinet_1", "cabinet", (0.3, 5.5), (0.5, 0.8, 0.9), 0.0, WHITE, "wooden"),
    _Piece("table_1", "dining table", (2.0, 8.0), (1.2, 0.8, 0.75), 0.0, DBROWN, "wooden"),
    _Piece("sofa", "sofa", (6.5, 2.0), (2.0, 0.9, 0.45), 0.0, GRAY, "fabric"),
    _Piece("table_2", "coffee table", (6.5, 4.0), (1.0, 0.6, 0.45), 0.0, BEIGE, "wooden"),
    _Piece("table_3", "table", (6.5, 7.0), (1.2, 0.8, 0.75), 0.0, BROWN, "wooden"),
    _Piece("book_case", "bookshelf", (8.6, 9.0), (0.4, 1.2, 1.8), 0.0, DBROWN, "wooden"),
    _Piece("tub", "bathtub", (8.3, 11.2), (1.6, 0.8, 0.55), 0.0, WHITE, "ceramic"),
    _Piece("washbasin", "sink", (6.0, 11.4), (0.6, 0.5, 0.85), 0.0, WHITE, "ceramic"),
    _Piece("table_4", "desk", (2.0, 11.0), (1.2, 0.8, 0.75), 0.0, WHITE, "wooden"),
)

#: What makes the flat a house: a counter under the microwave, chairs, doors, a toilet, a lamp.
_FITTINGS = (
    _Piece("counter", "kitchen counter", (4.0, 5.0), (0.6, 0.6, 0.9), 0.0, WHITE, "marble"),
    _Piece("chair_0", "chair", (1.0, 1.95), (0.45, 0.45, 0.9), 0.0, DBROWN, "wooden"),
    _Piece("chair_1", "chair", (2.1, 1.0), (0.45, 0.45, 0.9), 0.0, DBROWN, "wooden"),
    _Piece("chair_6", "chair", (4.2, 1.1), (0.45, 0.45, 0.9), 0.0, WHITE, "plastic"),
    _Piece("chair_2", "chair", (2.0, 7.25), (0.45, 0.45, 0.9), 0.0, BLACK, "wooden"),
    _Piece("chair_3", "chair", (2.0, 8.75), (0.45, 0.45, 0.9), 0.0, BLACK, "wooden"),
    _Piece("chair_4", "chair", (6.5, 6.25), (0.45, 0.45, 0.9), 0.0, BROWN, "wooden"),
    _Piece("office_chair", "chair", (2.0, 10.25), (0.5, 0.5, 1.0), 0.0, BLACK, "fabric"),
    _Piece("chair_5", "chair", (3.9, 10.05), (0.45, 0.45, 0.9), 0.0, RED, "plastic"),
    _Piece("armchair", "armchair", (8.2, 4.0), (0.8, 0.8, 0.85), 0.0, GREEN, "fabric"),
    _Piece("floor_lamp", "lamp", (5.0, 0.5), (0.4, 0.4, 1.7), 0.0, BLACK, "metal"),
    _Piece("desk_lamp", "lamp", (2.4, 11.2), (0.2, 0.2, 0.4), 0.75, WHITE, "metal"),
    _Piece("toilet", "toilet", (5.0, 11.5), (0.4, 0.6, 0.8), 0.0, WHITE, "ceramic"),
    _Piece("plant", "plant", (8.8, 0.4), (0.4, 0.4, 1.1), 0.0, GREEN, "ceramic"),
    _Piece("door_kitchen", "door", (4.57, 1.2), (0.05, 0.9, 2.0), 0.0, BROWN, "wooden"),
    _Piece("door_dining_room", "door", (3.6, 7.03), (0.9, 0.05, 2.0), 0.0, BROWN, "wooden"),
    _Piece("door_office", "door", (3.8, 9.63), (0.9, 0.05, 2.0), 0.0, BROWN, "wooden"),
    _Piece("door_living_room", "door", (6.0, 0.03), (0.9, 0.05, 2.0), 0.0, BROWN, "wooden"),
    _Piece("door_bathroom", "door", (5.6, 10.03), (0.9, 0.05, 2.0), 0.0, BROWN, "wooden"),
)

#: The seed task's items (``robots.team.flat.seed_items``) and a few more, on or in furniture.
_ITEMS = (
    _Piece("apple", "apple", (0.75, 0.9), (0.08, 0.08, 0.08), 0.75, RED, "organic"),
    _Piece("phone", "phone", (1.4, 1.0), (0.08, 0.15, 0.02), 0.75, BLACK, "plastic"),
    _Piece("fork", "fork", (1.2, 0.75), (0.02, 0.18, 0.02), 0.75, LGRAY, "metal"),
    _Piece("banana", "banana", (1.75, 1.45), (0.08, 0.18, 0.05), 0.75, YELLOW, "organic"),
    _Piece("remote", "remote control", (6.2, 2.0), (0.05, 0.18, 0.03), 0.45, BLACK, "plastic"),
    _Piece("book", "book", (8.6, 8.8), (0.2, 0.05, 0.25), 0.54, BLUE, "paper"),
    _Piece("towel", "towel", (8.0, 11.2), (0.4, 0.3, 0.05), 0.55, BLUE, "fabric"),
    _Piece("ham", "ham", (4.0, 2.0), (0.15, 0.1, 0.08), 0.27, ORANGE, "organic"),
    _Piece("soap", "soap", (6.0, 11.4), (0.08, 0.05, 0.03), 0.85, GREEN, "organic"),
    _Piece("cup", "cup", (4.0, 3.5), (0.08, 0.08, 0.1), 0.255, WHITE, "ceramic"),
    _Piece("mug", "mug", (4.0, 5.0), (0.08, 0.08, 0.1), 0.95, RED, "ceramic"),
    _Piece("laptop", "laptop", (1.9, 11.0), (0.35, 0.25, 0.02), 0.75, DGRAY, "metal"),
    _Piece("bowl", "bowl", (2.2, 8.0), (0.18, 0.18, 0.08), 0.75, GREEN, "ceramic"),
)


def house_rooms() -> list[Room]:
    """The house's rooms (rectangular footprints, counter-clockwise)."""
    return [Room(rid, cat, name, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))
            for rid, cat, name, (x0, y0, x1, y1) in _ROOMS]


def _floor(rid: str, box: tuple[float, float, float, float]) -> SceneObject:
    x0, y0, x1, y1 = box
    rgb = BEIGE if rid in ("office", "living_room") else LGRAY
    return SceneObject(f"floor_{rid}", "floor", ((x0 + x1) / 2, (y0 + y1) / 2, -0.01),
                       (x1 - x0, y1 - y0, 0.02),
                       color=rgb, attributes=(color_name(rgb),), provenance="house", kind=ObjectKind.FLOOR)


def house_objects() -> list[SceneObject]:
    """Every object of the house (floors first, then furniture, fittings and items), rooms unset."""
    floors = [_floor(rid, box) for rid, _, _, box in _ROOMS]
    return floors + [p.object() for p in (*_FURNITURE, *_FITTINGS, *_ITEMS)]


def furniture_boxes() -> dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]]:
    """The robot team's furniture as ``{id: (centre, size)}`` (for keeping the two layouts equal)."""
    out = {}
    for p in _FURNITURE:
        o = p.object()
        out[p.id] = (o.center, o.size)
    return out
