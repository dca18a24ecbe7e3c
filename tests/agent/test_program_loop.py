"""Think-Program-reCtify with a scripted model: error -> rectify -> answer, parse errors, summarization."""

from __future__ import annotations

import json
import subprocess
import sys

from agent_scripting import room

from synergai.agent.program.loop import (
    NOT_COMPUTED,
    ProgramLimits,
    ProgramLoop,
    loose_final,
    parse_reply,
    scene_summary,
)
from synergai.eval.program_stats import program_error_classes, program_stats
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
            program("chairs = filter(object_set=scene(), category='chair')\nprint(len(chairs) / 0)"),
            program("chairs = filter(object_set=scene(), category='chair')\nprint(len(chairs))"),
            answer("two"),
        ]
    )
    result = ProgramLoop(llm).run(room(), "How many chairs are there?", "I am facing the table.", NORTH)
    assert result.answer == "two" and result.short_answer == "2" and result.usage.calls == 3
    assert result.answer_form == "number" and result.error is None
    programs = [t for t in result.trace if t["type"] == "program"]
    assert [p["ok"] for p in programs] == [False, True]
    assert programs[0]["error"].startswith("ZeroDivisionError:") and programs[0]["stage"] == "sandbox"
    assert programs[1]["stdout"].strip() == "2"
    # the rectify prompt carried the error's last line; the observation carried the output
    assert llm.requests[1].messages[-1]["content"].startswith("Program executing error.")
    assert "ZeroDivisionError" in llm.requests[1].messages[-1]["content"]
    # the question's answer form was named in the first prompt
    assert "Answer with: a number." in llm.requests[0].messages[1]["content"]
    # the output came back with the request for the answer, under the answer's small token budget
    assert llm.requests[2].messages[-1]["content"] == "Observation: 2\nGive your Final Answer now."
    assert [r.max_tokens for r in llm.requests] == [300, 300, 100]
    # the scene summary and situation were prepended as in the paper
    first_user = llm.requests[0].messages[1]["content"]
    assert first_user.startswith("I am in a room. Looking around me, I see some objects: 2 chair")
    assert "My situation: I am facing the table." in first_user
    stats = program_stats([result.to_dict()])
    assert stats == {"questions": 1, "from_graph": 0, "programs": 2, "pass_rate": 100.0, "programs_ok": 50.0,
                     "mean_rounds": 3.0}


def test_a_repeated_failing_program_is_not_run_again_and_a_second_repeat_ends_the_rounds():
    bad = program("chairs = filter(object_set=scene(), category='chair')\nprint(chairs[0] / 0)")
    llm = ScriptedModel([bad, bad, bad, answer("chair")])
    result = ProgramLoop(llm).run(room(), "What is left of me?", viewpoint=NORTH)
    programs = [t for t in result.trace if t["type"] == "program"]
    assert len(programs) == 1 and programs[0]["error"].startswith("TypeError: unsupported operand")
    # the conversation starts over from the question (the model copied the program it could see), told
    # what failed
    again = llm.requests[2].messages
    assert [m["role"] for m in again] == ["system", "user"] and again[0] == llm.requests[0].messages[0]
    assert again[1]["content"].startswith(llm.requests[0].messages[1]["content"] + "\n")
    told = again[1]["content"]
    assert "Your first program for this question failed with: TypeError: unsupported operand" in told
    assert "print(chairs[0] / 0)" not in again[1]["content"]
    # greedy decoding would write it again: the call after a repeat is sampled, the others are greedy
    assert [r.temperature for r in llm.requests] == [0.0, 0.0, 0.7]
    # the third copy ended the rounds; no program ever printed, so nothing is guessed: the answer says
    # it could not be computed and the result keeps the error
    assert result.usage.calls == 3 and llm.remaining == 1
    assert result.answer == NOT_COMPUTED and result.error.startswith("TypeError: unsupported operand")
    assert program_error_classes([result.to_dict()]) == {"not-computed": 1, "sandbox:TypeError": 1}
    stats = program_stats([result.to_dict(), {"trace": [], "llm_calls": 1}])
    assert stats["pass_rate"] == 0.0 and stats["questions"] == 2 and stats["mean_rounds"] == 2.0


def test_out_of_rounds_a_choice_is_asked_among_the_questions_options():
    llm = ScriptedModel([program("print(len(filter(object_set=scene(), category='chair')))"),
                         '{"thought": "2 is even", "answer": "even"}'])
    result = ProgramLoop(llm, ProgramLimits(max_rounds=1)).run(room(), "Is the number of chairs odd or even?",
                                                               viewpoint=NORTH)
    assert llm.requests[-1].json_schema["properties"]["answer"] == {"type": "string", "enum": ["odd", "even"]}
    assert result.short_answer == "even" and result.answer_form == "choice"


