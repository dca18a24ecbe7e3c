"""From `ask` to its first model call on a big scene, SQLite and PostgreSQL side by side.

    python benchmarks/bench_ask_start.py [--db sqlite postgresql://USER:PASSWORD@HOST:PORT/DB]
                                         [--objects 50000] [--repeat 3] [--json]

A synthetic apartment of ``--objects`` objects (``bench_graph_speed.py``'s, fixed seed) is built once
and registered in each store (``sqlite``: a fresh file in a temporary directory; a PostgreSQL URL: a
fresh schema, dropped afterwards). Then, in this process, a new store connection opens the scene
("open": the graph read from the store, as `synergai ask` / `chat` / a GUI tab does once) and an
:class:`~synergai.agent.session.AgentSession` asks each question with a scripted model that records
when it is first called and stops the turn there ("ask -> first call": the turn's own work before the
model sees anything, the scene open; the median of ``--repeat`` rounds over the questions). "cold" is
open + ask -> first call of the first question: what one `synergai ask` process pays before its first
model call, besides starting Python. No real model is involved.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench_graph_speed import synthetic_scene
from synergai.agent.session import AgentSession
from synergai.llm.base import ChatReply
from synergai.llm.scripted import ScriptedModel
from synergai.masking import mask_secrets
from synergai.scene.build import build_graph
from synergai.scene.model import SceneGraph
from synergai.scene.store import SceneStore
from synergai.scene.store_location import is_url

SCENE = "big"
QUESTIONS = ("what is on the table?", "which cup is closest to the bed?", "how many chairs are there?",
             "the cup 57 is blue")


class _FirstCall(Exception):
    """Raised by the scripted model at its first call: the turn stops there."""


class _Stopwatch(ScriptedModel):
    """Records when it is first called, then stops the turn."""

    def __init__(self) -> None:
        super().__init__([])
        self.called: float | None = None

    def chat(self, messages: Any, **kw: Any) -> ChatReply:
        self.called = time.perf_counter()
        raise _FirstCall


@contextmanager
def _location(db: str) -> Iterator[str | Path]:
    """A fresh store location for ``db`` (``sqlite`` or a PostgreSQL URL), removed afterwards."""
    if not is_url(db):
        with tempfile.TemporaryDirectory() as tmp:
            yield Path(tmp) / "store.sqlite3"
        return
    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        sep = "&" if "?" in db else "?"
        yield f"{db}{sep}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def _first_call(session: AgentSession, question: str) -> float:
    model = session.llm
    assert isinstance(model, _Stopwatch)
    model.called = None
    start = time.perf_counter()
    with contextlib.suppress(_FirstCall):
        session.ask(question)
    if model.called is None:
        raise RuntimeError(f"{question!r} was answered without a model call")
    return model.called - start


def bench(db: str, graph: SceneGraph, repeat: int) -> dict[str, Any]:
    """Register ``graph`` in a fresh store of ``db``; time opening it and each question's first call."""
    with _location(db) as location:
        t0 = time.perf_counter()
        with SceneStore(location) as store:
            store.register(graph, {"builder": "bench_ask_start"})
        register_s = time.perf_counter() - t0
        with SceneStore(location) as store:
            t0 = time.perf_counter()
            store.load(SCENE)
            open_s = time.perf_counter() - t0
            session = AgentSession(store, SCENE, _Stopwatch())
            first = [_first_call(session, q) for q in QUESTIONS]
            rounds = first + [_first_call(session, q) for _ in range(repeat - 1) for q in QUESTIONS]
    return {"store": "sqlite" if not is_url(db) else "postgresql", "objects": len(graph),
            "edges": len(graph.edges), "register_s": register_s, "open_s": open_s,
            "ask_first_call_median_s": statistics.median(rounds), "ask_first_call_max_s": max(rounds),
            "cold_s": open_s + first[0], "where": "sqlite" if not is_url(db) else mask_secrets(db)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--db", nargs="+", default=["sqlite"], help="sqlite and/or postgresql:// URLs")
    p.add_argument("--objects", type=int, default=50_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    graph = build_graph(SCENE, synthetic_scene(args.objects))
    print(f"built {len(graph)} objects, {len(graph.edges)} relations in {time.perf_counter() - t0:.1f} s",
          file=sys.stderr)
    rows = [bench(db, graph, args.repeat) for db in args.db]
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{'store':<11} {'objects':>8} {'edges':>8} {'register s':>11} {'open s':>7} "
          f"{'ask->1st call median s':>23} {'max s':>6} {'cold s':>7}")
    for r in rows:
        print(f"{r['store']:<11} {r['objects']:>8} {r['edges']:>8} {r['register_s']:>11.2f} "
              f"{r['open_s']:>7.2f} {r['ask_first_call_median_s']:>23.3f} {r['ask_first_call_max_s']:>6.3f} "
              f"{r['cold_s']:>7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
