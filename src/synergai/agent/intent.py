"""Whether a user's input asks something or states a correction (a question never edits the graph)."""

from __future__ import annotations

_QUESTION_WORDS = frozenset({"what", "where", "which", "who", "whose", "how", "why", "when", "is", "are",
                             "does", "do", "can", "could", "would", "should", "will", "tell", "describe",
                             "count", "find", "show", "name", "list"})


def is_question(text: str) -> bool:
    """Whether the input asks something (it then never edits the graph) rather than states a correction."""
    words = text.strip().lower().split()
    return text.rstrip().endswith("?") or (bool(words) and words[0].strip(",.!") in _QUESTION_WORDS)
