"""A person says two segments are one object ("these two are one table") and the agent merges them
through the edit log (issue 39): one undoable edit, only the objects the person speaks of."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_scripting import final, room

from synergai.agent.session import AgentSession
from synergai.llm import ScriptedModel
from synergai.scene.model import Edge, Relation, SceneGraph, SceneObject
from synergai.scene.serialization import dumps
from synergai.scene.store import SceneStore


def _plan(*steps: tuple[str, dict]) -> str:
    steps_ = [{"action": a, "action_input": i} for a, i in steps]
    return json.dumps({"thought": "Merge them.", "plan": steps_})


def split_table(tmp_path: Path) -> SceneStore:
    """The room with its table seen as two halves (ids 2 and 9), as a scan with no masks segments it."""
    g = room()
    objs = [o for o in g if o.id != "2"] + [
        SceneObject("2", "table", (1.7, 2.0, 0.375), (0.6, 0.8, 0.75), attributes=("brown",)),
        SceneObject("9", "table", (2.3, 2.0, 0.375), (0.6, 0.8, 0.75), attributes=("wooden",))]
    edges = [*g.edges, Edge("9", Relation.SUPPORTED_BY, "0")]
    store = SceneStore(tmp_path / "s.sqlite3")
    store.register(SceneGraph("room", objs, edges, scene_type="Living room"), {"builder": "test"})
    return store


MERGE = ("merge_objects", {"item_id_list": ["2", "9"], "new_name": "table"})


def test_these_two_are_one_table_merges_them_and_one_undo_splits_them_again(tmp_path: Path) -> None:
    store = split_table(tmp_path)
    before = store.load("room")
    llm = ScriptedModel([_plan(MERGE), final("Done: they are one table now.")])
    result = AgentSession(store, "room", llm, marked="2").ask("These two are one table.")
    assert [e["op"] for e in result.edits] == ["merge_objects"]
    now = store.load("room")
    assert "9" not in now and len(now.by_category("table")) == 1
    table = now.get("2")
    assert table.center == pytest.approx((2.0, 2.0, 0.375)) and table.size == pytest.approx((1.2, 0.8, 0.75))
    assert table.attributes == ("brown", "wooden")
    assert now.has_edge("3", Relation.SUPPORTED_BY, "2") and now.has_edge("2", Relation.SUPPORTED_BY, "0")
    assert len(store.edits("room")) == 1 and store.verify("room")
    store.undo("room")
    assert store.load("room") == before
    store.close()


def test_a_merge_of_objects_the_person_never_named_is_refused(tmp_path: Path) -> None:
    store = split_table(tmp_path)
    before = dumps(store.load("room"))
    chairs = ("merge_objects", {"item_id_list": ["4", "5"], "new_name": "bench"})
    llm = ScriptedModel([_plan(chairs), final("Done.")])
    result = AgentSession(store, "room", llm, marked="2").ask("These two are one table.")
    assert result.edits == [] and dumps(store.load("room")) == before
    refused = [t for t in result.trace if t.get("action") == "merge_objects" and t.get("error")]
    assert refused and "the user did not speak of" in refused[0]["observation"]
    store.close()


def test_a_question_never_merges(tmp_path: Path) -> None:
    store = split_table(tmp_path)
    before = dumps(store.load("room"))
    llm = ScriptedModel([_plan(MERGE), final("There are two tables.", short="2")])
    AgentSession(store, "room", llm).ask("How many tables are there?")
    assert dumps(store.load("room")) == before and store.edits("room", include_undone=True) == []
    store.close()
