"""Edit requests: each operation applies, undoes and redoes exactly; failing edits change nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from synergai.scene import edits as E
from synergai.scene.edits import Actor, EdgeChange, EditRecord, EditRequest, EditState, ObjectChange
from synergai.scene.hierarchy import compute_levels
from synergai.scene.model import (
    SUPPORT_RELATIONS,
    Edge,
    ObjectKind,
    OrientedBox,
    Relation,
    SceneError,
    SceneGraph,
    SceneObject,
    UnknownObjectError,
)
from synergai.scene.serialization import dumps


def _graph() -> SceneGraph:
    objs = [
        SceneObject("0", "floor", (0.0, 0.0, 0.0), (6.0, 5.0, 0.02), kind=ObjectKind.FLOOR),
        SceneObject("7", "table", (1.0, 1.0, 0.375), (1.2, 0.8, 0.75),
                    obb=OrientedBox((1.0, 1.0, 0.375), (1.2, 0.8, 0.75), 0.3)),
        SceneObject("9", "cup", (1.1, 0.9, 0.8), (0.08, 0.08, 0.1), attributes=("white",)),
        SceneObject("12", "chair", (0.2, 0.3, 0.45), (0.6, 0.6, 0.9), color=(120, 60, 20)),
        SceneObject("15", "lamp", (2.0, 2.0, 1.0), (0.3, 0.3, 2.0)),
    ]
    edges = [
        Edge("7", Relation.SUPPORTED_BY, "0"),
        Edge("9", Relation.SUPPORTED_BY, "7"),
        Edge("12", Relation.SUPPORTED_BY, "0"),
        Edge("12", Relation.NEAR, "7"),
        Edge("15", Relation.SUPPORTED_BY, "0"),
    ]
    g = SceneGraph("s1", objs, edges, scene_type="kitchen")
    g.levels = compute_levels(g)
    return g


def _same(a: SceneGraph, b: SceneGraph) -> bool:
    """Equal graphs, including edge provenance (SceneGraph.__eq__ ignores it) and order-free."""
    return a == b and sorted((e.key(), e.provenance) for e in a.edges) == sorted(
        (e.key(), e.provenance) for e in b.edges)


Builder = Callable[[SceneGraph], EditRequest]
Check = Callable[[SceneGraph], None]


def _check_rename(g: SceneGraph) -> None:
    assert g.get("9").category == "mug" and g.get("9").attributes == ("white",)


def _check_attrs(g: SceneGraph) -> None:
    assert g.get("9").attributes == ("blue", "ceramic")


def _check_add_rel(g: SceneGraph) -> None:
    assert g.has_edge("15", Relation.NEAR, "12") and g.has_edge("12", Relation.NEAR, "15")
    assert [e.provenance for e in g.edges if e.key() == ("15", "near", "12")] == ["agent"]


def _check_del_rel(g: SceneGraph) -> None:
    assert not g.has_edge("9", Relation.SUPPORTED_BY, "7")
    assert g.levels["9"] == 0  # the cup no longer rests on anything


def _check_add_obj(g: SceneGraph) -> None:
    assert g.get("20").category == "spoon"
    assert g.has_edge("20", Relation.INSIDE, "9")
    assert g.levels["20"] == 2  # floor -> table (0) -> cup (1) -> spoon (2)


def _check_remove(g: SceneGraph) -> None:
    assert "7" not in g
    assert not any("7" in (e.subject, e.object) for e in g.edges)
    assert "7" not in g.levels and g.levels["9"] == 0


def _check_move(g: SceneGraph) -> None:
    t = g.get("7")
    assert t.center == (1.5, 1.0, 0.375) and t.size == (1.2, 0.8, 0.75)
    assert t.obb is not None and t.obb.center == pytest.approx((1.5, 1.0, 0.375)) and t.obb.yaw == 0.3


OPS: list[tuple[str, Builder, Check]] = [
    ("update_name", lambda g: E.rename_object(g, "9", " mug ", Actor.USER, "that is a mug"), _check_rename),
    ("update_attributes", lambda g: E.set_attributes(g, 9, ["blue", "ceramic", "blue", " "][:3], "user"),
     _check_attrs),
    ("add_relation", lambda g: E.add_relation(g, "15", "close to", "12", "agent", "the lamp is by the chair"),
     _check_add_rel),
    ("delete_relation", lambda g: E.delete_relation(g, "7", Relation.SUPPORTS, "9", Actor.USER, "not on it"),
     _check_del_rel),
    ("add_object", lambda g: E.add_object(
        g, SceneObject("20", "spoon", (1.1, 0.9, 0.85), (0.02, 0.15, 0.02), provenance="user"), "user",
        "there is a spoon in the cup", relations=[Edge("20", Relation.INSIDE, "9", "user")]), _check_add_obj),
    ("remove_object", lambda g: E.remove_object(g, "7", Actor.PERCEPTION), _check_remove),
    ("move_object", lambda g: E.move_object(g, "7", (1.5, 1.0, 0.375), "user"), _check_move),
]


@pytest.mark.parametrize(("op", "build", "check"), OPS, ids=[o[0] for o in OPS])
def test_op_applies_undoes_and_redoes(op: str, build: Builder, check: Check) -> None:
    g = _graph()
    original = g.copy()
    req = build(g)
    assert req.op == op
    assert _same(g, original)  # building a request does not touch the graph
    E.apply_changes(g, req.changes)
    check(g)
    assert g.levels == compute_levels(g)
    after = g.copy()
    E.apply_changes(g, E.invert(req.changes))
    assert _same(g, original)
    assert dumps(g).count('"id"') == dumps(original).count('"id"')
    E.apply_changes(g, req.changes)
    assert _same(g, after)
    check(g)


def test_remove_object_carries_its_edges_explicitly() -> None:
    g = _graph()
    req = E.remove_object(g, "7")
    removed = [c.edge.key() for c in req.changes if isinstance(c, EdgeChange)]
    assert sorted(removed) == [("12", "near", "7"), ("7", "supported_by", "0"), ("9", "supported_by", "7")]
    assert all(not c.added for c in req.changes if isinstance(c, EdgeChange))
    assert isinstance(req.changes[-1], ObjectChange) and req.changes[-1].after is None
    undo = E.invert(req.changes)
    assert isinstance(undo[0], ObjectChange) and undo[0].before is None  # object first, then its edges


def test_failing_edit_leaves_graph_untouched() -> None:
    g = _graph()
    before = g.copy()
    rename = E.rename_object(g, "9", "mug").changes[0]
    bad_edge = EdgeChange(Edge("9", Relation.NEAR, "404"), True)
    with pytest.raises(SceneError, match=r"change 2: .*unknown object id '404'"):
        E.apply_changes(g, (rename, bad_edge))
    assert _same(g, before) and g.get("9").category == "cup"


@pytest.mark.parametrize(("changes", "message"), [
    (lambda g: (ObjectChange(g.get("7"), None),), "object 7 still has 3 relation"),
    (lambda g: (EdgeChange(Edge("7", Relation.SUPPORTS, "9"), True),), "already stored"),
    (lambda g: (EdgeChange(Edge("7", Relation.NEAR, "12"), True),), "already stored"),
    (lambda g: (EdgeChange(Edge("9", Relation.NEAR, "15"), False),), "no stored relation 9 near 15"),
    (lambda g: (EdgeChange(Edge("7", Relation.SUPPORTS, "9"), False),), "no stored relation"),
    (lambda g: (EdgeChange(Edge("9", Relation.NEAR, "9"), True),), "joins an object to itself"),
    (lambda g: (EdgeChange(Edge("9", Relation.LEFT_OF, "7"), True),), "never stored"),
    (lambda g: (ObjectChange(None, g.get("9")),), "object 9 already exists"),
    (lambda g: (ObjectChange(SceneObject("x", "box", (0, 0, 0), (1, 1, 1)), None),), "unknown object id 'x'"),
    (lambda g: (ObjectChange(g.get("9").with_changes(category="bowl"),
                             g.get("9").with_changes(category="x")),), "not in the state the edit expects"),
])
def test_invalid_changes_are_rejected(changes: Callable[[SceneGraph], tuple], message: str) -> None:
    g = _graph()
    before = g.copy()
    with pytest.raises(SceneError, match=message):
        E.apply_changes(g, changes(g))
    assert _same(g, before)


def test_stale_request_is_rejected_after_a_competing_edit() -> None:
    g = _graph()
    first = E.rename_object(g, "9", "mug")
    second = E.rename_object(g, "9", "glass")
    E.apply_changes(g, first.changes)
    with pytest.raises(SceneError, match="not in the state"):
        E.apply_changes(g, second.changes)
    assert g.get("9").category == "mug"


@pytest.mark.parametrize(("build", "error", "message"), [
    (lambda g: E.rename_object(g, "404", "mug"), UnknownObjectError, "'404'"),
    (lambda g: E.rename_object(g, "9", "cup"), SceneError, "already called 'cup'"),
    (lambda g: E.rename_object(g, "9", "  "), SceneError, "new category"),
    (lambda g: E.set_attributes(g, "9", ["white"]), SceneError, "already has attributes"),
    (lambda g: E.set_attributes(g, "9", "red"), SceneError, "not one string"),
    (lambda g: E.add_relation(g, "9", "on", "7"), SceneError, "already stored"),
    (lambda g: E.add_relation(g, "9", "left of", "7"), SceneError, "never stored"),
    (lambda g: E.add_relation(g, "9", "levitating", "7"), SceneError, "unknown relation 'levitating'"),
    (lambda g: E.add_relation(g, "9", "near", "9"), SceneError, "two different objects"),
    (lambda g: E.add_relation(g, "9", "near", "55"), UnknownObjectError, "'55'"),
    (lambda g: E.delete_relation(g, "9", "near", "15"), SceneError, "no stored relation 9 near 15"),
    (lambda g: E.add_object(g, SceneObject("9", "cup", (0, 0, 0), (1, 1, 1))), SceneError, "'9' already"),
    (lambda g: E.add_object(g, SceneObject("20", "spoon", (0, 0, 0), (1, 1, 1)),
                            relations=[Edge("20", Relation.INSIDE, "404")]), SceneError, "'404'"),
    (lambda g: E.remove_object(g, "404"), UnknownObjectError, "'404'"),
    (lambda g: E.move_object(g, "9", (1.0, float("nan"), 0.0)), SceneError, "finite"),
    (lambda g: E.move_object(g, "9", (1.0, 2.0)), SceneError, "3 numbers"),
    (lambda g: E.move_object(g, "9", (1.1, 0.9, 0.8)), SceneError, "already there"),
    (lambda g: E.rename_object(g, "9", "mug", actor="wizard"), SceneError, "unknown actor 'wizard'"),
    (lambda g: E.rename_object(g, "9", "mug", actor="robot"), SceneError, "a robot actor needs a name"),
    (lambda g: E.rename_object(g, "9", "mug", actor="robot:"), SceneError, "a robot actor needs a name"),
])
def test_builders_validate(build: Builder, error: type[Exception], message: str) -> None:
    g = _graph()
    with pytest.raises(error, match=message) as info:
        build(g)
    assert "\n" not in str(info.value)


def test_request_and_change_validation() -> None:
    with pytest.raises(SceneError, match="changes nothing"):
        EditRequest(Actor.USER, "update_name", ())
    with pytest.raises(SceneError, match="op"):
        EditRequest(Actor.USER, " ", (EdgeChange(Edge("a", Relation.NEAR, "b"), True),))
    with pytest.raises(SceneError, match="before or an after"):
        ObjectChange(None, None)
    a = SceneObject("a", "box", (0, 0, 0), (1, 1, 1))
    with pytest.raises(SceneError, match="keep the id"):
        ObjectChange(a, a.with_changes(id="b"))
    req = EditRequest("agent", "x", [EdgeChange(Edge("a", Relation.NEAR, "b"), True)])  # type: ignore[arg-type]
    assert req.actor is Actor.AGENT and isinstance(req.changes, tuple)


@pytest.mark.parametrize(("op", "build", "check"), OPS, ids=[o[0] for o in OPS])
def test_changes_survive_json(op: str, build: Builder, check: Check) -> None:
    req = build(_graph())
    back = tuple(E.change_from_dict(E.change_to_dict(c)) for c in req.changes)
    assert back == req.changes
    assert [c.edge.provenance for c in back if isinstance(c, EdgeChange)] == [
        c.edge.provenance for c in req.changes if isinstance(c, EdgeChange)]


@pytest.mark.parametrize(("data", "message"), [
    ({"type": "thing"}, "change.type"),
    ({"type": "edge", "edge": {"subject": "a", "relation": "near", "object": "b"}, "added": "yes"}, "added"),
    ({"type": "edge", "edge": {"subject": "a", "relation": "nearby", "object": "b"}, "added": True},
     "change.edge.relation"),
    ({"type": "object", "before": None}, "exactly type, before, after"),
    ({"type": "object", "before": None,
      "after": {"id": "a", "category": "box", "center": [0, 0], "size": [1, 1, 1]}}, "change.after.center"),
    ([1], "expected an object"),
])
def test_malformed_change_dicts(data: object, message: str) -> None:
    with pytest.raises(SceneError, match=message):
        E.change_from_dict(data)


def _record(req: EditRequest, state: EditState = EditState.ACTIVE) -> EditRecord:
    return EditRecord(3, "s1", req.actor, req.op, req.utterance, "2026-01-01T00:00:00+00:00", req.changes,
                      state)


def test_summaries_and_before_after_views() -> None:
    g = _graph()
    rename = _record(E.rename_object(g, "9", "mug", Actor.USER, "that is a mug"))
    assert rename.summary() == "user renamed 9 (cup) -> mug: 'that is a mug'"
    assert [o.category for o in rename.before.objects] == ["cup"]
    assert [o.category for o in rename.after.objects] == ["mug"]
    assert rename.request == EditRequest(Actor.USER, "update_name", rename.changes, "that is a mug")

    removal = _record(E.remove_object(g, "7", "agent"), EditState.UNDONE)
    assert removal.summary() == "agent removed object 7 (table) and 3 relation(s) [undone]"
    assert [o.id for o in removal.before.objects] == ["7"] and removal.after.objects == ()
    assert len(removal.before.edges) == 3 and removal.after.edges == ()

    summaries = {
        "set_attributes": (E.set_attributes(g, "9", ["blue"], "user"),
                           "user set attributes of 9 (cup) [white] -> [blue]"),
        "add_relation": (E.add_relation(g, "15", "near", "12", "agent"), "agent added relation 15 near 12"),
        "delete_relation": (E.delete_relation(g, "7", "supports", "9"),
                            "user deleted relation 9 supported_by 7"),
        "add_object": (E.add_object(g, SceneObject("20", "spoon", (0, 0, 1), (1, 1, 1))),
                       "user added object 20 (spoon)"),
        "move": (E.move_object(g, "12", (1, 2, 0.45)), "user moved 12 (chair) to (1.00, 2.00, 0.45)"),
    }
    for name, (req, text) in summaries.items():
        assert _record(req).summary() == text, name
    added = _record(E.add_relation(g, "15", "near", "12"))
    assert added.before.edges == () and [e.key() for e in added.after.edges] == [("15", "near", "12")]


def test_move_object_recomputes_the_moved_objects_relations() -> None:
    from synergai.scene.build import build_graph

    objs = [SceneObject("7", "table", (1.0, 1.0, 0.375), (1.2, 0.8, 0.75)),
            SceneObject("9", "cup", (1.1, 0.9, 0.8), (0.08, 0.08, 0.1)),
            SceneObject("15", "lamp", (4.0, 4.0, 1.0), (0.3, 0.3, 2.0))]
    g = build_graph("s", objs)
    assert g.has_edge("9", Relation.SUPPORTED_BY, "7")
    original = g.copy()
    req = E.move_object(g, "9", (4.3, 4.0, 0.05), "user", "the cup is by the lamp now")
    removed = {c.edge.key() for c in req.changes if isinstance(c, E.EdgeChange) and not c.added}
    added = {c.edge.key() for c in req.changes if isinstance(c, E.EdgeChange) and c.added}
    assert ("9", "supported_by", "7") in removed and ("9", "supported_by", "floor") in added
    E.apply_changes(g, req.changes)
    moved = [o.with_changes(center=(4.3, 4.0, 0.05)) if o.id == "9" else o for o in objs]
    assert {e.key() for e in g.edges} == {e.key() for e in build_graph("s", moved).edges}
    assert g.levels == compute_levels(g)
    E.apply_changes(g, E.invert(req.changes))  # undo restores the old relations too
    assert _same(g, original)
    only_box = E.move_object(original, "9", (4.3, 4.0, 0.05), refresh=False)
    assert [type(c) for c in only_box.changes] == [E.ObjectChange]


def test_far_and_within_reach_may_be_stored_by_hand_but_view_and_comparative_ones_never() -> None:
    from synergai.scene.model import COMPARATIVE, VIEW_DEPENDENT, is_stored
    from synergai.scene.serialization import loads

    assert {r for r in Relation if not is_stored(r)} == VIEW_DEPENDENT | COMPARATIVE
    g = _graph()
    for rel in (Relation.FAR, Relation.WITHIN_REACH):
        req = E.add_relation(g, "15", rel, "9", "user", "stated")
        E.apply_changes(g, req.changes)
        assert g.has_edge("15", rel, "9")
    assert loads(dumps(g)) == g  # the serializer keeps what the edit layer accepted
    for rel in (Relation.LEFT_OF, Relation.CLOSEST):
        with pytest.raises(SceneError, match="never stored"):
            E.add_relation(g, "15", rel, "9")


def test_levels_updated_incrementally_equal_a_full_recomputation(monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    from synergai.scene.build import build_graph
    from synergai.scene.model import ObjectKind as K

    rng = random.Random(11)
    shortcuts = 0
    real_update = E.update_levels

    def counting(graph: SceneGraph, changed: object) -> bool:
        nonlocal shortcuts
        done = real_update(graph, changed)
        shortcuts += done
        return done

    monkeypatch.setattr(E, "update_levels", counting)
    objs = [SceneObject("t", "table", (0, 0, 0.375), (1.2, 0.8, 0.75)),
            SceneObject("c", "cup", (0.1, 0, 0.8), (0.08, 0.08, 0.1)),
            SceneObject("s", "shelf", (2, 0, 1.0), (0.8, 0.3, 2.0)),
            SceneObject("b", "book", (2, 0, 1.3), (0.2, 0.2, 0.05))]
    g = build_graph("s", objs)
    holding = [Relation.SUPPORTED_BY, Relation.INSIDE, Relation.HANGING_ON, Relation.NEAR]
    for k in range(400):
        ids = g.ids
        roll = rng.random()
        try:
            if roll < 0.35:
                a, b = rng.sample(ids, 2)
                req = E.add_relation(g, a, rng.choice(holding), b)  # also cycles and second holders
            elif roll < 0.6 and g.edges:
                e = rng.choice(g.edges)
                req = E.delete_relation(g, e.subject, e.relation, e.object)
            elif roll < 0.75:
                new = SceneObject(f"n{k}", "box", (rng.uniform(-1, 3), 0, 0.9), (0.1, 0.1, 0.1))
                holder = rng.choice(ids)
                req = E.add_object(g, new, relations=[Edge(new.id, Relation.SUPPORTED_BY, holder)])
            elif roll < 0.85 and len(ids) > 3:
                req = E.remove_object(g, rng.choice([i for i in ids if i != "floor"]))
            else:
                o = g.get(rng.choice(ids))
                kind = rng.choice([K.OBJECT, K.WALL, K.FLOOR])
                if kind is o.kind:
                    continue
                req = E.EditRequest(Actor.USER, "set_kind", (E.ObjectChange(o, o.with_changes(kind=kind)),))
        except SceneError:
            continue
        E.apply_changes(g, req.changes)
        assert g.levels == compute_levels(g), k
        assert sorted((h, o) for o in g.ids for h in g.holders(o)) == sorted(
            {(e.object, e.subject) for e in g.edges if e.relation in SUPPORT_RELATIONS})
        copy = g.copy()
        assert all(copy.holders(o) == g.holders(o) and copy.held(o) == g.held(o) for o in g.ids)
    assert shortcuts > 100  # most updates took the incremental path


