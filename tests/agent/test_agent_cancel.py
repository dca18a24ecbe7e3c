"""A turn's stages as the spinner and the GUI hear them, and a turn is all or nothing: cancelled, failed
or overtaken by another writer, it leaves the store and its edit log exactly as they were."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

import pytest
from agent_scripting import final

from synergai.agent.progress import StagedModel, TurnCancelled
from synergai.agent.session import AgentSession
from synergai.llm import LLMError, ScriptedModel
from synergai.scene.edits import set_attributes
from synergai.scene.serialization import dumps
from synergai.scene.store import SceneStore

RENAME = ("update_name", {"item_id_list": ["marked"], "new_name_list": ["stool"]})
RECOLOUR = ("update_attributes", {"object_id": "4", "new_attributes_list": ["red"]})
CORRECTION = "The marked object is actually a red stool."


def _plan(*steps: tuple[str, dict]) -> str:
    return json.dumps({"thought": "Fix it.", "plan": [{"action": a, "action_input": i} for a, i in steps]})


class Clicked(ScriptedModel):
    """A scripted model; while it works on reply number ``at`` (1-based) the user clicks Cancel."""

    def __init__(self, replies: list[str], cancel: threading.Event, at: int) -> None:
        super().__init__(replies)
        self.cancel, self.at, self.n = cancel, at, 0

    def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
        self.n += 1
        if self.n == self.at:
            self.cancel.set()  # the call is already in the model: it finishes, its reply is dropped
        return super().chat(messages, **kw)


def snapshot(store: SceneStore, path: Path) -> tuple:
    """Everything a turn could change: the graph, the log with states, the revision, the database and its
    write-ahead log byte for byte."""
    files = [p for p in (path, path.with_name(path.name + "-wal")) if p.exists()]  # not -shm: reads touch it
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()
    log = [(r.seq, r.state, r.op, r.changes) for r in store.edits("room", include_undone=True)]
    return dumps(store.load("room")), log, store.revision("room"), digest


def test_stages_are_reported_in_order_and_the_edits_land_at_the_end(store: SceneStore) -> None:
    stages: list[str] = []
    seen_by_store: list[int] = []
    model = StagedModel(ScriptedModel([_plan(RENAME, RECOLOUR), final("Done: a red stool.", ["4"])]),
                        lambda s: (stages.append(s), seen_by_store.append(len(store.edits("room")))))
    result = AgentSession(store, "room", model, marked="4").ask(CORRECTION)
    assert stages == [
        "step 1: the model is thinking",
        "step 1: running update_name",
        "step 2: the model is thinking (after update_name)",
        "step 2: running final_answer",
    ]
    assert seen_by_store == [0, 0, 0, 0]  # nothing is written while the turn runs
    assert [e["op"] for e in result.edits] == ["update_name", "update_attributes"]
    assert [e.seq for e in store.edits("room")] == [1, 2]
    chair = store.load("room").get("4")
    assert chair.category == "stool" and chair.attributes == ("red",)


@pytest.mark.parametrize("at", [1, 2])
def test_a_cancelled_correction_leaves_store_and_log_exactly_as_before(store: SceneStore, at: int) -> None:
    # an edit undone before the turn: a new edit would discard it (the redo stack); a cancel must not
    store.apply("room", set_attributes(store.load("room"), "7", ["green"], utterance="earlier"))
    store.undo("room")
    path = Path(store.path)
    before = snapshot(store, path)
    cancel = threading.Event()
    stages: list[str] = []
    llm = Clicked([_plan(RENAME, RECOLOUR), final("Done: a red stool.", ["4"])], cancel, at)
    session = AgentSession(store, "room", StagedModel(llm, stages.append, cancel), marked="4")
    with pytest.raises(TurnCancelled):
        session.ask(CORRECTION)
    assert snapshot(store, path) == before
    assert [r.state.value for r in store.edits("room", include_undone=True)] == ["undone"]
    assert session.history == []  # a cancelled turn is not part of the dialogue
    assert len(llm.requests) == at and stages[-1] == f"step {at}: the model is thinking" + (
        " (after update_name)" if at == 2 else "")


def test_a_model_failure_mid_turn_writes_none_of_its_edits(store: SceneStore) -> None:
    before = snapshot(store, Path(store.path))
    llm = ScriptedModel([_plan(RENAME, RECOLOUR)])  # the second call fails: the script is exhausted
    with pytest.raises(LLMError):
        AgentSession(store, "room", llm, marked="4").ask(CORRECTION)
    assert snapshot(store, Path(store.path)) == before


def test_edits_overtaken_by_another_writer_are_not_written_and_the_answer_says_so(store: SceneStore) -> None:
    class Meanwhile(ScriptedModel):
        def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
            if len(self.requests) == 1:  # another process renames the same object during the turn
                store.apply("room", set_attributes(store.load("room"), "4", ["blue"], utterance="cli"))
            return super().chat(messages, **kw)

    llm = Meanwhile([_plan(RECOLOUR), final("Done.", ["4"])])
    result = AgentSession(store, "room", llm, marked="4").ask("The marked object is red.")
    assert result.edits == [] and "nothing was changed" in result.answer
    assert [r.utterance for r in store.edits("room")] == ["cli"]
    assert store.load("room").get("4").attributes == ("blue",) and store.verify("room")