def test_out_of_rounds_after_output_the_answer_is_asked_as_typed_json():
    llm = ScriptedModel([program("print(len(filter(object_set=scene(), category='chair')))"),
                         program("print(len(filter(object_set=scene(), category='chair')) + 0)"),
                         '{"thought": "two chairs", "answer": "no"}'])
    limits = ProgramLimits(max_rounds=2, answer_after_output=False)  # both programs run, then no round left
    result = ProgramLoop(llm, limits).run(room(), "Is the number of chairs odd?", viewpoint=NORTH)
    assert len([t for t in result.trace if t["type"] == "program"]) == 2
    assert result.answer == "no" and result.short_answer == "no" and result.error is None
    last = llm.requests[-1]
    assert last.json_schema["properties"]["answer"] == {"type": "string", "enum": ["yes", "no"]}
    assert "give your final answer as JSON" in last.messages[-1]["content"]
    assert result.trace[-1]["summarized"] is True


def test_a_long_output_is_cut_before_it_reaches_the_model():
    llm = ScriptedModel([program("print('x' * 5000)"), answer("nothing")])
    loop = ProgramLoop(llm, ProgramLimits(max_observation_chars=100))
    loop.run(room(), "What is left of me?", viewpoint=NORTH)
    shown = llm.requests[1].messages[-1]["content"]
    assert shown.startswith("Observation: " + "x" * 100 + " ... [4900 more characters cut")
    assert len(shown) < 200


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
    assert result.answer == NOT_COMPUTED and result.error.startswith("TimeoutError")
    assert result.usage.calls == 2 and llm.remaining == 1


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


def test_sqa3d_metrics_report_new_tokens_question_types_answer_forms_and_error_classes():
    from synergai.eval.sqa3d import sqa3d_metrics

    ok = {"type": "program", "ok": True, "stdout": "2", "error": None, "stage": "sandbox"}
    checked = {"type": "program", "ok": False, "stdout": "", "error": "CheckError: ...", "stage": "check",
               "findings": ["relation", "category"]}
    crashed = {"type": "program", "ok": False, "stdout": "", "error": "TypeError: x", "stage": "sandbox"}
    rows = [
        {"answer": "two", "answers": ["two"], "answer_type": "other", "question_type": "how",
         "answer_form": "number", "llm_calls": 3, "latency_s": 10.0, "prompt_tokens": 1000,
         "cached_tokens": 800, "trace": [checked, ok]},
        {"answer": NOT_COMPUTED, "answers": ["yes"], "answer_type": "other", "question_type": "is",
         "answer_form": "yes/no", "llm_calls": 2, "latency_s": 20.0, "prompt_tokens": 600,
         "cached_tokens": 0, "trace": [crashed, {"type": "final", "forced": True}]},
    ]
    m = sqa3d_metrics(rows)
    assert m["mean_new_prompt_tokens"] == 400.0 and m["soft_match"] == 50.0
    assert m["program"]["pass_rate"] == 50.0
    assert m["program_errors"] == {"check:relation": 1, "not-computed": 1, "sandbox:TypeError": 1}
    assert m["program_by_question_type"]["how"]["pass_rate"] == 100.0
    assert m["program_by_question_type"]["is"]["pass_rate"] == 0.0
    assert m["by_answer_form"]["number"]["soft_match"] == 100.0 and m["by_answer_form"]["yes/no"]["n"] == 1


def test_an_answer_given_outside_the_format_is_read_when_it_fits_the_form():
    assert loose_final("Final Answer: two chairs") == "two chairs"
    assert loose_final("Thought: done\n**Final Answer:** no") == "no"
    assert loose_final("2") is None and loose_final("2", bare=True) == "2"
    assert loose_final("I think there are probably quite a lot of chairs here", bare=True) is None
    assert loose_final("```Python\nprint(1)\n```", bare=True) is None
    count = "print(len(filter(object_set=scene(), category='chair')))"
    for said in ("Final Answer: 2", "2"):  # after the output: the answer round
        llm = ScriptedModel([program(count), said])
        result = ProgramLoop(llm).run(room(), "How many chairs are there?", viewpoint=NORTH)
        assert result.usage.calls == 2 and result.short_answer == "2", result.trace
        assert result.trace[-1]["loose"] is True


def test_an_answer_outside_the_format_that_does_not_fit_the_form_is_asked_again_as_json():
    count = "print(len(filter(object_set=scene(), category='chair')))"
    llm = ScriptedModel([program(count), "Final Answer: unknown",
                         '{"thought": "2 is even", "answer": "even"}'])
    result = ProgramLoop(llm).run(room(), "Is the number of chairs odd or even?", viewpoint=NORTH)
    assert result.usage.calls == 3 and result.short_answer == "even" and result.trace[-1]["summarized"]


def _program(code: str) -> str:
    return f"Thought: t.\nAction: Program\nAction Input:\n```Python\n{code}\n```"


