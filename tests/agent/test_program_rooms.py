"""Program mode's rooms(): the scene's rooms, room(name): the objects in one; in a program run by the
loop in the sandbox, and the errors that drive a repair."""

from __future__ import annotations

import pytest
from agent_scripting import room as one_room

from synergai.agent.program.api import SceneAPI
from synergai.agent.program.loop import ProgramLoop
from synergai.llm import ScriptedModel
from synergai.scene.catalog import SceneCatalog
from synergai.scene.store import SceneStore


@pytest.fixture(scope="module")
def house(tmp_path_factory):
    with SceneStore(tmp_path_factory.mktemp("house") / "s.db") as store:
        return SceneCatalog(store).open("house")


def test_rooms_and_the_objects_in_one(house):
    api = SceneAPI(house, None)
    assert api.rooms() == ["kitchen", "dining room", "office", "living room", "bathroom"]
    kitchen = api.room("kitchen")
    assert {o.id for o in kitchen} == {o.id for o in house.room_objects("kitchen")}
    assert [o.id for o in api.filter(api.room("living room"), "chair")] == ["chair_4"]
    assert api.room("Kitchens") == kitchen  # a person's spelling
    with pytest.raises(ValueError, match=r"name must be one of \['kitchen', 'dining room'"):
        api.room("garage")
    with pytest.raises(TypeError, match="name must be a room name"):
        api.room(kitchen)


def test_a_scene_without_rooms_says_so():
    api = SceneAPI(one_room(), None)
    assert api.rooms() == []
    with pytest.raises(ValueError, match="has no rooms"):
        api.room("kitchen")


def _program(code: str) -> str:
    return f"Thought: I will look.\nAction: Program\nAction Input:\n```Python\n{code}\n```"


def test_a_program_finds_the_room_with_the_fridge_and_counts_chairs(house):
    code = ("print([r for r in rooms() if filter(object_set=room(name=r), category='refrigerator')])\n"
            "print(len(filter(object_set=room(name='living room'), category='chair')))")
    llm = ScriptedModel([_program(code),
                         "Thought: I know it now.\nAction: Final Answer\nAction Input: kitchen"])
    result = ProgramLoop(llm).run(house, "Which room has the fridge?")
    programs = [t for t in result.trace if t["type"] == "program"]
    assert programs[0]["ok"] and programs[0]["stdout"].split("\n")[:2] == ["['kitchen']", "1"]
    assert result.answer == "kitchen" and result.usage.calls == 2
    assert llm.requests[0].messages[1]["content"].startswith("The scene has rooms: kitchen, dining room")
