"""Every threshold of the relation families, in one frozen dataclass (metres, ratios, degrees).

Defaults start from public references and were measured against the Sr3D test relations in
``shared/data/sr3d`` (``python benchmarks/bench_relations.py`` prints the figures):

* Sr3D (ReferIt3D vertical proximity): touch 0.15 m, above/below gap 0.06 m, supporting-area
  ratio < 1.5, supported-area ratio > 0.3, above/below overlap ratio > 0.2 - kept (a sweep of
  touch 0.1-0.2 m and gap 0.03-0.1 m found nothing better; a 0.1 m gap loses 15 points).
* Sr3D allocentric sections: sectors widening by 10 degrees from the anchor's edges - kept
  (97 % on Sr3D; 45 degree sectors, which split the plane between the four sides, score 70 %
  because Sr3D leaves diagonal objects out). Widen ``sector_angle`` for looser everyday use.
* Sr3D "between": occupancy 0.51 and anchor overlap 0.1 assume oriented boxes and point clouds;
  on axis-aligned boxes they reject true references, so 0.4 / 0.3 (89.6 % -> 98.0 %).
* Closest / farthest: the Sr3D / LLM-TPC margin of 0.2 m (99.8 %) to say it; 0.1 m to read it in
  grounding (Nr3D dev expressions re-resolved: +2 / +1 on the two scene halves, Sr3D unchanged).
* SceneVerse: support / embed / inside split by how deep the subject sits in its holder
  (< 0.8 of its height: support, < 0.95: embed, else inside); far when the centre distance
  exceeds 1.5 x the sum of the footprint half-diagonals.
* LLM-TPC: within reach 1 m.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from synergai.scene.model import SceneError


@dataclass(frozen=True)
class RelationThresholds:
    """Thresholds of all relation families; every field has a documented default."""

    # ----- vertical proximity
    #: Max |subject bottom - holder top| for "resting on" (Sr3D ``max_touch_distance``).
    touch: float = 0.15
    #: Min vertical gap between subject bottom and object top for "above" (Sr3D).
    min_above_gap: float = 0.06
    #: Subject footprint / holder footprint must stay below this for support (Sr3D).
    max_supporting_area_ratio: float = 1.5
    #: Footprint overlap / subject footprint above this for support (Sr3D).
    min_supported_area_ratio: float = 0.3
    #: Footprint overlap / the smaller footprint above this for above / below (Sr3D).
    min_above_area_ratio: float = 0.2
    #: A holder must lift the subject: subject bottom at least this above the holder bottom.
    support_min_lift: float = 0.02
    #: Depth of the subject below the holder top, in subject heights: below this = support,
    #: up to ``inside_z_rate`` = embedded, beyond = inside (SceneVerse).
    embed_z_rate: float = 0.8
    inside_z_rate: float = 0.95
    #: Footprint overlap / subject footprint needed for embedded in / inside.
    min_inside_area_ratio: float = 0.6
    #: Max gap between a subject and a wall / ceiling / side it hangs on.
    attach_gap: float = 0.15
    #: A floor's walking surface is at most this far above the bottom of its box.
    floor_band: float = 0.3
    #: Horizontal slack when deciding whether a subject stands over a floor patch.
    floor_xy_margin: float = 0.3

    # ----- horizontal proximity
    #: Max 3D box gap for "near" (pairs no closer relation links).
    near_gap: float = 0.5
    #: Min centre-height difference for "higher than" / "lower than" between neighbours.
    min_height_diff: float = 0.2
    #: "Far" when the centre distance exceeds ``far_ratio`` x the sum of footprint half-diagonals
    #: (SceneVerse) and at least ``far_min_distance``.
    far_ratio: float = 1.5
    far_min_distance: float = 2.0
    #: "Within reach" when the box is at most this far from the point or object (LLM-TPC).
    reach: float = 1.0

    # ----- allocentric
    #: Max horizontal gap for "next to" (side by side, almost touching).
    next_to_gap: float = 0.15
    #: Max horizontal gap for "beside" (side by side, a little apart).
    beside_gap: float = 0.5
    #: Max footprint overlap / smaller footprint for two objects to count as side by side.
    max_side_overlap: float = 0.3
    #: Half-width (degrees, from the anchor's edge) of the left / right / front / behind sectors.
    sector_angle: float = 10.0
    #: Fraction of the subject's footprint that must lie in a sector.
    min_sector_occupancy: float = 0.5

    # ----- comparative
    #: Closest / farthest must beat the runner-up by this margin (LLM-TPC / Sr3D epsilon).
    epsilon: float = 0.2
    #: Reading "the closest" / "the farthest" in a person's description: candidates within this margin of
    #: the extreme tie. Smaller than ``epsilon``, the margin for *saying* "closest" (a generated Sr3D
    #: sentence): a person names the nearest of two boxes even when the other is a hand's width farther.
    closest_tie: float = 0.1
    #: Fraction of the subject's footprint inside the anchors' convex hull for "between" (Sr3D).
    between_occupancy: float = 0.4
    #: Max fraction of the subject's footprint overlapping either anchor for "between" (Sr3D).
    between_max_anchor_overlap: float = 0.3
    #: Samples per side of the footprint grid used for occupancy ratios.
    footprint_samples: int = 8

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int | float) or value != value or value < 0:
                raise SceneError(f"relation threshold {f.name} must be a non-negative number, got {value!r}")
        if self.sector_angle >= 90.0:
            raise SceneError(f"relation threshold sector_angle must be below 90, got {self.sector_angle}")
        if self.footprint_samples < 1:
            raise SceneError("relation threshold footprint_samples must be at least 1")

    def as_dict(self) -> dict[str, float]:
        """Field name -> value, for reports."""
        return {f.name: getattr(self, f.name) for f in fields(self)}
