"""Object attributes derived from perception: colour names from RGB, after a per-scene correction, and
a shape word from the box.

Captured colours (ScanNet's meshes) are dark and tinted: a white file cabinet's mean colour is
named "dark gray". :class:`ColorCorrection` estimates, from the scene's own objects, gains that undo the
exposure (and optionally the tint) before a colour is named; the raw RGB is kept on the object.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from synergai.scene.model import ObjectKind, SceneObject
from synergai.scene.vocabulary import COLOR_PALETTE, COLOR_RGB


def _distances(rgb: tuple[int, int, int] | list[int] | np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Weighted RGB distance ("redmean"), a cheap approximation of perceptual distance."""
    c = np.asarray(rgb, dtype=float)[:3]
    rmean = (ref[:, 0] + c[0]) / 2.0
    d = ref - c
    return (2 + rmean / 256) * d[:, 0] ** 2 + 4 * d[:, 1] ** 2 + (2 + (255 - rmean) / 256) * d[:, 2] ** 2


#: Largest ratio of an object's two largest box sides that still reads as "square" (scanned boxes of square
#: things come out a few per cent uneven). Checked on the ScanQA dev split's shape questions, gold objects:
#: 72 of 103 answers name the shape this gives (always "rectangular": see docs/benchmarks-history.md).
SQUARE_RATIO = 1.15


def box_shape(size: Iterable[float]) -> str:
    """"square" or "rectangular", from the object's dominant face (its two largest box sides): the top of
    a table, the front of a tv. A box cannot tell round things apart."""
    a, b = sorted((abs(float(v)) for v in size), reverse=True)[:2]
    return "square" if a <= SQUARE_RATIO * max(b, 1e-9) else "rectangular"


def color_name(rgb: tuple[int, int, int] | list[int] | np.ndarray) -> str:
    """The nearest palette name of an 8-bit RGB colour (e.g. ``(120, 80, 50)`` -> ``"brown"``)."""
    r, g, b = (float(v) for v in rgb[:3])
    best, best_d = "", float("inf")
    for name, (pr, pg, pb) in COLOR_PALETTE:  # plain floats: ~20x faster than numpy for one colour
        rmean = (pr + r) / 2.0
        d = (2 + rmean / 256) * (pr - r) ** 2 + 4 * (pg - g) ** 2 + (2 + (255 - rmean) / 256) * (pb - b) ** 2
        if d < best_d:
            best, best_d = name, d
    return best


def color_distance(rgb: tuple[int, int, int] | list[int] | np.ndarray, name: str) -> float:
    """How far an 8-bit RGB colour is from a palette colour (redmean distance, 8-bit units): "the blue
    one" of two that both read gray is the bluer."""
    return float(np.sqrt(_distances(rgb, np.array([COLOR_RGB[name]], dtype=float))[0]))


def closest_color(rgb: tuple[int, int, int] | list[int] | np.ndarray, candidates: list[str]) -> str:
    """Of the candidate colour words, the one nearest to ``rgb`` ("grey" = "gray"); unknown words are
    ignored, and the first candidate is returned when none is known."""
    usable = [c for c in candidates if c.lower().replace("grey", "gray") in COLOR_RGB]
    if not usable:
        return candidates[0]
    ref = np.array([COLOR_RGB[c.lower().replace("grey", "gray")] for c in usable], dtype=float)
    return usable[int(np.argmin(_distances(rgb, ref)))]


# ------------------------------------------------------------------------------- per-scene correction
#: Grey level (8-bit luminance) a room's walls and ceiling are assumed to have: off-white, between the
#: palette's "light gray" (185) and "white" (235); picked among 160..220 on the dev split's colour
#: questions (``benchmarks/bench_colours.py`` shows the gain on both halves of its scenes).
WALL_GREY = 200.0
#: Percentile of the surface-weighted luminance taken for the walls' grey by ``BRIGHT_SURFACES``.
BRIGHT_PERCENTILE = 90.0
#: Kinds whose colour calibrates a scene (usually white or off-white paint).
_CALIBRATION_KINDS = (ObjectKind.WALL, ObjectKind.CEILING)
_LUMA = (0.299, 0.587, 0.114)


