"""Scene store at scale, SQLite and PostgreSQL side by side: register a synthetic scene, one edit, undo,
an edit seen by another process through `scene watch`, many writer processes, kill -9 of a writer.

    python benchmarks/bench_store.py [--db sqlite postgresql://USER:PASSWORD@HOST:PORT/DB]
                                     [--sizes 10000 100000] [--edits 40] [--writers 8] [--each 300]
                                     [--kills 20] [--json]

``--db`` names the stores to compare: ``sqlite`` (a fresh file in a temporary directory) and/or a
PostgreSQL URL (a fresh schema in that database per size, dropped afterwards). Scenes are the synthetic
apartments of ``bench_graph_speed.py`` (fixed seed). For each store and size a child process builds
the graph and registers it (wall time and the child's peak resident memory); this process then loads
the scene once (cold) and times ``SceneStore.apply`` of renames / attribute edits (one transaction
each, commit durable), ``undo``, removals of a support fact (levels recomputed) and a move with its
relations recomputed; ``synergai scene list`` runs while another process holds the write lock. On the
first size only: ``synergai scene watch --json`` runs in a child and the time from an edit's start to
its line on the watcher's stdout is measured (p50 / p95 over ``--watch`` edits); ``--writers``
processes each apply ``--each`` edits to the scene at once (lost, duplicated, edits/s); a writer is
killed with SIGKILL after a random number of acknowledged edits, ``--kills`` rounds (acknowledged
edits missing afterwards, and whether the store verifies). No model is involved.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from bench_graph_speed import synthetic_scene
from synergai.masking import mask_secrets
from synergai.scene import edits as E
from synergai.scene.build import build_graph
from synergai.scene.model import ObjectKind, Relation
from synergai.scene.store import SceneStore
from synergai.scene.store_location import is_url

SCENE = "synthetic"
HOLD_WRITE = """
import sys, time
from synergai.scene.store import SceneStore
s = SceneStore(sys.argv[1])
with s._write() as c:
    c.execute("UPDATE scenes SET updated_at = updated_at")
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
    raise SystemExit(0)
"""
WRITER = """
import sys
from synergai.scene import edits as E
from synergai.scene.store import SceneStore
location, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
ids = sys.argv[4].split(",")
with SceneStore(location) as s:
    graph = s.load("synthetic")
    for k in range(n):
        oid = ids[k % len(ids)]
        req = E.set_attributes(graph, oid, [f"{name}-{k}"], "agent", f"{name} {k}")
        rec = s.apply("synthetic", req)
        E.apply_changes(graph, req.changes)
        print(rec.seq, flush=True)
"""


def child_build(n: int, db: str) -> dict[str, float]:
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


def _pct_ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench_edits(db: str, edits: int) -> dict[str, float]:
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


def bench_list_during_write(db: str) -> dict[str, float]:
    """`synergai scene list` (a new process) and an in-process listing while another process writes."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD_WRITE, db, "60"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        t = time.perf_counter()
        with SceneStore(db) as store:
            n = len(store.scenes())
        in_process = time.perf_counter() - t
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "synergai", "scene", "list", "--db", db, "--json"],
                             capture_output=True, text=True, timeout=120)
        cli = time.perf_counter() - t
        ok = out.returncode == 0 and SCENE in out.stdout and n == 1
    finally:
        holder.kill()
        holder.wait()
    return {"list_in_process_s": in_process, "list_cli_s": cli, "list_ok": ok}


