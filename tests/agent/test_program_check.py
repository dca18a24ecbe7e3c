"""The static check of programs: each class of mistake and the repair hint it yields; what it leaves to
the scene API's own errors, and a scripted repair from such an error."""

from __future__ import annotations

import ast

import pytest
from agent_scripting import room

from synergai.agent.program import loop as program_loop
from synergai.agent.program.check import check_program, repair_hint, sets_as_objects
from synergai.agent.program.loop import API_FACTORY, ProgramLoop
from synergai.agent.program.sandbox import run_program
from synergai.geometry.frames import Viewpoint
from synergai.llm import ScriptedModel
from synergai.scene.serialization import graph_to_dict

CATEGORIES = sorted({o.category for o in room()})  # chair, cup, floor, lamp, table, tv, wall
NORTH = Viewpoint((2.0, 0.0, 1.2), (0.0, 1.0, 0.0))


def findings(code: str, ordered_sets: bool = True) -> list[tuple[str, str]]:
    return [(f.kind, f.render()) for f in check_program(code, CATEGORIES, ordered_sets=ordered_sets)]


def test_a_name_read_before_its_assignment_is_undefined_there() -> None:
    dropped = ("if len(door) > 0:\n    door = list(door)\n    print(door[0].category)\n")
    assert findings(dropped) == [("undefined-name", "line 1: name 'door' is read before it is assigned: "
                                  "assign it first (a line above this one)")]
    assert [k for k, _ in findings("print(n)\nn = 2\n")] == ["undefined-name"]
    assert [k for k, _ in findings("n = n + 1\n")] == ["undefined-name"]  # the value runs first
    fine = ("chairs = filter(scene(), 'chair')\nbest = None\nfor c in chairs:\n    if best is None:\n"
            "        best = c\n    print(best.category)\nn = 0\nfor c in chairs:\n    n += 1\n"
            "if chairs:\n    last = chairs[-1]\nprint(last.category, n, [o.id for o in chairs if o])\n"
            "total = sum(query_attribute(o, 'distance') for o in chairs)\nprint(total)\n")
    assert findings(fine) == []


def test_a_copied_api_signature_is_told_to_call_the_function() -> None:
    copied = ('def relate_agent(object_set: Set[ObjectAttribute], relation: str) -> Set:\n'
              '    """Returns a set of objects that are related to the agent(you) by the relation:\n')
    signature = ("chair = filter(scene(), 'chair')[0]\n"
                 "query_relation_agent(object: ObjectAttribute, candidate_relations: Optional[List[str]])")
    for code, line, name in ((copied, 1, "relate_agent"), (signature, 2, "query_relation_agent")):
        assert findings(code) == [("api-copied", f"line {line}: {name}() already exists: call it with "
                                   "values, do not define it or copy its signature from the documentation "
                                   "(e.g. chairs = filter(object_set=scene(), category='chair'), then print "
                                   "what the question needs)")]
    assert findings("def near(a, b):\n    return 1\nprint(near(1, 2))") == []  # a helper of its own is fine


def test_a_set_of_reference_objects_is_legal_in_relate() -> None:
    code = ("chairs = filter(scene(), 'chair')\n"
            "print(relate(object_set=scene(), reference_object=chairs, relation='near'))")
    assert findings(code) == []


@pytest.mark.parametrize(
    ("code", "kind", "hint_parts"),
    [
        ("print(f'{[o.category for o in scene()]'", "syntax", ["line 1: SyntaxError"]),
        ("t = filter(object_set=scene(), category='table')\nprint(f\"{'a' if t else 'b'\")",
         "syntax", ["line 2", "inside an f-string"]),
        ("print(len(tabels))", "undefined-name", ["name 'tabels' is not defined"]),
        ("tables = scene()\nprint(len(tabels))", "undefined-name", ["did you mean 'tables'?"]),
        ("objs = get_objects(category='chair')\nprint(objs)", "unknown-function",
         ["get_objects() is not an API function", "relate_agent(object_set, relation)"]),
        ("print(query_relations(scene(), 'left'))", "unknown-function", ["did you mean 'query_relation'?"]),
        ("boxes = filter(object_set=scene(), query_attribute(scene()[0], 'color') == 'gray')", "syntax",
         ["positional argument follows keyword argument", "category=lambda obj: <condition>"]),
    ],
)
def test_each_check_class_yields_a_precise_hint(code: str, kind: str, hint_parts: list[str]) -> None:
    found = findings(code)
    assert found, code
    kinds = [k for k, _ in found]
    assert kind in kinds, found
    hint = next(h for k, h in found if k == kind)
    for part in hint_parts:
        assert part in hint, hint


@pytest.mark.parametrize(
    ("code", "error_parts"),
    [
        ("print(filter(object_set=scene(), categry='chair'))", ["unexpected keyword argument 'categry'"]),
        ("t = next(iter(filter(scene(), 'table')))\nprint(relate(scene(), t, 'next_to_it'))",
         ["relation must be one of", "'next to'"]),
        ("print(relate_agent(scene(), 'sitting'))", ["relation must be one of", "'within reach'"]),
        ("c = filter(scene(), 'cup')[0]\nprint(query_attribute(c, 'weight'))",
         ["attribute_type must be one of", "'material'"]),
        ("for c in filter(scene(), 'cup'):\n    print(c.weight)", ["objects have no .weight"]),
    ],
)
def test_a_call_the_scene_api_refuses_is_left_to_the_apis_own_error(code: str, error_parts: list[str]
                                                                     ) -> None:
    assert findings(code) == []  # calls, relations and categories are not checked statically
    outcome = run_program(code, api_factory=API_FACTORY, api_args={"graph": graph_to_dict(room())})
    assert not outcome.ok and all(part in outcome.error for part in error_parts), outcome.error


