"""The built-in demo scene: a furnished three-room apartment (kitchen, living room, bedroom).

Deterministic and hand-placed, z up, metres, floor top at z = 0. Every object has an axis-aligned
box, a colour (RGB, and its name first in ``attributes``, then material and shape), and a mesh made
of boxes and cylinders coloured per vertex whose bounds are exactly the object's box.

The geometry is honest, so relation rules find the intended facts (listed in ``DemoScene.intended``):
things on a table rest on its top (zero gap) inside its footprint; books stand on the inner boards
of the bookshelf, fully inside its box; the TV and the pictures touch a wall's inner plane and are
clear of the floor; furniture stands on its room's floor; no two objects interpenetrate except a
container and what is inside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from synergai.geometry.mesh import TriMesh
from synergai.scene.attributes import color_name
from synergai.scene.model import Edge, ObjectKind, Relation, SceneObject

Vec3 = tuple[float, float, float]
RGB = tuple[int, int, int]
HEIGHT = 2.6  # ceiling height
WALL = 0.1  # wall thickness

# local frame of a template: x across the object, y from its back (0) to its front (depth), z up
_FRONTS: Mapping[str, Vec3] = MappingProxyType(
    {"+x": (1.0, 0.0, 0.0), "-x": (-1.0, 0.0, 0.0), "+y": (0.0, 1.0, 0.0), "-y": (0.0, -1.0, 0.0)}
)


@dataclass(frozen=True)
class _Part:
    lo: tuple[float, float, float]  # local coordinates, metres
    hi: tuple[float, float, float]
    role: str = "main"  # "main" | "second" | "accent": which of the object's colours
    shape: str = "box"  # "box" | "cyl" (vertical axis) | "cyl_h" (axis along the local front)


Template = Callable[[float, float, float], list[_Part]]


def _block(w: float, d: float, h: float) -> list[_Part]:
    return [_Part((0, 0, 0), (w, d, h))]


def _cylinder(w: float, d: float, h: float) -> list[_Part]:
    return [_Part((0, 0, 0), (w, d, h), shape="cyl")]


def _disc(w: float, d: float, h: float) -> list[_Part]:  # wall clock: axis along the front
    return [_Part((0, 0, 0), (w, d, h), shape="cyl_h"), _Part((0.45 * w, d - 0.005, 0.45 * h),
                                                              (0.55 * w, d, 0.8 * h), "accent")]


def _table(w: float, d: float, h: float) -> list[_Part]:
    top, leg = 0.04, 0.05
    parts = [_Part((0, 0, h - top), (w, d, h))]
    for x in (0.0, w - leg):
        for y in (0.0, d - leg):
            parts.append(_Part((x, y, 0), (x + leg, y + leg, h - top), "second"))
    return parts


def _chair(w: float, d: float, h: float) -> list[_Part]:
    seat, leg = 0.45, 0.04
    parts = [_Part((0, 0, seat - 0.04), (w, d, seat), "main"), _Part((0, 0, seat), (w, 0.05, h), "main")]
    for x in (0.0, w - leg):
        for y in (0.0, d - leg):
            parts.append(_Part((x, y, 0), (x + leg, y + leg, seat - 0.04), "second"))
    return parts


def _sofa(w: float, d: float, h: float) -> list[_Part]:
    seat, arm = 0.45, 0.15
    return [
        _Part((0, 0, 0), (w, d, seat - 0.05), "second"),
        _Part((arm, 0.2, seat - 0.05), (w - arm, d, seat), "main"),  # cushions
        _Part((0, 0, seat - 0.05), (w, 0.2, h), "main"),  # backrest
        _Part((0, 0.2, seat - 0.05), (arm, d, 0.65), "main"),
        _Part((w - arm, 0.2, seat - 0.05), (w, d, 0.65), "main"),
    ]


def _cabinet(w: float, d: float, h: float) -> list[_Part]:
    top = 0.04
    return [
        _Part((0, 0, 0), (w, d - 0.02, h - top), "main"),
        _Part((0, 0, h - top), (w, d, h), "second"),
        _Part((0.45 * w, d - 0.02, 0.6 * (h - top)), (0.55 * w, d, 0.65 * (h - top)), "accent"),  # handle
    ]


def _fridge(w: float, d: float, h: float) -> list[_Part]:
    return [_Part((0, 0, 0), (w, d - 0.02, h), "main"),
            _Part((0.85 * w, d - 0.02, 0.45 * h), (0.9 * w, d, 0.8 * h), "accent")]


def _wardrobe(w: float, d: float, h: float) -> list[_Part]:
    return [_Part((0, 0, 0), (w, d - 0.02, h), "main"),
            _Part((0.44 * w, d - 0.02, 0.45 * h), (0.47 * w, d, 0.6 * h), "accent"),
            _Part((0.53 * w, d - 0.02, 0.45 * h), (0.56 * w, d, 0.6 * h), "accent")]


def _bookshelf(w: float, d: float, h: float) -> list[_Part]:
    t = 0.02
    parts = [_Part((0, 0, 0), (w, t, h)), _Part((0, 0, 0), (t, d, h)), _Part((w - t, 0, 0), (w, d, h))]
    parts += [_Part((0, 0, z), (w, d, z + t)) for z in BOOKSHELF_BOARDS[:-1]]
    parts.append(_Part((0, 0, h - t), (w, d, h)))
    return parts


BOOKSHELF_BOARDS = (0.0, 0.45, 0.9, 1.35, 1.78)  # board bottoms; boards are 2 cm thick


def _bed(w: float, d: float, h: float) -> list[_Part]:
    return [_Part((0, 0, 0), (w, d, 0.3), "second"),
            _Part((0.03, 0.03, 0.3), (w - 0.03, d - 0.03, h), "main")]


def _lamp(shade_from: float) -> Template:
    def build(w: float, d: float, h: float) -> list[_Part]:
        z = shade_from * h
        return [
            _Part((0.2 * w, 0.2 * d, 0), (0.8 * w, 0.8 * d, 0.03), "second", "cyl"),
            _Part((0.45 * w, 0.45 * d, 0.03), (0.55 * w, 0.55 * d, z), "second", "cyl"),
            _Part((0, 0, z), (w, d, h), "main", "cyl"),
        ]

    return build


def _screen(w: float, d: float, h: float) -> list[_Part]:  # wall TV: frame plus the dark screen in front
    return [_Part((0, 0, 0), (w, d - 0.005, h)),
            _Part((0.03, d - 0.005, 0.03), (w - 0.03, d, h - 0.03), "accent")]


def _monitor(w: float, d: float, h: float) -> list[_Part]:
    return [
        _Part((0.3 * w, 0, 0), (0.7 * w, d, 0.02), "main"),
        _Part((0.45 * w, 0, 0.02), (0.55 * w, 0.04, 0.2 * h), "main"),
        _Part((0, 0, 0.2 * h), (w, 0.04, h), "main"),
        _Part((0.02, 0.04, 0.2 * h + 0.02), (w - 0.02, 0.045, h - 0.02), "accent"),
    ]


def _laptop(w: float, d: float, h: float) -> list[_Part]:
    return [_Part((0, 0, 0), (w, d, 0.02), "main"), _Part((0, 0, 0.02), (w, 0.02, h), "main"),
            _Part((0.02, 0.02, 0.04), (w - 0.02, 0.025, h - 0.02), "accent")]


def _framed(w: float, d: float, h: float) -> list[_Part]:  # picture / mirror: frame and front surface
    return [_Part((0, 0, 0), (w, d - 0.005, h), "second"), _Part((0.05 * w, d - 0.005, 0.05 * h),
                                                                 (0.95 * w, d, 0.95 * h), "main")]


def _plant(w: float, d: float, h: float) -> list[_Part]:
    return [_Part((0.25 * w, 0.25 * d, 0), (0.75 * w, 0.75 * d, 0.3 * h), "second", "cyl"),
            _Part((0, 0, 0.3 * h), (w, d, h), "main", "cyl")]


def _microwave(w: float, d: float, h: float) -> list[_Part]:
    return [_Part((0, 0, 0), (w, d - 0.01, h)), _Part((0.1 * w, d - 0.01, 0.15 * h), (0.7 * w, d, 0.85 * h),
                                                       "accent")]


@dataclass(frozen=True)
class _Spec:
    key: str
    category: str
    lo: Vec3  # world box
    hi: Vec3
    colors: tuple[RGB, ...]  # main, second, accent
    material: str
    shape: str
    template: Template = _block
    front: str = "+y"  # world direction of the template's local front
    kind: ObjectKind = ObjectKind.OBJECT
    facing: bool = False  # whether ``front`` is meaningful (stored as SceneObject.front)
    rel: tuple[Relation, str] | None = None  # intended support-like relation to another spec key


def _local_size(s: _Spec) -> tuple[float, float, float]:
    dx, dy, dz = (h - lo for lo, h in zip(s.lo, s.hi, strict=True))
    return (dy, dx, dz) if s.front in ("+x", "-x") else (dx, dy, dz)


def _to_world(s: _Spec, p: _Part) -> tuple[np.ndarray, np.ndarray]:
    """World box of a part: rotate the local frame so its +y is the spec's front, then place it."""
    w, d, _ = _local_size(s)
    xs, ys = np.array([p.lo[0], p.hi[0]]), np.array([p.lo[1], p.hi[1]])
    if s.front == "+y":
        wx, wy = xs, ys
    elif s.front == "-y":
        wx, wy = w - xs, d - ys
    elif s.front == "+x":
        wx, wy = ys, w - xs
    else:  # "-x"
        wx, wy = d - ys, xs
    base = np.asarray(s.lo, dtype=float)
    return base + np.array([wx.min(), wy.min(), p.lo[2]]), base + np.array([wx.max(), wy.max(), p.hi[2]])