def _lines(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def bench_watch(db: str, n: int) -> dict[str, float]:
    """Time from an edit's start to its JSON line on a `scene watch` child's stdout."""
    cmd = [sys.executable, "-m", "synergai", "scene", "watch", "--db", db, "--scene", SCENE, "--json",
           "--since", "0"]
    watch = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    lines = _lines(watch)
    lags = []
    try:
        with SceneStore(db) as store:
            graph = store.load(SCENE)
            last = store.last_event()
            while json.loads(lines.get(timeout=120))["seq"] < last:  # the history first: the watcher is up
                pass
            time.sleep(1.0)
            ids = [o.id for o in graph if o.kind is ObjectKind.OBJECT][:n]
            for k, oid in enumerate(ids):
                req = E.set_attributes(graph, oid, [f"watched {k}"])
                t = time.perf_counter()
                rec = store.apply(SCENE, req)
                E.apply_changes(graph, req.changes)
                event = json.loads(lines.get(timeout=60))
                lags.append(time.perf_counter() - t)
                assert event["kind"] == "edit" and event["object_ids"] == [oid], (event, rec)
                time.sleep(random.uniform(0.05, 0.25))  # edits arrive at random moments
    finally:
        watch.kill()
        watch.wait()
    return {"watch_p50_ms": _pct_ms(lags, 0.5), "watch_p95_ms": _pct_ms(lags, 0.95)}


def bench_writers(db: str, writers: int, each: int) -> dict[str, float]:
    """``writers`` processes × ``each`` edits on one scene at once: lost / duplicated, edits/s."""
    with SceneStore(db) as store:
        graph = store.load(SCENE)
        before = len(store.edits(SCENE, include_undone=True))
    ids = [o.id for o in graph if o.kind is ObjectKind.OBJECT]
    procs = []
    t = time.perf_counter()
    for w in range(writers):
        mine = ",".join(ids[w * 5:(w + 1) * 5])  # each writer its own objects: no conflicts expected
        procs.append(subprocess.Popen([sys.executable, "-c", WRITER, db, f"w{w}", str(each), mine],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    acked: list[int] = []
    failed = 0
    for p in procs:
        out, _ = p.communicate(timeout=3600)
        failed += p.returncode != 0
        acked += [int(x) for x in out.split()]
    wall = time.perf_counter() - t
    with SceneStore(db) as store:
        log = store.edits(SCENE, include_undone=True)[before:]
        logged = {(r.utterance) for r in log}
        ok = store.verify(SCENE)
    wanted = {f"w{w} {k}" for w in range(writers) for k in range(each)}
    return {"writers_lost": len(wanted - logged), "writers_duplicated": len(acked) - len(set(acked)),
            "writers_failed": failed, "writers_edits_per_s": len(acked) / wall, "writers_verified": ok}


KILLED = """
import sys
from synergai.scene import edits as E
from synergai.scene.store import SceneStore
with SceneStore(sys.argv[1]) as s:
    graph = s.load("synthetic")
    oid = sys.argv[2]
    k = 0
    while True:
        k += 1
        req = E.set_attributes(graph, oid, [f"kill {k}"], "agent")
        rec = s.apply("synthetic", req)
        E.apply_changes(graph, req.changes)
        print(rec.seq, flush=True)
"""


def bench_kill(db: str, rounds: int) -> dict[str, float]:
    """SIGKILL a writer after a random number of acknowledged edits; count acknowledged edits missing."""
    rng = random.Random(7)
    with SceneStore(db) as store:
        oid = [o.id for o in store.load(SCENE) if o.kind is ObjectKind.OBJECT][-1]
    lost = 0
    verified = True
    for _ in range(rounds):
        proc = subprocess.Popen([sys.executable, "-c", KILLED, db, oid], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        acked = []
        target = rng.randint(3, 20)
        while len(acked) < target:
            acked.append(int(proc.stdout.readline()))
        os.kill(proc.pid, signal.SIGKILL)
        acked += [int(x) for x in proc.stdout.read().split()]
        proc.wait()
        proc.stdout.close()
        with SceneStore(db) as store:
            logged = {r.seq for r in store.edits(SCENE, include_undone=True)}
            lost += len(set(acked) - logged)
            verified = verified and store.verify(SCENE)
    return {"kill_rounds": rounds, "kill_lost": lost, "kill_verified": verified}


@contextmanager
def fresh_store(kind: str, tmp: Path, n: int) -> Iterator[str]:
    """A fresh, empty store location of the given kind."""
    if not is_url(kind):
        yield str(tmp / f"store-{n}.sqlite3")
        return
    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(kind, autocommit=True) as c:
        c.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in kind else "?"
    try:
        yield f"{kind}{sep}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(kind, autocommit=True) as c:
            c.execute(f"DROP SCHEMA {schema} CASCADE")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", nargs="+", default=["sqlite"], help="sqlite and/or postgresql:// URLs")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--edits", type=int, default=40, help="edits timed per size")
    ap.add_argument("--watch", type=int, default=40, help="edits timed through `scene watch`")
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--each", type=int, default=300, help="edits per writer process")
    ap.add_argument("--kills", type=int, default=20, help="kill -9 rounds")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--child-db", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(child_build(args.child, args.child_db)))
        return
    results: dict[str, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.db:
            name = "postgresql" if is_url(kind) else "sqlite"
            for i, n in enumerate(args.sizes):
                with fresh_store(kind, Path(tmp), n) as db:
                    t = time.perf_counter()
                    out = subprocess.run([sys.executable, __file__, "--child", str(n), "--child-db", db],
                                         capture_output=True, text=True, check=True)
                    row = json.loads(out.stdout)
                    row["child_wall_s"] = time.perf_counter() - t
                    row |= bench_edits(db, args.edits)
                    row |= bench_list_during_write(db)
                    if i == 0:
                        row |= bench_watch(db, args.watch)
                        row |= bench_writers(db, args.writers, args.each)
                        row |= bench_kill(db, args.kills)
                    results.setdefault(name, {})[str(n)] = row
                    print(f"done: {name} {mask_secrets(kind)} {n}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{'store':<10} {'objects':>8} {'register s':>10} {'peak GB':>7} {'cold load s':>11}"
          f" {'edit ms':>7} {'(max)':>7} {'undo ms':>7} {'support ms':>10} {'move ms':>7} {'list s':>6}"
          f" {'watch p50/p95 ms':>16} {'writers lost/dup, edits/s':>25} {'kill -9 lost':>12}")
    for name, rows in results.items():
        for r in rows.values():
            watch = f"{r['watch_p50_ms']:.0f} / {r['watch_p95_ms']:.0f}" if "watch_p50_ms" in r else "-"
            writers = (f"{r['writers_lost']}/{r['writers_duplicated']}, {r['writers_edits_per_s']:.0f}"
                       + ("" if r["writers_verified"] and not r["writers_failed"] else " (FAILED)")
                       if "writers_lost" in r else "-")
            kill = (f"{r['kill_lost']} in {r['kill_rounds']} rounds"
                    + ("" if r["kill_verified"] else " (BAD)") if "kill_lost" in r else "-")
            print(f"{name:<10} {r['objects']:>8} {r['register_s']:>10.2f} {r['peak_gb']:>7.2f}"
                  f" {r['cold_load_s']:>11.2f} {r['edit_median_ms']:>7.1f} {r['edit_max_ms']:>7.1f}"
                  f" {r['undo_median_ms']:>7.1f} {r['support_edit_median_ms']:>10.0f}"
                  f" {r['move_refresh_median_ms']:>7.0f} {r['list_cli_s']:>6.2f} {watch:>16} {writers:>25}"
                  f" {kill:>12}" + ("" if r["list_ok"] else "  (list FAILED)"))


if __name__ == "__main__":
    main()
