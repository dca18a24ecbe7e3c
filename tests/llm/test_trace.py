"""The model-call log: one valid JSON line per call, turns, system prompts and schemas written once."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from synergai.agent.progress import StagedModel
from synergai.llm import ScriptedModel
from synergai.llm.base import LLMError
from synergai.llm.trace import TracedModel, TraceLog, begin_turn, check_trace_path

SYSTEM = {"role": "system", "content": "You are a robot."}


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_call_is_one_line_with_its_turn_step_reply_and_cost(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    model = TracedModel(ScriptedModel(["one", {"text": "two", "finish_reason": "length"}, "three"]),
                        TraceLog(path))
    schema = {"type": "object"}
    begin_turn(StagedModel(model, lambda _: None), "What is here?")  # through a wrapper that passes it on
    model.chat([SYSTEM, {"role": "user", "content": "hi"}], json_schema=schema, max_tokens=20)
    model.chat([SYSTEM, {"role": "user", "content": "again"}], json_schema=schema, max_tokens=20)
    begin_turn(model, "Next?")
    model.chat([SYSTEM, {"role": "user", "content": "next"}], grammar='root ::= "x"')
    first, second, third = _lines(path)
    assert (first["turn"], first["step"], second["step"], third["turn"], third["step"]) == (1, 1, 2, 2, 1)
    assert first["question"] == "What is here?" and third["question"] == "Next?"
    assert (first["reply"], second["finish_reason"], first["cache_hit"]) == ("one", "length", False)
    assert first["prompt_tokens"] > 0 and first["completion_tokens"] > 0 and first["seconds"] >= 0
    # the system prompt is written once, then named
    assert first["messages"][0]["content"] == "You are a robot."
    assert second["messages"][0] == {"role": "system", "ref": first["messages"][0]["ref"]}
    # the schema and the grammar are named on every line, their text written the first time
    assert first["schema"] == second["schema"] and "schema_text" in first and "schema_text" not in second
    assert third["grammar"].startswith("grammar-") and third["grammar_text"] == 'root ::= "x"'


def test_a_failed_call_is_written_and_raised(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    model = TracedModel(ScriptedModel([]), TraceLog(path))
    with pytest.raises(LLMError):
        model.chat([{"role": "user", "content": "hi"}])
    (line,) = _lines(path)
    assert "exhausted" in line["error"] and "reply" not in line


def test_turns_continue_the_numbers_a_file_holds_and_threads_keep_their_own(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"turn": 4, "messages": []}\n{"cut off')
    log = TraceLog(path)
    model = TracedModel(ScriptedModel(["a", "b"]), log)

    def turn(label: str) -> None:
        begin_turn(model, label)
        model.chat([{"role": "user", "content": label}])

    threads = [threading.Thread(target=turn, args=(q,)) for q in ("x", "y")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = [json.loads(x) for x in path.read_text().splitlines()[2:]]
    assert sorted((x["turn"], x["question"] == x["messages"][0]["content"]) for x in lines) == [
        (5, True), (6, True)]


def test_a_path_that_cannot_be_written_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="directory"):
        check_trace_path(tmp_path)
    with pytest.raises(ValueError, match="cannot write the trace file"):
        TraceLog(tmp_path / "missing" / "t.jsonl")
