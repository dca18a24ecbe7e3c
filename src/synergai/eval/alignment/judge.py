"""The simulated user's verdicts on answers, and the simulated user.

Verdicts are rules over the answer text (:func:`judge_answer`) using the judges' own word matching
(:mod:`synergai.eval.words`); nothing here imports :mod:`synergai.agent` (the session the user talks
to is only a type), so a bug in the agent's matcher cannot fail agent and judge alike.

A simulated user who sees the ground truth: asks the task question, judges the answer by rules and, when
it is wrong, corrects the robot as a person would in the GUI (marks the object, says what is wrong).

One correction per turn, in varied sentences (templates chosen with a RNG seeded by the task), at most
``max_turns`` correction turns; a correction the robot did not apply (checked on the store's graph, as a
person sees the label in the GUI) is said again in other words, with the object's id. Then the question
is asked again and the verdict recorded. Interactions = every user input (question, corrections, re-ask).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from synergai.eval.alignment.matching import Correction, ErrorKind, LabelVocabulary
from synergai.eval.alignment.questions import Question
from synergai.eval.words import (
    color_of,
    colors_compatible,
    colour_words,
    names_category,
    objects_named,
    plain,
)
from synergai.scene.model import Relation, SceneError, SceneGraph
from synergai.scene.vocabulary import WORD_TO_NUMBER, with_article

if TYPE_CHECKING:  # types only: the judge never runs agent code
    from synergai.agent.loop import AgentResult
    from synergai.agent.session import AgentSession
    from synergai.eval.alignment.tasks import AlignmentTask

_ID_REFS = re.compile(r"\(\s*ids?\b[^)]*\)|\bids?\s*[:#]?\s*\d+(?:\s*(?:,|and|&)\s*(?:id\s*)?\d+)*")
_VECTORS = re.compile(r"\[[^\]]*\]|\d+\.\d+")
_COUNT = re.compile(r"\b(\d+|" + "|".join(WORD_TO_NUMBER) + r")\b")
_NEGATIVE = re.compile(
    r"\b(there (is|are) no|there (isn|aren) t|no such|not|cannot find|can t find|could not find|"
    r"couldn t find|don t see|do not see|none)\b"
)
_POSITIVE = re.compile(r"\b(yes|there is|there are|i found|i see)\b")


def extract_count(text: str) -> int | None:
    """The number an answer states (digits or words; "no"/"none" = 0); ids and coordinates are ignored."""
    t = _VECTORS.sub(" ", _ID_REFS.sub(" ", str(text).lower()))
    m = _COUNT.search(t)
    if m:
        word = m.group(1)
        return int(word) if word.isdigit() else WORD_TO_NUMBER[word]
    return 0 if re.search(r"\b(no|none|not any)\b", t) else None


def yes_no(text: str) -> bool | None:
    """True / False for an answer that says yes / no, None when it says neither."""
    t = plain(str(text).replace("'", " "))
    if re.match(r"(yes|yeah|yep|correct|indeed)\b", t):
        return True
    if re.match(r"(no|nope)\b", t):
        return False
    if _NEGATIVE.search(t):
        return False
    return True if _POSITIVE.search(t) else None


def mentioned_ids(text: str) -> set[str]:
    """Object ids an answer cites ("(id: 41)", "id 7 and 9")."""
    out: set[str] = set()
    for m in _ID_REFS.finditer(str(text).lower()):
        out.update(re.findall(r"\d+", m.group(0)))
    return out


def judge_answer(q: Question, answer: str, short: str = "", objects: Sequence[str] = ()) -> bool:
    """The simulated user's rule-based verdict; an empty answer is never right.

    count: the first number stated (short answer first) equals the expected one; yes_no: the stated
    polarity; color: a mentioned colour is compatible with the expected one; names: every expected object
    is named (:func:`synergai.eval.words.names_category`: whole words, plurals, synonyms).
    When the question has ``targets`` and the answer cites or highlights objects (``objects``), one of them
    must be a target: a person sees in the GUI when the robot talks about another object.
    """
    answer, short = str(answer or "").strip(), str(short or "").strip()
    if not answer and not short:
        return False
    cited = mentioned_ids(answer) | {str(o) for o in objects}
    if q.targets and cited and not cited & set(q.targets):
        return False
    text = f"{short} {answer}".strip()
    if q.kind == "count":
        n = extract_count(short) if short and extract_count(short) is not None else extract_count(answer)
        return n is not None and str(n) == q.expected[0][0]
    if q.kind == "yes_no":
        v = yes_no(short) if short and yes_no(short) is not None else yes_no(answer)
        return v is not None and v == (q.expected[0][0] == "yes")
    if q.kind == "color":
        return any(colors_compatible(c, alt) for c in colour_words(text) for alt in q.expected[0])
    if q.kind == "names":
        return all(any(names_category(text, alt) for alt in group) for group in q.expected)
    raise SceneError(f"unknown answer kind {q.kind!r}")



LABEL_TEMPLATES = (
    "The marked object is actually {a_truth}.",
    "That's not {a_perceived}, it is {a_truth}.",
    "This one is {a_truth}, not {a_perceived}.",
    "You labelled this as {a_perceived}, but it's really {a_truth}.",
    "Please rename the marked object: it is {a_truth}.",
)
COLOR_TEMPLATES = (
    "This one is {truth}, not {perceived}.",
    "The marked {name} is {truth}, not {perceived}.",
    "The color of the marked object is actually {truth}.",
    "That {name} isn't {perceived}; it's {truth}.",
)
SUPPORT_TEMPLATES = (
    "The marked object is on the {anchor}.",
    "This {name} is actually sitting on the {anchor}.",
    "You missed that the marked {name} rests on the {anchor}.",
    "The marked object is placed on top of the {anchor}.",
)
RETRY_SUFFIX = " I mean the marked object, id {pred_id}."


def _turn_record(role: str, text: str, result: AgentResult) -> dict[str, Any]:
    return {
        "role": role,
        "text": text,
        "answer": result.answer,
        "short": result.short_answer,
        "actions": result.actions,
        "llm_calls": result.usage.calls,
        "query_ratio": round(result.query_ratio, 5),
        "clarification": result.clarification,
        "edits": [e["summary"] for e in result.edits],
        "seconds": round(result.seconds, 3),
        "model_errors": sum(
            1
            for t in result.trace
            if t["type"] == "error" and str(t.get("error", "")).startswith("model call")
        ),
        "trace": result.trace,  # plan, actions and observations: why an answer was right or wrong
    }


@dataclass(frozen=True)
class SimulatedUser:
    """Judges answers and says corrections; deterministic for a seed."""

    vocab: LabelVocabulary
    seed: int = 0

    def rng(self, task: AlignmentTask) -> random.Random:
        """The task's own RNG (the same sentences whatever order tasks run in)."""
        return random.Random(f"{self.seed}:user:{task.id}")

    def sentence(self, c: Correction, graph: SceneGraph, rng: random.Random, attempt: int = 0) -> str:
        """What the user says to fix ``c``, given the robot's current graph."""
        name = graph.get(c.pred_id).category if c.pred_id in graph else "object"
        if c.kind is ErrorKind.LABEL:
            text = rng.choice(LABEL_TEMPLATES).format(
                a_truth=with_article(c.truth), a_perceived=with_article(name)
            )
        elif c.kind is ErrorKind.COLOR:
            now = color_of(graph.get(c.pred_id)) if c.pred_id in graph else ""
            text = rng.choice(COLOR_TEMPLATES).format(truth=c.truth, perceived=now or c.perceived, name=name)
        else:
            anchor = c.truth
            found = objects_named(graph, anchor)
            if [o.id for o in found] != [c.anchor_id]:  # the robot cannot single the anchor out by name
                anchor = f"{c.truth} (id {c.anchor_id})"
            text = rng.choice(SUPPORT_TEMPLATES).format(anchor=anchor, name=name)
            current = [
                graph.get(o).category
                for o in graph.related(c.pred_id, Relation.SUPPORTED_BY)
                if o != c.anchor_id
            ]
            if current:
                text = text[:-1] + f", not on the {current[0]}."
        if attempt > 0:
            text += RETRY_SUFFIX.format(pred_id=c.pred_id)
        return text

    def ask(self, session: AgentSession, q: Question, role: str) -> tuple[bool, dict[str, Any]]:
        """Ask a question (nothing marked) and judge the answer."""
        session.mark(None)
        result = session.ask(q.text)
        ok = judge_answer(q, result.answer, result.short_answer, result.objects)
        return ok, _turn_record(role, q.text, result) | {"correct": ok}

    def align(self, session: AgentSession, task: AlignmentTask, max_turns: int = 4) -> dict[str, Any]:
        """Run the task's dialogue; returns the verdicts, the turns and their costs."""
        if max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {max_turns}")
        rng = self.rng(task)
        init_ok, first = self.ask(session, task.question, "question")
        turns = [first]
        attempts: dict[Correction, int] = {}
        if not init_ok:
            for _ in range(max_turns):
                graph = session.store.load(session.scene_id)
                pending = [c for c in task.corrections if not c.applied(graph, self.vocab)]
                if not pending:
                    break
                c = pending[0]
                text = self.sentence(c, graph, rng, attempts.get(c, 0))
                attempts[c] = attempts.get(c, 0) + 1
                session.mark(c.pred_id)
                turns.append(
                    _turn_record("correction", text, session.ask(text))
                    | {"marked": c.pred_id, "fixes": c.kind.value}
                )
            final_ok, last = self.ask(session, task.question, "reask")
            turns.append(last)
        else:
            final_ok = True
        graph = session.store.load(session.scene_id)
        applied = sum(1 for c in task.corrections if c.applied(graph, self.vocab))
        actions = [t["actions"] for t in turns]
        return {
            "init_correct": init_ok,
            "success": final_ok,
            "interactions": len(turns),
            "correction_turns": sum(1 for t in turns if t["role"] == "correction"),
            "actions_per_interaction": sum(actions) / len(turns),
            "query_ratio": sum(t["query_ratio"] for t in turns) / len(turns),
            "llm_calls": sum(t["llm_calls"] for t in turns),
            "corrections_applied": applied,
            "corrections_needed": len(task.corrections),
            "clarifications": sum(1 for t in turns if t["clarification"]),
            "model_errors": sum(t["model_errors"] for t in turns),
            "turns": turns,
        }
