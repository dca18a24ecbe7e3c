"""The registered repairs (assignments carried into a repair, names that spell a category) and the check's
hints that name what to use."""

from __future__ import annotations

from agent_scripting import room

from synergai.agent.program.check import check_program
from synergai.agent.program.loop import ProgramLimits, ProgramLoop
from synergai.agent.program.names import carry_definitions
from synergai.llm import ScriptedModel


def test_undefined_name_that_is_a_category_says_how_to_get_one():
    findings = check_program('print(query_attribute(table, "color"))', ["table", "chair"])
    assert findings[0].kind == "undefined-name"
    assert "filter(object_set=scene(), category='table')[0]" in findings[0].hint
    strict = check_program('print(query_attribute(chairs, "color"))', ["table", "chair"], ordered_sets=False)
    assert "next(iter(filter(object_set=scene(), category='chair')))" in strict[0].hint
    other = check_program("print(banana)", ["table"])
    assert "'table'" not in other[0].hint and "assign it before use" in other[0].hint


def test_a_pep701_program_goes_back_with_the_f_string_hint_and_its_repair_runs():
    code = ('chairs = filter(object_set=scene(), category="chair")\n'
            'print(f"{len(chairs)} {"chairs" if len(chairs) > 1 else "chair"}")')
    fixed = code.replace('"chairs" if', "'chairs' if").replace('else "chair"', "else 'chair'")
    llm = ScriptedModel([
        f"Thought: count\nAction: Program\nAction Input:\n```Python\n{code}\n```",
        f"Thought: fix\nAction: Program\nAction Input:\n```Python\n{fixed}\n```",
        "Thought: done\nAction: Final Answer\nAction Input: two",
    ])
    result = ProgramLoop(llm).run(room(), "How many chairs are there?")
    programs = [t for t in result.trace if t["type"] == "program"]
    assert [p["ok"] for p in programs] == [False, True] and programs[0]["findings"] == ["syntax"]
    assert "inside an f-string use the other kind of quotes" in programs[0]["error"]
    assert programs[1]["stdout"].strip() == "2 chairs" and result.short_answer == "2"


def test_assignments_an_earlier_attempt_made_are_carried_into_a_repair_that_dropped_them():
    first = ('object_set = scene()\n'
             'mini_fridges = filter(object_set=object_set, category="mini fridge")\n'
             'print(len(relate(object_set=mini_fridges, reference_object=door, relation="right")))\n')
    repair = ('door = filter(object_set=scene(), category="door")[0]\n'
              'print(len(relate(object_set=mini_fridges, reference_object=door, relation="right")))\n')
    code, names = carry_definitions(repair, [first]) or ("", [])
    assert names == ["object_set", "mini_fridges"]
    assert code.startswith("object_set = scene()\nmini_fridges = filter(") and code.endswith(repair)
    assert check_program(code, ["mini fridge", "door"]) == []
    assert carry_definitions(repair, []) is None  # nothing earlier: the check's hint goes back
    assert carry_definitions("print(banana)", [first]) is None  # never assigned
    assert carry_definitions("print(1)", [first]) is None  # needs nothing


def test_the_loop_runs_a_repair_with_the_carried_assignments_without_another_round():
    first = ('chairs = filter(object_set=scene(), category="chair")\n'
             'print(len(relate(object_set=chairs, reference_object=tabel, relation="near")))')
    repair = ('table = filter(object_set=scene(), category="table")[0]\n'
              'print(len(chairs))')
    llm = ScriptedModel([
        f"Thought: count\nAction: Program\nAction Input:\n```Python\n{first}\n```",
        f"Thought: fix\nAction: Program\nAction Input:\n```Python\n{repair}\n```",
        "Thought: done\nAction: Final Answer\nAction Input: two",
    ])
    result = ProgramLoop(llm).run(room(), "How many chairs are there?")
    programs = [t for t in result.trace if t["type"] == "program"]
    assert [p["ok"] for p in programs] == [False, True] and programs[0]["stage"] == "check"
    assert programs[1]["carried"] == ["chairs"] and programs[1]["stdout"].strip() == "2"


