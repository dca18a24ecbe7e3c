"""Program mode's reply grammar: well-formed for llama.cpp, the scene's categories in and others out, the
prompt's own example valid under it, closed answers bounded, programs bounded."""

from __future__ import annotations

import re

import pytest
from gbnf import Engine, engine, undefined_rules

from synergai.agent.answer_forms import AnswerForm, answer_form, choice_options
from synergai.agent.program import prompt as P
from synergai.agent.program.grammar import (
    PROGRAM_LINES,
    THOUGHT_CHARS,
    choice,
    program_strings,
    reply_grammar,
)
from synergai.agent.program.values import api_strings

EXAMPLE_SCENE = ["chair", "coffee table", "couch", "lamp"]  # the prompt's in-context example
#: Categories as ScanNet writes them, awkward characters included.
SCANNET = ["bathroom stall door", "kitchen cabinets", "person's bag", "tv stand", "shower/bath", "chair",
           "armchair", "office chair", "floor", "wall", "window", "doorframe", "door"]


@pytest.fixture(scope="module")
def llama() -> Engine:
    found = engine()
    if found is None:
        pytest.skip("xllamacpp's grammar engine is not available")
    return found


def program(code: str, thought: str = "I count them.") -> str:
    return f"Thought: {thought}\nAction: Program\nAction Input:\n```Python\n{code}\n```"


def final(answer: str, thought: str = "I know it.") -> str:
    return f"Thought: {thought}\nAction: Final Answer\nAction Input: {answer}"


def test_every_rule_is_defined_and_llama_cpp_parses_the_grammar_of_every_form(llama: Engine) -> None:
    questions = ["Is there a chair?", "How many chairs are there?", "What colour is the door?",
                 "Which direction should I go to reach the door?", "Is the number of chairs odd or even?",
                 "What is on my left?", "Where is the bag?", "What is the style of the room?",
                 "What shape is the table?"]
    forms = {answer_form(q) for q in questions}
    assert forms == set(AnswerForm)
    for q in questions:
        for with_program in (True, False):
            grammar = reply_grammar(SCANNET, answer_form(q), choice_options(q), program=with_program)
            assert undefined_rules(grammar) == set()
            assert llama.parses(grammar), q
    assert not llama.parses('root ::= "a" missing\n')  # the engine does refuse a broken grammar


def test_choice_matches_exactly_its_words(llama: Engine) -> None:
    words = ["ch", "chair", "chairs", "armchair", "o'clock", 'say "hi"', "a\\b"]
    grammar = f"root ::= {choice(words)}\n"
    assert all(llama.matches(grammar, w) for w in words)
    assert not any(llama.matches(grammar, w) for w in ["c", "chai", "chairss", "arm", "", "sofa"])
    with pytest.raises(ValueError):
        choice([])


def test_the_scenes_categories_are_legal_strings_and_a_category_it_lacks_is_not(llama: Engine) -> None:
    grammar = reply_grammar(SCANNET, AnswerForm.CATEGORY)
    for category in ("kitchen cabinets", "tv stand", "shower/bath", "office chair"):
        assert llama.matches(grammar, program(f'print(len(filter(scene(), "{category}")))'))
        assert llama.matches(grammar, program(f"print(len(filter(scene(), '{category}')))"))
    assert llama.matches(grammar, program('print(len(filter(scene(), "person\'s bag")))'))
    assert not llama.matches(grammar, program("print(len(filter(scene(), 'person's bag')))"))
    for absent in ("sofa", "couch", "table", "chairs", "Chair"):
        assert not llama.matches(grammar, program(f'print(len(filter(scene(), "{absent}")))'))
    values = program_strings(SCANNET)
    assert set(SCANNET) <= set(values) and "sofa" not in values
    assert set(api_strings()) <= set(values)
    wanted = {"behind", "within reach", "distance", "color", "dark gray", "8 o'clock", "open", "unknown"}
    assert wanted <= set(values)


