"""Tabletop scenes: the object kinds a task file may name, and the named scenes of the MultiTalk supplement.

Coordinates are the robot base frame: x forward from the arm's base, y to its left, metres, on the table
top (z = 0). Kinds are YCB-sized primitives (soup can, mustard bottle), a 5 cm cube and pybullet_data's
mug (wider than the open gripper: it cannot be grasped).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from synergai.robots.errors import RobotError
from synergai.robots.tabletop.objects import ObjectSpec

_YELLOW, _RED, _BLUE, _WHITE = (230, 190, 30), (190, 30, 30), (40, 90, 200), (235, 235, 235)


def mustard_bottle(name: str, xy: tuple[float, float]) -> ObjectSpec:
    """A YCB-sized mustard bottle (5.8 x 9.5 x 19 cm box)."""
    return ObjectSpec(name, "mustard bottle", xy, "box", (0.058, 0.095, 0.19), _YELLOW, mass=0.4)


def soup_can(name: str, xy: tuple[float, float]) -> ObjectSpec:
    """A YCB-sized soup can (6.6 cm diameter, 10 cm high cylinder)."""
    return ObjectSpec(name, "soup can", xy, "cylinder", (0.066, 0.066, 0.10), _RED, mass=0.35)


def cube(name: str, xy: tuple[float, float]) -> ObjectSpec:
    """A 5 cm toy cube."""
    return ObjectSpec(name, "cube", xy, "box", (0.05, 0.05, 0.05), _BLUE, mass=0.1)


def mug(name: str, xy: tuple[float, float]) -> ObjectSpec:
    """pybullet_data's mug (too wide for the gripper)."""
    return ObjectSpec(name, "mug", xy, "urdf", urdf="objects/mug.urdf", color=_WHITE)


#: The kinds an inline scene may use, by name.
KINDS: Mapping[str, Callable[[str, tuple[float, float]], ObjectSpec]] = MappingProxyType({
    "soup can": soup_can, "mustard bottle": mustard_bottle, "cube": cube, "mug": mug,
})

#: Scenes by name: the first MultiTalk example's two objects, the two pairs of the others, and toys.
SCENES: Mapping[str, tuple[ObjectSpec, ...]] = MappingProxyType({
    "snack": (mustard_bottle("mustard bottle", (0.32, -0.33)), soup_can("soup can", (0.3, 0.4))),
    "pairs": (
        mustard_bottle("mustard bottle 1", (0.32, -0.33)),
        mustard_bottle("mustard bottle 2", (0.35, 0.35)),
        soup_can("soup can 1", (0.38, -0.51)),
        soup_can("soup can 2", (0.4, 0.51)),
    ),
    "toys": (mug("mug", (0.3, 0.2)), cube("cube", (0.35, -0.2)), soup_can("soup can", (0.3, -0.45))),
})


def scene_objects(scene: str) -> tuple[ObjectSpec, ...]:
    """A named scene's objects; RobotError lists the known scenes."""
    try:
        return SCENES[scene]
    except KeyError:
        raise RobotError(f"unknown tabletop scene {scene!r}; scenes: {', '.join(SCENES)}") from None


def object_from_entry(entry: Mapping[str, object]) -> ObjectSpec:
    """One inline object ``{"name": ..., "kind": ..., "xy": [x, y]}``; RobotError names what is wrong."""
    if not isinstance(entry, Mapping):
        raise RobotError(f"a scene object must be an object with name, kind and xy, got {entry!r}")
    name, kind, xy = entry.get("name"), entry.get("kind"), entry.get("xy")
    if not isinstance(name, str) or not name.strip():
        raise RobotError(f"a scene object needs a name: {dict(entry)!r}")
    if kind not in KINDS:
        raise RobotError(f"object {name}: unknown kind {kind!r}; kinds: {', '.join(KINDS)}")
    if (not isinstance(xy, Sequence) or isinstance(xy, str) or len(xy) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in xy)):
        raise RobotError(f"object {name}: xy must be two numbers [x, y], got {xy!r}")
    unknown = set(entry) - {"name", "kind", "xy"}
    if unknown:
        raise RobotError(f"object {name}: unknown keys {', '.join(sorted(unknown))}")
    return KINDS[kind](name.strip(), (float(xy[0]), float(xy[1])))  # type: ignore[index]
