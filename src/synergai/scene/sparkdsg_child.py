"""A binary Spark-DSG file read in a child process under a memory limit: the package's binary reader
trusts the sizes and counts a file states (a few changed bytes of a 5 KB file asked it for 23 GB, others
end in ``std::bad_alloc`` or abort), so it never runs in the caller's process.

:func:`read_in_child` runs ``python -m synergai.scene.sparkdsg_child LIMIT PATH [SCENE_ID]``, whose
address space is limited to ``LIMIT`` bytes before ``spark_dsg`` is imported, with a deadline; the child
reads the file, converts it (:func:`synergai.scene.sparkdsg.read_here`) and writes our JSON document of
the graph, what was left out and the package's notes on stdout, or ``{"error": ...}``. A child that runs
out of memory, crashes or passes the deadline is a one-line :class:`SceneError`.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from synergai.scene.model import SceneError

#: Address space the child may use: the interpreter, numpy and the package take about 0.5 GB.
BASE_MEMORY_BYTES = 1 << 30
#: ... plus this many bytes per byte of the file (a real graph's objects take far less).
MEMORY_PER_FILE_BYTE = 64
#: Most seconds the child may take.
DEADLINE_S = 120.0


def memory_limit(path: Path) -> int:
    """The address space a child reading ``path`` may use (bytes)."""
    return BASE_MEMORY_BYTES + MEMORY_PER_FILE_BYTE * path.stat().st_size


def read_in_child(path: Path, scene_id: str | None) -> dict:
    """The child's document for ``path`` (keys ``graph``, ``left_out``, ``notes``); a one-line SceneError
    when the file cannot be read, including by the child running out of memory or time."""
    limit = memory_limit(path)
    cmd = [sys.executable, "-m", "synergai.scene.sparkdsg_child", str(limit), str(path), scene_id or ""]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}  # no per-thread arenas
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=DEADLINE_S, env=env, check=False)
    except subprocess.TimeoutExpired:
        raise SceneError(f"{path}: not a Spark-DSG graph (its reader took more than {DEADLINE_S:g} s)") \
            from None
    try:
        doc = json.loads(done.stdout.decode("utf-8", "replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        doc = None
    if done.returncode != 0 or not isinstance(doc, dict):
        raise SceneError(f"{path}: not a Spark-DSG graph (its reader failed: it needed more than the "
                         f"{limit >> 20} MB it may use, or the file is corrupt; exit {done.returncode})")
    if "error" in doc:
        raise SceneError(str(doc["error"]))
    return doc


def main(argv: list[str]) -> int:
    """The child: limit the address space, read, print one JSON line."""
    limit, path, scene_id = int(argv[0]), Path(argv[1]), argv[2] if len(argv) > 2 else ""
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from synergai.scene.serialization import graph_to_dict
    from synergai.scene.sparkdsg import read_here

    try:
        result = read_here(path, scene_id or None)
        doc: dict = {"graph": graph_to_dict(result.graph), "left_out": result.left_out,
                     "notes": result.library_notes}
    except SceneError as exc:
        doc = {"error": str(exc)}
    except MemoryError:
        doc = {"error": f"{path}: not a Spark-DSG graph spark-dsg can read (its reader needed more than the "
                        f"{limit >> 20} MB it may use: a corrupt size or count)"}
    except Exception as exc:  # the package's and the conversion's failures on a corrupt file: one line
        doc = {"error": f"{path}: not a Spark-DSG graph ({type(exc).__name__}: "
                        f"{' '.join(str(exc).split())[:300]})"}
    sys.stdout.write(json.dumps(doc) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