def test_a_program_that_never_takes_the_question_s_objects_runs_as_written():
    # measured on the SQA3D check half, sending it back once gained nothing (36.0 / 36.0 either way)
    ignore = ("Thought: count.\nAction: Program\nAction Input:\n```Python\n"
              "right = relate_agent(object_set=scene(), relation='right')\nprint(len(right))\n```")
    model = ScriptedModel([ignore, "Thought: done\nAction: Final Answer\nAction Input: 3"])
    result = ProgramLoop(model, ProgramLimits(check_answers=False)).run(room(), "How many chairs are right?")
    (program,) = [t for t in result.trace if t["type"] == "program"]
    assert program["stage"] == "sandbox" and program["ok"] and result.usage.calls == 2


def test_a_program_filtering_a_category_the_scene_lacks_runs_and_its_output_goes_back_alone():
    lacking = ("Thought: look.\nAction: Program\nAction Input:\n```Python\n"
               "sofas = filter(object_set=scene(), category='sofa')\nprint('yes' if sofas else 'no')\n```")
    model = ScriptedModel([lacking, "Thought: done\nAction: Final Answer\nAction Input: no"])
    result = ProgramLoop(model).run(room(), "Is there a sofa behind me?")
    programs = [t for t in result.trace if t["type"] == "program"]
    assert len(programs) == 1 and programs[0]["stage"] == "sandbox" and programs[0]["ok"]
    told = model.requests[-1].messages[-1]["content"]
    assert told.startswith("Observation: no") and "sofa" not in told
    assert result.usage.calls == 2 and result.short_answer == "no"

def test_an_answer_given_before_any_program_ran_is_sent_back_once_for_one_that_runs():
    answer = "Thought: there is none.\nAction: Final Answer\nAction Input: no"
    broken = ("Thought: look.\nAction: Program\nAction Input:\n```Python\n"
              "lamp = filter(object_set=scene(), category='sofa')[0]\nprint(lamp.category)\n```")
    fixed = broken.replace("[0]\nprint(lamp.category)", "\nprint('yes' if lamp else 'no')")
    model = ScriptedModel([broken, answer, fixed, answer])
    result = ProgramLoop(model).run(room(), "Is there a sofa behind me?")
    runs = [t for t in result.trace if t["type"] == "program"]
    assert [r["ok"] for r in runs] == [False, True] and "holds 0 objects" in runs[0]["error"]
    assert [t["error"] for t in result.trace if t["type"] == "error"] == ["answered before a program ran"]
    assert result.short_answer == "no" and result.usage.calls == 4
    # when no program runs after it, the answer sent back is the answer (not "could not be computed")
    retries = [broken.replace("look.", f"look {k}.") for k in range(3)]
    model = ScriptedModel([broken, answer, *retries])
    result = ProgramLoop(model).run(room(), "Is there a sofa behind me?")
    assert result.short_answer == "no" and not any(t["ok"] for t in result.trace if t["type"] == "program")
    # sent back once only: a second answer without a program that ran is taken
    model = ScriptedModel([answer, broken, answer])
    result = ProgramLoop(model).run(room(), "Is there a sofa behind me?")
    assert result.short_answer == "no" and result.usage.calls == 3


def test_a_repair_that_reads_a_name_before_assigning_it_gets_the_earlier_assignment():
    first = ("windows = filter(object_set=scene(), category='window')\n"
             "door = relate_agent(windows, 'closest')\n")
    repair = "if len(door) > 0:\n    door = list(door)\n    print(door[0].category)\n"
    fixed, carried = carry_definitions(repair, [first]) or ("", [])
    assert carried == ["windows", "door"] and fixed.endswith(repair)
    assert check_program(fixed, ["window", "door"]) == []


def test_a_category_read_as_a_name_is_defined_when_its_use_has_one_meaning():
    from synergai.agent.program.repairs import define_categories

    counts = {"chair": 3, "sink": 1, "table": 2}
    code = ("for c in chairs:\n    print(c.category)\n"
            "print(query_relation_agent(object=sink))\n"
            "print(query_attribute(table, 'color'))\n")
    fixed, names = define_categories(code, counts) or ("", [])
    assert names == ["chairs", "sink"]  # a set of chairs; the only sink; which table is not guessed
    assert fixed.startswith("chairs = filter(object_set=scene(), category='chair')\n"
                            "sink = filter(object_set=scene(), category='sink')[0]\n")
    # relate() takes a set of references too: there a name is the category's objects, however many
    near, _ = define_categories("print(relate(scene(), table, 'near'))\n", counts) or ("", [])
    assert near.startswith("table = filter(object_set=scene(), category='table')\n")
    assert define_categories("print(len(table), table.category)\n", counts) is None  # used both ways
    unordered, _ = define_categories("print(sink.category)\n", counts, ordered_sets=False) or ("", [])
    assert unordered.startswith("sink = next(iter(filter(object_set=scene(), category='sink')))")
    model = ScriptedModel([
        "Thought: count.\nAction: Program\nAction Input:\n```Python\nprint(len(chairs))\n```",
        "Thought: done\nAction: Final Answer\nAction Input: 2",
    ])
    result = ProgramLoop(model).run(room(), "How many chairs are there?")
    programs = [t for t in result.trace if t["type"] == "program"]
    assert len(programs) == 1 and programs[0]["ok"] and programs[0]["defined"] == ["chairs"]


