"""Observations rendered with SynergAI's three templates (position and size, attributes, relations), with
relations grouped per relation from each object's own side.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from synergai.scene.model import INVERSE, WORDING, Relation, SceneGraph, SceneObject


@dataclass(frozen=True)
class Fact:
    """What one observation sentence states, by id: ``subjects`` are ``wording`` the ``anchors``
    ("laptop 7, remote 8 are on coffee table 5"); a plain match has no wording and no anchors; a
    ``partial`` one fits the description only in part (the room's only object of its kind); ``fitting``:
    a match's every object that fits in full, where a degree chose its subjects (what a count takes)."""

    subjects: tuple[str, ...]
    wording: str = ""
    anchors: tuple[str, ...] = ()
    partial: bool = False
    fitting: tuple[str, ...] = ()

    @property
    def ids(self) -> tuple[str, ...]:
        return self.subjects + self.anchors


@dataclass(frozen=True)
class Observed:
    """An observation's text together with the facts it states (the evidence an answer is built from)."""

    text: str
    facts: tuple[Fact, ...] = ()

    def __str__(self) -> str:
        return self.text


def _grouped(facts: Iterable[tuple[Relation, str]]) -> dict[Relation, list[str]]:
    """Each relation's other objects, in order, once each."""
    grouped: dict[Relation, dict[str, None]] = {}
    for rel, other in facts:
        grouped.setdefault(rel, {})[other] = None
    return {rel: list(others) for rel, others in grouped.items()}


def relation_facts(obj: SceneObject, facts: Iterable[tuple[Relation, str]]) -> list[Fact]:
    """The facts :func:`relation_sentences` states, read from the related objects' side."""
    # "X supports a, b" / "X near a": a, b are on / near X
    return [Fact(tuple(others), WORDING[INVERSE.get(rel) or rel], (obj.id,))
            if rel == Relation.SUPPORTS or INVERSE.get(rel) == rel
            else Fact((obj.id,), WORDING[rel], tuple(others)) for rel, others in _grouped(facts).items()]


def _vec(v: Sequence[float]) -> str:
    """Coordinates in metres to the centimetre, without trailing zeros ("[2.1, 0.08, 2]")."""
    texts = (f"{x:.2f}".rstrip("0").rstrip(".") for x in v)
    return "[" + ", ".join("0" if t == "-0" else t for t in texts) + "]"


def name_id(obj: SceneObject) -> str:
    """``{name} (id: {id})``."""
    return f"{obj.name} (id: {obj.id})"


def position_sentence(obj: SceneObject) -> str:
    """Template 1: position and size."""
    return f"The position of the {name_id(obj)} is {_vec(obj.center)} and its size is {_vec(obj.size)}."


def attributes_sentence(obj: SceneObject) -> str:
    """Template 2: attributes."""
    attrs = ", ".join(f"'{a}'" for a in obj.attributes)
    return f"The {name_id(obj)} has attributes: [{attrs}]."


def labelled(obj: SceneObject) -> str:
    """``{first attribute} {name} (id: {id})``: how a related object is named in template 3."""
    return (f"{obj.attributes[0]} " if obj.attributes else "") + name_id(obj)


def relation_sentences(graph: SceneGraph, obj: SceneObject, facts: Iterable[tuple[Relation, str]],
                       limit: int = 5) -> list[str]:
    """Template 3, one sentence per relation: "The X (id: i) is {relation} a (id: j), b (id: k)."."""
    out = []
    # what rests on the object first: small models answer from the first sentence that fits
    for rel, others in sorted(_grouped(facts).items(), key=lambda item: item[0] != Relation.SUPPORTS):
        names = ", ".join(labelled(graph.get(o)) for o in others[:limit])
        more = f" and {len(others) - limit} more" if len(others) > limit else ""
        # what rests on it read from the held objects' side: "what is on X" is then literal
        head = (f"On the {name_id(obj)}:" if rel == Relation.SUPPORTS
                else f"The {name_id(obj)} is {WORDING[rel]}")
        out.append(f"{head} {names}{more}.")
    return out


def describe_objects(graph: SceneGraph, ids: Iterable[str]) -> str:
    """Templates 1 and 2 for each object (what `query_for_objects` returns)."""
    return " ".join(f"{position_sentence(o)} {attributes_sentence(o)}" for o in map(graph.get, ids))


def render_full_graph(graph: SceneGraph) -> str:
    """The whole graph rendered the same way as observations (the query ratio's denominator)."""
    return " ".join(s for obj in graph for s in (describe_objects(graph, [obj.id]), *relation_sentences(
        graph, obj, graph.relations_of(obj.id), limit=10**6)))
