"""Where the 3D view's text labels go so that none covers another.

A label hangs above its anchor point (bottom-centre anchored, its size fixed on screen). Labels are
placed in priority order (the marked object's first, then the answer's); one whose box would overlap a
label already placed is raised above it, as often as needed. The boxes are estimated in metres: the
text's width from its length, seen from any side (a circle around the vertical axis), and a line's height.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class LabelSize:
    """How big a label looks in the room at a usual viewing distance (metres)."""

    char_width: float = 0.055
    line_height: float = 0.2
    padding: float = 0.05


def place_labels(anchors: Sequence[Sequence[float]], texts: Sequence[str],
                 size: LabelSize | None = None) -> list[Vec3]:
    """A position per label: its anchor, raised above any earlier label it would overlap."""
    if len(anchors) != len(texts):
        raise ValueError(f"{len(anchors)} anchors for {len(texts)} labels")
    size = size or LabelSize()
    placed: list[tuple[Vec3, float]] = []  # (position, half width)
    for anchor, text in zip(anchors, texts, strict=True):
        x, y, z = (float(v) for v in anchor)
        half = 0.5 * len(text) * size.char_width + size.padding
        moved = True
        while moved:
            moved = False
            for (px, py, pz), phalf in placed:
                side = ((x - px) ** 2 + (y - py) ** 2) ** 0.5 < half + phalf
                if side and abs(z - pz) < size.line_height - 1e-9:  # (pz + h) - pz may come out below h
                    z = pz + size.line_height
                    moved = True
        placed.append(((x, y, z), half))
    return [p for p, _ in placed]
