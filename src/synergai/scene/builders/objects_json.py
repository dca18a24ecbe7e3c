"""Loader of the shared objects format (ScanNet ground truth and 3D-VisTA / Mask3D predictions).

Two layouts are accepted:

* nested: ``{"scenes": {scene_id: [object, ...]}, "scene_type": {scene_id: "Kitchen", ...}}``
  (``objects_gt.json``: ground truth, ``avg_rgba``);
* flat: ``{scene_id: [object, ...]}`` (``objects_pred_3dvista.json``: predictions with ``score``
  and ``median_rgba``).

An object has ``id``, ``label``, ``center_position``, ``size`` and optionally a colour, a
``score``, and Scan2CAD's ``obb`` (centre xyz, size xyz), ``rot_angle`` (yaw) and ``front_point``
with ``has_front``.

Colour names are given after the scene's own colour correction (:class:`ColorCorrection`, estimated
from the scene's walls and ceiling); the raw mean colour stays in ``SceneObject.color``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from synergai.geometry.frames import vec3
from synergai.scene.attributes import DEFAULT_CORRECTION, ColorCorrection, CorrectionMethod, color_name
from synergai.scene.model import ObjectKind, OrientedBox, SceneError, SceneObject


def _vec(raw: Any, n: int, what: str) -> tuple[float, ...]:
    if not isinstance(raw, list | tuple) or len(raw) < n:
        raise ValueError(f"{what} must be a list of {n} numbers")
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw[:n]):
        raise ValueError(f"{what} must be a list of {n} numbers")
    try:
        vals = tuple(map(float, raw[:n]))
    except OverflowError:
        raise ValueError(f"{what} has a number too large for a float") from None
    if not all(map(math.isfinite, vals)):
        raise ValueError(f"{what} has a non-finite number")
    return vals


def _kind_of(label: str, kinds: dict[str, ObjectKind] | None) -> ObjectKind:
    from synergai.scene.build import structure_kind  # scipy: only when objects are read (fast `scene list`)

    if kinds is None:
        return structure_kind(label)
    if label not in kinds:
        kinds[label] = structure_kind(label)
    return kinds[label]


def object_from_record(
    raw: Mapping[str, Any], provenance: str, kinds: dict[str, ObjectKind] | None = None
) -> SceneObject:
    """One :class:`SceneObject` from one object record (ValueError / SceneError on bad fields);
    ``kinds`` remembers the structure kind of labels already seen. The colour is named as captured
    (no scene correction: :func:`correct_colour_names` renames a whole scene's objects)."""
    if not isinstance(raw, Mapping):
        raise ValueError("an object must be a JSON object")
    for key in ("id", "label", "center_position", "size"):
        if key not in raw:
            raise ValueError(f"object without {key!r}")
    if not isinstance(raw["label"], str) or not raw["label"].strip():
        raise ValueError(f"label must be a non-empty string, got {raw['label']!r}")
    label = raw["label"]
    if isinstance(raw["id"], bool) or not isinstance(raw["id"], str | int) or not str(raw["id"]).strip():
        raise ValueError(f"id must be a non-empty string or an integer, got {raw['id']!r}")
    center = vec3(_vec(raw["center_position"], 3, "center_position"))
    size = vec3(_vec(raw["size"], 3, "size"))
    rgba = raw.get("avg_rgba", raw.get("median_rgba"))
    color = None
    if rgba is not None:
        c = _vec(rgba, 3, "colour")
        if not all(0.0 <= v <= 255.0 for v in c):
            raise ValueError(f"colour channels must lie in 0..255, got {list(c)}")
        color = (round(c[0]), round(c[1]), round(c[2]))
    score = raw.get("score")
    confidence = 1.0 if score is None else _vec([score], 1, "score")[0]
    obb = None
    if raw.get("obb") is not None:
        box = _vec(raw["obb"], 6, "obb")
        yaw = _vec([raw.get("rot_angle") or 0.0], 1, "rot_angle")[0]
        obb = OrientedBox(center=vec3(box[:3]), size=vec3(abs(v) for v in box[3:6]), yaw=yaw)
    front = None
    if raw.get("has_front") and raw.get("front_point") is not None:
        fp = _vec(raw["front_point"], 3, "front_point")
        origin = obb.center if obb is not None else center
        dx, dy = fp[0] - origin[0], fp[1] - origin[1]
        norm = math.hypot(dx, dy)
        if norm < 1e-6 and obb is not None:  # front point on the centre: fall back to the yaw
            dx, dy, norm = -math.cos(obb.yaw), -math.sin(obb.yaw), 1.0
        if norm >= 1e-6:
            front = (dx / norm, dy / norm, 0.0)
    return SceneObject(
        id=str(raw["id"]),
        category=label,
        center=center,
        size=size,
        color=color,
        attributes=(color_name(color),) if color is not None else (),
        confidence=confidence,
        provenance=provenance,
        kind=_kind_of(label, kinds),
        front=front,
        obb=obb,
    )


def correct_colour_names(
    objects: list[SceneObject], method: CorrectionMethod = DEFAULT_CORRECTION
) -> list[SceneObject]:
    """One scene's objects with their colour attribute named after the scene's colour correction
    (estimated from these objects); raw colours and everything else unchanged."""
    correction = ColorCorrection.estimate(objects, method)
    return [
        o if o.color is None else replace(o, attributes=(correction.name(o.color), *o.attributes[1:]))
        for o in objects
    ]


@dataclass(frozen=True)
class ObjectsFile:
    """The scenes of one objects file, parsed and validated."""

    path: Path
    provenance: str
    _scenes: Mapping[str, tuple[SceneObject, ...]]
    _types: Mapping[str, str]

    @property
    def scene_ids(self) -> list[str]:
        """Scene ids in file order."""
        return list(self._scenes)

    def __len__(self) -> int:
        return len(self._scenes)

    def __contains__(self, scene_id: object) -> bool:
        return scene_id in self._scenes

    def _check(self, scene_id: str) -> None:
        if scene_id not in self._scenes:
            raise SceneError(f"{self.path}: unknown scene {scene_id!r} ({len(self._scenes)} scenes in file)")

    def scene_type(self, scene_id: str) -> str | None:
        """The scene's room type ("Kitchen", ...) when the file gives one."""
        self._check(scene_id)
        return self._types.get(scene_id)

    def objects(self, scene_id: str) -> list[SceneObject]:
        """The scene's objects (a fresh list; the objects themselves are immutable)."""
        self._check(scene_id)
        return list(self._scenes[scene_id])

    def object_count(self) -> int:
        """Objects over all scenes."""
        return sum(len(v) for v in self._scenes.values())


def _default_provenance(path: Path, nested: bool) -> str:
    if nested:
        return "scannet-gt"
    return "3dvista" if "3dvista" in path.name.lower() else "perception"


def load_objects_file(
    path: str | Path, provenance: str | None = None, colour_correction: CorrectionMethod = DEFAULT_CORRECTION
) -> ObjectsFile:
    """Parse an objects file in either layout; colours are named after each scene's
    ``colour_correction`` (:func:`correct_colour_names`).

    ``provenance`` defaults to ``"scannet-gt"`` for the nested layout and ``"3dvista"`` for a flat
    file whose name says so (else ``"perception"``). Raises :class:`SceneError` naming the file
    and the problem for unreadable or malformed input.
    """
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SceneError(f"{p}: cannot read objects file ({exc.strerror or exc})") from None
    except (ValueError, RecursionError) as exc:  # bad JSON or UTF-8, too deep, a 5000-digit number
        raise SceneError(f"{p}: not valid JSON ({exc or 'nested too deeply'})") from None
    if not isinstance(data, dict):
        raise SceneError(f"{p}: expected a JSON object of scenes, got {type(data).__name__}")
    nested = "scenes" in data
    scenes_raw = data["scenes"] if nested else data
    types_raw = data.get("scene_type", {}) if nested else {}
    if not isinstance(scenes_raw, dict):
        raise SceneError(f"{p}: 'scenes' must map scene ids to object lists")
    if not isinstance(types_raw, dict):
        raise SceneError(f"{p}: 'scene_type' must map scene ids to names")
    prov = provenance or _default_provenance(p, nested)
    scenes: dict[str, tuple[SceneObject, ...]] = {}
    kinds: dict[str, ObjectKind] = {}
    for sid, objs in scenes_raw.items():
        if not sid.strip():
            raise SceneError(f"{p}: a scene id must not be empty")
        if not isinstance(objs, list):
            raise SceneError(f"{p}: scene {sid!r} must be a list of objects")
        parsed = []
        seen: set[str] = set()
        for k, raw in enumerate(objs):
            try:
                obj = object_from_record(raw, prov, kinds)
            except (ValueError, TypeError) as exc:  # SceneError is a ValueError
                raise SceneError(f"{p}: scene {sid!r}, object #{k}: {exc}") from None
            if obj.id in seen:
                raise SceneError(f"{p}: scene {sid!r}: duplicate object id {obj.id}")
            seen.add(obj.id)
            parsed.append(obj)
        scenes[str(sid)] = tuple(correct_colour_names(parsed, colour_correction))
    for sid, name in types_raw.items():
        if name is not None and not isinstance(name, str):
            raise SceneError(f"{p}: scene_type of {sid!r} must be a string, got {name!r}")
    types = {str(k): v for k, v in types_raw.items() if v is not None}
    return ObjectsFile(path=p, provenance=prov, _scenes=scenes, _types=types)
