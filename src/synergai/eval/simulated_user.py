"""A simulated user who sees the ground truth: asks the task question, judges the answer by rules and, when
it is wrong, corrects the robot as a person would in the GUI (marks the object, says what is wrong).

One correction per turn, in varied sentences (templates chosen with a RNG seeded by the task), at most
``max_turns`` correction turns; a correction the robot did not apply (checked on the store's graph, as a
person sees the label in the GUI) is said again in other words, with the object's id. Then the question
is asked again and the verdict recorded. Interactions = every user input (question, corrections, re-ask).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from synergai.agent.loop import AgentResult
from synergai.agent.matching import find_objects
from synergai.agent.session import AgentSession
from synergai.eval.alignment_tasks import (
    AlignmentTask,
    Correction,
    ErrorKind,
    LabelVocabulary,
    Question,
    color_of,
    judge_answer,
    with_article,
)
from synergai.scene.model import Relation, SceneGraph

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
        "llm_calls": result.llm_calls,
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
            found = find_objects(graph, anchor)
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
