"""Solved examples retrieved per sentence (BM25): the bank's file, the nearest, never the same room."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synergai.agent.examples import Example, ExampleBank
from synergai.agent.grounding_parse import parse_expression
from synergai.llm import ScriptedModel
from synergai.scene.grounding.vocabulary import SceneVocabulary
from synergai.scene.model import SceneError

CUP = {"category": "cup", "relations": [{"relation": "on", "anchors": [{"category": "table"}]}]}
LAMP = {"category": "lamp", "order": "left"}


def _bank(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_a_run_file_is_a_bank_of_its_correct_lines(tmp_path: Path) -> None:
    path = _bank(tmp_path / "r.jsonl", [
        {"utterance": "the cup on the table", "expression": CUP, "scene_id": "a", "correct": True},
        {"utterance": "the lamp on the left", "expression": LAMP, "scene_id": "b", "correct": False},
        {"utterance": "a sentence the model could not read", "expression": None, "scene_id": "b"},
        {"sentence": "the leftmost lamp", "expression": LAMP},
    ])
    bank = ExampleBank.load(path)
    assert [e.sentence for e in bank.examples] == ["the cup on the table", "the leftmost lamp"]
    assert bank.examples[0].line() == 'the cup on the table -> ' + json.dumps(CUP, separators=(",", ":"))


@pytest.mark.parametrize("rows, said", [
    (["not an object"], "needs a sentence"),
    ([{"utterance": "the cup"}], "needs a sentence and an expression"),
    ([{"utterance": "the cup", "expression": CUP, "correct": False}], "at least one"),
])
def test_a_bad_bank_is_one_error_naming_the_line(tmp_path: Path, rows: list[object], said: str) -> None:
    with pytest.raises(SceneError, match=said):
        ExampleBank.load(_bank(tmp_path / "r.jsonl", rows))
    (tmp_path / "bad.jsonl").write_text('{"utterance": "x", "expression": {}}\n{oops\n')
    with pytest.raises(SceneError, match=r"bad.jsonl:2: not JSON"):
        ExampleBank.load(tmp_path / "bad.jsonl")


def test_the_nearest_by_words_never_from_the_same_room() -> None:
    bank = ExampleBank([Example("the cup on the table", CUP, "a"),
                        Example("the lamp on the far left", LAMP, "b"),
                        Example("the red cup next to the sink", CUP, "c")])
    assert [e.scene for e in bank.nearest("the lamp to the left of the bed", k=1)] == ["b"]
    assert bank.nearest("a cup on a table", k=2)[0].scene == "a"
    assert "a" not in [e.scene for e in bank.nearest("a cup on a table", k=3, other_than="a")]
    assert bank.nearest("zebra", k=2) == []  # no shared word: no example
    assert bank.digest() != ExampleBank(bank.examples[:2]).digest()


def test_the_examples_are_shown_before_the_sentence() -> None:
    vocab = SceneVocabulary(categories=("bed", "lamp"), attributes=())
    reply = json.dumps({"category": "lamp", "relations": []})
    model = ScriptedModel([reply, reply])
    parsed = parse_expression(model, "the lamp", vocab, examples=[Example("the cup on the table", CUP, "a")])
    assert parsed.ref is not None and parsed.ref.category == "lamp"
    user = model.requests[0].messages[-1]["content"]
    assert user.index('the cup on the table -> {"category":"cup"') < user.index("Description: the lamp")
    parse_expression(model, "the lamp", vocab)
    assert "Readings of similar" not in model.requests[1].messages[-1]["content"]
