"""Scene store at scale: build and register a synthetic scene, one edit, undo, and `scene list` while
another process holds the write lock.

    python benchmarks/bench_store.py [--sizes 10000 100000] [--edits 40] [--json]

Scenes are the synthetic apartments of ``bench_graph_speed.py`` (fixed seed). For each size a child
process builds the graph and registers it in a fresh store (wall time and the child's peak resident
memory); then this process opens the store, loads the scene once (cold: read from the rows) and times
``SceneStore.apply`` of renames / attribute edits of distinct objects (one transaction each, fsync
included), ``undo``, removals of a support fact (levels are recomputed), and a move whose
relations are recomputed (``move_object`` with refresh, built on
a loaded graph: the relation index is rebuilt for it). Finally a process holds ``BEGIN IMMEDIATE`` on
the store while ``synergai scene list`` runs. No model is involved.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_graph_speed import synthetic_scene
from synergai.scene import edits as E
from synergai.scene.build import build_graph
from synergai.scene.model import ObjectKind, Relation
from synergai.scene.store import SceneStore

SCENE = "synthetic"
HOLD_WRITE = """
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
c.execute("UPDATE scenes SET updated_at = updated_at")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
c.execute("ROLLBACK")
"""


def child_build(n: int, db: Path) -> dict[str, float]:
    """Build and register ``n`` objects (run in a child process: its peak memory is this build's)."""
    objs = synthetic_scene(n)
    t0 = time.perf_counter()
    graph = build_graph(SCENE, objs)
    t1 = time.perf_counter()
    with SceneStore(db) as store:
        store.register(graph, {"builder": "bench", "n": n})
    t2 = time.perf_counter()
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"objects": len(graph), "edges": len(graph.edges), "build_s": t1 - t0, "register_s": t2 - t1,
            "peak_gb": peak_kb / 1e6}


def _median_ms(values: list[float]) -> float:
    return 1000 * statistics.median(values)


def bench_edits(db: Path, edits: int) -> dict[str, float]:
    """Cold load, then median apply / undo / move-with-refresh times."""
    with SceneStore(db) as store:
        t = time.perf_counter()
        graph = store.load(SCENE)
        cold_s = time.perf_counter() - t
        movable = [o for o in graph if o.kind is ObjectKind.OBJECT]
        step = max(1, len(movable) // (edits + 1))
        targets = movable[::step][:edits]
        apply_s = []
        for k, obj in enumerate(targets):
            req = (E.rename_object(graph, obj.id, f"{obj.category} {k}") if k % 2 == 0
                   else E.set_attributes(graph, obj.id, ["benchmarked"]))
            t = time.perf_counter()
            store.apply(SCENE, req)
            apply_s.append(time.perf_counter() - t)
        undo_s = []
        for _ in range(min(10, len(targets))):
            t = time.perf_counter()
            store.undo(SCENE)
            undo_s.append(time.perf_counter() - t)
        support_s = []  # a support fact removed: levels are recomputed over the whole graph
        held = [e for e in graph.edges if e.relation is Relation.SUPPORTED_BY][:3]
        for e in held:
            req = E.delete_relation(graph, e.subject, e.relation, e.object)
            t = time.perf_counter()
            store.apply(SCENE, req)
            support_s.append(time.perf_counter() - t)
        move_s = []
        for obj in targets[:3]:
            t = time.perf_counter()
            current = store.load(SCENE)
            cur = current.get(obj.id)
            req = E.move_object(current, obj.id, (cur.center[0] + 0.3, cur.center[1], cur.center[2]))
            store.apply(SCENE, req)
            move_s.append(time.perf_counter() - t)
        assert store.verify(SCENE)
    return {"cold_load_s": cold_s, "edit_median_ms": _median_ms(apply_s), "edit_max_ms": 1000 * max(apply_s),
            "undo_median_ms": _median_ms(undo_s), "support_edit_median_ms": _median_ms(support_s),
            "move_refresh_median_ms": _median_ms(move_s)}


def bench_list_during_write(db: Path) -> dict[str, float]:
    """`synergai scene list` (a new process) and an in-process listing while another process writes."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD_WRITE, str(db), "60"], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        t = time.perf_counter()
        with SceneStore(db) as store:
            n = len(store.scenes())
        in_process = time.perf_counter() - t
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "synergai", "scene", "list", "--db", str(db), "--json"],
                             capture_output=True, text=True, timeout=120)
        cli = time.perf_counter() - t
        ok = out.returncode == 0 and SCENE in out.stdout and n == 1
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import synergai.cli.main"], check=True, timeout=120)
        startup = time.perf_counter() - t
    finally:
        holder.kill()
        holder.wait()
    return {"list_in_process_s": in_process, "list_cli_s": cli, "cli_import_s": startup, "list_ok": ok}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--edits", type=int, default=40, help="edits timed per size")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--db", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(child_build(args.child, args.db)))
        return
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            db = Path(tmp) / f"store-{n}.sqlite3"
            t = time.perf_counter()
            out = subprocess.run([sys.executable, __file__, "--child", str(n), "--db", str(db)],
                                 capture_output=True, text=True, check=True)
            row = json.loads(out.stdout)
            row["child_wall_s"] = time.perf_counter() - t
            row |= bench_edits(db, args.edits)
            row |= bench_list_during_write(db)
            results[str(n)] = row
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{'objects':>8} {'edges':>8} {'build s':>8} {'register s':>10} {'peak GB':>8} {'cold load s':>11}"
          f" {'edit ms':>8} {'(max)':>7} {'undo ms':>8} {'support edit ms':>15} {'move+refresh ms':>15}"
          f" {'list s':>7}"
          f" {'CLI list s':>10} {'(CLI import s)':>14}")
    for r in results.values():
        print(f"{r['objects']:>8} {r['edges']:>8} {r['build_s']:>8.2f} {r['register_s']:>10.2f}"
              f" {r['peak_gb']:>8.2f} {r['cold_load_s']:>11.2f} {r['edit_median_ms']:>8.1f}"
              f" {r['edit_max_ms']:>7.1f} {r['undo_median_ms']:>8.1f} {r['support_edit_median_ms']:>15.0f}"
              f" {r['move_refresh_median_ms']:>15.0f}"
              f" {r['list_in_process_s']:>7.3f} {r['list_cli_s']:>10.2f} {r['cli_import_s']:>14.2f}"
              + ("" if r["list_ok"] else "  (list FAILED)"))


if __name__ == "__main__":
    main()
