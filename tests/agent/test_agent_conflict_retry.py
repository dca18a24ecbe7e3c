"""When another writer commits during a turn, the turn's edits are re-made once on the new state; only
an edit of the very field the other writer changed is refused, and the answer names the object and
the newer edit."""

from __future__ import annotations

import json

from agent_scripting import final

from synergai.agent.context import TurnContext
from synergai.agent.session import AgentSession
from synergai.llm import ScriptedModel
from synergai.scene.edits import rename_object, set_attributes
from synergai.scene.store import SceneStore

RECOLOUR = ("update_attributes", {"object_id": "4", "new_attributes_list": ["red"]})


def _plan(*steps: tuple[str, dict]) -> str:
    return json.dumps({"thought": "Fix it.", "plan": [{"action": a, "action_input": i} for a, i in steps]})


class Meanwhile(ScriptedModel):
    """A scripted model; while it works on its second reply another writer commits ``edit``."""

    def __init__(self, replies: list[str], store: SceneStore, edit) -> None:  # type: ignore[no-untyped-def]
        super().__init__(replies)
        self.store, self.edit = store, edit

    def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
        if len(self.requests) == 1:
            self.store.apply("room", self.edit(self.store.load("room")))
        return super().chat(messages, **kw)


def test_an_edit_overtaken_on_another_field_is_remade_on_the_new_state(store: SceneStore) -> None:
    llm = Meanwhile([_plan(RECOLOUR), final("Done.", ["4"])], store,
                    lambda g: rename_object(g, "4", "stool", utterance="robot moved it"))
    result = AgentSession(store, "room", llm, marked="4").ask("The marked object is red.")
    assert [e["op"] for e in result.edits] == ["update_attributes"]
    assert "nothing was changed" not in result.answer
    chair = store.load("room").get("4")
    assert chair.category == "stool" and chair.attributes == ("red",)  # both writers' changes kept
    assert [r.utterance for r in store.edits("room")] == ["robot moved it", "The marked object is red."]
    assert store.verify("room")


def test_an_edit_of_the_same_field_is_refused_naming_the_object_and_the_newer_edit(store: SceneStore) -> None:
    llm = Meanwhile([_plan(RECOLOUR), final("Done.", ["4"])], store,
                    lambda g: set_attributes(g, "4", ["blue"], utterance="cli"))
    result = AgentSession(store, "room", llm, marked="4").ask("The marked object is red.")
    assert result.edits == [] and "nothing was changed" in result.answer
    assert "object 4 was changed by edit #1" in result.answer and "\n" not in result.answer
    assert store.load("room").get("4").attributes == ("blue",) and store.verify("room")


def test_commit_retries_once_and_keeps_the_turn_all_or_nothing(store: SceneStore) -> None:
    ctx = TurnContext(store, "room", "fix")
    ctx.apply(set_attributes(ctx.graph, "4", ["red"]))
    ctx.apply(rename_object(ctx.graph, "5", "stool"))
    other = SceneStore(store.location)
    other.apply("room", rename_object(other.load("room"), "4", "seat", utterance="other"))
    records = ctx.commit()  # 4's attributes carried onto the renamed seat; 5 untouched meanwhile
    assert [r.op for r in records] == ["update_attributes", "update_name"]
    g = store.load("room")
    assert (g.get("4").category, g.get("4").attributes, g.get("5").category) == ("seat", ("red",), "stool")
    other.close()