def _counts_after(cut: str) -> ScriptedModel:
    """A model whose first reply is ``cut`` off by the token budget, then a chair count and its answer."""
    return ScriptedModel([
        {"text": cut, "finish_reason": "length"},
        "Thought: count.\nAction: Program\nAction Input:\n```Python\n"
        "print(len(filter(object_set=scene(), category='chair')))\n```",
        "Thought: done\nAction: Final Answer\nAction Input: 2",
    ])


def test_a_program_cut_off_by_the_token_budget_is_sent_back_as_too_long():
    model = _counts_after("Thought: count.\nAction: Program\nAction Input:\n```Python\n"
                          "chairs = filter(object_set=scene(), category='chair')\nprint(len(chairs), sorted(")
    result = ProgramLoop(model).run(room(), "How many chairs are there?")
    first = next(t for t in result.trace if t["type"] == "program")
    assert first["findings"] == ["cut-off"] and "cut off after" in first["error"]
    assert "never closed" not in model.requests[1].messages[-1]["content"]
    assert result.answer == "2"
    # the cut is a loop greedy decoding repeats: the next reply is sampled
    assert [r.temperature for r in model.requests] == [0.0, ProgramLoop(model).limits.repeat_temperature, 0.0]
    # a cut that still parses (a line repeated up to the budget) runs, prints nothing, and is told the same
    looped = ("Thought: x.\nAction: Program\nAction Input:\n```Python\n"
              + "c = filter(scene(), 'chair')\n" * 30)
    model = _counts_after(looped)
    result = ProgramLoop(model).run(room(), "How many chairs are there?")
    first = next(t for t in result.trace if t["type"] == "program")
    assert first["stage"] == "sandbox" and first["ok"] and not first["stdout"]
    assert "your program was cut off after 300 tokens" in model.requests[1].messages[-1]["content"]
    assert model.requests[1].temperature > 0 and result.answer == "2"


def test_a_reply_cut_off_before_its_action_makes_the_next_one_sampled():
    model = _counts_after("Thought: I need the bed, then the bed, " + "then the bed, " * 40)
    result = ProgramLoop(model).run(room(), "How many chairs are there?")
    assert [r.temperature for r in model.requests] == [0.0, ProgramLoop(model).limits.repeat_temperature, 0.0]
    assert result.answer == "2"
    # and it starts over from the question: the loop is not in the conversation to be copied
    again = model.requests[1].messages
    assert [m["role"] for m in again] == ["system", "user"] and "then the bed" not in again[1]["content"]
    assert again[1]["content"].endswith("was cut off after 300 tokens before its Action: keep the Thought to "
                                        "one short sentence, then write the Action.")


def _first_program(code: str, answer: str, question: str) -> dict:
    """The trace of the first program a model writes (``code``, then ``answer``) for ``question`` in the
    room."""
    model = ScriptedModel([f"Thought: look.\nAction: Program\nAction Input:\n```Python\n{code}```",
                           f"Thought: done\nAction: Final Answer\nAction Input: {answer}"])
    result = ProgramLoop(model).run(room(), question)
    return next(t for t in result.trace if t["type"] == "program")


def test_filter_takes_a_list_of_categories():
    program = _first_program("print(len(filter(object_set=scene(), category=['chair', 'table'])))\n", "3",
                             "How many chairs and tables are there?")
    assert program["ok"] and program["stdout"].strip() == "3"


def test_the_registered_repairs_are_the_documented_ones():
    from pathlib import Path

    from synergai.agent.program.repairs import REPAIRS

    assert REPAIRS == ("carry-definitions", "define-categories")
    docs = (Path(__file__).resolve().parents[2] / "docs" / "overview.md").read_text()
    assert all(f"`{n}`" in docs for n in REPAIRS)


