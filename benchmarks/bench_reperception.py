"""Re-perception (issue 39): corrections carried through a new perception, and `--update` time.

    python benchmarks/bench_reperception.py [--part corrections timing] [--db sqlite postgres]
                                            [--sizes 1000 100000] [--scenes ID ...] [--seed 0] [--json]

(a) ``corrections``: every dev scene of the alignment benchmark (the 3D-VisTA predicted-instance graphs,
``../shared/data/scannet/objects_pred_3dvista.json``) is stored, and every repairable misperception the
benchmark finds there (:class:`~synergai.eval.alignment.matching.Correction`: wrong label, wrong colour,
missing support) is made as a user's edit. Then each scene is perceived again from the same predicted
graph: ids renumbered, box centres jittered by up to ``--jitter`` m per axis and sizes by up to 2 cm,
10 % of the objects dropped, 3 objects added, 5 % of the labels changed (seeded), relations recomputed,
and the scene is updated (:func:`~synergai.scene.reperception.update_scene`). A correction *persists*
when every object it names is still perceived; it is *carried* when the updated graph agrees with it
(``Correction.applied``) on the object that is really the one it named (identified by its new box, not
by the update's own bookkeeping); *misplaced* when its stored id now holds another object. The
predicted graphs hold duplicate predictions (several instances with the same box); carried and misplaced
are also counted by real object (the ground-truth object a prediction overlaps most). Alignment
success is the share of the benchmark's tasks (and transfer questions) the graph answers right, read off
the graph by the benchmark's own oracle (``questions.graph_answer`` + ``judge.judge_answer``; no model):
after the corrections, after the update, and the oracle (the new perception with the corrections applied
directly to the objects that persist).

(b) ``timing``: a synthetic apartment of ``--sizes`` objects (``bench_graph_speed.synthetic_scene``) is
stored with 20 user edits, perceived again the same way, and updated: the wall time of building the new
graph (relations) and of the update itself (load, match, carry, one transaction), and of its undo (in the
same store, and by a new process after a redo); ``*_cpu_s``: this process's CPU time of the same (on a
shared machine the wall time also holds the waits for a core; on PostgreSQL the server's work is not in
it). With
``--db postgres`` a throwaway cluster is started (``tests/pg_cluster.py``, fsync on) and stopped.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from bench_graph_speed import synthetic_scene
from synergai.eval.alignment.judge import judge_answer
from synergai.eval.alignment.matching import MIN_IOU, Correction, ErrorKind, iou_matrix
from synergai.eval.alignment.questions import Question, Template, graph_answer
from synergai.eval.alignment.run import AlignmentSetup, prepare
from synergai.eval.words import plain
from synergai.scene import edits as E
from synergai.scene.build import build_graph
from synergai.scene.model import STRUCTURE_KINDS, Relation, SceneGraph, SceneObject
from synergai.scene.reperception import update_scene
from synergai.scene.store import SceneStore
from synergai.scene.vocabulary import COLOR_NAMES

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


# ------------------------------------------------------------------------------------ a new perception
def reperceive(graph: SceneGraph, rng: np.random.Generator, jitter: float, drop: float = 0.1,
               relabel: float = 0.05, add: int = 3) -> tuple[SceneGraph, dict[str, str]]:
    """``graph`` perceived again (see the module doc-string); returns it and new id -> original id."""
    objs = graph.objects
    ordinary = [o.id for o in objs if o.kind not in STRUCTURE_KINDS]
    dropped = set(rng.choice(ordinary, size=round(drop * len(ordinary)), replace=False).tolist())
    kept = [o for o in objs if o.id not in dropped]
    order = rng.permutation(len(kept))
    categories = sorted({o.category for o in objs if o.kind not in STRUCTURE_KINDS})
    out, origin = [], {}
    for k, idx in enumerate(order.tolist()):
        o = kept[idx]
        nid = str(10_000_000 + k)
        origin[nid] = o.id
        center = np.asarray(o.center) + rng.uniform(-jitter, jitter, 3)
        size = np.maximum(np.asarray(o.size) + rng.uniform(-0.02, 0.02, 3), 0.01)
        category = o.category
        if o.kind not in STRUCTURE_KINDS and rng.random() < relabel:
            category = str(rng.choice(categories))
        out.append(o.with_changes(id=nid, center=tuple(center.tolist()), size=tuple(size.tolist()),
                                  category=category, obb=None))
    lo = np.min([o.min_corner for o in objs], axis=0)
    hi = np.max([o.max_corner for o in objs], axis=0)
    for k in range(add):
        c = rng.uniform(lo, hi)
        out.append(SceneObject(str(20_000_000 + k), str(rng.choice(categories)), (float(c[0]), float(c[1]),
                               0.3), (0.3, 0.3, 0.3)))
    return build_graph(graph.scene_id, out, scene_type=graph.scene_type), origin


# ------------------------------------------------------------------------------- (a) corrections carried
def correction_edit(graph: SceneGraph, c: Correction) -> E.EditRequest | None:
    """The user's edit that makes the correction (None when the graph already agrees)."""
    obj = graph.get(c.pred_id)
    if c.kind is ErrorKind.LABEL:
        return None if obj.category == c.truth else E.rename_object(graph, c.pred_id, c.truth, "user", "fix")
    if c.kind is ErrorKind.COLOR:
        attrs = [c.truth, *(a for a in obj.attributes if plain(a) not in COLOR_NAMES)]
        return None if tuple(attrs) == obj.attributes else E.set_attributes(graph, c.pred_id, attrs, "user")
    if graph.has_edge(c.pred_id, Relation.SUPPORTED_BY, c.anchor_id):
        return None
    return E.add_relation(graph, c.pred_id, "on", c.anchor_id, "user", "fix")


