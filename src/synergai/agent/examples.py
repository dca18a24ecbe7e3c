"""Solved examples retrieved per sentence: (description, reading) pairs, the nearest by words (BM25).

A bank is a JSON-lines file: each line a description (``utterance`` or ``sentence``) with its reading
(``expression``: an :class:`~synergai.scene.grounding.ObjectRef` as JSON) and its room (``scene_id``); a
line marked ``"correct": false`` is skipped, so a grounding run's ``results.jsonl`` is a bank of what it
got right.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rank_bm25 import BM25Okapi

from synergai.scene.model import SceneError
from synergai.scene.vocabulary import sentence_words

#: Examples shown with a sentence.
NEAREST = 2


@dataclass(frozen=True)
class Example:
    """One solved description: its words, its reading and the room it was said in."""

    sentence: str
    reading: dict[str, Any]
    scene: str = ""

    def line(self) -> str:
        """The example as one prompt line: the description, then its reading as compact JSON."""
        return f"{self.sentence.strip()} -> {json.dumps(self.reading, separators=(',', ':'))}"


class ExampleBank:
    """Examples, searchable by the words of a new sentence."""

    def __init__(self, examples: Sequence[Example]) -> None:
        if not examples:
            raise SceneError("an example bank needs at least one solved example")
        self.examples = list(examples)
        self._index_words = [sentence_words(e.sentence) or [""] for e in self.examples]
        self._index = BM25Okapi(self._index_words)

    @classmethod
    def load(cls, path: str | Path) -> ExampleBank:
        """The bank of a JSON-lines file (SceneError, naming the line, for one that is not an example)."""
        examples = []
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise SceneError(f"{path}: cannot read the example bank ({exc})") from None
        for number, text in enumerate(lines, 1):
            if not text.strip():
                continue
            try:
                row = json.loads(text)
            except json.JSONDecodeError as exc:
                raise SceneError(f"{path}:{number}: not JSON ({exc.msg})") from None
            sentence = row.get("utterance", row.get("sentence")) if isinstance(row, dict) else None
            if not isinstance(sentence, str) or not isinstance(row.get("expression", 0), (dict, type(None))):
                raise SceneError(f"{path}:{number}: an example needs a sentence and an expression")
            if row.get("correct", True) is True and row.get("expression"):
                examples.append(Example(sentence, row["expression"], str(row.get("scene_id", ""))))
        return cls(examples)

    def digest(self) -> str:
        """A short hash of the examples, naming this bank in a run's settings."""
        text = "\n".join(f"{e.scene}|{e.line()}" for e in self.examples)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def nearest(self, sentence: str, k: int = NEAREST, *, other_than: str = "") -> list[Example]:
        """The ``k`` examples whose words are nearest the sentence's (none from room ``other_than``), best
        first; an example sharing no word with the sentence is never given."""
        words = sentence_words(sentence)
        scores = self._index.get_scores(words)
        order = sorted(range(len(self.examples)), key=lambda i: -scores[i])
        found = [self.examples[i] for i in order if not (other_than and self.examples[i].scene == other_than)
                 and set(words) & set(self._index_words[i])]
        return found[:k]
