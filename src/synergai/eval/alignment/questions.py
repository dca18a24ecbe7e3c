"""Question templates, and the answer a graph implies (the ordinary objects a name refers to, their
colour attributes and support relations, read with the judges' own word matching)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from synergai.eval.words import color_of, names_category, objects_named
from synergai.scene.model import STRUCTURE_KINDS, Relation, SceneGraph, SceneObject
from synergai.scene.vocabulary import plural, with_article

#: Largest count a Numeric task asks about.
MAX_COUNT = 12


class Template(StrEnum):
    """Question templates; each reads its answer off a graph the same way for truth and robot."""

    COUNT = "count"
    WHAT_ON = "what_on"
    ON_WHAT = "on_what"
    COLOR = "color"
    EXISTS = "exists"


#: Task category (SynergAI's Numeric / Spatial / Attribute, plus Naming) of each template.
CATEGORY = {
    Template.COUNT: "Numeric",
    Template.WHAT_ON: "Spatial",
    Template.ON_WHAT: "Spatial",
    Template.COLOR: "Attribute",
    Template.EXISTS: "Naming",
}
#: How the answer is judged.
ANSWER_KIND = {
    Template.COUNT: "count",
    Template.WHAT_ON: "names",
    Template.ON_WHAT: "names",
    Template.COLOR: "color",
    Template.EXISTS: "yes_no",
}


@dataclass(frozen=True)
class Question:
    """A question with its judged answer: ``expected`` holds groups of alternatives, every group must be
    matched (count: one number; color: one colour; yes_no: "yes" / "no"; names: one group per object)."""

    text: str
    kind: str
    expected: tuple[tuple[str, ...], ...]
    template: str = ""
    subject: str = ""
    targets: tuple[str, ...] = ()  # robot ids the answer is about (empty: not checked)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "kind": self.kind,
            "expected": [list(g) for g in self.expected],
            "template": self.template,
            "subject": self.subject,
            "targets": list(self.targets),
        }


def question_text(template: Template, subject: str) -> str:
    """The question a person asks."""
    if template is Template.COUNT:
        return f"How many {plural(subject)} are there in the room?"
    if template is Template.WHAT_ON:
        return f"What is on the {subject}?"
    if template is Template.ON_WHAT:
        return f"What is the {subject} on?"
    if template is Template.COLOR:
        return f"What color is the {subject}?"
    return f"Is there {with_article(subject)} in the room?"



def ordinary_objects(graph: SceneGraph, name: str) -> list[SceneObject]:
    """The objects (not floor, walls or ceiling) a name refers to."""
    return [o for o in objects_named(graph, name) if o.kind not in STRUCTURE_KINDS]


def single_object(graph: SceneGraph, name: str) -> SceneObject | None:
    """The one ordinary object a name refers to; None when there is none or more than one."""
    found = ordinary_objects(graph, name)
    return found[0] if len(found) == 1 else None


def graph_answer(graph: SceneGraph, template: Template, subject: str) -> tuple[str, ...] | None:
    """The answer the graph implies (objects named as :func:`ordinary_objects` finds them); None when the
    subject is absent or ambiguous. count -> (n,), names -> sorted names, color -> (colour,), exists ->
    ("yes"|"no",)."""
    if template is Template.COUNT:
        return (str(len(ordinary_objects(graph, subject))),)
    if template is Template.EXISTS:
        return ("yes" if ordinary_objects(graph, subject) else "no",)
    obj = single_object(graph, subject)
    if obj is None:
        return None
    if template is Template.COLOR:
        return (color_of(obj),) if color_of(obj) else None
    rel = Relation.SUPPORTS if template is Template.WHAT_ON else Relation.SUPPORTED_BY
    names = {
        graph.get(o).category for o in graph.related(obj.id, rel) if graph.get(o).kind not in STRUCTURE_KINDS
    }
    return tuple(sorted(names)) or None


def make_question(truth: SceneGraph, template: Template, subject: str) -> Question | None:
    """The question about ``subject`` with its answer read off the ground-truth graph (None if undefined)."""
    answer = graph_answer(truth, template, subject)
    if answer is None:
        return None
    if template is Template.COUNT and not 1 <= int(answer[0]) <= MAX_COUNT:
        return None
    if ANSWER_KIND[template] == "names" and any(
        names_category(subject, n) or names_category(n, subject) for n in answer
    ):
        return None  # "what is on the box?" -> "box": an echo of the question would pass
    expected = tuple((a,) for a in answer) if ANSWER_KIND[template] == "names" else (answer,)
    return Question(
        question_text(template, subject), ANSWER_KIND[template], expected, template.value, subject
    )


