"""A user's input parsed once: question or correction, the form of its short answer and its options,
the kind a "which X" question asks about, and the relations, ids and scene categories it names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from synergai.agent.answer_forms import AnswerForm, answer_form, asked_sentence, choice_options, kind_asked_at
from synergai.agent.intent import is_question
from synergai.agent.tools import mentioned_ids
from synergai.scene.grounding.expression import RELATION_MEANING
from synergai.scene.grounding.vocabulary import SceneVocabulary, relations_said
from synergai.scene.model import Relation
from synergai.scene.vocabulary import words_of


@dataclass(frozen=True)
class Question:
    """One user input, parsed (:meth:`parse`)."""

    text: str
    words: tuple[str, ...] = ()
    asking: bool = True  # a question (never edits) rather than a correction
    form: AnswerForm = AnswerForm.PHRASE  # the form its wording asks for (:func:`answer_form`)
    options: tuple[str, ...] = ()  # the options of an "A or B" question
    kind_at: int | None = None  # where a "which X" / "what type of X" question names X
    relations: tuple[str, ...] = ()  # relation names its words can mean
    ids: tuple[str, ...] = ()  # object ids the user wrote ("id 12"), sorted
    categories: tuple[str, ...] = ()  # the scene categories it names (of those given to parse), sorted
    asked_categories: tuple[str, ...] = ()  # those the sentence that asks names (the situation's aside)

    @classmethod
    def parse(cls, text: str, categories: Sequence[str] = ()) -> Question:
        """Parse an input; ``categories`` are the scene's (to find the ones it names). The form, options and
        kind asked are read from the sentence that asks (:func:`~synergai.agent.answer_forms.asked_sentence`:
        "I am facing the door. Is it open?" asks yes or no) when it asks in a closed form, else from all of
        it; what it names, from all of it (and apart, what that sentence names)."""
        scene = SceneVocabulary(tuple(sorted(set(categories))), ())
        named = scene.categories_said(text) if categories else ()
        asked = asked_sentence(text)
        if (form := answer_form(asked)) is AnswerForm.PHRASE:  # "How many. beds are there?": all of it
            asked, form = text, answer_form(text)
        kind = kind_asked_at(asked)
        before = len(words_of(text[:text.rfind(asked)]))  # the words of the sentences before it
        return cls(text=text, words=tuple(words_of(text)), asking=is_question(text), form=form,
                   options=choice_options(asked), kind_at=None if kind is None else before + kind,
                   relations=relations_said(text), ids=tuple(sorted(mentioned_ids(text))), categories=named,
                   asked_categories=scene.categories_said(asked) if categories and asked != text else named)

    @property
    def reply_form(self) -> AnswerForm:
        """The form of the short answer to give: the question's, a free phrase for a correction."""
        return self.form if self.asking else AnswerForm.PHRASE

    @property
    def relations_meant(self) -> frozenset[Relation]:
        """The graph relations its relation words mean ("hanging from": hanging on)."""
        return frozenset(RELATION_MEANING[r] for r in self.relations if r in RELATION_MEANING)

    @property
    def choices(self) -> tuple[str, ...]:
        """The options a choice answer may take (() unless the form is a choice)."""
        return self.options if self.form is AnswerForm.CHOICE else ()

    def __str__(self) -> str:
        return self.text