def physical(robot: SceneGraph, truth: SceneGraph) -> dict[str, str]:
    """Each prediction's real object: the ground-truth object its box overlaps most (IoU >= 0.25, the
    benchmark's threshold; duplicate predictions of one object share it), else the prediction itself."""
    preds, gts = robot.objects, truth.objects
    iou = iou_matrix(preds, gts)
    out = {}
    for k, o in enumerate(preds):
        best = int(np.argmax(iou[k])) if len(gts) else -1
        out[o.id] = f"gt:{gts[best].id}" if best >= 0 and iou[k, best] >= MIN_IOU else f"pred:{o.id}"
    return out


def success(graph: SceneGraph, questions: list[Question]) -> float:
    """Share of the questions the graph answers right (the benchmark's oracle and judge)."""
    right = 0
    for q in questions:
        answer = graph_answer(graph, Template(q.template), q.subject)
        right += answer is not None and judge_answer(q, ", ".join(answer))
    return right / max(len(questions), 1)


def bench_corrections(args: argparse.Namespace, setup: AlignmentSetup, drop: float, relabel: float,
                      add: int) -> dict[str, float]:
    """Corrections made, each scene perceived again (``drop``, ``relabel``, ``add`` as in
    :func:`reperceive`) and updated; what was carried and how the tasks are answered."""
    rng = np.random.default_rng(args.seed)
    n = dict.fromkeys(("corrections", "persist", "carried", "carried_same_real_object", "misplaced",
                       "misplaced_real_object", "gone", "gone_reported", "gone_carried_on_a_duplicate",
                       "persist_reported"), 0)
    before_kept: list[float] = []
    after_kept: list[float] = []
    before: list[float] = []
    after: list[float] = []
    oracle: list[float] = []
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, SceneStore(Path(tmp) / "s.sqlite3") as store:
        for sid, a in setup.analyses.items():
            store.register(a.robot, {"builder": "bench"})
            seq_of: dict[int, int] = {}
            for k, c in enumerate(a.errors):
                req = correction_edit(store.load(sid), c)
                if req is not None:
                    seq_of[k] = store.apply(sid, req).seq
            corrected = store.load(sid)
            new, origin = reperceive(a.robot, rng, args.jitter, drop, relabel, add)
            t = time.perf_counter()
            plan = update_scene(store, new, source="bench")
            times.append(time.perf_counter() - t)
            now = store.load(sid)
            by_box = {o.center: origin.get(o.id) for o in new}
            truly = {o.id: by_box.get(o.center) for o in now}  # stored id -> the original it really is
            real = physical(a.robot, a.truth)
            persisting = set(origin.values())
            reported = {c.edit for c in plan.conflicts}
            for k, c in enumerate(a.errors):
                if k not in seq_of:
                    continue
                n["corrections"] += 1
                named = {c.pred_id} | ({c.anchor_id} if c.kind is ErrorKind.SUPPORT else set())
                holds = c.pred_id in now and c.applied(now, setup.vocab)
                was = truly.get(c.pred_id) if c.pred_id in now else None
                same = holds and was is not None and real[was] == real[c.pred_id]
                if named <= persisting:
                    n["persist"] += 1
                    n["persist_reported"] += seq_of[k] in reported
                    n["carried"] += holds and was == c.pred_id
                    n["carried_same_real_object"] += same
                else:
                    n["gone"] += 1
                    n["gone_reported"] += seq_of[k] in reported
                    n["gone_carried_on_a_duplicate"] += same and seq_of[k] not in reported
                n["misplaced"] += was is not None and was != c.pred_id
                n["misplaced_real_object"] += was is not None and real[was] != real[c.pred_id]
            tasks = [t for t in setup.tasks if t.scene_id == sid]
            qs = [t.question for t in tasks] + [t.transfer for t in tasks if t.transfer is not None]
            kept = [t.question for t in tasks if set(t.objects) <= persisting]
            if kept:
                before_kept += [success(corrected, kept)] * len(kept)
                after_kept += [success(now, kept)] * len(kept)
            if qs:
                direct = new.copy()
                rename = {old: nid for nid, old in origin.items()}
                for c in a.errors:
                    if c.pred_id in rename and (c.kind is not ErrorKind.SUPPORT or c.anchor_id in rename):
                        moved = Correction(c.kind, rename[c.pred_id], c.truth, c.perceived,
                                           rename.get(c.anchor_id, ""))
                        moved.apply_to(direct)
                before += [success(corrected, qs)] * len(qs)
                after += [success(now, qs)] * len(qs)
                oracle += [success(direct, qs)] * len(qs)
    return {**n,
            "carried_pct": 100 * n["carried"] / max(n["persist"], 1),
            "carried_same_real_object_pct": 100 * n["carried_same_real_object"] / max(n["persist"], 1),
            "gone_reported_pct": 100 * n["gone_reported"] / max(n["gone"], 1),
            "questions": len(before), "success_before_pct": 100 * float(np.mean(before or [0])),
            "success_after_pct": 100 * float(np.mean(after or [0])),
            "success_oracle_after_pct": 100 * float(np.mean(oracle or [0])),
            "tasks_objects_persist": len(before_kept),
            "success_before_objects_persist_pct": 100 * float(np.mean(before_kept or [0])),
            "success_after_objects_persist_pct": 100 * float(np.mean(after_kept or [0])),
            "update_median_s": float(np.median(times or [0]))}


