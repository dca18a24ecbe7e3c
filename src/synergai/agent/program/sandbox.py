"""Run one LLM-written Python program in a locked-down child process (LLM-TPC program mode).

:func:`run_program` starts ``python -s -P sandbox_child.py`` in a new session with an environment of our
own, sends it the program as JSON, enforces the wall-clock limit (SIGKILL to the process group), reads its
pipes with size caps and returns a :class:`SandboxResult`; the child's defences are in
:mod:`synergai.agent.program.sandbox_child`. Scene APIs come from an ``api_factory`` (``"module:function"``)
the child calls with ``api_args`` before the lockdown (import everything before returning; never look up an
attribute named by the program). Each run is a fresh process. :func:`demo_api` is a small example.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from synergai.agent.program.sandbox_child import MAX_ERROR_CHARS, TRUNCATION_MARKER

__all__ = ["DemoObject", "SandboxError", "SandboxLimits", "SandboxResult", "demo_api", "run_program"]

_CHILD_SCRIPT = Path(__file__).with_name("sandbox_child.py")
_PACKAGE_ROOT = Path(__file__).resolve().parents[3]  # the directory holding the synergai package
_FACTORY_SPEC = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*$")
_READ_CHUNK = 65536
#: The child's whole environment: no host secrets, one BLAS thread (threads would meet RLIMIT_NPROC), a fixed
#: hash seed (sets print in the same order on every run), and this ``synergai`` package first on the path
#: (API factories come from the host's code).
_CHILD_ENV = MappingProxyType({
    "PATH": os.defpath, "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "0", "PYTHONPATH": str(_PACKAGE_ROOT),
    **dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), "1")})
_REAP_SECONDS = 5.0


class SandboxError(ValueError):
    """Bad sandbox input or a failing API factory (a host problem, not the program's)."""


@dataclass(frozen=True)
class SandboxLimits:
    """Per-run limits. ``memory_mb`` is added to the child's footprint after the API factory ran."""

    cpu_seconds: float = 2.0
    wall_seconds: float = 5.0
    memory_mb: int = 512
    max_output_chars: int = 8000
    max_code_chars: int = 20000

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "wall_seconds", "memory_mb", "max_output_chars", "max_code_chars"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise SandboxError(f"SandboxLimits.{name} must be a positive number, got {value!r}")


@dataclass(frozen=True)
class SandboxResult:
    """What a run produced: ``error`` is one line (``"Type: message"``) or None when ``ok``."""

    ok: bool
    stdout: str
    error: str | None
    wall_s: float

    def to_dict(self) -> dict[str, Any]:
        """``{"ok", "stdout", "error", "wall_s"}``."""
        return {"ok": self.ok, "stdout": self.stdout, "error": self.error, "wall_s": self.wall_s}


@dataclass(frozen=True)
class _Outcome:
    stdout: bytes
    returncode: int | None
    timed_out: bool
    overflowed: bool


def run_program(
    code: str,
    *,
    api_factory: str | None = None,
    api_args: Mapping[str, Any] | None = None,
    limits: SandboxLimits = SandboxLimits(),  # frozen, so a shared default is safe
) -> SandboxResult:
    """Run ``code`` in a fresh sandboxed process and report its printed output or its one-line error
    (``ok=False``); :class:`SandboxError` for bad arguments or a failing ``api_factory``."""
    start = time.monotonic()
    if not isinstance(code, str):
        raise SandboxError(f"code must be a str, got {type(code).__name__}")
    if not isinstance(limits, SandboxLimits):
        raise SandboxError(f"limits must be SandboxLimits, got {type(limits).__name__}")
    if len(code) > limits.max_code_chars:
        reason = (f"SecurityError: program has {len(code)} characters, "
                  f"more than the limit of {limits.max_code_chars}")
        return SandboxResult(False, "", reason, time.monotonic() - start)
    if api_factory is not None and (not isinstance(api_factory, str) or not _FACTORY_SPEC.match(api_factory)):
        raise SandboxError(f"api_factory must be 'module:function', got {api_factory!r}")
    if api_args is not None and not isinstance(api_args, Mapping):
        raise SandboxError(f"api_args must be a mapping, got {type(api_args).__name__}")
    nonce = secrets.token_hex(16)
    request = {"nonce": nonce, "code": code, "api_factory": api_factory, "api_args": dict(api_args or {}),
               "limits": {k: getattr(limits, k) for k in ("cpu_seconds", "memory_mb", "max_output_chars",
                                                           "max_code_chars")}}
    try:
        payload = json.dumps(request).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError) as exc:
        raise SandboxError(f"api_args must be JSON-serialisable: {exc}") from None
    # The reply is ASCII-escaped JSON: at most 12 bytes (a surrogate pair) per character of output and error.
    cap = 12 * (limits.max_output_chars + 100 + MAX_ERROR_CHARS) + 4096
    outcome = _supervise([sys.executable, "-s", "-P", str(_CHILD_SCRIPT)], payload, limits.wall_seconds, cap)
    reply = _find_reply(outcome.stdout, nonce)
    if reply is not None and "setup_error" in reply:
        raise SandboxError(f"api_factory {api_factory!r} failed: {reply['setup_error']}")
    ok, stdout, error = _interpret(reply, outcome, limits)
    return SandboxResult(ok, stdout, error, time.monotonic() - start)


