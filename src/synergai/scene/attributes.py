"""Object attributes derived from perception: colour names from RGB."""

from __future__ import annotations

import numpy as np

#: Reference colours (name, RGB) for naming an object's mean colour.
_PALETTE: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("black", (25, 25, 25)),
    ("dark gray", (75, 75, 75)),
    ("gray", (128, 128, 128)),
    ("light gray", (185, 185, 185)),
    ("white", (235, 235, 235)),
    ("red", (190, 40, 40)),
    ("dark red", (110, 25, 25)),
    ("orange", (225, 125, 40)),
    ("yellow", (225, 205, 60)),
    ("beige", (205, 185, 150)),
    ("brown", (120, 80, 50)),
    ("dark brown", (70, 45, 30)),
    ("green", (60, 140, 60)),
    ("dark green", (30, 75, 35)),
    ("blue", (50, 90, 180)),
    ("dark blue", (30, 40, 95)),
    ("light blue", (140, 180, 225)),
    ("purple", (115, 60, 145)),
    ("pink", (225, 150, 175)),
)


def color_name(rgb: tuple[int, int, int] | list[int] | np.ndarray) -> str:
    """The nearest palette name of an 8-bit RGB colour (e.g. ``(120, 80, 50)`` -> ``"brown"``)."""
    c = np.asarray(rgb, dtype=float)[:3]
    names = [n for n, _ in _PALETTE]
    ref = np.array([v for _, v in _PALETTE], dtype=float)
    # Weighted RGB distance ("redmean"), a cheap approximation of perceptual distance.
    rmean = (ref[:, 0] + c[0]) / 2.0
    d = ref - c
    dist = (2 + rmean / 256) * d[:, 0] ** 2 + 4 * d[:, 1] ** 2 + (2 + (255 - rmean) / 256) * d[:, 2] ** 2
    return names[int(np.argmin(dist))]
