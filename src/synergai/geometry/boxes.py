"""Axis-aligned boxes as arrays, and vectorised pairwise box measures.

Every pairwise function takes a :class:`BoxArray` and two index arrays ``i`` and ``j`` of equal
length and returns one value per pair ``(i[k], j[k])``; no Python loop over pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BoxArray:
    """N axis-aligned boxes (metres, z up), stored as min and max corners."""

    mins: np.ndarray  # (N, 3) float64
    maxs: np.ndarray  # (N, 3) float64

    @classmethod
    def from_center_size(cls, centers: np.ndarray, sizes: np.ndarray) -> BoxArray:
        """Boxes from centres and full extents."""
        c = np.asarray(centers, dtype=np.float64).reshape(-1, 3)
        s = np.abs(np.asarray(sizes, dtype=np.float64).reshape(-1, 3))
        return cls(c - s / 2.0, c + s / 2.0)

    def __len__(self) -> int:
        return int(self.mins.shape[0])

    @property
    def centers(self) -> np.ndarray:
        """(N, 3) box centres."""
        return (self.mins + self.maxs) / 2.0

    @property
    def sizes(self) -> np.ndarray:
        """(N, 3) box extents."""
        return self.maxs - self.mins

    def volume(self) -> np.ndarray:
        """(N,) box volumes."""
        return np.prod(self.sizes, axis=1)


def xy_intersection_area(b: BoxArray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Area of the overlap of the xy footprints of boxes i and j."""
    lo = np.maximum(b.mins[i, :2], b.mins[j, :2])
    hi = np.minimum(b.maxs[i, :2], b.maxs[j, :2])
    wh = np.clip(hi - lo, 0.0, None)
    return wh[:, 0] * wh[:, 1]


def intersection_volume(b: BoxArray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Volume of the 3D overlap of boxes i and j."""
    lo = np.maximum(b.mins[i], b.mins[j])
    hi = np.minimum(b.maxs[i], b.maxs[j])
    return np.prod(np.clip(hi - lo, 0.0, None), axis=1)


def box_gap(b: BoxArray, i: np.ndarray, j: np.ndarray, dims: slice = slice(0, 3)) -> np.ndarray:
    """Euclidean distance between the closest points of boxes i and j (0 when they touch)."""
    d = np.maximum(b.mins[i, dims] - b.maxs[j, dims], b.mins[j, dims] - b.maxs[i, dims])
    return np.linalg.norm(np.clip(d, 0.0, None), axis=1)
