"""Object attributes derived from perception: colour names from RGB."""

from __future__ import annotations

import numpy as np

from synergai.scene.vocabulary import COLOR_PALETTE


def _distances(rgb: tuple[int, int, int] | list[int] | np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Weighted RGB distance ("redmean"), a cheap approximation of perceptual distance."""
    c = np.asarray(rgb, dtype=float)[:3]
    rmean = (ref[:, 0] + c[0]) / 2.0
    d = ref - c
    return (2 + rmean / 256) * d[:, 0] ** 2 + 4 * d[:, 1] ** 2 + (2 + (255 - rmean) / 256) * d[:, 2] ** 2


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


def closest_color(rgb: tuple[int, int, int] | list[int] | np.ndarray, candidates: list[str]) -> str:
    """Of the candidate colour words, the one nearest to ``rgb`` ("grey" = "gray"); unknown words are
    ignored, and the first candidate is returned when none is known."""
    known = {n: v for n, v in COLOR_PALETTE}
    usable = [c for c in candidates if c.lower().replace("grey", "gray") in known]
    if not usable:
        return candidates[0]
    ref = np.array([known[c.lower().replace("grey", "gray")] for c in usable], dtype=float)
    return usable[int(np.argmin(_distances(rgb, ref)))]
