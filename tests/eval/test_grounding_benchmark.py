"""`synergai eval grounding`: oracle and model modes, resumable results, the metrics' keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synergai.cli.main import main
from synergai.eval.grounding import grounding_metrics, oracle_expression, run_grounding
from synergai.llm import ScriptedModel


def _objects(path: Path) -> Path:
    objs = [
        {"id": 1, "label": "door", "center_position": [0, 0, 1], "size": [1, 0.1, 2]},
        {"id": 2, "label": "chair", "center_position": [1, 1, 0.45], "size": [0.5, 0.5, 0.9]},
        {"id": 3, "label": "chair", "center_position": [4, 3, 0.45], "size": [0.5, 0.5, 0.9]},
        {"id": 4, "label": "bed", "center_position": [6, 6, 0.3], "size": [2, 1.6, 0.6]},
    ]
    path.write_text(json.dumps({"scenes": {"sc": objs}, "scene_type": {"sc": "Bedroom"}}))
    return path


RECORDS = [
    {"scene_id": "sc", "target_id": 2, "target_label": "chair", "relation": "closest", "anchor_ids": [1],
     "anchor_labels": ["door"], "distractor_ids": [3], "utterance": "the chair closest to the door"},
    {"scene_id": "sc", "target_id": 3, "target_label": "chair", "relation": "farthest", "anchor_ids": [1],
     "anchor_labels": ["door"], "distractor_ids": [2], "utterance": "the chair farthest from the door"},
]


def _reply(relation: str) -> str:
    return json.dumps({"category": "chair", "attributes": [], "superlative": "", "relations": [
        {"relation": relation, "anchors": [{"category": "door", "attributes": [], "superlative": "",
                                           "relations": []}]}]})


def test_oracle_uses_the_structured_fields_not_the_wording() -> None:
    rec = dict(RECORDS[0], utterance="gibberish that names nothing")
    ref = oracle_expression(rec)
    assert ref.category == "chair" and ref.relations[0].relation == "closest to"
    assert [a.category for a in ref.relations[0].anchors] == ["door"]


def test_oracle_run_scores_and_resumes(tmp_path: Path) -> None:
    objects = _objects(tmp_path / "objects.json")
    res = run_grounding(RECORDS, objects, None, tmp_path / "out", progress=False)
    assert [r["correct"] for r in res] == [True, True]
    assert len((tmp_path / "out" / "results.jsonl").read_text().splitlines()) == 2
    again = run_grounding(RECORDS, objects, None, tmp_path / "out", progress=False)  # nothing left to do
    assert again == res
    m = grounding_metrics(res)
    assert m["accuracy"] == 1.0 and m["llm_calls_per_question"] == 0.0
    assert m["by_relation"] == {"closest": {"n": 1, "accuracy": 1.0}, "farthest": {"n": 1, "accuracy": 1.0}}


def test_model_run_counts_calls_and_a_wrong_parse_is_wrong(tmp_path: Path) -> None:
    objects = _objects(tmp_path / "objects.json")
    model = ScriptedModel([_reply("closest to"), _reply("closest to")])  # second parse is wrong
    res = run_grounding(RECORDS, objects, model, tmp_path / "out", progress=False)
    assert [r["correct"] for r in res] == [True, False]
    assert all(r["llm_calls"] == 1 and r["new_prompt_tokens"] > 0 for r in res)
    assert "Description: the chair closest to the door" in model.requests[0].messages[1]["content"]
    m = grounding_metrics(res)
    assert m["accuracy"] == 0.5 and m["llm_calls_per_question"] == 1.0 and m["mean_new_prompt_tokens"] > 0


def test_cli_json_keys_and_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    objects = _objects(tmp_path / "objects.json")
    utt = tmp_path / "utt.json"
    utt.write_text(json.dumps(RECORDS))
    code = main(["eval", "grounding", "--utterances", str(utt), "--objects", str(objects), "--oracle",
                 "--out", str(tmp_path / "o"), "--json", "--limit", "1"])
    assert code == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # one line of JSON
    data = json.loads(out)
    assert {"n", "accuracy", "by_relation", "llm_calls_per_question", "mean_new_prompt_tokens",
            "median_latency_s"} <= set(data)
    assert data["n"] == 1 and data["accuracy"] == 1.0
    assert (tmp_path / "o" / "report.md").exists()
    script = tmp_path / "script.json"
    script.write_text(json.dumps([_reply("closest to"), _reply("farthest from")]))
    code = main(["eval", "grounding", "--utterances", str(utt), "--objects", str(objects), "--llm",
                 f"scripted:{script}", "--out", str(tmp_path / "m"), "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["accuracy"] == 1.0
    utt.write_text(json.dumps([{"scene_id": "sc"}]))
    code = main(["eval", "grounding", "--utterances", str(utt), "--objects", str(objects), "--oracle",
                 "--out", str(tmp_path / "x")])
    assert code == 2 and "lacks" in capsys.readouterr().err


def test_nr3d_labels_add_the_referit3d_buckets() -> None:
    from synergai.eval.grounding import breakdown, grounding_metrics

    assert breakdown("hard-view-dependent") == ("hard", "view-dependent")
    assert breakdown("closest") == () and breakdown("supported-by") == ()
    row = {"llm_calls": 1, "new_prompt_tokens": 20, "completion_tokens": 40, "latency_s": 1.0,
           "expression": {}, "tied": 1}
    results = [{**row, "relation": "easy-view-dependent", "correct": True},
               {**row, "relation": "hard-view-dependent", "correct": False},
               {**row, "relation": "hard-view-independent", "correct": True}]
    buckets = grounding_metrics(results)["by_bucket"]
    assert buckets["easy"] == {"n": 1, "accuracy": 1.0} and buckets["hard"] == {"n": 2, "accuracy": 0.5}
    assert buckets["view-dependent"] == {"n": 2, "accuracy": 0.5}
    assert buckets["view-independent"] == {"n": 1, "accuracy": 1.0}
    assert grounding_metrics([{**row, "relation": "closest", "correct": True}])["by_bucket"] == {}
