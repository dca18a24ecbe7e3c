"""Robots on a stored scene that people change: a rename reaches the robots' prompts; an episode that stops
early (the round limit, an error, Ctrl-C) leaves nothing in mid-air; a scene dropped and registered again
under the same id is never written to; two robots making the same move, and a move of an object a person
deleted, end with a clear outcome and the --json of what was recorded; --save-scene never replaces a
stored scene silently; a read-only PostgreSQL role is refused before the episode. Scripted models, both
store backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pg_roles import read_only_role
from synergai.cli import robots_cmd
from synergai.cli.main import main
from synergai.llm import ChatReply, LLMError, ScriptedModel
from synergai.robots.recorder import SceneRecorder
from synergai.scene import edits as E
from synergai.scene.build import build_graph
from synergai.scene.catalog import SceneCatalog
from synergai.scene.model import ObjectKind, Relation, SceneGraph, SceneObject
from synergai.scene.store import SceneStore

BOWL, DINING_TABLE = "26", "17"  # in the demo apartment


class Robots(ScriptedModel):
    """Each robot replies from its own queue (then waits); ``before`` runs before the n-th call (1-based),
    as another person or process acting while the robots work."""

    def __init__(self, queues: dict[str, list[dict[str, Any]]], before: dict[int, Any] | None = None) -> None:
        super().__init__([])
        self.queues = {name: list(q) for name, q in queues.items()}
        self.before = before or {}
        self.prompts: list[str] = []

    def chat(self, messages: Any, **kwargs: Any) -> ChatReply:
        self.requests.append(kwargs)
        if len(self.requests) in self.before:
            self.before[len(self.requests)]()
        self.prompts.append(messages[0]["content"] + "\n" + messages[1]["content"])
        robot = next(n for n in ("Alice", "Bob", "David") if f"You are {n}." in messages[0]["content"])
        queue = self.queues.get(robot) or []
        reply = queue.pop(0) if queue else {"analysis": "wait", "command": {"skill": "wait"}}
        return ChatReply(json.dumps(reply), 10, 5, "stop", "robots-script")


def _pick_bowl() -> dict[str, list[dict[str, Any]]]:
    go = {"skill": "navigate", "target": "kitchen_counter", "stand_pose": "stand_pose_0"}
    return {"Alice": [{"analysis": "bowl here", "command": {"skill": "pick", "target": "bowl"}},
                      {"analysis": "to the counter", "command": go},
                      {"analysis": "down", "command": {"skill": "place", "target": "bowl",
                                                       "location": "kitchen_counter"}}]}


def _demo(location: str | Path) -> SceneGraph:
    with SceneStore(location) as store:
        return SceneCatalog(store).open("demo")


def _run(argv: list[str], model: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
         ) -> tuple[int, Any, list[str]]:
    monkeypatch.setattr(robots_cmd, "open_llm", lambda args: model)
    capsys.readouterr()
    code = main(["-q", *argv])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else None, err.splitlines()


def _table_scene() -> SceneGraph:
    return build_graph("kitchen", [
        SceneObject("0", "floor", (2.0, 2.0, -0.01), (4.0, 4.0, 0.02), kind=ObjectKind.FLOOR),
        SceneObject("1", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75)),
        SceneObject("2", "book", (2.25, 1.8, 0.77), (0.15, 0.2, 0.04)),
        SceneObject("3", "cube", (1.8, 1.85, 0.775), (0.05, 0.05, 0.05)),
    ])


class Planner(ScriptedModel):
    """The stacking planner, running ``before`` at its first call."""

    def __init__(self, before: Any) -> None:
        plan = {"reply": "plan", "questions": [], "steps": [
            {"action": "grasp", "object": "cube", "why": "cube"},
            {"action": "move", "xyz": [0.35, 0.25, 0.06], "why": "onto the book"},
            {"action": "home", "why": "done"}]}
        super().__init__([json.dumps(plan)])
        self.before = before

    def chat(self, messages: Any, **kwargs: Any) -> ChatReply:
        if self.before is not None:
            self.before, run = None, self.before
            run()
        return super().chat(messages, **kwargs)


def _tabletop(db: str | Path) -> list[str]:
    return ["robots", "tabletop", "Put the cube on the book", "--scene", "kitchen", "--db", str(db),
            "--no-critic", "--json"]


def _register(db: str | Path, graph: SceneGraph) -> None:
    with SceneStore(db) as store:
        store.register(graph, {"builder": "test"})


# ----- a person's rename reaches the robots
def test_a_persons_rename_reaches_the_team_prompt(store_location: str | Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _register(store_location, build_graph("flat", [
        SceneObject("0", "floor", (3.0, 3.0, -0.01), (6.0, 6.0, 0.02), kind=ObjectKind.FLOOR),
        SceneObject("table_0", "table", (1.0, 1.0, 0.375), (1.2, 0.8, 0.75)),
        SceneObject("apple", "apple", (0.8, 1.0, 0.79), (0.08, 0.08, 0.08)),
        SceneObject("tray", "tray", (1.3, 1.0, 0.76), (0.3, 0.2, 0.02)),
        SceneObject("knife", "knife", (1.3, 1.0, 0.78), (0.2, 0.03, 0.02)),
    ]))
    with SceneStore(store_location) as store:
        store.apply("flat", E.rename_object(store.load("flat"), "tray", "cutting board", "user", "a board"))
    model = Robots({"Alice": [{"analysis": "done", "command": {"skill": "done"}}]})
    code, _, _ = _run(["robots", "team", "Put the apple on the cutting board", "--scene", "flat", "--db",
                         str(store_location), "--max-rounds", "1", "--json"], model, monkeypatch, capsys)
    assert code == 0 and model.prompts
    for prompt in model.prompts:  # the furniture list names it as the person does, never by its old id
        assert "\ncutting_board: position" in prompt and "\ntray" not in prompt and "tray:" not in prompt
    assert "The objects it names: ['apple']" in model.prompts[0]


def test_a_rename_during_the_episode_reaches_the_next_prompts(store_location: str | Path,
                                                               capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _demo(store_location)

    def rename_the_bowl() -> None:
        with SceneStore(store_location) as store:
            store.apply("demo", E.rename_object(store.load("demo"), BOWL, "salad bowl", "user", "salad"))

    model = Robots(_pick_bowl(), before={3: rename_the_bowl})
    code, out, _ = _run(["robots", "team", "Put the bowl on the kitchen counter", "--scene", "demo", "--db",
                         str(store_location), "--max-rounds", "2", "--json"], model, monkeypatch, capsys)
    said = "Renamed by people since the task began: bowl is now called salad bowl."
    # the third prompt was written before the rename (during the model's third call); every later one says it
    assert [said in prompt for prompt in model.prompts[:4]] == [False, False, False, True]
    assert all(said in prompt for prompt in model.prompts[3:]) and code == 1
    assert [e["actor"] for e in out["edits"]][:1] == ["robot:Alice"]  # the pick, then the work goes on


def test_a_persons_rename_reaches_the_tabletop_prompt(store_location: str | Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _register(store_location, _table_scene())
    with SceneStore(store_location) as store:
        graph = store.load("kitchen")
        store.apply("kitchen", E.rename_object(graph, "2", "cutting board", "user", "a board"))
    model = Planner(None)
    code, out, _ = _run(_tabletop(store_location), model, monkeypatch, capsys)
    assert code == 0 and out["edits"][0]["actor"] == "robot:panda"
    prompt = " ".join(m["content"] for m in model.requests[0].messages)
    assert '"cutting board"' in prompt and '"book"' not in prompt


# ----- nothing left in mid-air
def _bowl(location: str | Path) -> tuple[tuple[float, ...], list[str], bool]:
    with SceneStore(location) as store:
        graph = store.load("demo")
        return (tuple(graph.get(BOWL).center), [e.who for e in store.edits("demo")],
                (Relation.SUPPORTED_BY, DINING_TABLE) in graph.relations_of(BOWL) and store.verify("demo"))


def test_the_round_limit_sets_down_what_a_gripper_holds(store_location: str | Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    start = tuple(_demo(store_location).get(BOWL).center)
    code, out, err = _run(["robots", "team", "Put the bowl on the kitchen counter", "--scene", "demo", "--db",
                           str(store_location), "--max-rounds", "1", "--json"], Robots(_pick_bowl()),
                          monkeypatch, capsys)
    assert code == 1 and out["stop_reason"] == "stopped after 1 rounds" and err == []
    assert [e["summary"].split(" ")[:2] for e in out["edits"]] == [["robot:Alice", "moved"]] * 2
    center, who, on_table = _bowl(store_location)
    assert center == pytest.approx(start) and on_table and who == ["robot:Alice", "robot:Alice"]
    with SceneStore(store_location) as store:
        assert "set bowl back down (the episode ended unfinished)" in store.edits("demo")[-1].utterance


@pytest.mark.parametrize(("failure", "code", "message"), [(KeyboardInterrupt, 130, "interrupted"),
                                                          (LLMError("endpoint down"), 2, "endpoint down")])
def test_an_interrupted_or_failed_episode_leaves_nothing_in_mid_air(
        store_location: str | Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        failure: BaseException | type[BaseException], code: int, message: str) -> None:
    start = tuple(_demo(store_location).get(BOWL).center)

    def fail() -> None:
        raise failure

    model = Robots(_pick_bowl(), before={4: fail})  # Bob, Alice (picks), David, then Bob's call fails
    got, out, err = _run(["robots", "team", "Put the bowl on the kitchen counter", "--scene", "demo", "--db",
                          str(store_location), "--json"], model, monkeypatch, capsys)
    assert got == code and out is None and len(err) == 1 and message in err[0]
    center, who, on_table = _bowl(store_location)
    assert center == pytest.approx(start) and on_table and who == ["robot:Alice", "robot:Alice"]


def test_a_finished_team_keeps_what_its_task_holds(store_location: str | Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    queues = _pick_bowl()
    queues["Alice"] = [*queues["Alice"][:3], {"analysis": "there", "command": {"skill": "done"}}]
    code, out, _ = _run(["robots", "team", "Put the bowl on the kitchen counter", "--scene", "demo", "--db",
                         str(store_location), "--json"], Robots(queues), monkeypatch, capsys)
    assert code == 0 and len(out["edits"]) == 2  # pick and place: nothing set back
    with SceneStore(store_location) as store:
        assert (Relation.SUPPORTED_BY, "13") in store.load("demo").relations_of(BOWL)


# ----- the scene under the robots changes
def test_a_robot_never_writes_to_a_scene_registered_again_under_its_id(
        store_location: str | Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    demo = _demo(store_location)
    other = SceneGraph("demo", [SceneObject(o.id, "wall", o.center, o.size) for o in demo])  # same ids

    def replace_scene() -> None:
        with SceneStore(store_location) as store:
            store.drop("demo")
            store.register(other, {"builder": "another scene"})

    model = Robots(_pick_bowl(), before={5: replace_scene})  # after the pick, before the navigation
    with SceneStore(store_location) as store:
        events = store.last_event()
    code, out, err = _run(["robots", "team", "Put the bowl on the kitchen counter", "--scene", "demo", "--db",
                           str(store_location), "--json"], model, monkeypatch, capsys)
    assert code == 1 and len(err) == 1 and "dropped and registered again" in err[0]
    assert out["stopped"] in err[0] and out["stop_reason"].startswith("stopped: ")
    assert [e["actor"] for e in out["edits"]] == ["robot:Alice"]  # the pick, on the scene it planned on
    with SceneStore(store_location) as store:
        assert store.edits("demo", include_undone=True) == []
        assert all(o.category == "wall" for o in store.load("demo"))
        assert [e.kind for e in store.events(since=events)] == ["edit", "drop", "register"]  # nothing after


def test_a_tabletop_move_is_not_remade_on_a_scene_registered_again(
        store_location: str | Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    _register(store_location, _table_scene())
    other = SceneGraph("kitchen", [SceneObject(o.id, "wall", o.center, o.size) for o in _table_scene()])

    def replace_scene() -> None:
        with SceneStore(store_location) as store:
            store.drop("kitchen")
            store.register(other, {"builder": "another scene"})

    code, out, err = _run(_tabletop(store_location), Planner(replace_scene), monkeypatch, capsys)
    assert code == 1 and len(err) == 1 and "dropped and registered again" in err[0]
    assert out["edits"] == [] and out["executed"] is True and out["stopped"] in err[0]
    with SceneStore(store_location) as store:
        assert store.edits("kitchen", include_undone=True) == []
        assert store.load("kitchen").get("3").center == other.get("3").center


def test_two_robots_making_the_same_move_record_it_once(store_location: str | Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _register(store_location, _table_scene())
    first: list[Any] = []

    def the_other_robot() -> None:  # the same task, run to its end while this one plans
        first.append(_run(_tabletop(store_location), Planner(None), monkeypatch, capsys))
        monkeypatch.setattr(robots_cmd, "open_llm", lambda args: second)

    second = Planner(the_other_robot)
    code, out, err = _run(_tabletop(store_location), second, monkeypatch, capsys)
    [(first_code, first_out, _)] = first
    assert first_code == 0 and [e["actor"] for e in first_out["edits"]] == ["robot:panda"]
    assert code == 0 and out["success"] is True and out["edits"] == [] and out["stopped"] is None
    [note] = out["notes"]
    assert "panda: move cube" in note and "already made this change" in note and err == []
    with SceneStore(store_location) as store:
        assert len(store.edits("kitchen")) == 1 and store.verify("kitchen")


def test_a_move_of_an_object_a_person_deleted_stops_with_what_was_recorded(
        store_location: str | Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    _register(store_location, _table_scene())

    def delete_the_cube() -> None:
        with SceneStore(store_location) as store:
            store.apply("kitchen", E.remove_object(store.load("kitchen"), "3", "user", "the cube is gone"))

    code, out, err = _run(_tabletop(store_location), Planner(delete_the_cube), monkeypatch, capsys)
    assert code == 1 and len(err) == 1 and out is not None
    assert "panda: move cube was not recorded: object 3 (cube) was deleted by edit #1 (user" in err[0]
    assert out["edits"] == [] and out["stopped"] in err[0]
    with SceneStore(store_location) as store:
        assert [r.who for r in store.edits("kitchen")] == ["user"] and "3" not in store.load("kitchen")


def test_a_team_action_on_an_item_a_person_deleted_stops_with_what_was_recorded(
        store_location: str | Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    _demo(store_location)

    def delete_the_bowl() -> None:
        with SceneStore(store_location) as store:
            store.apply("demo", E.remove_object(store.load("demo"), BOWL, "user", "the bowl broke"))

    model = Robots(_pick_bowl(), before={5: delete_the_bowl})  # after the pick, before the place
    code, out, err = _run(["robots", "team", "Put the bowl on the kitchen counter", "--scene", "demo", "--db",
                           str(store_location), "--json"], model, monkeypatch, capsys)
    assert code == 1 and len(err) == 1 and out["stopped"] in err[0]
    assert "Alice: place(bowl, kitchen_counter) was not recorded: object 26 (bowl) was deleted by edit #2" \
        in err[0]
    assert [e["actor"] for e in out["edits"]] == ["robot:Alice"] and out["success"] is False
    with SceneStore(store_location) as store:
        assert [r.who for r in store.edits("demo")] == ["robot:Alice", "user"] and store.verify("demo")


def test_the_recorder_writes_a_move_another_robot_made_once(store_location: str | Path) -> None:
    _register(store_location, _table_scene())
    with SceneStore(store_location) as a, SceneStore(store_location) as b:
        one, two = SceneRecorder(a, "kitchen", "stack"), SceneRecorder(b, "kitchen", "stack")
        assert one.move("panda", "3", (2.25, 1.8, 0.815), "panda: move cube") is not None
        assert two.move("panda2", "3", (2.25, 1.8, 0.815), "panda2: move cube") is None
        assert two.records == [] and len(two.notes) == 1 and "edit #1 (robot:panda" in two.notes[0]
        assert len(a.edits("kitchen")) == 1


# ----- --save-scene and read-only roles
def test_save_scene_refuses_a_stored_scene_without_replace(store_location: str | Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _register(store_location, _table_scene())
    with SceneStore(store_location) as store:
        store.apply("kitchen", E.rename_object(store.load("kitchen"), "2", "notebook", "user", "a notebook"))
        before = (store.revision("kitchen"), store.edits("kitchen", include_undone=True),
                  store.source("kitchen"))
    never = ScriptedModel([])
    for argv in (["robots", "team", "seed"], ["robots", "tabletop", "eat"]):
        code, out, err = _run([*argv, "--save-scene", "kitchen", "--db", str(store_location), "--json"],
                              never, monkeypatch, capsys)
        assert code == 2 and out is None and len(err) == 1 and "--replace" in err[0] and never.requests == []
        with SceneStore(store_location) as store:
            assert (store.revision("kitchen"), store.edits("kitchen", include_undone=True),
                    store.source("kitchen")) == before
    wait = Robots({})
    code, out, _ = _run(["robots", "team", "seed", "--max-rounds", "1", "--save-scene", "kitchen",
                         "--replace", "--db", str(store_location), "--json"], wait, monkeypatch, capsys)
    with SceneStore(store_location) as store:
        assert code == 1 and store.source("kitchen")["builder"] == "robots team"
        assert [r.state.value for r in store.edits("kitchen", include_undone=True)] == ["discarded"]


def test_robots_on_a_read_only_postgres_role_stop_before_the_episode(
        pg_location: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _demo(pg_location)
    reader = read_only_role(pg_location)
    never = ScriptedModel([])
    for argv in (["team", "Tidy up", "--scene", "demo"], ["tabletop", "Tidy up", "--scene", "demo"],
                 ["team", "seed", "--save-scene", "after"], ["tabletop", "stack", "--save-scene", "after"]):
        code, out, err = _run(["robots", *argv, "--db", reader], never, monkeypatch, capsys)
        assert code == 2 and out is None and len(err) == 1 and "cannot be written" in err[0]
        assert reader.split(":")[2].split("@")[0] not in err[0] and never.requests == []  # no password
