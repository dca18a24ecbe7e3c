"""A turn on a big scene reaches its first model call quickly, on both store backends: relations are
looked up through the graph's index and the full graph (the query ratio's denominator) is rendered only
after the answer."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from agent_scripting import final

from synergai.agent.session import AgentSession
from synergai.llm import ScriptedModel
from synergai.llm.base import ChatReply
from synergai.scene.model import Edge, ObjectKind, Relation, SceneGraph, SceneObject
from synergai.scene.store import SceneStore

N_OBJECTS = 20_000


def _big_scene() -> SceneGraph:
    """A floor with ``N_OBJECTS`` tables, each with a cup on it and near the next table."""
    objs = [SceneObject("floor", "floor", (0.0, 0.0, -0.05), (400.0, 400.0, 0.1), kind=ObjectKind.FLOOR)]
    edges = []
    for k in range(N_OBJECTS // 2):
        x, y = float(k % 100) * 2, float(k // 100) * 2
        objs += [SceneObject(f"t{k}", "table", (x, y, 0.375), (1.2, 0.8, 0.75)),
                 SceneObject(f"c{k}", "cup", (x, y, 0.8), (0.08, 0.08, 0.1), attributes=("red",))]
        edges += [Edge(f"t{k}", Relation.SUPPORTED_BY, "floor"),
                  Edge(f"c{k}", Relation.SUPPORTED_BY, f"t{k}")]
        if k:
            edges.append(Edge(f"t{k - 1}", Relation.NEAR, f"t{k}"))
    return SceneGraph("big", objs, edges)


class _Timed(ScriptedModel):
    """Records when it is first called."""

    first: float | None = None

    def chat(self, messages: Any, **kw: Any) -> ChatReply:
        if self.first is None:
            self.first = time.perf_counter()
        return super().chat(messages, **kw)


def test_the_first_model_call_of_a_turn_on_a_big_scene_comes_quickly(store_location: str | Path) -> None:
    with SceneStore(store_location) as store:
        store.register(_big_scene(), {"builder": "test"})
        store.load("big")  # the scene is open (a chat or a browser tab): its graph is read once
        model = _Timed([final("There are many cups.", ["c1"])])
        start = time.perf_counter()
        result = AgentSession(store, "big", model).ask("how many cups are on the tables?")
        assert model.first is not None
        assert model.first - start < 5.0  # ~0.2 s; a scan of every edge per object took minutes
        assert result.graph_tokens > N_OBJECTS  # the query ratio is still counted on the whole graph
