"""The judges' own word matching (synergai.eval.words), and that no judge imports the agent."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from synergai.eval.words import (
    color_of,
    colors_compatible,
    colour_words,
    names_category,
    objects_named,
    words_naming,
)
from synergai.scene.build import build_graph
from synergai.scene.model import ObjectKind, SceneObject
from synergai.scene.vocabulary import with_article

#: Modules that judge answers or compute benchmark figures: none may load agent code.
JUDGE_MODULES = (
    "synergai.eval.words",
    "synergai.eval.answers",
    "synergai.eval.metrics",
    "synergai.eval.sr3d",
    "synergai.eval.alignment.matching",
    "synergai.eval.alignment.questions",
    "synergai.eval.alignment.judge",
    "synergai.eval.alignment.tasks",
    "synergai.eval.alignment.report",
)


def _agent_modules_loaded_by(*modules: str) -> list[str]:
    """The synergai.agent modules a fresh interpreter has loaded after importing ``modules``."""
    code = (
        "import importlib, json, sys\n"
        f"for m in {list(modules)!r}:\n"
        "    importlib.import_module(m)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[:2] == ['synergai', 'agent'])))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_no_judge_module_imports_the_agent() -> None:
    assert _agent_modules_loaded_by(*JUDGE_MODULES) == []


def test_the_import_check_sees_agent_imports() -> None:
    # the runner drives a real agent session, so the same check must report it
    assert "synergai.agent.session" in _agent_modules_loaded_by("synergai.eval.alignment.run")


@pytest.mark.parametrize(("phrase", "category", "named"), [
    ("the office chair", "office chair", True),
    ("chairs", "office chair", True),  # head noun, plural
    ("office chair", "chair", True),
    ("the couch", "sofa", True),  # synonym
    ("trashcan", "trash can", True),  # written closed up
    ("night stand", "nightstand", True),
    ("table", "tablet", False),  # whole words only
    ("chair", "armchair", False),
    ("desk", "", False),
])
def test_names_category(phrase: str, category: str, named: bool) -> None:
    assert names_category(phrase, category) is named


def test_words_naming_prefers_the_longer_category() -> None:
    assert words_naming("the coffee table", "coffee table") == 2
    assert words_naming("the coffee table", "table") == 1
    assert words_naming("the lamp", "table") == 0


def _obj(oid: str, category: str, colour: str = "", kind: ObjectKind = ObjectKind.OBJECT) -> SceneObject:
    return SceneObject(
        id=oid, category=category, center=(float(oid), 0.0, 0.5), size=(0.5, 0.5, 0.5),
        attributes=(colour,) if colour else (), kind=kind,
    )


def test_objects_named_narrows_by_category_and_colour() -> None:
    g = build_graph("s", [
        _obj("1", "table", "brown"), _obj("2", "coffee table", "white"), _obj("3", "coffee table", "black"),
        _obj("4", "chair", "black"),
    ])
    assert [o.id for o in objects_named(g, "table")] == ["1", "2", "3"]
    assert [o.id for o in objects_named(g, "the coffee table")] == ["2", "3"]
    assert [o.id for o in objects_named(g, "the black coffee table")] == ["3"]
    # no red coffee table: the colour is ignored
    assert [o.id for o in objects_named(g, "the red coffee table")] == ["2", "3"]
    assert objects_named(g, "the lamp") == []


def test_colours() -> None:
    assert colour_words("It is light brown and dark grey.") == ["dark gray", "brown"]
    assert colour_words("tan") == ["beige"] and colour_words("wooden") == []
    assert colors_compatible("dark grey", "gray") and colors_compatible("white", "light gray")
    assert not colors_compatible("white", "black") and not colors_compatible("", "white")
    assert color_of(_obj("1", "cup", "Dark Grey")) == "dark gray" and color_of(_obj("2", "cup")) == ""


def test_with_article() -> None:
    assert with_article("chair") == "a chair" and with_article("oven") == "an oven"
    assert with_article("shelves") == "shelves" and with_article("books") == "books"
