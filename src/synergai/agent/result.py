"""The one result shape of an answered turn, whichever loop answered it (agent or program mode)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from synergai.agent.answer_forms import AnswerForm
from synergai.llm.usage import Outcome


@dataclass
class Answered(Outcome):
    """What one question or correction produced (and, from :class:`Outcome`, usage and wall time)."""

    answer: str
    short_answer: str = ""
    answer_form: str = AnswerForm.PHRASE.value
    objects: list[str] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