def _supervise(argv: Sequence[str], payload: bytes, wall_seconds: float, stdout_cap: int) -> _Outcome:
    """Run ``argv`` in a new session, feed ``payload``, collect capped output until EOF or the deadline;
    the process group is always SIGKILLed before the child is reaped, so nothing it started survives."""
    deadline = time.monotonic() + wall_seconds
    try:
        proc = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd="/", env=_CHILD_ENV, start_new_session=True, close_fds=True,
        )
    except OSError as exc:
        raise SandboxError(f"cannot start the sandbox process: {exc}") from None
    assert proc.stdin and proc.stdout
    out = bytearray()
    timed_out = overflowed = False
    sent = 0
    try:
        with selectors.DefaultSelector() as selector:
            os.set_blocking(proc.stdin.fileno(), False)
            selector.register(proc.stdin, selectors.EVENT_WRITE)
            selector.register(proc.stdout, selectors.EVENT_READ)
            while selector.get_map() and not overflowed:
                if (remaining := deadline - time.monotonic()) <= 0:
                    timed_out = True
                    break
                for key, _ in selector.select(remaining):
                    stream = key.fileobj
                    if stream is proc.stdin:
                        try:
                            sent += os.write(proc.stdin.fileno(), payload[sent:sent + _READ_CHUNK])
                        except BlockingIOError:
                            continue
                        except BrokenPipeError:  # the child died before reading it all
                            sent = len(payload)
                        if sent >= len(payload):
                            selector.unregister(stream)
                            proc.stdin.close()
                        continue
                    chunk = os.read(stream.fileno(), _READ_CHUNK)  # type: ignore[union-attr]
                    out += chunk
                    overflowed = len(out) > stdout_cap
                    if not chunk:  # EOF
                        selector.unregister(stream)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.stdin.close()
        proc.stdout.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=_REAP_SECONDS)
    return _Outcome(bytes(out), proc.returncode, timed_out, overflowed)


def _find_reply(stdout: bytes, nonce: str) -> dict[str, Any] | None:
    """The JSON object after the last ``nonce`` in ``stdout``, or None."""
    if (at := stdout.rfind(nonce.encode("ascii"))) < 0:
        return None
    line = stdout[at + len(nonce):].split(b"\n", 1)[0]
    try:
        reply = json.loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return reply if isinstance(reply, dict) else None


def _interpret(reply: dict[str, Any] | None, outcome: _Outcome,
               limits: SandboxLimits) -> tuple[bool, str, str | None]:
    """``(ok, stdout, error)`` from the child's reply, or from how it ended when there is none."""
    code = outcome.returncode
    if reply is not None:
        ok, stdout, error = reply.get("ok"), reply.get("stdout"), reply.get("error")
        if isinstance(ok, bool) and isinstance(stdout, str) and (error is None or isinstance(error, str)):
            limit = limits.max_output_chars
            if len(stdout) > limit + len(TRUNCATION_MARKER) + 20:
                stdout = stdout[:limit] + TRUNCATION_MARKER.format(limit=limit)
            if error is not None:
                error = _clean((error.splitlines() or [""])[-1][:MAX_ERROR_CHARS])
            return ok and error is None, _clean(stdout), error
        error = "RuntimeError: the program process sent a malformed result"
    elif outcome.timed_out:
        error = f"TimeoutError: the program exceeded the wall-clock limit of {limits.wall_seconds:g} s"
    elif outcome.overflowed:
        error = "RuntimeError: the program process wrote too much output"
    elif code in (-signal.SIGPROF, -signal.SIGXCPU, -signal.SIGKILL):
        error = f"TimeoutError: the program exceeded the CPU time limit of {limits.cpu_seconds:g} s"
    elif code is not None and code < 0:
        error = f"RuntimeError: the program process died of {signal.Signals(-code).name}"
    else:
        error = f"RuntimeError: the program process exited with code {code} without a result"
    return False, "", error


def _clean(text: str) -> str:
    """``text`` with lone surrogates replaced, so that callers can always encode it as UTF-8."""
    return text.encode("utf-8", "replace").decode("utf-8")


@dataclass(frozen=True)
class DemoObject:
    """One object of :func:`demo_api`'s room, what programs see as LLM-TPC's ``ObjectAttribute``."""

    id: int
    category: str
    xyz: tuple[float, float, float]


def demo_api(args: Mapping[str, Any]) -> dict[str, Any]:
    """A tiny scene API that starts at once (the real one, ``synergai.agent.program.api:sandbox_api``, first
    imports the scene code), for the sandbox's tests: ``scene()`` and ``query_attribute(object, "distance")``
    over a table and two chairs, the agent at the origin."""
    room = (("table", (1.0, 0.0, 0.4)), ("chair", (1.0, 0.9, 0.45)), ("chair", (-1.5, 0.5, 0.45)))
    objects = frozenset(DemoObject(i, category, xyz) for i, (category, xyz) in enumerate(room))

    def scene() -> set[DemoObject]:
        """Returns the set of objects in the scene."""
        return set(objects)

    def query_attribute(object: DemoObject, attribute_type: str) -> float:  # the paper's argument name
        """Returns the distance (m) of ``object`` from the agent."""
        if attribute_type != "distance":
            raise ValueError(f"attribute_type must be 'distance', got {attribute_type!r}")
        return round(sum(c * c for c in object.xyz) ** 0.5, 4)

    return {"scene": scene, "query_attribute": query_attribute}
