"""The model-call log: one valid JSON line per call, turns, system prompts and schemas written once."""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from synergai.agent.progress import StagedModel
from synergai.llm import ScriptedModel
from synergai.llm import trace as trace_module
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


def test_each_log_numbers_its_own_turns_under_its_run_and_threads_keep_their_own(tmp_path: Path) -> None:
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
    lines = [json.loads(x) for x in path.read_text().splitlines()[2:]]  # the cut-off line stays its own
    assert sorted((x["turn"], x["question"] == x["messages"][0]["content"]) for x in lines) == [
        (1, True), (2, True)]
    assert {x["run"] for x in lines} == {log.run}


def _trace_calls(path: str, label: str, calls: int, ready: Any) -> None:
    """One process tracing ``calls`` calls of one turn each (long lines) into ``path``, once the other
    process has opened the file too."""
    model = TracedModel(ScriptedModel([label * 5000] * calls), TraceLog(Path(path)))
    ready.wait(30)
    for k in range(calls):
        begin_turn(model, f"{label}{k}")
        model.chat([{"role": "user", "content": label * 20000}])


def test_two_processes_tracing_into_one_file_keep_every_call_apart(tmp_path: Path) -> None:
    """Two processes' turns never share a number in `trace show`, and no line is torn (issue 42)."""
    from synergai.cli.trace_cmd import read_trace

    path = tmp_path / "t.jsonl"
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Barrier(2)
    workers = [ctx.Process(target=_trace_calls, args=(str(path), label, 15, ready)) for label in "ab"]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0]
    trace = read_trace(path.read_text().splitlines())
    assert not trace.skipped
    assert len(trace.turns) == 30 and all(len(calls) == 1 for calls in trace.turns.values())
    assert sorted(c[0]["question"] for c in trace.turns.values()) == sorted(
        f"{label}{k}" for label in "ab" for k in range(15))


@pytest.mark.parametrize("device", ["fifo", "/dev/null", "/dev/zero"])
def test_a_trace_path_that_is_not_a_regular_file_is_refused_at_once(tmp_path: Path, device: str) -> None:
    path = Path(device)
    if device == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
    with pytest.raises(ValueError, match="not a regular file"):
        TraceLog(path)  # a FIFO nobody reads would make a plain open wait forever


def test_opening_a_trace_reads_nothing_of_the_file(tmp_path: Path) -> None:
    """A big existing trace (here 64 MB with no newline) is appended to without being read."""
    path = tmp_path / "t.jsonl"
    with path.open("wb") as f:
        f.truncate(64 << 20)
    tracemalloc.start()
    try:
        log = TraceLog(path)
        TracedModel(ScriptedModel(["ok"]), log).chat([{"role": "user", "content": "hi"}])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20
    with path.open("rb") as f:
        f.seek(64 << 20)
        assert f.read(1) == b"\n" and json.loads(f.readline())["reply"] == "ok"


def test_a_write_that_fails_is_reported_once_naming_the_file_and_the_call_still_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "t.jsonl"
    model = TracedModel(ScriptedModel(["one", "two"]), TraceLog(path))

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(trace_module, "_append", full)
    assert model.chat([{"role": "user", "content": "a"}]).text == "one"
    assert model.chat([{"role": "user", "content": "b"}]).text == "two"
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and str(path) in warnings[0] and "No space left on device" in warnings[0]


def test_a_path_that_cannot_be_written_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="directory"):
        check_trace_path(tmp_path)
    with pytest.raises(ValueError, match="cannot write the trace file"):
        TraceLog(tmp_path / "missing" / "t.jsonl")
