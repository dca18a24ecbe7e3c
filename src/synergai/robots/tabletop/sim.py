"""A headless pybullet tabletop: a Franka Panda at the origin, a table whose top is the plane z = 0, and
objects on it; executes ``grasp`` / ``move`` / ``home`` plans and reports what goes wrong.

Grasps are top-down. A step is checked before it changes anything: the target must lie inside the
table bounds (out of bounds), every waypoint (pre-grasp, grasp, pre-place, place) must be reached by
inverse kinematics within joint limits, confirmed by forward kinematics (unreachable), and neither the
arm nor the carried object may touch another object there (collision). The carried object is then set
down at the target and physics runs until the table settles (an object pushed or knocked over is
reported). As in MultiTalk, the z of a command is ignored (objects rest on the table), except that a move
whose z reaches the top of the object under its (x, y) sets the carried object down on that object.
A plan runs from a saved state; when a step fails the whole world returns to that state.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pybullet as pb
import pybullet_data

from synergai.geometry.frames import vec3
from synergai.robots.errors import RobotError
from synergai.robots.tabletop.objects import (
    GRIPPER_OPENING,
    STACK_MARGIN,
    ObjectSpec,
    ObjectState,
    TableBounds,
    fits_gripper,
)
from synergai.robots.tabletop.plan import ArmStep

ERROR_KINDS = ("collision", "out_of_bounds", "unreachable", "no_object", "invalid", "unstable")

_EE_LINK = 11  # panda_grasptarget
_ARM_JOINTS = 7
_FINGERS = (9, 10)
_LOWER = (-2.9671, -1.8326, -2.9671, -3.1416, -2.9671, -0.0873, -2.9671)
_UPPER = (2.9671, 1.8326, 2.9671, 0.0, 2.9671, 3.8223, 2.9671)
_HOME = (0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785)
_DOWN = (1.0, 0.0, 0.0, 0.0)  # gripper pointing down (x, y, z, w)
_TABLE_POSE = ((0.2, 0.0, -0.625), (0.0, 0.0, math.sqrt(0.5), math.sqrt(0.5)))  # top at z = 0


@dataclass(frozen=True)
class StepReport:
    """The outcome of one step: ``error`` is one of :data:`ERROR_KINDS` or None."""

    index: int
    step: ArmStep
    error: str | None = None
    message: str = "ok"

    @property
    def ok(self) -> bool:
        return self.error is None

    def line(self) -> str:
        return f"Step {self.index}: {self.step.render()}: {self.message}"


@dataclass
class ExecutionReport:
    """What running a plan did; when not ``ok`` the world was put back as it was."""

    steps: list[StepReport] = field(default_factory=list)
    sim_steps: int = 0
    seconds: float = 0.0
    placed: list[ObjectState] = field(default_factory=list)  # each move's object where it came to rest

    @property
    def ok(self) -> bool:
        return bool(self.steps) and all(s.ok for s in self.steps)

    @property
    def failure(self) -> StepReport | None:
        return next((s for s in self.steps if not s.ok), None)

    def feedback(self) -> str:
        """The simulator's message to the planner."""
        if not self.steps:
            return "The plan is empty."
        bad = self.failure
        if bad is None:
            return "The plan is feasible!"
        return f"{bad.line()}. The plan was stopped there and the table was reset."

    def to_dict(self) -> dict[str, Any]:
        bad = self.failure
        return {"ok": self.ok, "feedback": self.feedback(), "error": bad.error if bad else None,
                "failed_step": bad.index if bad else None, "sim_steps": self.sim_steps,
                "steps": [s.line() for s in self.steps]}


