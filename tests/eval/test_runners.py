"""Benchmark runners end to end with a scripted model: ScanQA, SQA3D, resume after an interruption."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from synergai.agent.loop import LoopLimits
from synergai.agent.program.loop import ProgramLimits
from synergai.eval.answers import em_normal_form
from synergai.eval.metrics import CaptionScorer
from synergai.eval.runner import ResumableRun, RunError, read_results, stride_subset
from synergai.eval.scanqa import run_scanqa, scanqa_metrics
from synergai.eval.sqa3d import run_sqa3d, situated_viewpoint, sqa3d_metrics
from synergai.llm import ScriptedModel
from synergai.llm.base import ChatReply

#: the runners' own behaviour is tested here (scripted answers such as "a"); the check has its own tests
UNCHECKED = LoopLimits(check_answers=False)

def final(answer: str, short: str = "") -> str:
    return json.dumps(
        {
            "plan": ["answer"],
            "thought": "t",
            "action": "final_answer",
            "action_input": {"answer": answer, "short_answer": short, "item_id_list": []},
        }
    )


@pytest.fixture(scope="module")
def scanqa(shared_data):
    return json.loads((shared_data / "scanqa" / "scanqa_val_dev.json").read_text())


@pytest.fixture(scope="module")
def sqa3d(shared_data):
    return json.loads((shared_data / "sqa3d" / "sqa3d_test_dev.json").read_text())


def test_stride_subset_is_fixed_and_spread():
    assert stride_subset(range(10), 3) == [0, 3, 6]
    assert stride_subset(range(4), 10) == [0, 1, 2, 3]
    assert stride_subset(range(4), 0) == []


def test_scanqa_five_questions(tmp_path, scanqa, shared_data):
    subset = stride_subset(sorted(scanqa, key=lambda q: str(q["question_id"])), 5)
    replies = [final(f"It is {q['answers'][0]}.", q["answers"][0]) for q in subset]
    llm = ScriptedModel(replies)
    results = run_scanqa(
        scanqa, shared_data / "scannet" / "objects_gt.json", llm, tmp_path, limit=5, progress=False,
        limits=UNCHECKED,
    )
    assert [r["id"] for r in results] == [str(q["question_id"]) for q in subset]
    m = scanqa_metrics(results)
    assert m["n"] == 5 and m["EM_short"] == 100.0 and m["EM"] == 0.0 and m["EM_R"] == 100.0
    assert m["llm_calls_per_question"] == 1 and m["errors"] == 0
    # the questions share the system prompt: after the first, the model's prefix cache serves it
    assert 0 < m["mean_new_prompt_tokens"] < m["mean_prompt_tokens"]
    assert 0 < m["mean_completion_tokens"] < 60
    assert m["median_harness_s"] > 0  # harness overhead beyond the model, measured (its size: benchmarks)
    assert sum(v["n"] for v in m["by_type"].values()) == 5
    assert len(read_results(tmp_path / "results.jsonl")) == 5


def test_scanqa_resumes_after_an_interruption(tmp_path, scanqa, shared_data):
    objects = shared_data / "scannet" / "objects_gt.json"

    class Interrupting(ScriptedModel):
        def chat(self, messages, **kw) -> ChatReply:
            if len(self.requests) == 3:
                raise KeyboardInterrupt
            return super().chat(messages, **kw)

    with pytest.raises(KeyboardInterrupt):
        run_scanqa(scanqa, objects, Interrupting([final("a", "a")] * 5), tmp_path, limit=5, progress=False,
                   limits=UNCHECKED)
    assert len(read_results(tmp_path / "results.jsonl")) == 3
    second = ScriptedModel([final("b", "b")] * 2)
    results = run_scanqa(scanqa, objects, second, tmp_path, limit=5, progress=False, limits=UNCHECKED)
    assert len(results) == 5 and second.remaining == 0
    assert [r["short"] for r in results] == ["a", "a", "a", "b", "b"]


def test_torn_last_line_is_dropped_and_repaired(tmp_path):
    run = ResumableRun(tmp_path)
    run.append({"id": "1", "answer": "x"})
    with (tmp_path / "results.jsonl").open("a") as f:
        f.write('{"id": "2", "ans')
    run = ResumableRun(tmp_path)
    assert run.done_ids() == {"1"}
    run.append({"id": "2", "answer": "y"})
    assert [r["id"] for r in run.results()] == ["1", "2"]


def test_a_run_with_other_settings_is_not_resumed_into(tmp_path):
    ResumableRun(tmp_path, {"benchmark": "sqa3d", "mode": "react", "llm": "m"}).append({"id": "1"})
    assert json.loads((tmp_path / "run.json").read_text())["mode"] == "react"
    with pytest.raises(RunError, match="mode: 'react' there, 'program' now"):
        ResumableRun(tmp_path, {"benchmark": "sqa3d", "mode": "program", "llm": "m"})
    again = ResumableRun(tmp_path, {"benchmark": "sqa3d", "mode": "react", "llm": "m"})
    assert again.done_ids() == {"1"}
    (tmp_path / "run.json").write_text("[1")
    with pytest.raises(RunError, match="unreadable run settings"):
        ResumableRun(tmp_path, {"benchmark": "sqa3d"})


def test_scanqa_refuses_to_mix_models_in_one_directory(tmp_path, scanqa, shared_data):
    objects = shared_data / "scannet" / "objects_gt.json"
    run_scanqa(scanqa, objects, ScriptedModel([final("a", "a")], name="one"), tmp_path, limit=1,
               progress=False, limits=UNCHECKED)
    with pytest.raises(RunError, match="llm: 'one' there, 'two' now"):
        run_scanqa(scanqa, objects, ScriptedModel([final("b", "b")], name="two"), tmp_path, limit=1,
                   progress=False, limits=UNCHECKED)
    assert [r["answer"] for r in read_results(tmp_path / "results.jsonl")] == ["a"]


def test_sqa3d_program_mode_five_questions(tmp_path, sqa3d, shared_data):
    alignments = json.loads((shared_data / "scannet" / "axis_alignment_matrices.json").read_text())
    program = "Thought: count.\nAction: Program\nAction Input:\n```Python\nprint(len(scene()))\n```"
    replies = []
    for _ in range(5):
        replies += [program, "Thought: ok.\nAction: Final Answer\nAction Input: chair"]
    results = run_sqa3d(
        sqa3d,
        shared_data / "scannet" / "objects_gt.json",
        alignments,
        ScriptedModel(replies),
        tmp_path,
        mode="program",
        limit=5,
        progress=False,
        program_limits=ProgramLimits(check_answers=False),  # one scripted program for any question
    )
    assert len(results) == 5 and all(r["answer"] == "chair" for r in results)
    m = sqa3d_metrics(results)
    assert m["program"] == {"questions": 5, "from_graph": 0, "programs": 5, "pass_rate": 100.0,
                            "programs_ok": 100.0, "mean_rounds": 2.0}
    assert sum(v["n"] for v in m["by_answer_type"].values()) == 5
    assert 0 <= m["soft_match"] <= 100 and m["strict_match"] <= m["soft_match"]
    assert m["mean_completion_tokens"] > 0
    # every program limit is kept with the run, so a run under other limits is never resumed into
    limits = json.loads((tmp_path / "run.json").read_text())["program_limits"]
    assert limits["max_rounds"] == 4 and limits["answer_after_output"] is True and "sandbox" in limits
    with pytest.raises(RunError, match="program_limits"):
        run_sqa3d(sqa3d, shared_data / "scannet" / "objects_gt.json", alignments, ScriptedModel([]), tmp_path,
                  mode="program", limit=5, progress=False, program_limits=ProgramLimits(max_rounds=6))


def test_situated_viewpoint_lies_inside_the_scene(sqa3d, shared_data):
    from synergai.scene.build import build_graph
    from synergai.scene.builders.objects_json import load_objects_file

    objects = load_objects_file(shared_data / "scannet" / "objects_gt.json")
    alignments = json.loads((shared_data / "scannet" / "axis_alignment_matrices.json").read_text())
    inside = 0
    sample = sqa3d[::50]
    for q in sample:
        g = build_graph(q["scene_id"], objects.objects(q["scene_id"]))
        vp = situated_viewpoint(q, g, alignments[q["scene_id"]])
        b = g.box_array()
        lo, hi = b.mins.min(axis=0), b.maxs.max(axis=0)
        inside += bool(
            lo[0] - 0.3 <= vp.position[0] <= hi[0] + 0.3 and lo[1] - 0.3 <= vp.position[1] <= hi[1] + 0.3
        )
    assert inside >= 0.9 * len(sample)


def test_eval_scanqa_cli_json(tmp_path, shared_data):
    script = tmp_path / "script.json"
    script.write_text(json.dumps([final("The chair is brown.", "brown")] * 2))
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "synergai",
            "eval",
            "scanqa",
            "--questions",
            str(shared_data / "scanqa" / "scanqa_val_dev.json"),
            "--objects",
            str(shared_data / "scannet" / "objects_gt.json"),
            "--limit",
            "2",
            "--llm",
            f"scripted:{script}",
            "--out",
            str(tmp_path / "out"),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    for key in (
        "n",
        "EM",
        "EM_R",
        "BLEU-1",
        "BLEU-4",
        "METEOR",
        "ROUGE-L",
        "CIDEr",
        "llm_calls_per_question",
        "query_ratio",
        "median_latency_s",
        "mean_new_prompt_tokens",
    ):
        assert key in data
    assert data["n"] == 2 and 0 <= data["METEOR"] <= 100
    for name in ("results.jsonl", "metrics.json", "report.md", "by_type.png"):
        assert (tmp_path / "out" / name).exists()


def test_eval_sqa3d_cli_keeps_each_mode_in_its_own_directory(tmp_path, shared_data):
    script = tmp_path / "script.json"
    script.write_text(json.dumps([final("a chair", "chair")]))
    r = subprocess.run(
        [sys.executable, "-m", "synergai", "eval", "sqa3d",
         "--questions", str(shared_data / "sqa3d" / "sqa3d_test_dev.json"),
         "--objects", str(shared_data / "scannet" / "objects_gt.json"),
         "--mode", "react", "--limit", "1", "--llm", f"scripted:{script}", "--json"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["n"] == 1
    out = tmp_path / "benchmarks" / "results" / "sqa3d_react"
    assert json.loads((out / "run.json").read_text())["mode"] == "react"
    assert len(read_results(out / "results.jsonl")) == 1
    assert not (tmp_path / "benchmarks" / "results" / "sqa3d_program").exists()


def test_report_tables_show_the_query_ratio_as_a_percentage():
    from synergai.eval.report import format_figure, markdown_report

    assert format_figure("query_ratio", 0.030254) == "3.03 %"
    assert format_figure("EM", 7.5) == "7.50" and format_figure("n", 200) == "200"
    by_type = {"Color": {"n": 2, "query_ratio": 0.1}}
    text = markdown_report("ScanQA", {"n": 2, "query_ratio": 0.0412, "by_type": by_type})
    assert "| query_ratio | 4.12 % |" in text and "| Color | 2 | 10.00 % |" in text


def test_scanqa_short_answers_are_also_scored_as_em_reads_them():
    # ScanQA's references carry no articles: "the towel" scores below "towel" as written, alike once both
    # are in the normal form EM reads (as LEO's ScanQA evaluator scores); the raw figure stays as it was
    golds = [["towel"], ["brown chair"], ["next to desk"], ["2"], ["white"]]
    said = ["the towel", "a brown chair", "next to the desk", "two", "white"]
    rows = [{"id": str(k), "answers": g, "answer": s, "short": s, "type": "Object", "llm_calls": 1,
             "query_ratio": 0.0, "latency_s": 1.0} for k, (g, s) in enumerate(zip(golds, said, strict=True))]
    m = scanqa_metrics(rows, CaptionScorer(meteor=False, tokenizer="simple"))
    bare = scanqa_metrics([r | {"short": em_normal_form(r["short"])} for r in rows],
                          CaptionScorer(meteor=False, tokenizer="simple"))
    assert m["EM_short"] == 100.0 and m["CIDEr_short"] < m["CIDEr_short_clean"]
    assert m["CIDEr_short_clean"] == pytest.approx(bare["CIDEr_short"])
    assert "CIDEr_short_clean" not in scanqa_metrics(rows)  # no scorer: no caption metrics