# ----------------------------------------------------------------------------------------- (b) timing
@contextmanager
def store_at(kind: str, tmp: Path) -> Iterator[str]:
    """A fresh store: a SQLite file, or a throwaway PostgreSQL cluster (tests/pg_cluster.py)."""
    if kind == "sqlite":
        yield str(tmp / "timing.sqlite3")
        return
    directory = Path(tempfile.mkdtemp(prefix="synergai-pg-"))  # not under ``tmp``: the server's user needs it
    tool = str(ROOT / "tests" / "pg_cluster.py")
    try:
        url = subprocess.run([sys.executable, tool, "start", str(directory), "--durable"], check=True,
                             capture_output=True, text=True).stdout.strip().splitlines()[-1]
        yield url
    finally:
        subprocess.run([sys.executable, tool, "stop", str(directory)], check=False, capture_output=True)
        shutil.rmtree(directory, ignore_errors=True)


def bench_timing(kind: str, n: int, seed: int, jitter: float) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    graph = build_graph(f"synthetic-{n}", synthetic_scene(n, seed))
    with tempfile.TemporaryDirectory() as tmp, store_at(kind, Path(tmp)) as location, \
            SceneStore(location) as store:
        sid = graph.scene_id
        store.register(graph, {"builder": "bench"})
        ordinary = [o.id for o in graph if o.kind not in STRUCTURE_KINDS]
        for k, oid in enumerate(rng.choice(ordinary, size=20, replace=False).tolist()):
            store.apply(sid, E.rename_object(store.load(sid), oid, f"corrected {k}", "user"))
        t = time.perf_counter()
        new, _ = reperceive(graph, rng, jitter)
        build_s = time.perf_counter() - t
        store.close()
        with SceneStore(location) as fresh:  # a new process's view: nothing cached
            t, cpu = time.perf_counter(), time.process_time()
            plan = update_scene(fresh, new, source="bench")
            update_s, update_cpu = time.perf_counter() - t, time.process_time() - cpu
            t, cpu = time.perf_counter(), time.process_time()
            fresh.undo(sid)
            undo_s, undo_cpu = time.perf_counter() - t, time.process_time() - cpu
            ok = fresh.verify(sid)
            fresh.redo(sid)
        with SceneStore(location) as cold:  # `synergai scene undo` in a new process: nothing cached
            t = time.perf_counter()
            cold.undo(sid)
            cold_undo_s = time.perf_counter() - t
    return {"db": kind, "objects": n, "build_new_graph_s": build_s, "update_s": update_s,
            "update_cpu_s": update_cpu, "undo_s": undo_s, "undo_cpu_s": undo_cpu,
            "undo_new_process_s": cold_undo_s,
            "matched": plan.matched, "added": len(plan.added), "removed": len(plan.removed),
            "carried": plan.carried, "conflicts": len(plan.conflicts), "verified": ok}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", nargs="+", choices=("corrections", "timing"), default=["corrections", "timing"])
    p.add_argument("--db", nargs="+", choices=("sqlite", "postgres"), default=["sqlite", "postgres"])
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 100_000])
    p.add_argument("--scenes", nargs="+", default=None, help="alignment dev scenes (default: all)")
    p.add_argument("--jitter", type=float, default=0.03, help="box centre jitter per axis, m")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    console = Console()
    results: dict[str, object] = {}
    if "corrections" in args.part:
        questions = json.loads((args.data / "scanqa" / "scanqa_val_dev.json").read_text())
        scannet = args.data / "scannet"
        setup = prepare(questions, scannet / "objects_gt.json", scannet / "objects_pred_3dvista.json",
                        scenes=args.scenes, per_scene=4, seed=args.seed, table_a2=False)
        variants = {"full": bench_corrections(args, setup, 0.1, 0.05, 3),
                    "ids+jitter only": bench_corrections(args, setup, 0.0, 0.0, 0)}
        results["corrections"] = variants
        table = Table(title=f"Corrections through re-perception ({len(setup.analyses)} scenes, jitter "
                            f"{args.jitter} m, seed {args.seed}; full: 10 % dropped, 5 % relabelled, "
                            "3 added)")
        table.add_column("measure")
        for name in variants:
            table.add_column(name, justify="right")
        for key in variants["full"]:
            table.add_row(key, *(f"{v[key]:.2f}" if isinstance(v[key], float) else str(v[key])
                                 for v in variants.values()))
        console.print(table)
    if "timing" in args.part:
        rows = []
        for kind in args.db:
            for n in args.sizes:
                rows.append(bench_timing(kind, n, args.seed, args.jitter))
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)  # progress of a long run
        results["timing"] = rows
        table = Table(title="--update time (s)")
        for col in rows[0]:
            table.add_column(col, justify="right")
        for row in rows:
            table.add_row(*(f"{v:.2f}" if isinstance(v, float) else str(v) for v in row.values()))
        console.print(table)
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
