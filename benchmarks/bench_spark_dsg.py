"""Spark-DSG (Hydra) interchange: the round trip of every ScanNet scene and of the house, and the time
to import a 10k-object Hydra-style graph.

    python benchmarks/bench_spark_dsg.py [--objects ../shared/data/scannet/objects_gt.json]
                                         [--size 10000] [--json]

Round trip: each scene of the objects file (and the built-in house, which has rooms) is built into a
graph, written with ``scene.sparkdsg.save_spark_dsg`` (JSON and binary) and read back with
``load_spark_dsg``; objects, relations and rooms must be equal. Import speed: a graph laid out the way
Hydra lays one out (objects under places under rooms under a building, labelspaces, no synergai
metadata), ``--size`` objects in 25 rooms, written in binary, then ``load_spark_dsg`` timed (best of 3);
and the round trip of a synergai graph of that size (``bench_graph_speed``'s synthetic apartments, with
its relations and metadata). No model is involved.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import spark_dsg as dsg

from bench_graph_speed import synthetic_scene
from synergai.scene.build import build_graph
from synergai.scene.builders.house import HOUSE_SCENE_ID, house_objects, house_rooms
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.sparkdsg import load_spark_dsg, save_spark_dsg

DEFAULT_OBJECTS = Path(__file__).resolve().parents[2] / "shared" / "data" / "scannet" / "objects_gt.json"
CATEGORIES = ("chair", "table", "sofa", "lamp", "bed", "cabinet", "refrigerator", "plant", "box", "shelf")


def hydra_style(n_objects: int, rooms_per_side: int = 5, seed: int = 0) -> dsg.DynamicSceneGraph:
    """Objects (layer 2) under places (layer 3) under rooms (layer 4) under one building (layer 5)."""
    rng = np.random.default_rng(seed)
    g = dsg.DynamicSceneGraph()
    g.set_labelspace(dsg.Labelspace(dict(enumerate(CATEGORIES))), 2)
    g.set_labelspace(dsg.Labelspace({0: "kitchen", 1: "bedroom", 2: "office", 3: "living room"}), 4)
    g.add_node(5, dsg.NodeSymbol("B", 0), dsg.SemanticNodeAttributes())
    side = 6.0
    n_rooms = rooms_per_side * rooms_per_side
    for k in range(n_rooms):
        cx, cy = (k % rooms_per_side + 0.5) * side, (k // rooms_per_side + 0.5) * side
        room = dsg.RoomNodeAttributes()
        room.position = np.array([cx, cy, 0.0])
        room.semantic_label = k % 4
        room.bounding_box = dsg.BoundingBox(np.array([side, side, 0.0]), np.array([cx, cy, 0.0]))
        g.add_node(4, dsg.NodeSymbol("R", k), room)
        g.insert_edge(dsg.NodeSymbol("B", 0), dsg.NodeSymbol("R", k))
        place = dsg.PlaceNodeAttributes()
        place.position = np.array([cx, cy, 1.0])
        g.add_node(3, dsg.NodeSymbol("p", k), place)
        g.insert_edge(dsg.NodeSymbol("R", k), dsg.NodeSymbol("p", k))
    for i in range(n_objects):
        k = i % n_rooms
        cx, cy = (k % rooms_per_side + 0.5) * side, (k // rooms_per_side + 0.5) * side
        size = rng.uniform(0.1, 1.5, 3)
        center = np.array([cx + rng.uniform(-2.5, 2.5), cy + rng.uniform(-2.5, 2.5), size[2] / 2])
        attrs = dsg.ObjectNodeAttributes()
        attrs.position = center
        attrs.bounding_box = dsg.BoundingBox(size, center)
        attrs.semantic_label = int(rng.integers(len(CATEGORIES)))
        attrs.color = rng.integers(0, 256, 3).astype(np.uint8)
        g.add_node(2, dsg.NodeSymbol("O", i), attrs)
        g.insert_edge(dsg.NodeSymbol("p", k), dsg.NodeSymbol("O", i))
    return g


def round_trips(objects_path: Path, tmp: Path) -> dict[str, object]:
    """Build, export (JSON and binary) and import every scene; count the ones that come back equal."""
    objects_file = load_objects_file(objects_path)
    graphs = [build_graph(s, objects_file.objects(s), scene_type=objects_file.scene_type(s))
              for s in objects_file.scene_ids]
    graphs.append(build_graph(HOUSE_SCENE_ID, house_objects(), scene_type="House", rooms=house_rooms()))
    equal, failures, n_objects, n_edges, n_rooms = 0, [], 0, 0, 0
    start = time.perf_counter()
    for graph in graphs:
        ok = True
        for suffix in (".json", ".sparkdsg"):
            path = tmp / f"{graph.scene_id}{suffix}"
            save_spark_dsg(graph, path)
            back = load_spark_dsg(path).graph
            ok &= (back.objects == graph.objects and set(back.edges) == set(graph.edges)
                   and back.rooms == graph.rooms and back.scene_id == graph.scene_id)
        equal += ok
        if not ok:
            failures.append(graph.scene_id)
        n_objects += len(graph)
        n_edges += len(graph.edges)
        n_rooms += len(graph.rooms)
    return {"scenes": len(graphs), "equal": equal, "failures": failures, "objects": n_objects,
            "relations": n_edges, "rooms": n_rooms, "seconds": round(time.perf_counter() - start, 2)}


def import_speed(size: int, tmp: Path) -> dict[str, object]:
    """Seconds to load a ``size``-object Hydra-style graph (best of 3) and what came in."""
    path = tmp / "hydra.sparkdsg"
    hydra_style(size).save(str(path), include_mesh=False)
    times, result = [], None
    for _ in range(3):
        start = time.perf_counter()
        result = load_spark_dsg(path)
        times.append(time.perf_counter() - start)
    assert result is not None
    g = result.graph
    return {"objects": len(g), "rooms": len(g.rooms), "in_a_room": sum(o.room is not None for o in g),
            "best_s": round(min(times), 3), "times_s": [round(t, 3) for t in times],
            "left_out": result.left_out}


def own_round_trip(size: int, tmp: Path) -> dict[str, object]:
    """A ``size``-object synergai graph (``bench_graph_speed``'s synthetic apartments, relations built)
    exported in binary and imported again: seconds for each way and whether it came back equal."""
    graph = build_graph("synthetic", synthetic_scene(size))
    path = tmp / "synthetic.sparkdsg"
    start = time.perf_counter()
    save_spark_dsg(graph, path)
    written = time.perf_counter() - start
    start = time.perf_counter()
    back = load_spark_dsg(path).graph
    read = time.perf_counter() - start
    return {"objects": len(graph), "relations": len(graph.edges), "export_s": round(written, 3),
            "import_s": round(read, 3), "equal": back == graph}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--objects", type=Path, default=DEFAULT_OBJECTS)
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        report = {"round_trip": round_trips(args.objects, Path(d)),
                  "import": import_speed(args.size, Path(d)), "own": own_round_trip(args.size, Path(d))}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        rt, im = report["round_trip"], report["import"]
        print(f"round trip: {rt['equal']}/{rt['scenes']} scenes equal after export -> import "
              f"({rt['objects']} objects, {rt['relations']} relations, {rt['rooms']} rooms; "
              f"{rt['seconds']} s)")
        print(f"import: {im['objects']} objects, {im['rooms']} rooms ({im['in_a_room']} objects in a "
              f"room) in {im['best_s']} s (best of 3: {im['times_s']}); {im['left_out']}")
        own = report["own"]
        print(f"synergai graph of {own['objects']} objects, {own['relations']} relations: export "
              f"{own['export_s']} s, import {own['import_s']} s, equal: {own['equal']}")
    return 0 if report["round_trip"]["equal"] == report["round_trip"]["scenes"] else 1  # type: ignore[index]


if __name__ == "__main__":
    sys.exit(main())
