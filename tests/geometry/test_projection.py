"""Z-buffered pinhole projection of points."""

from __future__ import annotations

import numpy as np
import pytest

from synergai.geometry.projection import look_at, splat_points

K = np.array([[10.0, 0, 2.0], [0, 10.0, 1.0], [0, 0, 1]])


def test_nearest_point_wins_its_pixel_and_others_are_dropped() -> None:
    pose = look_at(np.zeros(3), np.array([1.0, 0, 0]))  # camera z = world x, camera x = world -y
    pts = np.array([
        [3.0, 0.0, 0.0],    # centre pixel (u=2, v=1), 3 m
        [2.0, 0.0, 0.0],    # same pixel, nearer: wins
        [2.0, -0.2, 0.0],   # camera x = 0.2 -> u = 2 + 10 * 0.2 / 2 = 3
        [-1.0, 0.0, 0.0],   # behind the camera
        [1.0, 0.0, 1.0],    # above the image
        [0.05, 0.0, 0.0],   # nearer than `near`
    ])
    depth, index = splat_points(pts, pose, K, (3, 5))
    assert index[1, 2] == 1 and depth[1, 2] == pytest.approx(2.0)
    assert index[1, 3] == 2 and depth[1, 3] == pytest.approx(2.0)
    assert (index >= 0).sum() == 2 and depth[index < 0].max() == 0.0


def test_look_at_is_a_right_handed_opencv_camera() -> None:
    pose = look_at(np.array([1.0, 2, 3]), np.array([0, 1.0, -1]))
    r = pose[:3, :3]
    np.testing.assert_allclose(r @ r.T, np.eye(3), atol=1e-12)
    assert np.linalg.det(r) == pytest.approx(1.0)
    np.testing.assert_allclose(r[:, 2], np.array([0, 1, -1]) / np.sqrt(2))  # z forward
    assert r[2, 1] < 0  # y (down in the image) points down in the world
    with pytest.raises(ValueError, match="parallel"):
        look_at(np.zeros(3), np.array([0, 0, -1.0]))
