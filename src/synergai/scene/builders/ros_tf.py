"""A transform tree from ``/tf`` and ``/tf_static`` messages: the pose of a frame in the tree's root.

Each transform gives the child frame's pose in its parent frame. Static transforms hold at every time;
a dynamic edge is interpolated between its samples on either side of the asked time when both are
within a tolerance, else taken at the nearest sample within it (see ``ros_messages.pose_at``). The
pose of a frame is the composition of its edges up to the root of its tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from synergai.scene.builders.ros_messages import pose_at
from synergai.scene.model import SceneError


@dataclass
class _Edge:
    parent: str
    static: bool
    stamps: list[int] = field(default_factory=list)
    poses: list[np.ndarray] = field(default_factory=list)
    times: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # stamps, sorted by sort()


@dataclass
class TransformTree:
    """Edges child -> parent with their time-stamped poses (add in any order)."""

    edges: dict[str, _Edge] = field(default_factory=dict)

    def add(self, parent: str, child: str, stamp: int, pose: np.ndarray, *, static: bool) -> None:
        """Record ``child``'s pose in ``parent`` at ``stamp`` (ns)."""
        parent, child = parent.lstrip("/"), child.lstrip("/")
        edge = self.edges.setdefault(child, _Edge(parent, static))
        if edge.parent != parent:
            raise SceneError(f"tf: frame {child!r} has two parents, {edge.parent!r} and {parent!r}")
        edge.static = edge.static or static
        edge.stamps.append(stamp)
        edge.poses.append(pose)

    def frames(self) -> list[str]:
        """Every frame named in the tree."""
        return sorted(set(self.edges) | {e.parent for e in self.edges.values()})

    def chain(self, frame: str) -> list[str]:
        """``frame`` and its ancestors up to the root."""
        frame = frame.lstrip("/")
        if frame not in self.edges:
            known = ", ".join(self.frames()) or "none"
            raise SceneError(f"tf: no transform has child frame {frame!r}; frames in the bag: {known}")
        out = [frame]
        while out[-1] in self.edges:
            out.append(self.edges[out[-1]].parent)
            if len(out) > len(self.edges) + 1:
                raise SceneError(f"tf: the frames above {frame!r} form a cycle")
        return out

    def pose(self, frame: str, stamp: int, tolerance_ns: int) -> np.ndarray | None:
        """``frame``'s pose in its root at ``stamp``; None when a dynamic edge has no sample near enough."""
        out = np.eye(4)
        for child in self.chain(frame)[:-1]:
            edge = self.edges[child]
            if edge.static:
                m = edge.poses[-1]
            else:
                found = pose_at(edge.times, edge.poses, stamp, tolerance_ns)
                if found is None:
                    return None
                m = found
            out = m @ out
        return out

    def sort(self) -> None:
        """Order every edge's samples by time (call once after adding)."""
        for edge in self.edges.values():
            order = np.argsort(np.asarray(edge.stamps, dtype=np.int64), kind="stable")
            edge.stamps = [edge.stamps[i] for i in order]
            edge.poses = [edge.poses[i] for i in order]
            edge.times = np.asarray(edge.stamps, dtype=np.int64)
