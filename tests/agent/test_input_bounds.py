"""Input length is bounded and linear (issue 33): a question or chat line over the limit is refused at
once with one line, and every regular expression on user text runs in linear time (100 kB in well under
a second; the bound, 5 s, leaves room for a busy machine and still catches backtracking, which takes
minutes on 100 kB)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from agent_scripting import room

from synergai.agent.answer_forms import answer_form, choice_options, kind_asked_at
from synergai.agent.intent import MAX_INPUT_CHARS, InputTooLong, is_question
from synergai.agent.referents import mentioned_ids
from synergai.agent.session import AgentSession
from synergai.cli.main import main
from synergai.gui.chat import escape
from synergai.llm import ScriptedModel
from synergai.scene.grounding.vocabulary import relation_words, relations_said
from synergai.scene.store import SceneStore

SIZE = 100_000
#: Inputs that make backtracking patterns quadratic: one long word, long lists, repeated keywords.
HOSTILE = {
    "one word": "a" * SIZE,
    "comma list": "ab, " * (SIZE // 4),
    "or chain": "red or " * (SIZE // 7),
    "between": "between " * (SIZE // 8),
    "what": "what " * (SIZE // 5),
    "ids": "id " * (SIZE // 3),
    "words": "which side of the chair, left or right, " * (SIZE // 40),
    "blank lines": "\n" * SIZE,
    "indented lines": " \n" * (SIZE // 2),
    "rules": "\n=-" * (SIZE // 3),
}
FUNCTIONS = {
    "answer_form": answer_form, "choice_options": choice_options, "kind_asked_at": kind_asked_at,
    "is_question": is_question, "mentioned_ids": mentioned_ids, "relations_said": relations_said,
    "relation_words": relation_words, "gui_chat_escape": escape,
}


#: Seconds 100 kB may take: linear code needs a few hundredths; backtracking needs minutes.
LINEAR_BOUND_S = 5.0


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_text_functions_take_linear_time_on_100_kb(name: str) -> None:
    for kind, text in HOSTILE.items():
        start = time.perf_counter()
        FUNCTIONS[name](text)
        assert time.perf_counter() - start < LINEAR_BOUND_S, (name, kind)


def test_choice_options_still_reads_lists() -> None:
    assert choice_options("Is the chair red, blue, or green?") == ("red", "blue", "green")
    assert choice_options("is it odd or even") == ("odd", "even")
    assert choice_options("Are they, or not?") == ()


def test_a_too_long_question_is_refused_by_the_session(store: SceneStore) -> None:
    llm = ScriptedModel([])
    with pytest.raises(InputTooLong):
        AgentSession(store, "room", llm).ask("What is on the table? " * 400)
    assert llm.requests == []


def test_a_100_kb_question_is_refused_at_once_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.sqlite3"
    with SceneStore(db) as s:
        s.register(room(), {"builder": "test"})
    before = db.read_bytes()
    start = time.perf_counter()
    code = main(["ask", "Is it red or " * (SIZE // 13), "--scene", "room", "--db", str(db),
                 "--llm", "scripted:/nonexistent"])
    took = time.perf_counter() - start
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"the limit is {MAX_INPUT_CHARS}" in err and took < LINEAR_BOUND_S
    assert db.read_bytes() == before
