"""The perception-alignment benchmark: matching on real scenes, task generation, the simulated user's
corrections through the agent's real tools, the judge, the transfer baseline and the CLI."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from synergai.cli.main import main
from synergai.eval.alignment.judge import (
    LABEL_TEMPLATES,
    SimulatedUser,
    extract_count,
    judge_answer,
    yes_no,
)
from synergai.eval.alignment.matching import Correction, ErrorKind, match_objects
from synergai.eval.alignment.questions import Question, Template, graph_answer
from synergai.eval.alignment.report import alignment_metrics, mean_ci, table3
from synergai.eval.alignment.run import (
    BASELINE_STORE,
    ROBOT_STORE,
    AlignmentRunner,
    knowledge_text,
    prepare,
)
from synergai.eval.alignment.tasks import TABLE_A2, corrected, paper_question, why_uncheckable
from synergai.eval.words import colors_compatible, colour_words
from synergai.llm import ScriptedModel
from synergai.scene.attributes import color_name
from synergai.scene.model import SceneError, SceneObject
from synergai.scene.store import SceneStore
from synergai.scene.vocabulary import COLOR_NAMES, plural

SCENE = "scene0050_00"


def act(action: str, action_input: dict | None = None, plan: list | None = None) -> str:
    d: dict = {"plan": plan} if plan is not None else {}
    return json.dumps(d | {"thought": "Next step.", "action": action, "action_input": action_input or {}})


def final(answer: str, short: str = "") -> str:
    return act("final_answer", {"answer": answer, "short_answer": short, "item_id_list": []})


def right_answer(q: Question) -> str:
    """A final answer the judge accepts for ``q``."""
    value = q.expected[0][0]
    text = {
        "count": f"There are {value} of them.",
        "yes_no": "Yes." if value == "yes" else "No.",
        "color": f"It is {value}.",
    }.get(q.kind) or "It is the " + " and the ".join(g[0] for g in q.expected) + "."
    return final(text)


WRONG = final("I am not sure.")


@pytest.fixture(scope="module")
def paths(shared_data: Path) -> dict[str, Path]:
    return {
        "questions": shared_data / "scanqa" / "scanqa_val_dev.json",
        "objects": shared_data / "scannet" / "objects_gt.json",
        "pred": shared_data / "scannet" / "objects_pred_3dvista.json",
    }


@pytest.fixture(scope="module")
def questions(paths):
    return json.loads(paths["questions"].read_text())


@pytest.fixture(scope="module")
def setup(paths, questions):
    return prepare(questions, paths["objects"], paths["pred"], scenes=[SCENE, "scene0011_00"])


# ------------------------------------------------------------------------------------ labels, matching
def test_label_vocabulary_from_scannet_table(setup):
    v = setup.vocab
    assert v.common_name("kitchen cabinets") == "kitchen cabinet"
    assert v.same("office chair", "chair") and v.same("armchair", "chair")  # head noun; NYU40 class
    assert v.same("trash can", "recycling bin") and v.same("table", "desk")  # the agent's synonyms
    assert not v.same("shelf", "printer") and not v.same("picture", "clock")
    assert not v.same("paper towel dispenser", "microwave")  # both NYU40 "otherprop": too broad to agree


def test_hungarian_matching_beats_greedy():
    def box(oid: str, x: float, label: str = "box") -> SceneObject:
        return SceneObject(oid, label, (x, 0.0, 0.5), (1.0, 1.0, 1.0))

    gt = [box("A", 0.0), box("B", 0.6)]
    pred = [box("p1", 0.3), box("p2", -0.25), box("p3", 20.0), box("p4", 0.62)]
    m = match_objects("s", gt, pred)
    # greedy would give A the best box p1 (IoU 0.54) and leave B with p4; Hungarian maximises the sum
    assert {(p.gt_id, p.pred_id) for p in m.pairs} == {("A", "p2"), ("B", "p4")}
    assert all(p.iou >= 0.25 for p in m.pairs)
    assert m.duplicated == ("p1",) and m.spurious == ("p3",) and m.missed == ()
    with pytest.raises(SceneError, match="min_iou"):
        match_objects("s", gt, pred, min_iou=0.0)


def test_matching_finds_real_perception_errors(setup):
    a = setup.analyses[SCENE]
    counts = a.counts()
    assert counts["matched"] + counts["missed"] == counts["gt_objects"]
    assert counts["matched"] + counts["duplicated"] + counts["spurious"] == counts["pred_objects"] == 50
    assert counts["missed"] > 0 and counts["duplicated"] > 0  # Mask3D misses and repeats objects here
    gt_ids = [p.gt_id for p in a.match.pairs]
    assert len(gt_ids) == len(set(gt_ids)) and all(p.iou >= 0.25 for p in a.match.pairs)
    labels = {(e.pred_id, e.perceived, e.truth) for e in a.errors if e.kind is ErrorKind.LABEL}
    assert ("41", "shelf", "printer") in labels and ("22", "picture", "clock") in labels
    for e in a.errors:  # every error is a real disagreement on a matched object
        assert e.pred_id in a.match.gt_of
        assert not e.applied(a.robot, setup.vocab)


# ------------------------------------------------------------------------------------- task generation
def test_tasks_are_deterministic_and_depend_on_misperceptions(paths, questions, setup):
    again = prepare(questions, paths["objects"], paths["pred"], scenes=[SCENE, "scene0011_00"])
    assert [t.to_dict() for t in again.tasks] == [t.to_dict() for t in setup.tasks]
    assert setup.tasks and len({t.id for t in setup.tasks}) == len(setup.tasks)
    for t in setup.tasks:
        a = setup.analyses[t.scene_id]
        q = t.question
        before = graph_answer(a.robot, Template(q.template), q.subject)
        after = graph_answer(corrected(a.robot, t.corrections), Template(q.template), q.subject)
        assert before is None or not judge_answer(q, ", ".join(before))
        assert after is not None and judge_answer(q, ", ".join(after))
        assert t.difficulty == ("easy" if len(t.objects) == 1 else "hard")
        if q.template in ("color", "on_what", "what_on"):  # the answer must be about the right object
            assert q.targets and all(i in a.robot for i in q.targets)
        if t.transfer is not None:
            assert t.transfer.template != q.template


def test_hard_tasks_exist_over_more_scenes(paths, questions):
    s = prepare(
        questions, paths["objects"], paths["pred"], scenes=["scene0063_00", "scene0144_00"], table_a2=False
    )
    hard = [t for t in s.tasks if t.difficulty == "hard"]
    assert hard and all(len(t.objects) > 1 for t in hard)


def test_prepare_rejects_bad_input(paths, tmp_path):
    record = {"id": 1, "label": "chair", "center_position": [0, 0, 0.4], "size": [0.5, 0.5, 0.8]}
    gt, pred = tmp_path / "gt.json", tmp_path / "pred.json"
    gt.write_text(json.dumps({"scenes": {"s1": [record]}}))
    pred.write_text(json.dumps({"s1": [record | {"label": "stool"}]}))
    labels = paths["objects"].parent / "scannetv2-labels.combined.tsv"
    small = prepare([{"scene_id": "s1"}], gt, pred, labels_path=labels, table_a2=False)
    assert list(small.analyses) == ["s1"] and small.matching()["label_errors"] == 1
    with pytest.raises(SceneError, match="not a dev scene"):
        prepare([{"scene_id": "s1"}], gt, pred, labels_path=labels, scenes=["scene9999_00"])
    with pytest.raises(SceneError, match="no dev scenes"):
        prepare([{"scene_id": "nowhere"}], gt, pred, labels_path=labels)
    bad = tmp_path / "labels.tsv"
    bad.write_text("a\tb\n1\t2\n")
    with pytest.raises(SceneError, match="not a ScanNet label table"):
        prepare([{"scene_id": "s1"}], paths["objects"], paths["pred"], labels_path=bad)


# ------------------------------------------------------------------------------------------------ judge
def test_judge_rules():
    count = Question("How many chairs?", "count", (("3",),))
    assert judge_answer(count, "There are three chairs (ids: 4, 5, 6) at [1.20, 2.00, 0.45].")
    assert judge_answer(count, "I found chairs id 4, id 5 and id 9.", short="3")
    assert not judge_answer(count, "There are 2 chairs (id: 3, 7).")
    assert extract_count("No, there are none.") == 0 and extract_count("It is blue.") is None
    yn = Question("Is there a printer?", "yes_no", (("yes",),))
    assert judge_answer(yn, "Yes, the printer (id: 41) is on the desk.")
    assert not judge_answer(yn, "There is no printer in the room.")
    assert yes_no("I could not find a printer.") is False and yes_no("Maybe.") is None
    aimed = Question("What color is the messenger bag?", "color", (("black",),), targets=("41",))
    assert judge_answer(aimed, "The messenger bag (id: 41) is black.") and judge_answer(aimed, "Black.")
    assert not judge_answer(aimed, "The bag (id: 40) is black.")  # right colour, wrong object
    assert not judge_answer(aimed, "It is black.", objects=["40"])  # the GUI highlights another object
    color = Question("What color?", "color", (("dark brown",),))
    assert judge_answer(color, "It is black.") and judge_answer(color, "It's brown.")
    assert not judge_answer(color, "It is light blue.")
    assert colors_compatible("grey", "dark gray") and not colors_compatible("red", "green")
    names = Question("What is on the desk?", "names", (("printer",), ("monitor",)))
    assert judge_answer(names, "A printer (id: 41) and two monitors are on the desk.")
    assert not judge_answer(names, "A printer is on the desk.")
    for q in (count, yn, color, names):
        assert not judge_answer(q, "") and not judge_answer(q, "   ", short="")
    assert (
        plural("shelf") == "shelves"
        and plural("box") == "boxes"
        and plural("office chair") == "office chairs"
    )


def test_colour_names_cover_what_perception_writes():
    rng = np.random.default_rng(0)
    written = {color_name(tuple(int(v) for v in rgb)) for rgb in rng.integers(0, 256, size=(3000, 3))}
    assert written <= set(COLOR_NAMES) and len(written) >= 15
    assert colour_words("A dark grey and silver lamp.") == ["light gray", "dark gray"]


def test_user_sentences_vary_and_name_the_truth(setup):
    a = setup.analyses[SCENE]
    c = Correction(ErrorKind.LABEL, "41", "printer", "shelf")
    said = {SimulatedUser(setup.vocab).sentence(c, a.robot, random.Random(k)) for k in range(20)}
    assert len(said) >= 3 and all("printer" in s for s in said)
    retry = SimulatedUser(setup.vocab).sentence(c, a.robot, random.Random(0), attempt=1)
    assert retry.endswith("id 41.")
    colour = SimulatedUser(setup.vocab).sentence(
        Correction(ErrorKind.COLOR, "41", "white", "black"), a.robot, random.Random(1)
    )
    assert "white" in colour
    anchor = next(o for o in a.robot if o.category == "chair")  # several chairs: the user must give the id
    support = SimulatedUser(setup.vocab).sentence(
        Correction(ErrorKind.SUPPORT, "41", "chair", "", anchor.id), a.robot, random.Random(2)
    )
    assert f"chair (id {anchor.id})" in support


# ------------------------------------------------------------------------------ the dialogue, real tools
def _label_task(setup):
    return next(
        t
        for t in setup.tasks
        if t.scene_id == SCENE
        and t.transfer is not None
        and [c.kind for c in t.corrections] == [ErrorKind.LABEL]
    )


def test_corrections_go_through_the_real_tools_and_transfer(tmp_path, setup):
    task = _label_task(setup)
    c = task.corrections[0]
    subject = task.question.subject
    script = [
        WRONG,  # the question, before alignment
        act("find_marked_object", plan=["find the marked object", "rename it"]),
        act("update_name", {"item_id_list": [c.pred_id], "new_name_list": [c.truth]}),
        final(f"Thanks, the object {c.pred_id} is now a {c.truth}."),
        act("query_for_objects", {"query": subject}, plan=["query", "answer"]),
        # the question again, after alignment (a count is the graph's: the objects the query found)
        *([] if task.category == "Numeric" else [right_answer(task.question)]),
        WRONG,  # transfer: init (uncorrected graph, no knowledge)
        right_answer(task.transfer),  # transfer: in-context baseline
        right_answer(task.transfer),  # transfer: ours (the aligned graph)
    ]
    llm = ScriptedModel(script)
    robot, baseline = SceneStore(tmp_path / ROBOT_STORE), SceneStore(tmp_path / BASELINE_STORE)
    try:
        record = AlignmentRunner(setup, llm, robot, baseline, max_turns=4).run_task(task)
        assert "error" not in record and llm.remaining == 0
        assert record["init_correct"] is False and record["success"] is True
        assert record["interactions"] == 3 and record["correction_turns"] == 1
        assert record["corrections_applied"] == 1
        said = record["turns"][1]["text"]
        assert record["turns"][1]["marked"] == c.pred_id and c.truth in said
        # each turn keeps the agent's trace: the correction turn ran update_name on the marked object
        steps = [t for t in record["turns"][1]["trace"] if t["type"] == "action"]
        assert "update_name" in [t["action"] for t in steps]
        assert json.loads(json.dumps(record))["turns"][0]["trace"][0]["type"] == "plan"
        assert any(said.startswith(t.split("{")[0]) for t in LABEL_TEMPLATES)
        # the edit log: the user's own sentence, through update_name
        (edit,) = robot.edits(task.id)
        assert (str(edit.actor), edit.op, edit.utterance) == ("user", "update_name", said)
        assert robot.load(task.id).get(c.pred_id).category == c.truth
        # the re-asked question's observation shows the corrected label
        observation = next(t["observation"] for t in record["turns"][2]["trace"] if t["type"] == "action")
        assert f"{c.truth} (id: {c.pred_id})" in observation
        # transfer: in-context on the second store, uncorrected, knowledge only as text
        transfer = record["transfer"]
        assert (transfer["init"], transfer["in_context"], transfer["ours"]) == (False, True, True)
        assert baseline.load(task.id).get(c.pred_id).category == c.perceived
        assert baseline.edits(task.id) == []
        init_req, ctx_req, ours_req = llm.requests[-3:]
        knowledge = knowledge_text(task)
        assert f"The object with id {c.pred_id} is a {c.truth}" in knowledge
        assert any(knowledge in m["content"] for m in ctx_req.messages if m["role"] == "user")
        for req in (init_req, ours_req):
            assert not any(knowledge in m["content"] for m in req.messages)
        assert ctx_req.messages[-1]["content"].endswith(task.transfer.text)
    finally:
        robot.close()
        baseline.close()


def test_unapplied_correction_is_repeated_then_reasked(tmp_path, setup):
    task = _label_task(setup)
    llm = ScriptedModel([WRONG] * 6)  # the agent never edits: 1 question, 2 corrections, 1 re-ask
    robot, baseline = SceneStore(tmp_path / "r.sqlite3"), SceneStore(tmp_path / "b.sqlite3")
    try:
        runner = AlignmentRunner(setup, llm, robot, baseline, max_turns=2)
        record = runner.run_task(task)
    finally:
        robot.close()
        baseline.close()
    assert record["correction_turns"] == 2 and record["interactions"] == 4 and record["success"] is False
    first, second = record["turns"][1]["text"], record["turns"][2]["text"]
    assert not first.endswith(f"id {task.objects[0]}.") and second.endswith(f"id {task.objects[0]}.")
    # the transfer ran out of script: a failed model call is an error (left out of the figures, retried
    # on resume), never an apology scored as the agent's answer
    assert "script exhausted" in record["error"] and "transfer" not in record
    with pytest.raises(SceneError, match="max_turns"):
        AlignmentRunner(setup, llm, robot, baseline, max_turns=0)


# ----------------------------------------------------------------------------------------------- metrics
def test_mean_ci_and_table3():
    assert mean_ci([]) == (None, None) and mean_ci([2.0]) == (2.0, None)
    m, h = mean_ci([0.0, 1.0, 1.0, 0.0])
    assert m == 0.5 and h == pytest.approx(1.96 * 0.57735 / 2, rel=1e-4)
    rows = [
        {
            "init_correct": False,
            "success": True,
            "interactions": 3,
            "actions_per_interaction": 2.0,
            "query_ratio": 0.03,
        },
        {
            "init_correct": True,
            "success": True,
            "interactions": 1,
            "actions_per_interaction": 4.0,
            "query_ratio": 0.01,
        },
    ]
    t = table3(rows)
    assert (t["tasks"], t["SR_init"], t["SR"], t["interactions_per_task"]) == (2, 50.0, 100.0, 2.0)
    assert t["actions_per_interaction"] == 3.0 and t["query_ratio"] == pytest.approx(2.0)
    assert t["SR_ci95"] == 0.0 and t["SR_init_ci95"] > 0


def test_table_a2_mapping(setup):
    assert len(TABLE_A2) == 42
    by_id = {(t.scene_id, t.task): t for t in TABLE_A2}
    truth = setup.analyses["scene0011_00"].truth
    tables = paper_question(by_id[("scene0011_00", "t3")], truth)
    assert tables is not None and tables.kind == "count" and tables.expected == (("2",),)
    material = by_id[("scene0011_00", "t1")]
    assert paper_question(material, truth) is None and "material" in why_uncheckable(material)
    assert "shape" in why_uncheckable(by_id[("scene0050_00", "t1")])
    assert {t.scene_id for t in setup.paper_tasks} == {SCENE, "scene0011_00"}


# --------------------------------------------------------------------------------------------------- CLI
def _cli(argv: list[str]) -> int:
    return main(["eval", "alignment", *argv])


def test_cli_json_shape_and_resume(tmp_path, paths, capsys):
    script = tmp_path / "script.json"
    script.write_text(json.dumps([WRONG] * 40))
    out = tmp_path / "run"
    argv = [
        "--questions",
        str(paths["questions"]),
        "--objects",
        str(paths["objects"]),
        "--pred-objects",
        str(paths["pred"]),
        "--scenes",
        SCENE,
        "--limit",
        "1",
        "--max-turns",
        "1",
        "--out",
        str(out),
        "--llm",
        f"scripted:{script}",
        "--json",
    ]
    assert _cli(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {
        "tasks",
        "SR_init",
        "SR",
        "interactions_per_task",
        "actions_per_interaction",
        "query_ratio",
        "easy",
        "hard",
        "transfer",
        "table_a2",
    }
    assert data["tasks"] == 1 and data["SR_init"] == 0.0 and data["SR"] == 0.0 and data["errors"] == 0
    assert data["interactions_per_task"] == 3.0  # question, one correction (--max-turns 1), re-ask
    assert set(data["transfer"]) >= {"ours", "in_context", "init", "tasks"}
    assert len(data["table_a2"]) == 6 and sum(r["checkable"] for r in data["table_a2"]) == 5
    assert all(r["correct"] is False for r in data["table_a2"] if r["checkable"])
    assert (out / "report.md").read_text().startswith("# Perception alignment")
    assert json.loads((out / "metrics.json").read_text())["tasks"] == 1
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 1 + 6
    # a rerun resumes: nothing left to ask, so an empty script is enough
    script.write_text("[]")
    assert _cli(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["errors"] == 0 and again["model_errors"] == 0 and again["tasks"] == 1
    assert len((out / "results.jsonl").read_text().splitlines()) == len(lines)
    assert _cli([*argv[:-5], "--max-turns", "0", "--json"]) == 2
    assert "--max-turns must be >= 1" in capsys.readouterr().err


def test_metrics_leave_errors_out():
    results = [
        {
            "suite": "alignment",
            "difficulty": "easy",
            "category": "Numeric",
            "init_correct": False,
            "success": True,
            "interactions": 3,
            "actions_per_interaction": 2.0,
            "query_ratio": 0.02,
            "transfer": {"init": False, "in_context": False, "ours": True},
        },
        {"suite": "alignment", "difficulty": "hard", "category": "Spatial", "error": "model down"},
    ]
    m = alignment_metrics(results, {"scenes": 1})
    assert m["tasks"] == 1 and m["errors"] == 1 and m["SR"] == 100.0
    assert m["transfer"]["ours"] == 100.0 and m["transfer"]["in_context"] == 0.0
    assert m["hard"]["tasks"] == 0 and m["matching"] == {"scenes": 1}
