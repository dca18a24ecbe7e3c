"""A binary Spark-DSG file tried in a child process under a memory limit before it is read: the
package's binary reader trusts the sizes and counts a file states (a few changed bytes of a 5 KB file
asked it for 23 GB; others end in ``std::bad_alloc`` or abort), so it never meets an unchecked file in
the caller's process.

:func:`check_in_child` runs ``python -m synergai.scene.sparkdsg_child LIMIT PATH``: the child limits its
address space to ``LIMIT`` bytes before ``spark_dsg`` is imported, loads the file and prints one JSON
line (``{"ok": true}`` or ``{"error": ...}``), all within a deadline. The reader is deterministic: a file
the child loaded within the limit is then loaded by the caller within it too. A child that runs out of
memory, crashes or passes the deadline is a one-line :class:`SceneError`.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

#: Address space the child may use: the interpreter and the package take about 0.2 GB of it.
BASE_MEMORY_BYTES = 1 << 30
#: ... plus this many bytes per byte of the file (a real graph's nodes take far less).
MEMORY_PER_FILE_BYTE = 64
#: Most seconds the child may take.
DEADLINE_S = 120.0


def memory_limit(path: Path) -> int:
    """The address space a child reading ``path`` may use (bytes)."""
    return BASE_MEMORY_BYTES + MEMORY_PER_FILE_BYTE * path.stat().st_size


def check_in_child(path: Path, shown: Path) -> None:
    """Return when a child loaded ``path`` within :func:`memory_limit` and :data:`DEADLINE_S`; else a
    one-line SceneError naming ``shown`` (the file the user gave)."""
    from synergai.scene.model import SceneError  # not in the child, which imports only the package

    limit = memory_limit(path)
    cmd = [sys.executable, "-m", "synergai.scene.sparkdsg_child", str(limit), str(path)]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}  # no per-thread arenas
    what = f"{shown}: not a Spark-DSG graph spark-dsg can read"
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=DEADLINE_S, env=env, check=False)
    except subprocess.TimeoutExpired:
        raise SceneError(f"{what} (its reader took more than {DEADLINE_S:g} s)") from None
    try:
        doc = json.loads(done.stdout.decode("utf-8", "replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        doc = None
    if done.returncode != 0 or not isinstance(doc, dict):
        raise SceneError(f"{what} (its reader failed: it needed more than the {limit >> 20} MB it may use, "
                         f"or the file is corrupt; exit {done.returncode})")
    if "error" in doc:
        raise SceneError(f"{what} ({doc['error']})")


def main(argv: list[str]) -> int:
    """The child: limit the address space, load the file, print one JSON line."""
    limit, path = int(argv[0]), Path(argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        import spark_dsg

        with open(os.devnull, "w") as quiet:  # the package's C++ notes go to fd 1 and 2
            os.dup2(quiet.fileno(), 2)
            saved = os.dup(1)
            os.dup2(quiet.fileno(), 1)
            try:
                spark_dsg.DynamicSceneGraph.load(str(path))
            finally:
                os.dup2(saved, 1)
        doc: dict = {"ok": True}
    except MemoryError:
        doc = {"error": f"its reader needed more than the {limit >> 20} MB it may use: a corrupt size or "
                        "count"}
    except Exception as exc:  # the package's failures on a corrupt file: one line
        doc = {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"}
    sys.stdout.write(json.dumps(doc) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