def test_a_set_where_one_object_is_expected_is_counted_for_the_statistics() -> None:
    code = ("chairs = filter(scene(), 'chair')\nprint(query_attribute(chairs, 'color'), chairs.category)\n"
            "for c in chairs:\n    print(c.category, query_attribute(c, 'color'))")
    assert sets_as_objects(ast.parse(code)) == 2 and findings(code) == []


@pytest.mark.parametrize(
    "code",
    [
        # the documentation's own examples
        "object_set = scene()\nbehind = list(relate_agent(object_set=object_set, relation='behind'))\n"
        "behind.sort(key=lambda x: query_attribute(x, 'distance'))\n"
        "print(f\"Objects directly behind me: {[obj.category for obj in behind][:3]}\")",
        "table_set = filter(object_set=scene(), category='table')\n"
        "table_left_set = relate_agent(object_set=table_set, relation='left')\nobjects_on_table = set()\n"
        "for table in table_left_set:\n"
        "    objects_on_table.update(relate(object_set=scene(), reference_object=table,\n"
        "                                   relation='on top of'))\n"
        "print(f'on the table: {[obj.category for obj in objects_on_table]}')",
        # allowed modules, builtins, own functions, comprehension variables, synonyms of legal values
        "import math\nfrom collections import Counter\n"
        "def dist(o):\n    return math.dist(o.xyz, [0, 0, 0])\n"
        "c = Counter(o.category for o in scene())\nprint(c.most_common(1), min(scene(), key=dist).id)\n"
        "cup = next(iter(filter(scene(), 'cups')))\n"
        "print(query_relation_agent(object=cup, candidate_relations=['left', 'behind', \"o'clock\"]))\n"
        "print(query_attribute(cup, 'color', candidate_attribute_values=['red', 'blue']))\n"
        "print(relate_agent(scene(), 'in front of'), filter(scene(), 'television'))",
        # LLM-TPC's own wording of directions
        "for door in filter(object_set=scene(), category='table'):\n"
        "    where = query_relation_agent(object=door, candidate_relations=['left', 'right', 'forward', "
        "'backward'])\n    print(f\"go {' '.join(where)}\")",
        "shapes = []\nfor t in relate_agent(object_set=filter(scene(), 'table'), relation='right'):\n"
        "    shapes.append(query_attribute(object=t, attribute_type='shape',\n"
        "                                  candidate_attribute_values=['round', 'square']))\nprint(shapes)",
        # a comprehension's variable does not leak into the code after it
        "t = [1, 2]\nnames = [t.category for t in scene()]\nprint(len(t), names)",
        # a variable that shadows an API name is the program's own
        "def relate(a, b):\n    return a + b\nprint(relate(1, 2, ))",
    ],
)
def test_correct_programs_have_no_findings(code: str) -> None:
    assert findings(code) == []


def test_repair_hint_joins_the_first_findings() -> None:
    found = check_program("print(nothing)\nprint(get_chairs())", CATEGORIES)
    text = repair_hint(found)
    assert text.startswith("line 1: name 'nothing' is not defined")
    assert "line 2: get_chairs() is not an API function" in text


def test_a_program_with_an_illegal_relation_is_repaired_from_the_apis_error(monkeypatch) -> None:
    runs: list[str] = []
    real_run = program_loop.run_program

    def counting_run(code: str, **kwargs):
        runs.append(code)
        return real_run(code, **kwargs)

    monkeypatch.setattr(program_loop, "run_program", counting_run)
    bad = ("t = filter(object_set=scene(), category='table')[0]\n"
           "print([o.category for o in relate(object_set=scene(), reference_object=t, relation='diagonal')])")
    good = bad.replace("'diagonal'", "'on'")
    llm = ScriptedModel([
        f"Thought: objects on the table.\nAction: Program\nAction Input:\n```Python\n{bad}\n```",
        f"Thought: use a legal relation.\nAction: Program\nAction Input:\n```Python\n{good}\n```",
        "Thought: a cup.\nAction: Final Answer\nAction Input: cup",
    ])
    result = ProgramLoop(llm).run(room(), "What is on the table in front of me?", viewpoint=NORTH)
    assert runs == [bad, good]
    repair = llm.requests[1].messages[-1]["content"]
    assert "relation must be one of" in repair and "'hanging on'" in repair and "'diagonal'" in repair
    programs = [t for t in result.trace if t["type"] == "program"]
    assert [(p["stage"], p["ok"]) for p in programs] == [("sandbox", False), ("sandbox", True)]
    assert programs[1]["stdout"].strip() == "['cup']"
    assert result.short_answer == "cup" and result.answer_form == "category" and result.usage.calls == 3


def test_the_prompts_own_examples_pass_the_check() -> None:
    import re

    from synergai.agent.program import prompt as P

    example = re.search(r"```Python\n(.*?)```", P.EXAMPLE, re.DOTALL).group(1)
    assert "relate_agent" in example and findings(example) == []
    categories = ["chair", "coffee table", "couch", "lamp", "table", "book", "tray"]
    for ordered in (True, False):
        doc = P.system_prompt(ordered_sets=ordered)
        lines = [line.split(">>> ", 1)[1].removesuffix('"""') for line in doc.splitlines() if ">>> " in line]
        lines = [line for line in lines if not line.startswith(("for ", " ")) and ".update(" not in line]
        code = "obj = table = chair = next(iter(scene()))\nobject_set = scene()\n" + "\n".join(lines)
        assert "query_state(" in code and "query_relation(" in code and "relate_agent(" in code
        assert [f.render() for f in check_program(code, categories, ordered_sets=ordered)] == []
