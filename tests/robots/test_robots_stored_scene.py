"""Robots on a stored scene (`robots tabletop|team --scene ID --db PATH`): the episode starts from the stored
graph, every action that changes the world is a `robot:<name>` edit in the log, and `synergai ask` answers
about the room as the robots left it. Scripted models; a real SQLite store in a temporary directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from file_modes import unwritable
from synergai.cli import robots_cmd
from synergai.cli.main import main
from synergai.llm import ChatReply, ScriptedModel
from synergai.robots.errors import RobotError
from synergai.robots.tabletop.stored import table_from_scene
from synergai.robots.team.stored import house_from_scene
from synergai.scene.build import build_graph
from synergai.scene.catalog import SceneCatalog
from synergai.scene.model import ObjectKind, Relation, SceneGraph, SceneObject
from synergai.scene.store import SceneStore


def _table_scene(scene_id: str = "kitchen") -> SceneGraph:
    """A floor, a table (long along x), a book, a cube and a soup can on it; relations by the builder."""
    return build_graph(scene_id, [
        SceneObject("0", "floor", (2.0, 2.0, -0.01), (4.0, 4.0, 0.02), kind=ObjectKind.FLOOR),
        SceneObject("1", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75), (150, 100, 50), ("brown",)),
        SceneObject("2", "book", (2.25, 1.8, 0.77), (0.15, 0.2, 0.04), (190, 30, 30), ("red",)),
        SceneObject("3", "cube", (1.8, 1.85, 0.775), (0.05, 0.05, 0.05), (40, 90, 200), ("blue",)),
        SceneObject("4", "soup can", (2.45, 1.85, 0.8), (0.066, 0.066, 0.1), (190, 30, 30),
                    ("red", "cylindrical")),
    ])


def _store(tmp_path: Path, graph: SceneGraph | None = None) -> Path:
    db = tmp_path / "store.db"
    with SceneStore(db) as store:
        if graph is not None:
            store.register(graph, {"builder": "test"})
    return db


def _script(tmp_path: Path, name: str, replies: list[Any]) -> str:
    path = tmp_path / name
    path.write_text(json.dumps([r if isinstance(r, str) else json.dumps(r) for r in replies]))
    return f"scripted:{path}"


def _ask_where(tmp_path: Path, db: Path | str, scene: str, thing: str,
               capsys: pytest.CaptureFixture[str]) -> str:
    """`synergai ask "Where is the THING?" --json` with a scripted plan; the place is read from the graph."""
    plan = {"plan": [{"action": "query_for_objects", "action_input": {"query": thing}}]}
    capsys.readouterr()
    code = main(["ask", f"Where is the {thing}?", "--scene", scene, "--db", str(db), "--json",
                 "--llm", _script(tmp_path, f"ask-{thing}.json", [plan])])
    assert code == 0
    return json.loads(capsys.readouterr().out)["short_answer"]


def _state(db: Path, scene: str) -> tuple[Any, ...]:
    with SceneStore(db) as store:
        return store.revision(scene), [r.who for r in store.edits(scene, include_undone=True)]


# ----- mappings
def test_a_stored_table_becomes_the_arms_workspace_and_back() -> None:
    stored = table_from_scene(_table_scene())
    assert stored.table.id == "1" and stored.frame.quarter_turn  # the table is longer along x
    specs = {s.name: s for s in stored.objects}
    assert stored.ids == {"book": "2", "cube": "3", "soup can": "4"}
    assert specs["soup can"].shape == "cylinder" and specs["cube"].shape == "box"
    assert specs["book"].position == pytest.approx((0.35, 0.25))
    assert specs["book"].size == pytest.approx((0.2, 0.15, 0.04))  # turned with the scene
    back = stored.frame.to_scene((*specs["cube"].position, 0.025))
    assert back == pytest.approx((1.8, 1.85, 0.775))


def test_the_table_is_the_one_whose_objects_the_arm_can_take() -> None:
    graph = build_graph("office", [
        SceneObject("0", "floor", (5.0, 5.0, -0.01), (10.0, 10.0, 0.02), kind=ObjectKind.FLOOR),
        SceneObject("1", "counter", (2.0, 2.0, 0.45), (4.0, 0.6, 0.9)),  # its cups stand at its far ends
        SceneObject("2", "cup", (0.2, 2.0, 0.95), (0.08, 0.08, 0.1)),
        SceneObject("3", "cup", (3.8, 2.0, 0.95), (0.08, 0.08, 0.1)),
        SceneObject("4", "desk", (6.0, 6.0, 0.375), (1.2, 0.8, 0.75)),
        SceneObject("5", "stapler", (6.1, 6.1, 0.78), (0.05, 0.15, 0.06)),
    ])
    stored = table_from_scene(graph)
    assert stored.table.id == "4" and stored.ids == {"stapler": "5"}
    assert (Relation.SUPPORTED_BY, "1") in graph.relations_of("2")  # the counter holds more, out of reach


def test_a_scene_with_nothing_on_a_table_is_refused() -> None:
    bare = build_graph("bare", [SceneObject("1", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75))])
    with pytest.raises(RobotError, match="nothing for the arm to act on"):
        table_from_scene(bare)
    with pytest.raises(RobotError, match="nothing for the team to act on"):
        house_from_scene(bare)


def test_the_demo_apartment_becomes_a_house_for_the_team(tmp_path: Path) -> None:
    with SceneStore(tmp_path / "s.db") as store:
        graph = SceneCatalog(store).open("demo")
    stored = house_from_scene(graph)
    house = stored.house
    assert stored.ids["dining_table"] == "17" and stored.ids["bowl"] == "26"
    assert house.items["bowl"].location == "dining_table" and house.items["book_0"].location == "bookshelf"
    assert house.furniture["bookshelf"].holds_inside and not house.furniture["sofa"].openable
    assert house.furniture["refrigerator"].openable and not house.is_open("refrigerator")
    assert "tv" not in house.furniture and "clock" not in house.furniture  # on walls: neither
    assert house.robots["Bob"].station == "dining_table"  # the furniture holding the most items
    for f in house.furniture.values():
        assert 1 <= len(f.stand_poses) <= 2


def test_openable_furniture_comes_from_its_stored_state() -> None:
    graph = build_graph("flat", [
        SceneObject("0", "floor", (3.0, 3.0, -0.01), (6.0, 6.0, 0.02), kind=ObjectKind.FLOOR),
        SceneObject("table_0", "table", (1.0, 1.0, 0.375), (1.2, 0.8, 0.75)),
        SceneObject("apple", "apple", (1.0, 1.0, 0.79), (0.08, 0.08, 0.08)),
        SceneObject("fridge", "fridge", (4.0, 4.0, 0.9), (0.7, 0.7, 1.8), attributes=("closed",)),
        SceneObject("ham", "ham", (4.0, 4.0, 0.3), (0.1, 0.1, 0.1)),
    ])
    assert (Relation.INSIDE, "fridge") in graph.relations_of("ham")
    house = house_from_scene(graph).house
    assert set(house.furniture) == {"table_0", "fridge"} and set(house.items) == {"apple", "ham"}
    assert house.furniture["fridge"].openable and not house.is_open("fridge")


def test_what_opens_or_receives_things_is_furniture_even_on_other_furniture() -> None:
    graph = build_graph("kitchen", [
        SceneObject("0", "floor", (3.0, 3.0, -0.01), (6.0, 6.0, 0.02), kind=ObjectKind.FLOOR),
        SceneObject("10", "kitchen counter", (1.0, 1.0, 0.45), (2.0, 0.6, 0.9)),
        SceneObject("11", "microwave", (0.5, 1.0, 1.05), (0.5, 0.35, 0.3)),
        SceneObject("12", "tray", (1.5, 1.0, 0.91), (0.4, 0.3, 0.02)),
        SceneObject("13", "cup", (1.1, 1.0, 0.95), (0.08, 0.08, 0.1)),
        SceneObject("14", "cup", (1.2, 0.9, 0.95), (0.08, 0.08, 0.1)),
    ])
    stored = house_from_scene(graph)
    house = stored.house
    assert set(house.furniture) == {"kitchen_counter", "microwave", "tray"}
    assert set(house.items) == {"cup_0", "cup_1"} and stored.ids["cup_1"] == "14"  # named in id order
    assert house.furniture["microwave"].openable and not house.is_open("microwave")  # opens: closed
    assert house.furniture["tray"].holds_inside and not house.furniture["tray"].openable
    # a cup a robot left held up in its gripper (no support, 1 m up) is neither furniture nor an item
    held = graph.copy()
    held.put(SceneObject("15", "cup", (2.5, 2.5, 1.0), (0.08, 0.08, 0.1)))
    house = house_from_scene(held).house
    assert set(house.furniture) == {"kitchen_counter", "microwave", "tray"} and len(house.items) == 2


# ----- tabletop
def test_a_tabletop_episode_on_a_stored_scene_writes_robot_edits_and_changes_what_ask_answers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _store(tmp_path, _table_scene())
    assert _ask_where(tmp_path, db, "kitchen", "cube", capsys) == "on the table"
    stack = {"reply": "plan", "questions": [], "steps": [
        {"action": "grasp", "object": "cube", "why": "cube"},
        {"action": "move", "xyz": [0.35, 0.25, 0.06], "why": "onto the book"},
        {"action": "home", "why": "done"}]}
    code = main(["robots", "tabletop", "Put the cube on the book", "--scene", "kitchen", "--db", str(db),
                 "--no-critic", "--json", "--llm", _script(tmp_path, "t.json", [stack])])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["success"] is True and out["table"] == "1" and out["left_out"] == []
    assert [e["actor"] for e in out["edits"]] == ["robot:panda"]
    with SceneStore(db) as store:
        [edit] = store.edits("kitchen")
        graph = store.load("kitchen")
        assert store.verify("kitchen")
    assert edit.who == "robot:panda" and edit.op == "move_object"
    assert "Put the cube on the book" in edit.utterance
    cube, book = graph.get("3"), graph.get("2")
    assert cube.center[:2] == pytest.approx(book.center[:2], abs=0.01)
    assert cube.center[2] == pytest.approx(book.center[2] + book.size[2] / 2 + cube.size[2] / 2, abs=0.01)
    assert (Relation.SUPPORTED_BY, "2") in graph.relations_of("3")  # its support changed with it
    assert _ask_where(tmp_path, db, "kitchen", "cube", capsys) == "on the book"
    capsys.readouterr()
    assert main(["scene", "edits", "--scene", "kitchen", "--db", str(db)]) == 0
    assert "robot:panda moved 3 (cube)" in capsys.readouterr().out


def test_a_tabletop_plan_that_never_runs_writes_nothing(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    db = _store(tmp_path, _table_scene())
    before = _state(db, "kitchen")
    code = main(["robots", "tabletop", "Tidy up", "--scene", "kitchen", "--db", str(db), "--no-critic",
                 "--max-rounds", "1", "--json", "--llm", _script(tmp_path, "t.json", ["not a plan"] * 6)])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["executed"] is False and out["edits"] == []
    assert _state(db, "kitchen") == before


# ----- team
class _TeamModel(ScriptedModel):
    """Each robot replies from its own queue (the robot is named in its system prompt), then waits."""

    def __init__(self, queues: dict[str, list[dict[str, Any]]]) -> None:
        super().__init__([])
        self.queues = {name: list(q) for name, q in queues.items()}

    def chat(self, messages: Any, **kwargs: Any) -> ChatReply:
        system = messages[0]["content"]
        robot = next(n for n in ("Alice", "Bob", "David") if f"You are {n}." in system)
        queue = self.queues.get(robot) or []
        wait = {"analysis": "wait", "command": {"skill": "wait"}}
        reply = queue.pop(0) if queue else wait
        self.requests.append(kwargs)
        return ChatReply(json.dumps(reply), 10, 5, "stop", "team-script")


def _alice_moves_the_bowl(done: bool) -> _TeamModel:
    return _TeamModel({"Alice": [
        {"analysis": "bowl here", "command": {"skill": "pick", "target": "bowl"}},
        {"analysis": "to the counter", "command": {"skill": "navigate", "target": "kitchen_counter",
                                                   "stand_pose": "stand_pose_0"}},
        {"analysis": "put it down", "command": {"skill": "place", "target": "bowl",
                                                "location": "kitchen_counter"}},
        *([{"analysis": "it is there", "command": {"skill": "done"}}] if done else []),
    ]})


def test_a_team_episode_on_a_stored_scene_writes_robot_edits_and_changes_what_ask_answers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        store_location: str | Path) -> None:
    db = store_location  # both backends: a SQLite file, a PostgreSQL schema
    assert _ask_where(tmp_path, db, "demo", "bowl", capsys) == "on the dining table"
    model = _alice_moves_the_bowl(done=True)
    monkeypatch.setattr(robots_cmd, "open_llm", lambda args: model)
    code = main(["robots", "team", "Put the bowl on the kitchen counter", "--scene", "demo", "--db", str(db),
                 "--max-rounds", "4", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["success"] is True and out["verified"] is False  # the team's own claim
    assert "not verified" in out["check"] and out["stop_reason"] == "Alice said the task is done"
    assert [e["actor"] for e in out["edits"]] == ["robot:Alice", "robot:Alice"]  # pick, place
    with SceneStore(db) as store:
        pick, place = store.edits("demo")
        graph = store.load("demo")
        assert store.verify("demo")
    assert "pick(bowl)" in pick.utterance and "place(bowl, kitchen_counter)" in place.utterance
    assert (Relation.SUPPORTED_BY, "13") in graph.relations_of("26")  # on the counter now
    assert _ask_where(tmp_path, db, "demo", "bowl", capsys) == "on the kitchen counter"
    offered = [[v["properties"]["skill"]["const"] for v in r["json_schema"]["properties"]["command"]["anyOf"]]
               for r in model.requests]
    assert offered[0][-1] == "done" and offered[-1][0] == "done"  # first once the bowl is on the counter


def test_opening_is_recorded_as_the_furnitures_state(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    graph = build_graph("flat", [
        SceneObject("0", "floor", (3.0, 3.0, -0.01), (6.0, 6.0, 0.02), kind=ObjectKind.FLOOR),
        SceneObject("table_0", "table", (1.0, 1.0, 0.375), (1.2, 0.8, 0.75)),
        SceneObject("apple", "apple", (1.0, 1.0, 0.79), (0.08, 0.08, 0.08)),
        SceneObject("fridge", "fridge", (1.0, 2.6, 0.9), (0.7, 0.7, 1.8), attributes=("white", "closed")),
        SceneObject("ham", "ham", (1.0, 2.6, 0.3), (0.1, 0.1, 0.1)),
    ])
    db = _store(tmp_path, graph)
    model = _TeamModel({"Alice": [
        {"analysis": "go", "command": {"skill": "navigate", "target": "fridge", "stand_pose": "stand_pose_0"},
         },
        {"analysis": "open it", "command": {"skill": "open", "target": "fridge"}},
        {"analysis": "open now", "command": {"skill": "done"}}]})
    monkeypatch.setattr(robots_cmd, "open_llm", lambda args: model)
    code = main(["robots", "team", "Open the fridge", "--scene", "flat", "--db", str(db), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["verified"] is False
    with SceneStore(db) as store:
        [edit] = store.edits("flat")
        assert store.load("flat").get("fridge").attributes == ("white", "open")
    assert edit.who == "robot:Alice" and edit.op == "update_attributes"


def test_team_takes_an_instruction_in_words_and_reports_an_unverified_claim(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    bob = [{"analysis": "apple here", "command": {"skill": "pick", "target": "apple"}},
           {"analysis": "holding it", "command": {"skill": "done"}}]
    model = _TeamModel({"Bob": bob})
    monkeypatch.setattr(robots_cmd, "open_llm", lambda args: model)
    code = main(["robots", "team", "Bob, hold the apple please", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["success"] is True and out["verified"] is False and out["steps"] == 4
    assert out["log"][0]["task_done"] is False and out["log"][0]["command"] == "pick(apple)"
    assert out["log"][-1]["task_done"] is True and out["log"][-1]["command"] == "done()"
    assert out["stop_reason"] == "Bob said the task is done"
    offered = [v["properties"]["skill"]["const"] for v in model.requests[0]["json_schema"]["properties"]
               ["command"]["anyOf"]]
    assert "done" in offered  # only a goal-less task offers the claim
    assert "edits" not in out  # no --scene: nothing written
    # the text report says the success is the team's own claim
    model = _TeamModel({"Bob": bob})
    assert main(["robots", "team", "Bob, hold the apple please"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "the team's own claim, not verified" in text


def test_an_instruction_in_words_names_what_to_fetch_and_where_it_goes(tmp_path: Path) -> None:
    from synergai.robots.team.flat import HouseTask
    from synergai.robots.team.team import Team

    with SceneStore(tmp_path / "s.db") as store:
        graph = SceneCatalog(store).open("demo")
    for words, where in (("Put the bowl on the kitchen counter", {"kitchen_counter"}),
                         ("Move the bowl from the dining table to the desk", {"desk"})):
        house = house_from_scene(graph).house
        team = Team(house, _TeamModel({}), HouseTask("free text", words, tuple(house.items.values()), ()))
        assert team.targets == ("bowl",) and team.destinations() == {"bowl": where}
    house = house_from_scene(graph).house
    team = Team(house, _TeamModel({}), HouseTask("free text", "Tidy up", tuple(house.items.values()), ()))
    assert team.targets is None and team.destinations() == {}  # any item, anywhere


def test_a_team_that_never_claims_the_task_done_has_not_succeeded(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(robots_cmd, "open_llm", lambda args: _TeamModel({}))
    code = main(["robots", "team", "Bring me the apple", "--max-rounds", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["success"] is False and out["verified"] is False
    assert "no robot said the task is done" in out["check"]


def test_a_packaged_task_keeps_its_goal_on_a_scene_that_has_its_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from synergai.robots.team.flat import HouseTask, seed_items

    house = HouseTask("x", "x", seed_items(), ()).make_house()
    db = _store(tmp_path, house.scene_graph("house"))
    alice = [{"analysis": "closer", "command": {"skill": "navigate", "target": "table_0",
                                                "stand_pose": "stand_pose_1"}},
             {"analysis": "phone here", "command": {"skill": "pick", "target": "phone"}}]
    model = _TeamModel({"Alice": alice})
    monkeypatch.setattr(robots_cmd, "open_llm", lambda args: model)
    code = main(["robots", "team", "hold_phone", "--scene", "house", "--db", str(db), "--max-rounds", "2",
                 "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["verified"] is True and out["success"] is True  # the goal checker's verdict
    assert "task_done" not in out["log"][0]  # a goal is checked: no claim offered
    for request in model.requests:
        assert "done" not in [v["properties"]["skill"]["const"]
                              for v in request["json_schema"]["properties"]["command"]["anyOf"]]
    assert [e["actor"] for e in out["edits"]] == ["robot:Alice"]
    with SceneStore(db) as store:
        assert store.edits("house")[0].summary().startswith("robot:Alice moved phone (phone)")
    capsys.readouterr()
    # the same task on a scene without its names is refused before any model runs
    db2 = _store(tmp_path / "other", _table_scene())
    assert main(["robots", "team", "hold_phone", "--scene", "kitchen", "--db", str(db2)]) == 2
    assert "give the instruction in words" in capsys.readouterr().err


# ----- bad input: one line, exit 2, the store as it was
def test_an_unknown_scene_is_a_one_line_error_and_the_store_is_untouched(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _store(tmp_path, _table_scene())
    before = _state(db, "kitchen")
    for mode in ("tabletop", "team"):
        capsys.readouterr()
        code = main(["robots", mode, "Tidy up", "--scene", "attic", "--db", str(db), "--llm",
                     _script(tmp_path, "never.json", [])])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and "unknown scene 'attic'" in err[0] and "kitchen" in err[0]
        assert _state(db, "kitchen") == before
        with SceneStore(db) as store:
            assert [i.id for i in store.scenes()] == ["kitchen"]


def test_a_scene_without_usable_objects_is_a_one_line_error(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    bare = build_graph("bare", [
        SceneObject("0", "floor", (2.0, 2.0, -0.01), (4.0, 4.0, 0.02), kind=ObjectKind.FLOOR),
        SceneObject("1", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75))])
    db = _store(tmp_path, bare)
    before = _state(db, "bare")
    for mode in ("tabletop", "team"):
        capsys.readouterr()
        code = main(["robots", mode, "Tidy up", "--scene", "bare", "--db", str(db), "--llm",
                     _script(tmp_path, "never.json", [])])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and "to act on" in err[0]
        assert _state(db, "bare") == before


def test_conflicting_options_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _store(tmp_path, _table_scene())
    never = _script(tmp_path, "never.json", [])
    for argv, why in (
            (["--table", "pairs"], "not both"),
            (["--save-scene", "x"], "--save-scene is for the built-in worlds")):
        capsys.readouterr()
        assert main(["robots", "tabletop", "Tidy up", "--scene", "kitchen", "--db", str(db), *argv,
                     "--llm", never]) == 2
        assert why in capsys.readouterr().err


def test_a_read_only_store_is_refused_before_the_episode(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = _store(folder, _table_scene())
    before = _state(db, "kitchen")
    with unwritable([db, folder]):
        capsys.readouterr()
        code = main(["robots", "tabletop", "Tidy up", "--scene", "kitchen", "--db", str(db), "--llm",
                     _script(tmp_path, "never.json", [])])  # no reply: the model is never asked
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and "cannot be written" in err[0]
    assert _state(db, "kitchen") == before
