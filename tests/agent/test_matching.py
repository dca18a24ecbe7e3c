"""Finding the objects a phrase names: compounds written open or closed, and misspelt words."""

from __future__ import annotations

from synergai.agent.matching import category_matches, find_objects, spelling_fixed
from synergai.scene.model import SceneGraph, SceneObject


def graph() -> SceneGraph:
    cats = ["toolbox", "toolbox", "nightstand", "luggage stand", "trash can", "chair", "ottoman", "piano"]
    objs = [SceneObject(str(k), c, (float(k), 0.0, 0.5), (0.4, 0.4, 0.4)) for k, c in enumerate(cats)]
    return SceneGraph("misc", objs)


def ids(g: SceneGraph, query: str) -> list[str]:
    return [o.id for o in find_objects(g, query)]


def test_compounds_match_written_open_or_closed():
    assert category_matches("night stand", "nightstand")
    assert category_matches("the trashcan", "trash can")
    assert not category_matches("night", "nightstand")
    g = graph()
    # the specific compound wins over the head-noun match ("luggage stand" is also a "stand")
    assert ids(g, "the brown night stand") == ["2"]
    assert ids(g, "trashcan") == ["4"]


def test_misspelt_words_are_read_as_the_closest_category_word():
    g = graph()
    assert spelling_fixed(g, "the toobox") == "the toolbox"
    assert ids(g, "toobox") == ["0", "1"]
    assert ids(g, "ottomon") == ["6"]
    assert ids(g, "pianos") == ["7"]


def test_spelling_is_only_fixed_for_close_long_words():
    g = graph()
    assert ids(g, "chain") == []  # 80 % like "chair": not close enough
    assert ids(g, "cup") == []  # short words are never changed
    assert spelling_fixed(g, "a red wardrobe") == "a red wardrobe"
    # an object that exists is never replaced by a similar one
    g2 = SceneGraph("two", [SceneObject("a", "printer", (0, 0, 0.5), (0.4, 0.4, 0.4)),
                            SceneObject("b", "painter", (1, 0, 0.5), (0.4, 0.4, 0.4))])
    assert ids(g2, "painter") == ["b"]