def _unit_box() -> tuple[np.ndarray, np.ndarray]:
    """The cube [-0.5, 0.5]^3: 8 vertices, 12 outward-facing triangles."""
    v = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    f = np.array([[1, 3, 0], [4, 1, 0], [0, 3, 2], [2, 4, 0], [1, 7, 3], [5, 1, 4], [5, 7, 1], [3, 7, 2],
                  [6, 4, 2], [2, 7, 6], [6, 5, 4], [7, 5, 6]])
    return v, f


def _unit_cylinder(sections: int = 24) -> tuple[np.ndarray, np.ndarray]:
    """A closed cylinder of radius 0.5 and height 1 along z; its bounds are exactly the unit cube
    because ``sections`` is a multiple of 4 (vertices at 0, 90, 180 and 270 degrees)."""
    a = 2.0 * np.pi * np.arange(sections) / sections
    ring = np.stack([0.5 * np.cos(a), 0.5 * np.sin(a)], axis=1)
    v = np.concatenate([np.c_[ring, np.full(sections, -0.5)], np.c_[ring, np.full(sections, 0.5)],
                        [[0, 0, -0.5], [0, 0, 0.5]]])
    k = np.arange(sections)
    n = (k + 1) % sections
    top, cb, ct = k + sections, 2 * sections, 2 * sections + 1
    f = np.concatenate([
        np.stack([k, n, n + sections], axis=1), np.stack([k, n + sections, top], axis=1),  # sides
        np.stack([np.full(sections, ct), top, n + sections], axis=1),  # top cap
        np.stack([np.full(sections, cb), n, k], axis=1),  # bottom cap
    ])
    return v, f