class CorrectionMethod(StrEnum):
    """How a scene's colour correction is estimated from the scene's own objects."""

    NONE = "none"
    #: grey world: the mean colour of all objects becomes a neutral grey of the same luminance
    #: (white balance), then that grey is scaled to mid-grey (exposure)
    GREY_WORLD = "grey-world"
    #: walls and ceiling (median colour) become neutral ``WALL_GREY`` (white balance + exposure)
    WALLS_BALANCE = "walls-balance"
    #: walls and ceiling (median luminance) become ``WALL_GREY``; hue untouched (exposure only)
    WALLS_EXPOSURE = "walls-exposure"
    #: the 90th percentile of the objects' luminance, weighted by each box's largest face, becomes
    #: ``WALL_GREY`` (exposure only; needs no wall label, so it is steadier when perception finds few)
    BRIGHT_SURFACES = "bright-surfaces"


#: The correction graphs are built with (the best of the methods on ScanQA's colour questions,
#: ``benchmarks/bench_colours.py``).
DEFAULT_CORRECTION = CorrectionMethod.WALLS_EXPOSURE


def _luma(rgb: np.ndarray) -> float:
    return float(np.dot(rgb, _LUMA))


def _face_area(size: tuple[float, float, float]) -> float:
    """Area of a box's largest face (a wall's surface, a table's top)."""
    _, b, c = sorted(abs(v) for v in size)
    return b * c


def _weighted_percentile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The ``q``-th percentile of ``values`` where each counts ``weights`` times (equal weights when all
    are zero)."""
    order = np.argsort(values)
    w = weights[order] if weights.sum() > 0 else np.ones(len(values))
    cum = np.cumsum(w)
    return float(values[order][min(int(np.searchsorted(cum, cum[-1] * q / 100.0)), len(values) - 1)])


@dataclass(frozen=True)
class ColorCorrection:
    """Per-channel gains that undo a scene's exposure and tint before its colours are named."""

    gains: tuple[float, float, float] = (1.0, 1.0, 1.0)

    def apply(self, rgb: tuple[int, int, int] | list[int] | np.ndarray) -> tuple[int, int, int]:
        """The corrected 8-bit colour (clipped to 0..255)."""
        r, g, b = (min(255, max(0, round(float(v) * k))) for v, k in zip(rgb[:3], self.gains, strict=True))
        return (r, g, b)

    def name(self, rgb: tuple[int, int, int] | list[int] | np.ndarray) -> str:
        """The palette name of the corrected colour."""
        return color_name(self.apply(rgb))

    @classmethod
    def estimate(
        cls, objects: Iterable[SceneObject], method: CorrectionMethod = DEFAULT_CORRECTION
    ) -> ColorCorrection:
        """The correction of one scene, estimated from its objects' raw colours (objects without a
        colour are ignored).

        The wall methods fall back to ``BRIGHT_SURFACES`` when the scene has no wall or ceiling with a
        colour; no colours at all give the identity.
        """
        coloured = [o for o in objects if o.color is not None]
        if method is CorrectionMethod.NONE or not coloured:
            return cls()
        rgb = np.array([o.color[:3] for o in coloured if o.color is not None], dtype=float)
        calib = np.array([o.color[:3] for o in coloured
                          if o.color is not None and o.kind in _CALIBRATION_KINDS], dtype=float)
        if method is CorrectionMethod.GREY_WORLD:
            mean = rgb.mean(axis=0)
            grey = max(_luma(mean), 1.0)
            return cls._gains(np.full(3, grey) / np.maximum(mean, 1.0) * (128.0 / grey))
        if method is CorrectionMethod.BRIGHT_SURFACES or len(calib) == 0:
            area = np.array([_face_area(o.size) for o in coloured])
            bright = _weighted_percentile(rgb @ np.array(_LUMA), area, BRIGHT_PERCENTILE)
            return cls._gains(np.full(3, WALL_GREY / max(bright, 1.0)))
        ref = np.median(calib, axis=0)
        if method is CorrectionMethod.WALLS_BALANCE:
            return cls._gains(np.full(3, WALL_GREY) / np.maximum(ref, 1.0))
        return cls._gains(np.full(3, WALL_GREY / max(_luma(ref), 1.0)))

    @classmethod
    def _gains(cls, g: np.ndarray) -> ColorCorrection:
        return cls(gains=(float(g[0]), float(g[1]), float(g[2])))
