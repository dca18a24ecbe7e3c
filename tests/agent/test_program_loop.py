"""Think-Program-reCtify with a scripted model: error -> rectify -> answer, parse errors, summarization."""

from __future__ import annotations

import json
import subprocess
import sys

from agent_scripting import room

from synergai.agent.program_loop import ProgramLimits, ProgramLoop, parse_reply, program_stats, scene_summary
from synergai.geometry.frames import Viewpoint
from synergai.llm import ScriptedModel

NORTH = Viewpoint((2.0, 0.0, 1.2), (0.0, 1.0, 0.0))


def program(code: str, thought: str = "I will count.") -> str:
    return f"Thought: {thought}\nAction: Program\nAction Input:\n```Python\n{code}\n```"


def answer(text: str) -> str:
    return f"Thought: I know it now.\nAction: Final Answer\nAction Input: {text}"


def test_parse_reply_forms():
    step = parse_reply(program("print(1)"))
    assert (step.kind, step.content, step.thought) == ("program", "print(1)", "I will count.")
    assert parse_reply(answer("two")).content == "two"
    assert (
        parse_reply('Thought: x\nAction: Final Answer\nAction Input: "coffee table"\n').content
        == "coffee table"
    )


def test_scene_summary_leaves_out_structure():
    assert scene_summary(room()) == "2 chair, 1 cup, 1 lamp, 1 table, 1 tv"


def test_error_then_rectify_then_answer():
    llm = ScriptedModel(
        [
            program("chairs = filter(object_set=scene(), categry='chair')\nprint(len(chairs))"),
            program("chairs = filter(object_set=scene(), category='chair')\nprint(len(chairs))"),
            answer("two"),
        ]
    )
    result = ProgramLoop(llm).run(room(), "How many chairs are there?", "I am facing the table.", NORTH)
    assert result.answer == "two" and result.llm_calls == 3
    programs = [t for t in result.trace if t["type"] == "program"]
    assert [p["ok"] for p in programs] == [False, True]
    assert programs[0]["error"].startswith("TypeError:") and "categry" in programs[0]["error"]
    assert programs[1]["stdout"].strip() == "2"
    # the rectify prompt carried the error's last line; the observation carried the output
    assert llm.requests[1].messages[-1]["content"].startswith("Program executing error.")
    assert "categry" in llm.requests[1].messages[-1]["content"]
    assert llm.requests[2].messages[-1]["content"] == "Observation: 2"
    # the scene summary and situation were prepended as in the paper
    first_user = llm.requests[0].messages[1]["content"]
    assert first_user.startswith("I am in a room. Looking around me, I see some objects: 2 chair")
    assert "My situation: I am facing the table." in first_user
    stats = program_stats([result.to_dict()])
    assert stats == {"questions": 1, "programs": 2, "pass_rate": 100.0, "programs_ok": 50.0,
                     "mean_rounds": 3.0}


def test_a_repeated_failing_program_is_not_run_again_and_a_second_repeat_ends_the_rounds():
    bad = program("chairs = filter(object_set=scene(), category='chair')\nprint(chairs[0])")
    llm = ScriptedModel([bad, bad, bad, answer("chair")])
    result = ProgramLoop(llm).run(room(), "What is left of me?", viewpoint=NORTH)
    programs = [t for t in result.trace if t["type"] == "program"]
    assert len(programs) == 1 and "cannot be indexed" in programs[0]["error"]
    told = llm.requests[2].messages[-1]["content"]
    assert told.startswith("This is the program that already failed with: TypeError: a set of objects")
    # the third copy ended the rounds: the next request is the summarization prompt, not a fourth round
    assert "maximum number of chats" in llm.requests[3].messages[-1]["content"]
    assert result.answer == "chair" and result.llm_calls == 4
    stats = program_stats([result.to_dict(), {"trace": [], "llm_calls": 1}])
    assert stats["pass_rate"] == 0.0 and stats["questions"] == 2 and stats["mean_rounds"] == 2.5


def test_empty_output_and_parse_error_are_rectified():
    llm = ScriptedModel(
        [
            program("x = len(scene())"),
            "I think it is a chair.",
            answer("chair"),
        ]
    )
    result = ProgramLoop(llm).run(room(), "What is left of me?", viewpoint=NORTH)
    assert result.answer == "chair"
    assert "printed nothing" in llm.requests[1].messages[-1]["content"]
    assert llm.requests[2].messages[-1]["content"].startswith("Response parsing error.")


def test_hostile_program_is_contained_and_rounds_end_in_summarization():
    llm = ScriptedModel(
        [
            program("import os\nos.system('echo pwned')"),
            program("while True:\n    pass"),
            answer("unknown thing"),
        ]
    )
    limits = ProgramLimits(max_rounds=2)
    result = ProgramLoop(llm, limits).run(room(), "What is behind me?", viewpoint=NORTH)
    errors = [t["error"] for t in result.trace if t["type"] == "program"]
    assert errors[0].startswith("SecurityError") and errors[1].startswith("TimeoutError")
    assert result.answer == "unknown thing"
    assert "maximum number of chats" in llm.requests[-1].messages[-1]["content"]


def test_sandbox_cli_runs_a_program(tmp_path):
    prog = tmp_path / "count.py"
    prog.write_text("print(len(filter(object_set=scene(), category='chair')))\n")
    db = tmp_path / "store.sqlite3"
    out = subprocess.run(
        [sys.executable, "-m", "synergai", "sandbox", "run", str(prog), "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(out.stdout)
    assert data["ok"] is True and int(data["stdout"]) >= 2 and data["error"] is None
    assert set(data) == {"ok", "stdout", "error", "wall_s"}
    prog.write_text("open('/etc/passwd').read()\n")
    out = subprocess.run(
        [sys.executable, "-m", "synergai", "sandbox", "run", str(prog), "--db", str(db), "--json"],
        capture_output=True,
        text=True,
    )
    data = json.loads(out.stdout)
    assert out.returncode == 1 and data["ok"] is False and "open" in data["error"]