def test_the_phases_program_answer_finish_as_the_requests_show_them():
    from synergai.agent.program.loop import Phase

    assert [p.value for p in Phase] == ["program", "answer", "finish", "done"]
    count = "chairs = filter(object_set=scene(), category='chair')\nprint(len(chairs))"
    limits = ProgramLimits()
    # PROGRAM (a failing program) -> PROGRAM (rectified, prints) -> ANSWER (final answer only) -> DONE
    llm = ScriptedModel([_program("print(1 / 0)"), _program(count), "2"])
    result = ProgramLoop(llm, limits).run(room(), "How many chairs are there?")
    budgets = [r.max_tokens for r in llm.requests]
    assert budgets == [limits.max_tokens, limits.max_tokens, limits.answer_tokens]
    assert result.short_answer == "2"
    # PROGRAM -> ANSWER without an answer -> FINISH: one JSON answer under the form's schema -> DONE
    llm = ScriptedModel([_program(count), "I am not sure what to say here.", '{"thought": "", "answer": 2}'])
    result = ProgramLoop(llm, limits).run(room(), "How many chairs are there?")
    assert llm.requests[-1].json_schema is not None and result.short_answer == "2"
    # a repeated failed program: start over from the question, the next reply sampled; a second repeat
    # ends the rounds in FINISH with nothing seen: not "could not be computed" but the graph's own count,
    # with the program's error kept
    bad = _program("chairs = filter(object_set=scene(), category='chair')\nprint(len(chairs) / 0)")
    llm = ScriptedModel([bad, bad, bad])
    result = ProgramLoop(llm, limits).run(room(), "How many chairs are there?")
    assert [r.temperature for r in llm.requests] == [0.0, 0.0, limits.repeat_temperature]
    chairs = sum(o.category == "chair" for o in room())
    assert len(llm.requests[2].messages) == 2 and result.short_answer == str(chairs) != NOT_COMPUTED
    assert result.answer == f"There are {chairs} chairs." and "ZeroDivisionError" in (result.error or "")
    checks = [t["reason"] for t in result.trace if t["type"] == "answer-check"]
    assert checks == ["no program printed an answer"]
    unchecked = ProgramLoop(ScriptedModel([bad, bad, bad]), ProgramLimits(check_answers=False))
    assert unchecked.run(room(), "How many chairs are there?").answer == NOT_COMPUTED


def test_an_answer_before_any_program_is_sent_back_once_for_a_program():
    llm = ScriptedModel([answer("three"), program("print(len(filter(object_set=scene(), category='chair')))"),
                         answer("two")])
    result = ProgramLoop(llm).run(room(), "How many chairs are there?")
    assert result.short_answer == "2" and result.usage.calls == 3
    assert [t["type"] for t in result.trace][:2] == ["error", "program"]
    assert "write a program that prints what the question needs" in llm.requests[1].messages[-1]["content"]
    # asked twice without a program, the answer is taken (one the room can hold: it has two chairs)
    again = ProgramLoop(ScriptedModel([answer("three"), answer("one")])).run(room(), "How many chairs?")
    assert again.short_answer == "1" and again.usage.calls == 2


def test_a_direction_to_an_object_the_question_names_comes_from_the_graph():
    # from (2, 0) facing +y: the lamp at (3.6, 3.6) is at 1 o'clock, the chair 4 at (1, 2) at 11 o'clock
    silent = ScriptedModel([])
    ahead = ProgramLoop(silent).run(room(), "Which direction is the lamp?", viewpoint=NORTH)
    assert ahead.short_answer == "right" and ahead.usage.calls == 0  # not straight ahead: turn right
    assert any(t.get("from_graph") and t.get("hour") == 1 for t in ahead.trace)
    where = ProgramLoop(silent).run(room(), "Where is the lamp?", viewpoint=NORTH)  # the agent stands here
    assert (where.short_answer, where.answer_form) == ("right", "direction")
    sides = ProgramLoop(silent).run(room(), "Is the chair to my front or back?", viewpoint=NORTH)
    assert sides.short_answer == "front"  # of the directions offered, the nearer to its hour (11)
    # no object named, no place to stand, or turned off: the model is asked
    for question, viewpoint, limits in (("Which direction should I go to leave?", NORTH, None),
                                        ("Which direction is the lamp?", None, None),
                                        ("Where is the lamp?", None, None),
                                        ("Which direction is the lamp?", NORTH,
                                         ProgramLimits(graph_directions=False))):
        asked = ScriptedModel([answer("left"), answer("left")])  # the first is sent back for a program
        result = ProgramLoop(asked, limits).run(room(), question, viewpoint=viewpoint)
        assert asked.requests and not any(t.get("from_graph") for t in result.trace)
    # no program was wanted: not a program that failed (LLM-TPC's pass rate is over the questions asked)
    ran = ProgramLoop(ScriptedModel([program("print(len(scene()))"), answer("8")])).run(
        room(), "How many objects are there?", viewpoint=NORTH)
    stats = program_stats([ahead.to_dict(), sides.to_dict(), ran.to_dict()])
    assert stats["from_graph"] == 2 and stats["pass_rate"] == 100.0 and stats["questions"] == 3