class _StepFailed(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind, self.message = kind, message


@dataclass
class _Body:
    spec: ObjectSpec
    uid: int
    offset: np.ndarray  # box centre minus base position, upright
    size: tuple[float, float, float]


class TabletopSim:
    """The pybullet tabletop (DIRECT mode, one physics client per instance; call :meth:`close`)."""

    def __init__(
        self,
        objects: Sequence[ObjectSpec],
        bounds: TableBounds | None = None,
        *,
        settle_steps: int = 120,
        grasp_tolerance: float = 0.03,
        clearance: float = 0.005,
        ik_tolerance: float = 0.01,
    ) -> None:
        self.bounds = bounds or TableBounds()
        self.settle_steps = settle_steps
        self.grasp_tolerance = grasp_tolerance
        self.clearance = clearance
        self.ik_tolerance = ik_tolerance
        names = [o.name for o in objects]
        if len(set(names)) != len(names):
            raise RobotError(f"duplicate object names in {names}")
        for o in objects:
            if not self.bounds.contains(*o.position):
                raise RobotError(f"object {o.name} at {o.position} is outside the table bounds")
        self.holding: str | None = None
        self.at_home = False
        self.total_sim_steps = 0
        self._cid: int | None = pb.connect(pb.DIRECT)
        try:
            self._build(objects)
        except Exception:
            pb.disconnect(self._cid)
            raise

    # ----- world construction
    def _build(self, objects: Sequence[ObjectSpec]) -> None:
        c = self._cid
        pb.setAdditionalSearchPath(pybullet_data.getDataPath(), physicsClientId=c)
        pb.setGravity(0, 0, -9.81, physicsClientId=c)
        self.table = pb.loadURDF("table/table.urdf", *_TABLE_POSE, useFixedBase=True, physicsClientId=c)
        self.arm = pb.loadURDF("franka_panda/panda.urdf", (0, 0, 0), useFixedBase=True, physicsClientId=c)
        self._set_arm(_HOME)
        self._bodies: dict[str, _Body] = {}
        for spec in objects:
            self._bodies[spec.name] = self._add(spec)
        self._run(60)

    def _add(self, spec: ObjectSpec) -> _Body:
        c = self._cid
        rgba = [v / 255.0 for v in spec.color] + [1.0]
        if spec.shape == "urdf":
            try:
                uid = pb.loadURDF(spec.urdf, (0, 0, 0), physicsClientId=c)
            except pb.error:
                raise RobotError(f"object {spec.name}: cannot load URDF {spec.urdf!r} from pybullet_data"
                                 ) from None
            pb.changeVisualShape(uid, -1, rgbaColor=rgba, physicsClientId=c)
        else:
            length, width, height = spec.size
            if spec.shape == "box":
                half = [length / 2, width / 2, height / 2]
                col = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=half, physicsClientId=c)
                vis = pb.createVisualShape(pb.GEOM_BOX, halfExtents=half, rgbaColor=rgba, physicsClientId=c)
            elif spec.shape == "cylinder":
                col = pb.createCollisionShape(pb.GEOM_CYLINDER, radius=length / 2, height=height,
                                              physicsClientId=c)
                vis = pb.createVisualShape(pb.GEOM_CYLINDER, radius=length / 2, length=height, rgbaColor=rgba,
                                           physicsClientId=c)
            else:
                col = pb.createCollisionShape(pb.GEOM_SPHERE, radius=length / 2, physicsClientId=c)
                vis = pb.createVisualShape(pb.GEOM_SPHERE, radius=length / 2, rgbaColor=rgba,
                                           physicsClientId=c)
            uid = pb.createMultiBody(spec.mass, col, vis, (0, 0, 0), physicsClientId=c)
        pb.changeDynamics(uid, -1, lateralFriction=1.0, physicsClientId=c)
        lo, hi = (np.asarray(v) for v in pb.getAABB(uid, physicsClientId=c))
        size = tuple(float(v) for v in hi - lo)
        body = _Body(spec, uid, (lo + hi) / 2, size)  # type: ignore[arg-type]
        self._place(body, spec.position)
        return body

    def _place(self, body: _Body, xy: Sequence[float], floor: float = 0.0) -> None:
        """Stand ``body`` upright with its box centre over ``xy`` and its bottom at height ``floor``."""
        target = np.array([xy[0], xy[1], floor + body.size[2] / 2 + 1e-4])
        base = target - body.offset
        pb.resetBasePositionAndOrientation(body.uid, base.tolist(), (0, 0, 0, 1), physicsClientId=self._cid)
        pb.resetBaseVelocity(body.uid, (0, 0, 0), (0, 0, 0), physicsClientId=self._cid)

    # ----- lifecycle
    def close(self) -> None:
        """Disconnect the physics client (idempotent)."""
        if self._cid is not None and pb.isConnected(self._cid):
            pb.disconnect(self._cid)
        self._cid = None

    def __enter__(self) -> TabletopSim:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----- state
    @property
    def names(self) -> list[str]:
        return list(self._bodies)

    def state(self, name: str) -> ObjectState:
        """The current box of one object."""
        body = self._body(name)
        lo, hi = (np.asarray(v) for v in pb.getAABB(body.uid, physicsClientId=self._cid))
        _, orn = pb.getBasePositionAndOrientation(body.uid, physicsClientId=self._cid)
        up = np.asarray(pb.getMatrixFromQuaternion(orn)).reshape(3, 3)[:, 2]
        return ObjectState(name, body.spec.category, vec3((lo + hi) / 2),
                           vec3(hi - lo), bool(up[2] > math.cos(math.radians(25))),
                           body.spec.color)

    def states(self) -> dict[str, ObjectState]:
        """Every object's current box."""
        return {n: self.state(n) for n in self._bodies}

    def table_box(self) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        """The table's (centre, size)."""
        lo, hi = (np.asarray(v) for v in pb.getAABB(self.table, -1, physicsClientId=self._cid))
        lo[2] = min(lo[2], _TABLE_POSE[0][2])
        return tuple(float(v) for v in (lo + hi) / 2), tuple(float(v) for v in hi - lo)  # type: ignore[return-value]

    def _body(self, name: str) -> _Body:
        try:
            return self._bodies[name]
        except KeyError:
            known = ", ".join(self._bodies)
            raise RobotError(f"no object named {name!r} on the table; objects: {known}") from None

    # ----- kinematics
    def _set_arm(self, q: Sequence[float], fingers: float = 0.04) -> None:
        for j in range(_ARM_JOINTS):
            pb.resetJointState(self.arm, j, q[j], physicsClientId=self._cid)
        for j in _FINGERS:
            pb.resetJointState(self.arm, j, fingers, physicsClientId=self._cid)

    def _arm_q(self) -> tuple[float, ...]:
        return tuple(pb.getJointState(self.arm, j, physicsClientId=self._cid)[0] for j in range(_ARM_JOINTS))

    def solve_ik(self, xyz: Sequence[float]) -> tuple[tuple[float, ...], float]:
        """Joint angles for a top-down grasp at ``xyz`` and the forward-kinematics position error (m);
        out-of-limit solutions report an infinite error. Tries two seeds (home, and home turned towards
        the target); leaves the arm where it was."""
        saved = self._arm_q()
        turned = (math.atan2(xyz[1], xyz[0]), *_HOME[1:])
        best: tuple[tuple[float, ...], float] = (_HOME, math.inf)
        for seed in (turned, _HOME):
            best = min(best, self._ik_from(seed, xyz), key=lambda qe: qe[1])
            if best[1] <= self.ik_tolerance:
                break
        self._set_arm(saved)
        return best

    def _ik_from(self, seed: Sequence[float], xyz: Sequence[float]) -> tuple[tuple[float, ...], float]:
        ranges = [u - lo for lo, u in zip(_LOWER, _UPPER, strict=True)]
        q = tuple(seed)
        self._set_arm(q)
        for _ in range(3):
            q = tuple(pb.calculateInverseKinematics(
                self.arm, _EE_LINK, list(xyz), _DOWN, lowerLimits=list(_LOWER), upperLimits=list(_UPPER),
                jointRanges=ranges, restPoses=list(seed), maxNumIterations=200, residualThreshold=1e-5,
                physicsClientId=self._cid))[:_ARM_JOINTS]
            self._set_arm(q)
        pos = pb.getLinkState(self.arm, _EE_LINK, computeForwardKinematics=True, physicsClientId=self._cid)[4]
        error = math.dist(pos, xyz)
        if any(not (lo - 1e-3 <= v <= hi + 1e-3) for v, lo, hi in zip(q, _LOWER, _UPPER, strict=True)):
            error = math.inf
        return q, error

    def reachable(self, xyz: Sequence[float]) -> bool:
        """Whether the gripper can reach ``xyz`` pointing down."""
        return self.solve_ik(xyz)[1] <= self.ik_tolerance

    def _arm_contacts(self, ignore: set[str]) -> list[str]:
        """Objects (other than ``ignore``) the arm touches in its current configuration."""
        hits = []
        for name, body in self._bodies.items():
            if name not in ignore and pb.getClosestPoints(self.arm, body.uid, 0.0, physicsClientId=self._cid):
                hits.append(name)
        return hits

    # ----- execution
    def execute(self, steps: Sequence[ArmStep], *, commit: bool = True) -> ExecutionReport:
        """Run a plan from the current state; on a failed step (or ``commit=False``) the world is restored.

        Within the plan no action may follow ``home()``."""
        report = ExecutionReport()
        start, sim0 = time.perf_counter(), self.total_sim_steps
        state = pb.saveState(physicsClientId=self._cid)
        holding, at_home = self.holding, self.at_home
        self.at_home = False  # a new plan starts from wherever the arm rests
        try:
            for index, step in enumerate(steps, start=1):
                carried = self.holding
                try:
                    message = self._do(step)
                except _StepFailed as failed:
                    report.steps.append(StepReport(index, step, failed.kind, failed.message))
                    break
                report.steps.append(StepReport(index, step, None, message))
                if step.action == "move" and carried is not None:
                    report.placed.append(self.state(carried))
            if not report.ok or not commit:
                pb.restoreState(stateId=state, physicsClientId=self._cid)
                self.holding, self.at_home = holding, at_home
        finally:
            pb.removeState(state, physicsClientId=self._cid)
        report.sim_steps = self.total_sim_steps - sim0
        report.seconds = time.perf_counter() - start
        return report

    def _do(self, step: ArmStep) -> str:
        if self.at_home:
            raise _StepFailed("invalid", "no action can follow home()")
        if step.action == "home":
            if self.holding:
                raise _StepFailed("invalid", f"home() while still holding {self.holding}; move it first")
            self._set_arm(_HOME)
            self.at_home = True
            return "arm at home"
        x, y = step.xy
        if not self.bounds.contains(x, y):
            raise _StepFailed("out_of_bounds", f"({x:g}, {y:g}) is out of bounds ({self.bounds.describe()})")
        if step.action == "grasp":
            return self._grasp(x, y)
        return self._move(x, y, step.xyz[2] if len(step.xyz) == 3 else None)

    def _object_at(self, x: float, y: float) -> str | None:
        """The object whose footprint (plus the grasp tolerance) holds (x, y): the highest, then nearest."""
        best, best_key = None, (math.inf, math.inf)
        for name, st in self.states().items():
            if name == self.holding:
                continue
            half = np.asarray(st.size[:2]) / 2 + self.grasp_tolerance
            d = np.abs(np.array([x, y]) - np.asarray(st.center[:2]))
            key = (-round(st.center[2] + st.size[2] / 2, 3), float(np.hypot(*d)))
            if np.all(d <= half) and key < best_key:
                best, best_key = name, key
        return best

    def _support_at(self, x: float, y: float, z: float, carried: str) -> tuple[str, float] | None:
        """The object (and its top height) a move to (x, y, z) stacks on: its footprint holds (x, y) and z
        reaches its top."""
        found = None
        for name, st in self.states().items():
            top = st.center[2] + st.size[2] / 2
            inside = all(abs((x, y)[k] - st.center[k]) <= st.size[k] / 2 for k in (0, 1))
            if name != carried and inside and z >= top + STACK_MARGIN and (found is None or top > found[1]):
                found = (name, top)
        return found

    def _grasp_height(self, name: str) -> float:
        st = self.state(name)
        bottom, height = st.center[2] - st.size[2] / 2, st.size[2]
        return bottom + max(height - 0.03, height / 2)

    def _reach(self, points: Sequence[Sequence[float]], what: str) -> tuple[float, ...]:
        q: tuple[float, ...] = ()
        for p in points:
            q, error = self.solve_ik(p)
            if error > self.ik_tolerance:
                where = ", ".join(f"{v:.2f}" for v in p)
                raise _StepFailed("unreachable", f"{what}: the gripper cannot reach ({where})")
        return q

    def _grasp(self, x: float, y: float) -> str:
        if self.holding:
            raise _StepFailed("invalid", f"already holding {self.holding}; "
                                         "only one object can be grasped at a time")
        name = self._object_at(x, y)
        if name is None:
            raise _StepFailed("no_object", f"there is no object at ({x:g}, {y:g})")
        st = self.state(name)
        if not fits_gripper(st.size):
            width = min(st.size[:2])
            raise _StepFailed("invalid", f"{name} is too wide for the gripper ({width:.2f} m > "
                                         f"{GRIPPER_OPENING:g} m)")
        cx, cy, _ = st.center
        z = self._grasp_height(name)
        q = self._reach([(cx, cy, z + 0.12), (cx, cy, z)], f"grasping {name}")
        self._set_arm(q)
        hits = self._arm_contacts({name})
        if hits:
            raise _StepFailed("collision",
                              f"collision detected between the gripper and {hits[0]} while grasping {name}")
        self.holding = name
        return f"grasped {name}"

    def _move(self, x: float, y: float, step_z: float | None = None) -> str:
        name = self.holding
        if name is None:
            raise _StepFailed("invalid", "no object is grasped; an object must be grasped before it is moved")
        body = self._bodies[name]
        support = self._support_at(x, y, float(step_z), name) if step_z is not None else None
        floor = support[1] if support else 0.0
        height = self.state(name).size[2]
        z = floor + max(height - 0.03, height / 2)
        q = self._reach([(x, y, z + 0.12), (x, y, z)], f"placing {name}")
        before = {n: self.state(n).center for n in self._bodies if n != name}
        self._place(body, (x, y), floor)
        for other, ob in self._bodies.items():
            if support and other == support[0]:
                continue
            if other != name and pb.getClosestPoints(body.uid, ob.uid, self.clearance,
                                                     physicsClientId=self._cid):
                raise _StepFailed("collision", f"collision detected between {name} and {other}")
        self._set_arm(q)
        hits = self._arm_contacts({name})
        if hits:
            raise _StepFailed("collision",
                              f"collision detected between the gripper and {hits[0]} while placing {name}")
        self._set_arm(self._reach([(x, y, z + 0.12)], f"leaving {name}"))
        self.holding = None
        self._run(self.settle_steps)
        for other, c0 in before.items():
            moved = math.dist(self.state(other).center, c0)
            if moved > 0.01:
                raise _StepFailed("unstable", f"placing {name} pushed {other} by {moved:.2f} m")
        if not self.state(name).upright:
            raise _StepFailed("unstable", f"{name} fell over at ({x:g}, {y:g})")
        return f"moved {name} to ({x:g}, {y:g})" + (f" on {support[0]}" if support else "")

    def _run(self, n: int) -> None:
        for _ in range(n):
            pb.stepSimulation(physicsClientId=self._cid)
        self.total_sim_steps += n

    def step_rate(self, n: int = 2000) -> float:
        """Physics steps per second on this world (the world is restored afterwards)."""
        state = pb.saveState(physicsClientId=self._cid)
        start = time.perf_counter()
        for _ in range(n):
            pb.stepSimulation(physicsClientId=self._cid)
        rate = n / max(time.perf_counter() - start, 1e-9)
        pb.restoreState(stateId=state, physicsClientId=self._cid)
        pb.removeState(state, physicsClientId=self._cid)
        return rate
