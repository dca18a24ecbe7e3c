"""A new perception of a stored scene updates it (issue 39): objects matched to the stored ones keep
their ids, people's and robots' edits win over the new perception, an edit whose object is gone is a
conflict, and the update is one log entry, one feed event and one undo; on SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from synergai.scene import edits as E
from synergai.scene.build import build_graph
from synergai.scene.model import Edge, ObjectKind, Relation, SceneError, SceneGraph, SceneObject
from synergai.scene.object_matching import label_agreement, match_objects
from synergai.scene.reperception import OtherSceneError, UpdatePlan, plan_update, update_scene
from synergai.scene.serialization import dumps
from synergai.scene.store import ConflictError, SceneStore
from synergai.scene.store_postgres import BULK_ROWS

SCENE = "room"


def room() -> SceneGraph:
    """Floor, wall, a table with a cup, two chairs, a TV on the wall, a lamp, a sofa."""
    objs = [
        SceneObject("0", "floor", (2.0, 2.0, -0.05), (4.0, 4.0, 0.1), kind=ObjectKind.FLOOR),
        SceneObject("1", "wall", (2.0, 4.05, 1.4), (4.0, 0.1, 2.8), kind=ObjectKind.WALL),
        SceneObject("2", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75), attributes=("brown",)),
        SceneObject("3", "cup", (2.1, 2.0, 0.8), (0.08, 0.08, 0.1), attributes=("red",)),
        SceneObject("4", "chair", (1.0, 2.0, 0.45), (0.5, 0.5, 0.9), attributes=("black",)),
        SceneObject("5", "chair", (3.0, 2.0, 0.45), (0.5, 0.5, 0.9), attributes=("black",)),
        SceneObject("6", "tv", (2.0, 3.95, 1.5), (1.0, 0.08, 0.6)),
        SceneObject("7", "lamp", (3.6, 3.6, 0.6), (0.3, 0.3, 1.2), attributes=("white",)),
        SceneObject("8", "sofa", (0.6, 0.6, 0.4), (0.8, 0.8, 0.8)),
    ]
    edges = [Edge("2", Relation.SUPPORTED_BY, "0"), Edge("3", Relation.SUPPORTED_BY, "2"),
             Edge("4", Relation.SUPPORTED_BY, "0"), Edge("5", Relation.SUPPORTED_BY, "0"),
             Edge("7", Relation.SUPPORTED_BY, "0"), Edge("6", Relation.MOUNTED_ON, "1"),
             Edge("4", Relation.NEAR, "2"), Edge("5", Relation.NEAR, "2"),
             Edge("8", Relation.SUPPORTED_BY, "0")]
    return SceneGraph(SCENE, objs, edges, scene_type="Living room")


def reperceived(drop: tuple[str, ...] = (), shift: float = 0.02, offset: int = 100,
                extra: tuple[SceneObject, ...] = (), labels: dict[str, str] | None = None,
                moved: dict[str, tuple[float, float, float]] | None = None) -> SceneGraph:
    """The room seen again: ids renumbered (+offset), boxes moved by ``shift``, some objects dropped,
    some added, some labels changed and some objects elsewhere (by the old id)."""
    labels, moved = labels or {}, moved or {}
    base = room()
    objs = [o.with_changes(id=str(int(o.id) + offset), category=labels.get(o.id, o.category),
                           center=(c[0] + shift, c[1] - shift / 2, c[2]))
            for o in base if o.id not in drop for c in [moved.get(o.id, o.center)]]
    edges = [Edge(str(int(e.subject) + offset), e.relation, str(int(e.object) + offset))
             for e in base.edges if not {e.subject, e.object} & set(drop)]
    return SceneGraph(SCENE, [*objs, *extra], edges)


@pytest.fixture
def store(store_location: str | Path) -> Iterator[SceneStore]:
    with SceneStore(store_location) as s:
        s.register(room(), {"builder": "test"})
        yield s


def edit(store: SceneStore, build, *args, actor: str = "user") -> E.EditRecord:
    return store.apply(SCENE, build(store.load(SCENE), *args, actor, "a correction"))


def every_kind_of_edit(store: SceneStore) -> None:
    edit(store, E.rename_object, "2", "desk")
    edit(store, E.set_attributes, "4", ["green", "wooden"])
    edit(store, E.add_relation, "7", "near", "5")
    edit(store, E.delete_relation, "4", "near", "2")
    store.apply(SCENE, E.move_object(store.load(SCENE), "3", (2.35, 2.1, 0.8), "robot:Alice", "tidy up"))


def test_an_update_carries_every_kind_of_edit_and_one_undo_restores_the_scene(store: SceneStore) -> None:
    every_kind_of_edit(store)
    moved = {e.key() for e in store.edits(SCENE)[-1].after.edges}
    before, events = store.load(SCENE), store.last_event()
    new = reperceived(drop=("6",), extra=(SceneObject("900", "plant", (3.5, 0.5, 0.3), (0.3, 0.3, 0.6)),),
                      labels={"5": "armchair"}, moved={"3": (2.35, 2.1, 0.8)})
    plan = update_scene(store, new, source="json")
    assert plan.report() == {"scene": SCENE, "matched": 8, "added": 1, "removed": 1, "carried": 5,
                             "conflicts": []}
    now = store.load(SCENE)
    assert sorted(now.ids) == sorted(["0", "1", "2", "3", "4", "5", "7", "8", "9"])  # stored ids kept
    assert now.get("9").category == "plant" and "6" not in now
    assert now.get("2").category == "desk" and now.get("2").attributes == ("brown",)  # rename carried
    assert now.get("4").attributes == ("green", "wooden")  # attributes carried
    assert now.get("5").category == "armchair"  # perception's own change to an uncorrected object taken
    assert now.has_edge("7", Relation.NEAR, "5") and not now.has_edge("4", Relation.NEAR, "2")
    assert all(now.edge(k) is not None for k in moved)  # the robot's move: its relations stay
    assert now.get("2").center == pytest.approx((2.02, 1.99, 0.375))  # boxes come from the new perception
    log = store.edits(SCENE)
    assert len(log) == 6 and log[-1].who == "perception:json" and log[-1].op == "update_perception"
    assert [e.kind for e in store.events(events)] == ["edit"]
    assert store.verify(SCENE)
    store.undo(SCENE)
    assert store.load(SCENE) == before
    assert store.verify(SCENE)


def test_a_correction_whose_object_vanished_is_a_conflict_applied_to_nothing_else(store: SceneStore) -> None:
    rec = edit(store, E.rename_object, "6", "monitor")
    plan = update_scene(store, reperceived(drop=("6",)), source="rosbag")
    assert plan.report()["conflicts"] == [{"edit": rec.seq, "object": "6",
                                           "reason": "object 6 (monitor) is not in the new perception"}]
    now = store.load(SCENE)
    assert "6" not in now and not [o for o in now if o.category == "monitor"]
    assert f"edit #{rec.seq} on 6" in store.edits(SCENE)[-1].utterance  # logged
    # a partial scan keeps what it did not see, and the correction with it
    store.undo(SCENE)
    kept = update_scene(store, reperceived(drop=("6",)), source="rosbag", keep_unseen=True)
    assert kept.conflicts == () and store.load(SCENE).get("6").category == "monitor"


def test_two_updates_in_a_row_keep_ids_and_carry_the_edits_again(store: SceneStore) -> None:
    original = store.load(SCENE)
    edit(store, E.rename_object, "8", "couch")
    rec = edit(store, E.rename_object, "6", "monitor")
    first = update_scene(store, reperceived(drop=("6",), extra=(
        SceneObject("900", "plant", (3.5, 0.5, 0.3), (0.3, 0.3, 0.6)),)), source="json")
    assert [c.edit for c in first.conflicts] == [rec.seq] and first.added == ("9",)
    second = update_scene(store, reperceived(shift=-0.03, offset=500, extra=(
        SceneObject("900", "plant", (3.52, 0.49, 0.3), (0.3, 0.3, 0.6)),)), source="json")
    now = store.load(SCENE)
    assert second.conflicts == () and second.matched == 9 and second.added == ("10",)  # 6 is never reused
    assert now.get("8").category == "couch" and now.get("9").category == "plant"
    assert now.get("10").category == "tv"  # the TV seen again is a new object, not the corrected one
    store.undo(SCENE)
    store.undo(SCENE)
    store.undo(SCENE)
    store.undo(SCENE)
    assert store.load(SCENE) == original and store.verify(SCENE)


def test_what_people_removed_stays_removed_and_what_they_added_stays(store: SceneStore) -> None:
    store.apply(SCENE, E.remove_object(store.load(SCENE), "7", "user", "there is no lamp"))
    box = SceneObject("50", "box", (1.0, 3.0, 0.2), (0.4, 0.4, 0.4))
    store.apply(SCENE, E.add_object(store.load(SCENE), box, "user", "there is a box",
                                    [Edge("50", Relation.SUPPORTED_BY, "0", "user")]))
    plan = update_scene(store, reperceived(), source="json")
    now = store.load(SCENE)
    assert "7" not in now and not [o for o in now if o.category == "lamp"] and plan.added == ()
    assert now.get("50").category == "box" and now.has_edge("50", Relation.SUPPORTED_BY, "0")
    assert plan.carried == 2 and store.verify(SCENE)


def test_a_concurrent_edit_is_planned_again_and_carried(store: SceneStore,
                                                        store_location: str | Path) -> None:
    def other_writer(plan: UpdatePlan) -> None:
        if not calls:
            with SceneStore(store_location) as other:
                other.apply(SCENE, E.rename_object(other.load(SCENE), "3", "mug", "user", "a mug"))
        calls.append(plan)

    calls: list[UpdatePlan] = []
    plan = update_scene(store, reperceived(), source="json", before_write=other_writer)
    assert len(calls) == 2 and plan.carried == 1
    assert store.load(SCENE).get("3").category == "mug" and store.verify(SCENE)


def test_an_edit_made_before_the_update_is_refused_after_it(store: SceneStore,
                                                            store_location: str | Path) -> None:
    with SceneStore(store_location) as other:
        stale = E.rename_object(other.load(SCENE), "3", "mug", "user", "a mug")  # built before the update
        update_scene(store, reperceived(), source="json")
        after = dumps(other.load(SCENE))
        with pytest.raises(ConflictError, match=r"object 3 was changed by edit #1 \(perception:json"):
            other.apply(SCENE, stale)
        assert dumps(other.load(SCENE)) == after


def test_a_writer_process_editing_during_updates_loses_nothing(store: SceneStore,
                                                               store_location: str | Path) -> None:
    script = "\n".join([
        "import sys", "from synergai.scene import edits as E",
        "from synergai.scene.store import ConflictError, SceneStore", "s = SceneStore(sys.argv[1])",
        "for k in range(15):", "    while True:", "        try:",
        "            s.apply('room', E.set_attributes(s.load('room'), '7', [f'w{k}'], 'user'))",
        "            break", "        except ConflictError:", "            pass"])
    proc = subprocess.Popen([sys.executable, "-c", script, str(store_location)])
    try:
        for k in range(4):
            update_scene(store, reperceived(shift=0.01 * (k % 2)), source="json", attempts=20)
    finally:
        assert proc.wait(timeout=120) == 0
    update_scene(store, reperceived(), source="json", attempts=20)
    assert store.load(SCENE).get("7").attributes == ("w14",) and store.verify(SCENE)


def test_another_scene_and_an_empty_perception_are_refused_and_change_nothing(store: SceneStore) -> None:
    edit(store, E.rename_object, "2", "desk")
    before, n = dumps(store.load(SCENE)), store.last_event()
    far = SceneGraph(SCENE, [o.with_changes(id=f"x{o.id}", center=(o.center[0] + 50, *o.center[1:]))
                             for o in room()])
    with pytest.raises(OtherSceneError, match="matches 0 of the 9 stored objects"):
        update_scene(store, far, source="json")
    with pytest.raises(SceneError, match="has no objects"):
        update_scene(store, SceneGraph(SCENE), source="json")
    assert dumps(store.load(SCENE)) == before and store.last_event() == n


def test_matching_is_one_to_one_gated_and_reads_synonyms() -> None:
    assert label_agreement("couch", "sofas") == 1.0 and label_agreement("couch", "loveseat") == 0.5
    assert label_agreement("couch", "cup") == 0.0
    a = [SceneObject("a", "chair", (0, 0, 0.45), (0.5, 0.5, 0.9)),
         SceneObject("b", "chair", (0.6, 0, 0.45), (0.5, 0.5, 0.9)),
         SceneObject("c", "cup", (5, 5, 0.8), (0.1, 0.1, 0.1))]
    b = [SceneObject("x", "chair", (0.62, 0.02, 0.45), (0.5, 0.5, 0.9)),
         SceneObject("y", "chair", (0.03, 0, 0.45), (0.5, 0.5, 0.9)),
         SceneObject("z", "cup", (6, 5, 0.8), (0.1, 0.1, 0.1)),  # moved a metre: another cup
         SceneObject("w", "bed", (0.03, 0, 0.45), (0.5, 0.5, 0.9), kind=ObjectKind.WALL)]
    assert match_objects(a, b) == [(0, 1), (1, 0)]


def test_merge_objects_makes_one_object_undoably_and_survives_an_update(store: SceneStore) -> None:
    before = store.load(SCENE)
    rec = store.apply(SCENE, E.merge_objects(before, ["4", "5"], "user", "these two are one bench", "bench"))
    now = store.load(SCENE)
    assert "5" not in now and now.get("4").category == "bench"
    assert now.get("4").center == pytest.approx((2.0, 2.0, 0.45)) and now.get("4").size == pytest.approx(
        (2.5, 0.5, 0.9))
    assert now.has_edge("4", Relation.NEAR, "2") and not now.has_edge("4", Relation.NEAR, "4")
    assert {rec.op, rec.who} == {"merge_objects", "user"}
    update_scene(store, reperceived(), source="json")  # perception still sees two chairs
    after = store.load(SCENE)
    assert "5" not in after and after.get("4").category == "bench" and len(after.by_category("chair")) == 0
    store.undo(SCENE)
    store.undo(SCENE)
    assert store.load(SCENE) == before and store.verify(SCENE)
    with pytest.raises(SceneError, match="at least two"):
        E.merge_objects(before, ["4"])
    with pytest.raises(SceneError, match="one kind"):
        E.merge_objects(before, ["0", "2"])


def test_plan_update_of_an_unchanged_perception_writes_nothing() -> None:
    g = room()
    plan = plan_update(g, [], reperceived(shift=0.0, offset=0), source="json")
    assert plan.request is None and plan.matched == 9


def test_a_large_update_is_written_in_bulk_and_undone_exactly(store_location: str | Path) -> None:
    """Batches larger than :data:`BULK_ROWS` (on PostgreSQL one statement over a COPY into a temporary
    table): every stored object moved, a third of them and their relations gone, one undo."""
    floor = SceneObject("f", "floor", (10.0, 10.0, -0.05), (22.0, 22.0, 0.1), kind=ObjectKind.FLOOR)
    boxes = [SceneObject(str(k), "box" if k % 2 else "crate", (0.5 * (k % 36), 0.5 * (k // 36), 0.1),
                         (0.3, 0.3, 0.2)) for k in range(BULK_ROWS + 220)]
    graph = build_graph("grid", [floor, *boxes])
    seen = [o.with_changes(id=f"n{o.id}", center=(o.center[0] + 0.02, o.center[1], o.center[2]))
            for o in boxes if int(o.id) % 3]
    new = build_graph("grid", [floor.with_changes(id="nf"), *seen])
    with SceneStore(store_location) as store:
        store.register(graph, {"builder": "test"})
        store.apply("grid", E.rename_object(store.load("grid"), "4", "chest", "user", "a correction"))
        before, events = store.load("grid"), store.last_event()
        plan = update_scene(store, new, source="json")
        assert plan.request is not None
        removed = [ch for ch in plan.request.changes if isinstance(ch, E.EdgeChange) and not ch.added]
        assert len(removed) >= BULK_ROWS and plan.matched == len(seen) + 1 and len(plan.removed) == 240
        now = store.load("grid")
        assert now.get("4").category == "chest" and now.get("4").center[0] == pytest.approx(2.02)
        assert "3" not in now and store.verify("grid") and store.last_event() == events + 1
        assert all(now.get(f"{o.id[1:]}").center == o.center for o in seen)
        store.undo("grid")
        assert store.load("grid") == before and store.verify("grid")
    with SceneStore(store_location) as fresh:  # read back from the rows, nothing cached
        assert fresh.load("grid") == before
    with SceneStore(store_location) as cold:  # a redo by a new process: no graph held, the rows read once
        assert cold.redo("grid") is not None
        assert cold.load("grid") == now and cold.verify("grid")
        cold.undo("grid")
    with SceneStore(store_location) as fresh:
        assert fresh.load("grid") == before
