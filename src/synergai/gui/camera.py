"""Camera math for the 3D view: pinhole projection, click rays, the user's viewpoint, overview poses.

Conventions are viser's: ``wxyz`` is the camera-to-world rotation in OpenCV axes (camera +z looks
forward, +x is screen right, +y is screen down), ``fov`` is the vertical field of view in radians and
pixels count from the canvas's top-left corner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from synergai.geometry.frames import Viewpoint, quat_to_matrix, vec3
from synergai.scene.model import SceneError

Vec3 = tuple[float, float, float]


def _vec3(v: Sequence[float] | np.ndarray, what: str) -> np.ndarray:
    a = np.asarray(v, dtype=np.float64).reshape(-1)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise SceneError(f"camera {what} needs 3 finite numbers")
    return a


@dataclass(frozen=True)
class CameraPose:
    """A pinhole camera: position, orientation (w, x, y, z), vertical fov (radians), image size (pixels)."""

    position: Vec3
    wxyz: tuple[float, float, float, float]
    fov: float
    width: int
    height: int

    def __post_init__(self) -> None:
        if not (0.0 < self.fov < np.pi):
            raise SceneError(f"camera fov must be in (0, pi) radians, got {self.fov}")
        if self.width <= 0 or self.height <= 0:
            raise SceneError(f"camera image size must be positive, got {self.width}x{self.height}")

    @classmethod
    def look_at(cls, position: Sequence[float] | np.ndarray, target: Sequence[float] | np.ndarray, *,
                fov: float = 1.0, width: int = 1280, height: int = 800,
                up: Sequence[float] | np.ndarray = (0.0, 0.0, 1.0)) -> CameraPose:
        """The camera at ``position`` looking at ``target`` with ``up`` towards the top of the screen."""
        p, t, u = _vec3(position, "position"), _vec3(target, "target"), _vec3(up, "up")
        z = t - p
        if np.linalg.norm(z) < 1e-9:
            raise SceneError("camera target must differ from its position")
        z /= np.linalg.norm(z)
        x = np.cross(z, u)
        if np.linalg.norm(x) < 1e-9:
            raise SceneError("camera up direction must not be parallel to the view direction")
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        return cls(tuple(p), _matrix_to_wxyz(np.stack([x, y, z], axis=1)), fov, width, height)

    def rotation(self) -> np.ndarray:
        """3x3 camera-to-world rotation (columns: right, down, forward)."""
        w, x, y, z = self.wxyz
        return quat_to_matrix((x, y, z, w))

    @property
    def focal(self) -> float:
        """Focal length in pixels (square pixels)."""
        return 0.5 * self.height / float(np.tan(0.5 * self.fov))

    @property
    def forward(self) -> np.ndarray:
        """Unit viewing direction in the world."""
        return self.rotation()[:, 2]

    def project(self, points: np.ndarray | Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
        """Pixel coordinates (N, 2) of world points, and which of them lie in front of the camera."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        cam = (p - np.asarray(self.position)) @ self.rotation()
        depth = cam[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            u = self.focal * cam[:, 0] / depth + 0.5 * self.width
            v = self.focal * cam[:, 1] / depth + 0.5 * self.height
        return np.stack([u, v], axis=1), depth > 1e-9

    def ray(self, u: float, v: float) -> tuple[np.ndarray, np.ndarray]:
        """The world ray (origin, unit direction) through pixel ``(u, v)``."""
        d_cam = np.array([(u - 0.5 * self.width) / self.focal, (v - 0.5 * self.height) / self.focal, 1.0])
        d = self.rotation() @ d_cam
        return np.asarray(self.position, dtype=np.float64), d / np.linalg.norm(d)

    def viewpoint(self) -> Viewpoint:
        """Where the user stands and faces, for left / right / front / behind (looking down: screen-up)."""
        r = self.rotation()
        f = r[:, 2]
        if np.hypot(f[0], f[1]) < 1e-3:
            f = -r[:, 1]  # looking straight down: the top of the screen is "ahead"
        return Viewpoint(vec3(self.position), (float(f[0]), float(f[1]), 0.0))


def _matrix_to_wxyz(m: np.ndarray) -> tuple[float, float, float, float]:
    """Unit quaternion (w, x, y, z) of a rotation matrix (Shepperd's method)."""
    t = float(np.trace(m))
    if t > 0:
        s = 2.0 * np.sqrt(t + 1.0)
        q = (0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s)
    else:
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + m[i, i] - m[j, j] - m[k, k])
        xyz = [0.0, 0.0, 0.0]
        xyz[i] = 0.25 * s
        xyz[j] = (m[j, i] + m[i, j]) / s
        xyz[k] = (m[k, i] + m[i, k]) / s
        q = ((m[k, j] - m[j, k]) / s, *xyz)
    a = np.asarray(q, dtype=np.float64)
    a /= np.linalg.norm(a)
    return (float(a[0]), float(a[1]), float(a[2]), float(a[3]))


def overview(mins: np.ndarray, maxs: np.ndarray, fov: float = 1.0,
             aspect: float = 1.5) -> tuple[np.ndarray, np.ndarray]:
    """A camera position and look-at point that frame a whole scene box, seen from above its south side.

    ``fov`` is the vertical field of view (radians) and ``aspect`` the canvas width / height; the camera
    backs off until all eight corners of the box lie inside the central 92 % of the image.
    """
    lo = np.asarray(mins, dtype=np.float64).reshape(3)
    hi = np.asarray(maxs, dtype=np.float64).reshape(3)
    ext = np.maximum(hi - lo, 0.5)
    target = np.array([0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), lo[2] + 0.25 * ext[2]])
    elevation = np.radians(58.0)
    direction = np.array([0.0, -np.cos(elevation), np.sin(elevation)])
    corners = lo + np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)]) * (hi - lo)
    height = 1000
    width = max(round(height * max(aspect, 0.2)), 1)
    distance = 0.5 * float(np.linalg.norm(ext))
    for _ in range(60):
        cam = CameraPose.look_at(target + distance * direction, target, fov=fov, width=width, height=height)
        px, front = cam.project(corners)
        inside = (front.all() and (px[:, 0] >= 0.04 * width).all() and (px[:, 0] <= 0.96 * width).all()
                  and (px[:, 1] >= 0.04 * height).all() and (px[:, 1] <= 0.96 * height).all())
        if inside:
            break
        distance *= 1.08
    return target + distance * direction, target