def _part_mesh(lo: np.ndarray, hi: np.ndarray, shape: str, axis_x: bool, rgb: RGB) -> TriMesh:
    v, f = _unit_box() if shape == "box" else _unit_cylinder()
    if shape == "cyl_h":  # proper rotations taking the axis to world x or y (the unit cube maps to itself)
        rot = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]] if axis_x else [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
        v = v @ np.array(rot, dtype=float).T
    v = v * (hi - lo) + (lo + hi) / 2.0
    return TriMesh(v, f, np.tile(rgb, (len(v), 1)))


def _object_mesh(s: _Spec) -> TriMesh:
    template_parts = s.template(*_local_size(s))
    roles = {"main": 0, "second": 1, "accent": 2}
    meshes = []
    for p in template_parts:
        lo, hi = _to_world(s, p)
        rgb = s.colors[min(roles[p.role], len(s.colors) - 1)]
        meshes.append(_part_mesh(lo, hi, p.shape, s.front in ("+x", "-x"), rgb))
    return TriMesh.merge(meshes)


# ----- the apartment ---------------------------------------------------------------------------
def _rooms() -> dict[str, tuple[Vec3, Vec3]]:
    """Each room's interior (between the walls' inner faces), floor to ceiling."""
    return {
        "kitchen": ((0.0, 0.0, 0.0), (3.45, 5.0, HEIGHT)),
        "living room": ((3.55, 0.0, 0.0), (7.45, 5.0, HEIGHT)),
        "bedroom": ((7.55, 0.0, 0.0), (11.0, 5.0, HEIGHT)),
    }


# palette (immutable RGB constants; names are what ``color_name`` calls them)
WHITE, LGRAY, GRAY, DGRAY = (235, 235, 235), (185, 185, 185), (128, 128, 128), (75, 75, 75)
BLACK, BROWN, DBROWN, BEIGE = (25, 25, 25), (120, 80, 50), (70, 45, 30), (205, 185, 150)
RED, BLUE, GREEN, YELLOW = (190, 40, 40), (50, 90, 180), (60, 140, 60), (225, 205, 60)
ORANGE, LBLUE, PURPLE = (225, 125, 40), (140, 180, 225), (115, 60, 145)
DGREEN, DBLUE = (30, 75, 35), (30, 40, 95)
SUP, INSIDE = Relation.SUPPORTED_BY, Relation.INSIDE
MOUNTED, HANGING = Relation.MOUNTED_ON, Relation.HANGING_ON


def _structure() -> list[_Spec]:
    f, w = ObjectKind.FLOOR, ObjectKind.WALL
    t, z = WALL, HEIGHT
    return [
        _Spec("floor_kitchen", "floor", (-t, -t, -0.02), (3.5, 5 + t, 0.0), ((215, 215, 210), GRAY), "tiled",
              "flat", kind=f),
        _Spec("floor_living", "floor", (3.5, -t, -0.02), (7.5, 5 + t, 0.0), (BROWN, DBROWN), "wooden", "flat",
              kind=f),
        _Spec("floor_bedroom", "floor", (7.5, -t, -0.02), (11 + t, 5 + t, 0.0), (BEIGE,), "carpeted", "flat",
              kind=f),
        _Spec("wall_kitchen_s", "wall", (-t, -t, 0), (3.5, 0, z), (WHITE,), "painted", "flat", kind=w),
        _Spec("wall_kitchen_n", "wall", (-t, 5, 0), (3.5, 5 + t, z), (WHITE,), "painted", "flat", kind=w),
        _Spec("wall_kitchen_w", "wall", (-t, 0, 0), (0, 5, z), (WHITE,), "painted", "flat", kind=w),
        _Spec("wall_kitchen_living", "wall", (3.45, 0, 0), (3.55, 4.0, z), (WHITE,), "painted", "flat",
              kind=w),
        _Spec("wall_living_s", "wall", (3.5, -t, 0), (7.5, 0, z), (BEIGE,), "painted", "flat", kind=w),
        _Spec("wall_living_n", "wall", (3.5, 5, 0), (7.5, 5 + t, z), (BEIGE,), "painted", "flat", kind=w),
        _Spec("wall_living_bedroom", "wall", (7.45, 1.0, 0), (7.55, 5.0, z), (BEIGE,), "painted", "flat",
              kind=w),
        _Spec("wall_bedroom_s", "wall", (7.5, -t, 0), (11 + t, 0, z), (LBLUE,), "painted", "flat", kind=w),
        _Spec("wall_bedroom_n", "wall", (7.5, 5, 0), (11 + t, 5 + t, z), (LBLUE,), "painted", "flat", kind=w),
        _Spec("wall_bedroom_e", "wall", (11, 0, 0), (11 + t, 5, z), (LBLUE,), "painted", "flat", kind=w),
    ]


def _kitchen() -> list[_Spec]:
    fl = (SUP, "floor_kitchen")
    table = (SUP, "dining_table")
    chair = ((DBROWN, BLACK), "wooden", "rectangular", _chair)
    return [
        _Spec("counter", "kitchen counter", (0, 4.4, 0), (2.4, 5.0, 0.9), (WHITE, LGRAY, BLACK), "marble",
              "rectangular", _cabinet, "-y", facing=True, rel=fl),
        _Spec("fridge", "refrigerator", (2.6, 4.3, 0), (3.4, 5.0, 1.85), (LGRAY, LGRAY, DGRAY), "metal",
              "rectangular", _fridge, "-y", facing=True, rel=fl),
        _Spec("microwave", "microwave", (0.3, 4.55, 0.9), (0.8, 4.9, 1.2), (BLACK, BLACK, DGRAY), "metal",
              "rectangular", _microwave, "-y", facing=True, rel=(SUP, "counter")),
        _Spec("kettle", "kettle", (1.6, 4.6, 0.9), (1.8, 4.8, 1.15), (LGRAY,), "metal", "cylindrical",
              _cylinder, rel=(SUP, "counter")),
        _Spec("dining_table", "dining table", (1.0, 1.6, 0), (2.4, 2.5, 0.75), (BROWN, DBROWN), "wooden",
              "rectangular", _table, rel=fl),
        _Spec("chair_sw", "chair", (1.125, 1.0, 0), (1.575, 1.45, 0.9), *chair, "+y",
              facing=True, rel=fl),
        _Spec("chair_se", "chair", (1.825, 1.0, 0), (2.275, 1.45, 0.9), *chair, "+y",
              facing=True, rel=fl),
        _Spec("chair_nw", "chair", (1.125, 2.65, 0), (1.575, 3.1, 0.9), *chair, "-y",
              facing=True, rel=fl),
        _Spec("chair_ne", "chair", (1.825, 2.65, 0), (2.275, 3.1, 0.9), *chair, "-y",
              facing=True, rel=fl),
        _Spec("cup_red", "cup", (1.2, 1.8, 0.75), (1.28, 1.88, 0.85), (RED,), "ceramic", "cylindrical",
              _cylinder, rel=table),
        _Spec("cup_blue", "cup", (2.1, 2.2, 0.75), (2.18, 2.28, 0.85), (BLUE,), "ceramic", "cylindrical",
              _cylinder, rel=table),
        _Spec("plate_1", "plate", (1.35, 1.7, 0.75), (1.6, 1.95, 0.77), (WHITE,), "ceramic", "round",
              _cylinder, rel=table),
        _Spec("plate_2", "plate", (1.8, 2.15, 0.75), (2.05, 2.4, 0.77), (WHITE,), "ceramic", "round",
              _cylinder, rel=table),
        _Spec("bowl", "bowl", (1.63, 1.92, 0.75), (1.81, 2.1, 0.84), (GREEN,), "ceramic", "round", _cylinder,
              rel=table),
        _Spec("trash_can", "trash can", (2.45, 3.85, 0), (2.75, 4.15, 0.5), (GRAY,), "plastic", "cylindrical",
              _cylinder, rel=fl),
        _Spec("clock", "clock", (1.5, 0.0, 1.8), (1.8, 0.05, 2.1), (BLACK, BLACK, WHITE), "plastic", "round",
              _disc, "+y", facing=True, rel=(HANGING, "wall_kitchen_s")),
    ]


def _living() -> list[_Spec]:
    fl = (SUP, "floor_living")
    coffee = (SUP, "coffee_table")
    shelf = (INSIDE, "bookshelf")
    return [
        _Spec("tv", "tv", (4.9, 4.94, 1.0), (6.1, 5.0, 1.7), (BLACK, BLACK, DBLUE), "plastic", "flat",
              _screen, "-y", facing=True, rel=(MOUNTED, "wall_living_n")),
        _Spec("tv_stand", "tv stand", (4.7, 4.55, 0), (6.3, 5.0, 0.5), (WHITE, WHITE, LGRAY), "wooden",
              "rectangular", _cabinet, "-y", facing=True, rel=fl),
        _Spec("sofa", "sofa", (4.6, 0.15, 0), (6.6, 1.05, 0.85), (GRAY, DGRAY), "fabric", "rectangular",
              _sofa, "+y", facing=True, rel=fl),
        _Spec("armchair_green", "armchair", (3.8, 1.6, 0), (4.6, 2.4, 0.85), (GREEN, DGREEN), "fabric",
              "square", _sofa, "+x", facing=True, rel=fl),
        _Spec("armchair_brown", "armchair", (6.6, 1.6, 0), (7.4, 2.4, 0.85), (BROWN, DBROWN), "leather",
              "square", _sofa, "-x", facing=True, rel=fl),
        _Spec("coffee_table", "coffee table", (5.1, 1.7, 0), (6.1, 2.3, 0.45), (BEIGE, BROWN), "wooden",
              "rectangular", _table, rel=fl),
        _Spec("laptop", "laptop", (5.3, 1.8, 0.45), (5.65, 2.05, 0.7), (LGRAY, LGRAY, BLACK), "metal", "flat",
              _laptop, "-y", facing=True, rel=coffee),
        _Spec("remote", "remote control", (5.8, 1.9, 0.45), (5.85, 2.08, 0.47), (BLACK,), "plastic",
              "rectangular", rel=coffee),
        _Spec("bookshelf", "bookshelf", (3.55, 3.0, 0), (3.9, 4.0, 1.8), (DBROWN,), "wooden", "rectangular",
              _bookshelf, "+x", facing=True, rel=fl),
        _Spec("book_red", "book", (3.62, 3.1, 0.47), (3.82, 3.15, 0.72), (RED,), "paper", "rectangular",
              rel=shelf),
        _Spec("book_blue", "book", (3.62, 3.16, 0.47), (3.8, 3.21, 0.74), (BLUE,), "paper", "rectangular",
              rel=shelf),
        _Spec("book_green", "book", (3.62, 3.22, 0.47), (3.84, 3.26, 0.7), (GREEN,), "paper", "rectangular",
              rel=shelf),
        _Spec("book_yellow", "book", (3.62, 3.5, 0.92), (3.82, 3.56, 1.18), (YELLOW,), "paper", "rectangular",
              rel=shelf),
        _Spec("floor_lamp", "lamp", (7.0, 4.3, 0), (7.4, 4.7, 1.7), (BLACK, BLACK), "metal", "cylindrical",
              _lamp(0.82), rel=fl),
        _Spec("picture_living", "picture", (5.2, 0.0, 1.3), (6.0, 0.03, 1.9), (ORANGE, DBROWN), "canvas",
              "rectangular", _framed, "+y", facing=True, rel=(HANGING, "wall_living_s")),
        _Spec("plant", "plant", (3.7, 4.4, 0), (4.1, 4.8, 1.1), (GREEN, ORANGE), "ceramic", "round", _plant,
              rel=fl),
    ]


def _bedroom() -> list[_Spec]:
    fl = (SUP, "floor_bedroom")
    desk = (SUP, "desk")
    return [
        _Spec("bed", "bed", (8.8, 3.0, 0), (10.4, 5.0, 0.55), (WHITE, BROWN), "fabric", "rectangular", _bed,
              "-y", facing=True, rel=fl),
        _Spec("pillow_blue", "pillow", (9.0, 4.5, 0.55), (9.5, 4.85, 0.67), (LBLUE,), "fabric", "rectangular",
              rel=(SUP, "bed")),
        _Spec("pillow_yellow", "pillow", (9.7, 4.5, 0.55), (10.2, 4.85, 0.67), (YELLOW,), "fabric",
              "rectangular", rel=(SUP, "bed")),
        _Spec("nightstand_left", "nightstand", (8.3, 4.55, 0), (8.75, 4.95, 0.55), (BROWN, BROWN, BLACK),
              "wooden", "rectangular", _cabinet, "-y", facing=True, rel=fl),
        _Spec("nightstand_right", "nightstand", (10.45, 4.55, 0), (10.9, 4.95, 0.55), (BROWN, BROWN, BLACK),
              "wooden", "rectangular", _cabinet, "-y", facing=True, rel=fl),
        _Spec("table_lamp", "lamp", (8.4, 4.6, 0.55), (8.65, 4.85, 0.95), (WHITE, LGRAY), "ceramic",
              "cylindrical", _lamp(0.5), rel=(SUP, "nightstand_left")),
        _Spec("alarm_clock", "alarm clock", (10.55, 4.65, 0.55), (10.67, 4.72, 0.65), (RED,), "plastic",
              "rectangular", rel=(SUP, "nightstand_right")),
        _Spec("book_purple", "book", (10.6, 4.75, 0.55), (10.8, 4.9, 0.58), (PURPLE,), "paper", "rectangular",
              rel=(SUP, "nightstand_right")),
        _Spec("wardrobe", "wardrobe", (9.8, 0.0, 0), (10.95, 0.6, 2.0), (DBROWN, DBROWN, LGRAY), "wooden",
              "rectangular", _wardrobe, "+y", facing=True, rel=fl),
        _Spec("desk", "desk", (7.6, 1.5, 0), (8.3, 2.7, 0.75), (WHITE, LGRAY), "wooden", "rectangular",
              _table, rel=fl),
        _Spec("monitor", "monitor", (7.65, 1.85, 0.75), (7.85, 2.35, 1.15), (BLACK, BLACK, DBLUE), "plastic",
              "flat", _monitor, "+x", facing=True, rel=desk),
        _Spec("keyboard", "keyboard", (7.95, 1.9, 0.75), (8.1, 2.3, 0.78), (WHITE,), "plastic", "rectangular",
              rel=desk),
        _Spec("office_chair", "office chair", (8.4, 1.85, 0), (8.9, 2.35, 1.0), (BLACK, DGRAY), "fabric",
              "rectangular", _chair, "-x", facing=True, rel=fl),
        _Spec("picture_bedroom", "picture", (10.97, 2.0, 1.2), (11.0, 2.8, 1.7), (BLUE, WHITE), "canvas",
              "rectangular", _framed, "-x", facing=True, rel=(HANGING, "wall_bedroom_e")),
        _Spec("mirror", "mirror", (8.3, 0.0, 0.9), (8.9, 0.03, 1.8), (LGRAY, WHITE), "glass", "rectangular",
              _framed, "+y", facing=True, rel=(HANGING, "wall_bedroom_s")),
    ]


@dataclass(frozen=True, eq=False)
class DemoScene:
    """The demo apartment: objects (ids "0", "1", ...), one coloured mesh per object, and rooms."""

    objects: list[SceneObject]
    meshes: dict[str, TriMesh]
    rooms: dict[str, tuple[Vec3, Vec3]]
    room_of: dict[str, str]  # object id -> room name
    intended: list[Edge]  # the support-like facts the geometry is built to show
    keys: dict[str, str] = field(default_factory=dict)  # readable handle ("cup_red") -> object id
    scene_id: str = "demo"
    scene_type: str = "Apartment"

    def by_key(self, key: str) -> SceneObject:
        """An object by its readable handle, e.g. ``"tv"`` or ``"book_red"``."""
        oid = self.keys[key]
        return next(o for o in self.objects if o.id == oid)


def demo_scene() -> DemoScene:
    """Build the demo apartment (deterministic: same ids, boxes and meshes on every call)."""
    room_word = {"kitchen": "kitchen", "living": "living room", "bedroom": "bedroom"}  # "wall_living_s"
    specs = [(room_word[s.key.split("_")[1]], s) for s in _structure()]
    specs += [("kitchen", s) for s in _kitchen()] + [("living room", s) for s in _living()]
    specs += [("bedroom", s) for s in _bedroom()]
    keys = {s.key: str(i) for i, (_, s) in enumerate(specs)}
    objects, meshes, room_of, intended = [], {}, {}, []
    for (room, s), oid in zip(specs, keys.values(), strict=True):
        lo, hi = np.asarray(s.lo, float), np.asarray(s.hi, float)
        c, z = (lo + hi) / 2.0, hi - lo
        rgb = s.colors[0]
        objects.append(SceneObject(
            id=oid, category=s.category,
            center=(float(c[0]), float(c[1]), float(c[2])), size=(float(z[0]), float(z[1]), float(z[2])),
            color=rgb, attributes=(color_name(rgb), s.material, s.shape), provenance="demo", kind=s.kind,
            front=_FRONTS[s.front] if s.facing else None,
        ))
        meshes[oid] = _object_mesh(s)
        room_of[oid] = room
        if s.rel is not None:
            intended.append(Edge(oid, s.rel[0], keys[s.rel[1]], provenance="demo"))
    return DemoScene(objects, meshes, _rooms(), room_of, intended, keys)