def test_the_prompts_example_replies_and_api_examples_are_valid_under_the_grammar(llama: Engine) -> None:
    replies = [r.split("\n\n")[0].strip() for r in P.EXAMPLE.split("assistant:\n")[1:]]
    assert len(replies) == 4
    for question, (program_reply, final_reply) in (("What is behind me directly?", replies[:2]),
                                                    ("How many chairs are on my left?", replies[2:])):
        grammar = reply_grammar(EXAMPLE_SCENE, answer_form(question), choice_options(question))
        assert llama.matches(grammar, program_reply) and llama.matches(grammar, final_reply)
        answer_only = reply_grammar(EXAMPLE_SCENE, answer_form(question), program=False)
        assert llama.matches(answer_only, final_reply) and not llama.matches(answer_only, program_reply)
    doc = P.system_prompt(constrained=True)
    assert P.STRING_RULE in doc and P.STRING_RULE not in P.system_prompt()
    lines = [line.split(">>> ", 1)[1].removesuffix('"""') for line in doc.splitlines() if ">>> " in line]
    # the documentation's comments explain values (lwh: length, width, height); programs have none
    code = [line.split(" # ")[0].rstrip() for line in lines if line.strip()]
    assert any("query_state(" in line for line in code) and len(code) > PROGRAM_LINES
    scene_grammar = reply_grammar([*EXAMPLE_SCENE, "table", "book", "tray"], AnswerForm.PHRASE)
    assert all(llama.matches(scene_grammar, program(line)) for line in code)
    # the rule's own examples are programs the grammar takes
    rule_examples = re.findall(r"\((print\(.*?\)|f\".*?\")\)", P.STRING_RULE)
    assert len(rule_examples) == 2
    assert llama.matches(grammar, program(f"chairs = filter(scene(), 'chair')\nprint({rule_examples[1]})"))


@pytest.mark.parametrize(
    ("code", "legal"),
    [
        ('print("chairs:", len(chairs))', True),  # a label ends with ':'
        ("print('n =', n)", True),
        ('print(", ".join([o.category for o in chairs]))', True),  # a separator
        ('print(f"{len(chairs)} chairs, nearest {chairs[0].category}")', True),
        ("print(f\"{query_attribute(c, 'color')}\")", True),  # a placeholder's own strings are legal values
        ("print(f\"{query_attribute(c, 'colour of it')}\")", False),
        ('print("chairs", len(chairs))', False),  # free text that is neither a value nor a label
        ('x = f"sofa"', False),  # an f-string without a placeholder
        ("x = 1  # a comment", False),
        ('x = "a\\nb"', False),  # no backslashes
        ("x = 1\n\ny = 2", False),  # no blank lines
        ('if query_state(c, ["open", "closed"]) == "open":\n    print("yes")', True),
    ],
)
def test_strings_in_programs(llama: Engine, code: str, legal: bool) -> None:
    grammar = reply_grammar(SCANNET, AnswerForm.YES_NO)  # "yes" and "no" are the question's values
    assert llama.matches(grammar, program(code)) is legal


def test_programs_and_thoughts_are_bounded(llama: Engine) -> None:
    grammar = reply_grammar(SCANNET, AnswerForm.NUMBER)
    lines = [f"x{i} = {i}" for i in range(PROGRAM_LINES)]
    assert llama.matches(grammar, program("\n".join(lines)))
    assert not llama.matches(grammar, program("\n".join([*lines, "print(x0)"])))
    assert llama.matches(grammar, program("print(1)", thought="t" * THOUGHT_CHARS))
    assert not llama.matches(grammar, program("print(1)", thought="t" * (THOUGHT_CHARS + 1)))
    assert not llama.matches(grammar, program("print(1)", thought="two\nlines"))
    assert not llama.matches(grammar, program("print(1)") + "\nObservation: 1")  # nothing after the program
    assert not llama.matches(grammar, final("2") + "\nmore")


@pytest.mark.parametrize(
    ("question", "good", "bad"),
    [
        ("Is there a chair?", ["yes", "no"], ["Yes", "maybe", "yes."]),
        ("How many chairs are there?", ["0", "2", "12"], ["two", "-1", "1000"]),
        ("What colour is the door?", ["brown", "black"], ["grey", "brownish", "dark gray"]),
        ("Which direction should I go to reach the door?", ["left", "back"], ["north", "up"]),
        ("Is the number of chairs odd or even?", ["odd", "even"], ["yes", "both"]),
        ("What is on my left?", ["door", "kitchen cabinets"], ["sofa", "doors"]),
        ("Where is the bag?", ["on the kitchen cabinets", "behind me"], ["x" * 41, ""]),
    ],
)
def test_a_closed_answer_is_one_of_its_forms_values(llama: Engine, question: str, good: list[str],
                                                    bad: list[str]) -> None:
    grammar = reply_grammar(SCANNET, answer_form(question), choice_options(question), program=False)
    assert all(llama.matches(grammar, final(a)) for a in good), question
    assert not any(llama.matches(grammar, final(a)) for a in bad), question
    assert not llama.matches(grammar, program("print(1)"))
