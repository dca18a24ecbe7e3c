"""A small hand-made room, and helpers to write the scripted model's replies."""

from __future__ import annotations

import json

from synergai.scene.model import Edge, ObjectKind, Relation, SceneGraph, SceneObject


def room() -> SceneGraph:
    """Floor, wall, a table with a red cup on it, two chairs, a TV mounted on the wall, a lamp."""
    objs = [
        SceneObject("0", "floor", (2.0, 2.0, -0.05), (4.0, 4.0, 0.1), kind=ObjectKind.FLOOR),
        SceneObject("1", "wall", (2.0, 4.05, 1.4), (4.0, 0.1, 2.8), kind=ObjectKind.WALL),
        SceneObject("2", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75), attributes=("brown", "wooden")),
        SceneObject("3", "cup", (2.1, 2.0, 0.8), (0.08, 0.08, 0.1), attributes=("red", "ceramic")),
        SceneObject("4", "chair", (1.0, 2.0, 0.45), (0.5, 0.5, 0.9), attributes=("black",)),
        SceneObject("5", "chair", (3.0, 2.0, 0.45), (0.5, 0.5, 0.9), attributes=("black",)),
        SceneObject("6", "tv", (2.0, 3.95, 1.5), (1.0, 0.08, 0.6), attributes=("black", "plastic")),
        SceneObject("7", "lamp", (3.6, 3.6, 0.6), (0.3, 0.3, 1.2), attributes=("white",)),
    ]
    edges = [
        Edge("2", Relation.SUPPORTED_BY, "0"),
        Edge("3", Relation.SUPPORTED_BY, "2"),
        Edge("4", Relation.SUPPORTED_BY, "0"),
        Edge("5", Relation.SUPPORTED_BY, "0"),
        Edge("7", Relation.SUPPORTED_BY, "0"),
        Edge("6", Relation.MOUNTED_ON, "1"),
        Edge("4", Relation.NEAR, "2"),
        Edge("5", Relation.NEAR, "2"),
    ]
    return SceneGraph("room", objs, edges, scene_type="Living room")


def act(
    action: str, action_input: dict | None = None, thought: str = "Next step.", plan: list | None = None
) -> str:
    """One scripted reply in the agent's JSON action format."""
    d: dict = {}
    if plan is not None:
        d["plan"] = plan
    d.update({"thought": thought, "action": action, "action_input": action_input or {}})
    return json.dumps(d)


def final(answer: str, ids: list[str] | None = None, short: str = "") -> str:
    """A scripted final_answer reply."""
    return act("final_answer", {"answer": answer, "short_answer": short, "item_id_list": ids or []})
