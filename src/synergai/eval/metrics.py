"""QA metrics: ScanQA EM / refined EM and caption metrics, SQA3D soft and strict match, grouping.

What each metric follows, and where it deliberately differs from the public code:

- ``exact_match`` (ScanQA EM, SynergAI Table II): the answer equals one of the references after
  :func:`~synergai.eval.answers.em_normal_form` on both sides (ScanQA compared raw strings; its
  references are already in that form, so this only spares a sentence-final period or a capital).
- ``refined_exact_match`` (3D-LLM / LEO "EM-R"): exact, or one side is a contiguous run of the other's
  words (glued compounds count: ``"night stand"`` ~ ``"nightstand"``). LEO tested character containment
  after removing spaces, which also accepts ``"tan"`` for ``"nightstand"``; here containment is
  word-aligned, and an empty answer never matches.
- ``soft_match`` (LLM-TPC, Fig. S1 and Table S1): after :func:`~synergai.eval.answers.clean_sqa3d`,
  equal, contained either way (word-aligned, glued compounds count), a common content word, or a
  synonym from Table S1. Fixed LLM-TPC bugs: the empty answer matched everything (``"" in gt``);
  containment and synonyms were character substrings (``"on"`` matched ``"front"``, ``"no"`` matched
  ``"piano"``, ``"back"`` matched ``"backpack"``); a shared function word (``"the"``, ``"on"``,
  ``"o clock"``) counted as a common word, so ``"on the left"`` matched ``"on the right"``.
  The synonym table is reproduced as published and not extended (``"below"`` / ``"under"`` are not
  in it, so they do not match); pass ``synonyms=`` to use another table.
- ``strict_match``: equal after ``clean_sqa3d`` (LLM-TPC's strict match).
- Caption metrics: as ScanQA's ``scripts/score.py``: both sides through the Stanford PTBTokenizer
  (lower-case, PTB punctuation tokens removed; bracket escapes such as ``-lrb-`` survive, as they do
  there), then pycocoevalcap BLEU-1..4 (corpus level, ``closest`` reference length), METEOR 1.5,
  ROUGE-L and CIDEr(-D). All returned x100, the scale of ScanQA and SynergAI Table II (EM there is a
  percentage too). SPICE is never run (it downloads models at first use). The tokenizer call is
  re-done here only to keep its temporary file out of site-packages and to check that every caption
  comes back; :func:`simple_tokenize` is a pure-Python equivalent (identical on the 13,700 strings of
  the ScanQA / SQA3D dev files).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from synergai.eval.answers import (
    FUNCTION_WORDS,
    MetricError,
    as_answer_list,
    clean_sqa3d,
    contains_span,
    em_normal_form,
    short_answer,
)

__all__ = [
    "CAPTION_METRICS",
    "SQA3D_SYNONYMS",
    "CaptionScorer",
    "MetricError",
    "aggregate",
    "caption_scores",
    "em_normal_form",
    "exact_match",
    "refined_exact_match",
    "scanqa_question_type",
    "short_answer",
    "simple_tokenize",
    "soft_match",
    "sqa3d_question_type",
    "strict_match",
]

#: Keys of :meth:`CaptionScorer.score`, in ScanQA's order.
CAPTION_METRICS = ("BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4", "METEOR", "ROUGE-L", "CIDEr")

#: LLM-TPC Table S1 ("Synonymous expressions in answers"), as published.
SQA3D_SYNONYMS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "left": ("left", "7 o'clock", "8 o'clock", "9 o'clock", "10 o'clock", "11 o'clock"),
        "right": ("right", "1 o'clock", "2 o'clock", "3 o'clock", "4 o'clock", "5 o'clock"),
        "front": ("front", "forward", "forwards", "in front", "infront", "10 o'clock", "11 o'clock",
                  "12 o'clock", "1 o'clock", "2 o'clock"),
        "behind": ("behind", "back", "backward", "backwards", "4 o'clock", "5 o'clock", "6 o'clock",
                   "7 o'clock", "8 o'clock"),
        "true": ("true", "yes"),
        "false": ("false", "no"),
        "big": ("big", "large"),
        "circle": ("circle", "circular", "oval", "round"),
        "rectangle": ("rectangle", "rectangular"),
        "box": ("box", "boxes"),
        "cabinet": ("cabinet", "cabinets"),
        "chair": ("chair", "chairs"),
        "clothes dryer": ("clothes dryer", "clothes dryers"),
        "clothing": ("clothing", "clothes"),
        "cube": ("cube", "cubes"),
        "curtain": ("curtain", "curtains"),
        "divider": ("divider", "dividers"),
        "dryer": ("dryer", "dryers"),
        "kitchen cabinet": ("kitchen cabinet", "kitchen cabinets"),
        "mail box": ("mail box", "mail boxes"),
        "mini fridge": ("minifridge", "mini fridge"),
        "monitor": ("monitor", "monitors"),
        "picture": ("picture", "pictures"),
        "pillow": ("pillow", "pillows"),
        "pipe": ("pipe", "pipes"),
        "plant": ("plant", "plants"),
        "rack": ("rack", "rack stand"),
        "towel": ("towel", "towels"),
        "trash bin": ("trash bin", "trash bins", "trash can", "trashcan"),
        "washing machine": ("washing machine", "washing machines"),
        "whiteboard": ("whiteboard", "white board"),
        "window": ("window", "windows"),
    }
)


# ---------------------------------------------------------------------------------------------- EM


def exact_match(pred: str | None, gts: str | Sequence[str]) -> bool:
    """ScanQA EM: the normalised answer equals a normalised reference; an empty answer never matches."""
    answer = em_normal_form(pred)
    return bool(answer) and any(answer == em_normal_form(g) for g in as_answer_list(gts))


def refined_exact_match(pred: str | None, gts: str | Sequence[str]) -> bool:
    """Refined EM: exact, or one side's words are a contiguous run of the other's (never for empty text)."""
    answer = em_normal_form(pred).split()
    if not answer:
        return False
    for gt in as_answer_list(gts):
        ref = em_normal_form(gt).split()
        if ref and (answer == ref or contains_span(ref, answer) or contains_span(answer, ref)):
            return True
    return False


# ------------------------------------------------------------------------------------------- SQA3D


def _synonym_groups(synonyms: Mapping[str, Sequence[str]]) -> list[tuple[tuple[str, ...], ...]]:
    """Each group as cleaned word tuples (``"10 o'clock"`` -> ``("ten", "o", "clock")``)."""
    if not isinstance(synonyms, Mapping):
        raise MetricError(f"synonyms must map an answer to its expressions, not {type(synonyms).__name__}")
    groups = []
    for key, members in synonyms.items():
        words = [tuple(clean_sqa3d(m).split()) for m in as_answer_list(members, f"synonyms of {key!r}")]
        groups.append(tuple(w for w in words if w))
    return groups


_DEFAULT_GROUPS = tuple(_synonym_groups(SQA3D_SYNONYMS))


def _soft_pair(answer: list[str], gt: list[str], groups: Sequence[tuple[tuple[str, ...], ...]]) -> bool:
    if not answer or not gt:
        return False
    if answer == gt or contains_span(gt, answer) or contains_span(answer, gt):
        return True
    if (set(answer) & set(gt)) - FUNCTION_WORDS:
        return True
    gt_t = tuple(gt)
    return any(
        gt_t in group and any(contains_span(answer, member) for member in group) for group in groups
    )


def soft_match(
    pred: str | None, gts: str | Sequence[str], synonyms: Mapping[str, Sequence[str]] = SQA3D_SYNONYMS
) -> bool:
    """LLM-TPC soft match against any reference (rules and fixed bugs in the module doc-string)."""
    answer = clean_sqa3d(pred).split()
    if not answer:
        return False
    groups = _DEFAULT_GROUPS if synonyms is SQA3D_SYNONYMS else _synonym_groups(synonyms)
    return any(_soft_pair(answer, clean_sqa3d(g).split(), groups) for g in as_answer_list(gts))


def strict_match(pred: str | None, gts: str | Sequence[str]) -> bool:
    """SQA3D strict match as LLM-TPC scores it: equal after ``clean_sqa3d``; empty never matches."""
    answer = clean_sqa3d(pred)
    return bool(answer) and any(answer == clean_sqa3d(g) for g in as_answer_list(gts))


def sqa3d_question_type(question: str) -> str:
    """SQA3D's question type by first word: ``what``, ``is``, ``how``, ``can``, ``which`` or ``others``."""
    first = question.lstrip().lower()
    for word in ("what", "is", "how", "can", "which"):
        if first.startswith(word):
            return word
    return "others"


def scanqa_question_type(question: str) -> str:
    """ScanQA's question class (``scripts/score.py`` ``qclass1``): Place, Number, Color, Object nature,
    Object or Other, by the same case-sensitive phrase tests in the same order."""
    if "Where" in question:
        return "Place"
    if "How many" in question:
        return "Number"
    if "What color" in question or "What is the color" in question:
        return "Color"
    if any(p in question for p in ("What shape", "What type", "What kind")):
        return "Object nature"
    if "What is" in question:
        return "Object"
    return "Other"


# ------------------------------------------------------------------------------------- aggregation


def aggregate(
    records: Iterable[Mapping[str, Any]],
    key: str | Callable[[Mapping[str, Any]], Hashable],
    value: str = "correct",
) -> dict[Any, dict[str, float]]:
    """Per group ``{"n": count, "mean": mean of record[value]}``; ``key`` is a field name or a function
    of the record. Booleans count as 0 / 1; the mean is a fraction (multiply by 100 for percent)."""
    sums: dict[Any, list[float]] = {}  # group (a record value or key(record)) -> [count, total]
    for i, rec in enumerate(records):
        if not isinstance(rec, Mapping):
            raise MetricError(f"record {i} is a {type(rec).__name__}, not a mapping")
        if callable(key):
            group = key(rec)
        elif key in rec:
            group = rec[key]
        else:
            raise MetricError(f"record {i} has no field {key!r}")
        if value not in rec:
            raise MetricError(f"record {i} has no field {value!r}")
        v = rec[value]
        try:
            if isinstance(v, str | bytes):
                raise TypeError
            number = float(v)
        except (TypeError, ValueError):
            raise MetricError(f"record {i}: {value!r} must be a number or a bool, not {v!r}") from None
        acc = sums.setdefault(group, [0, 0.0])
        acc[0] += 1
        acc[1] += number
    return {g: {"n": int(n), "mean": total / n} for g, (n, total) in sums.items()}


# ---------------------------------------------------------------------------------- caption metrics

# PTB tokens pycocoevalcap drops after tokenising (its PUNCTUATIONS list).
_PTB_PUNCT = frozenset(
    {"''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--", "...", ";"}
)
_SIMPLE_TOKEN = re.compile(
    r"o'clock\b|\w+(?=n't\b)|n't\b|'(?:s|re|ve|m|ll|d)\b|\d+(?:[.,]\d+)+|\w+(?:[-./]\w+)*|\.\.\.|--|\S"
)
# PTB escapes brackets; with -lowerCase the escapes are lower-case and escape pycocoevalcap's filter.
_BRACKETS = {"(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-"}


def simple_tokenize(text: str) -> str:
    """A pure-Python stand-in for pycocoevalcap's PTB tokenisation (lower-case; clitics ``'s``, ``n't``
    split off; punctuation tokens dropped). Used when Java is missing; agreement is measured in tests."""
    text = text.lower().replace("\n", " ").replace("’", "'").replace("‘", "'")
    text = re.sub(r"\bcannot\b", "can not", text)
    text = re.sub(r"\b(gon|wan|got)(na|ta)\b", r"\1 \2", text)
    tokens = _SIMPLE_TOKEN.findall(text)
    out = []
    for tok in tokens:
        if tok in _PTB_PUNCT or tok == '"':
            continue
        out.append(_BRACKETS.get(tok, tok))
    return " ".join(out)


def _pycoco(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(f"pycocoevalcap.{module}")
    except ImportError:
        raise MetricError("caption metrics need pycocoevalcap: pip install pycocoevalcap") from None


#: A question id (any hashable); predictions and references are keyed by the same ids.
_Key = TypeVar("_Key", bound=Hashable)


def _check_corpus(preds: Mapping[_Key, str], refs: Mapping[_Key, Sequence[str]]) -> None:
    if not isinstance(preds, Mapping) or not isinstance(refs, Mapping):
        raise MetricError("caption_scores takes two dicts: question id -> answer, question id -> references")
    if not preds:
        raise MetricError("no predictions to score")
    missing = [k for k in preds if k not in refs]
    extra = [k for k in refs if k not in preds]
    if missing or extra:
        what = f"{len(missing)} predictions have no references (e.g. {missing[0]!r})" if missing else (
            f"{len(extra)} questions have no prediction (e.g. {extra[0]!r})"
        )
        raise MetricError(f"predictions and references differ: {what}")
    for k, v in preds.items():
        if not isinstance(v, str):
            raise MetricError(f"prediction {k!r} must be a string, got {type(v).__name__}")
        r = refs[k]
        ok = isinstance(r, Sequence) and not isinstance(r, str) and r and all(isinstance(x, str) for x in r)
        if not ok:
            raise MetricError(f"references of {k!r} must be a non-empty list of strings")


def _cider(gts: dict[_Key, list[str]], res: dict[_Key, list[str]]) -> float:
    """pycocoevalcap's corpus CIDEr of tokenised captions, x100."""
    return 100.0 * float(_pycoco("cider.cider").Cider().compute_score(gts, res)[0])


class CaptionScorer:
    """ScanQA's caption metrics with one reusable METEOR process.

    ``tokenizer="ptb"`` runs Stanford's PTBTokenizer (Java) as ScanQA does; ``"simple"`` uses
    :func:`simple_tokenize`. ``meteor=False`` skips METEOR (and its ~10 s Java start). The METEOR
    process starts at the first :meth:`score` (or :meth:`start`) and lives until :meth:`close`;
    use one scorer per process, or ``with CaptionScorer() as s: ...``.
    """

    def __init__(self, *, meteor: bool = True, tokenizer: Literal["ptb", "simple"] = "ptb") -> None:
        if tokenizer not in ("ptb", "simple"):
            raise MetricError(f"unknown tokenizer {tokenizer!r}: use 'ptb' or 'simple'")
        self.use_meteor = meteor
        self.tokenizer = tokenizer
        self._meteor: Any = None

    # -- lifecycle
    def _java(self) -> str:
        java = shutil.which("java")
        if java is None:
            raise MetricError("no Java on PATH for METEOR / PTB (else meteor=False, tokenizer='simple')")
        return java

    def start(self) -> None:
        """Start the METEOR process now (it loads in the background until the first score)."""
        if self.use_meteor and self._meteor is None:
            self._java()
            self._meteor = _pycoco("meteor.meteor").Meteor()

    def close(self) -> None:
        """Stop the METEOR process (safe to call twice); a later :meth:`score` starts a new one."""
        m, self._meteor = self._meteor, None
        if m is not None:
            with m.lock:
                if m.meteor_p.stdin:
                    m.meteor_p.stdin.close()
                m.meteor_p.kill()
                m.meteor_p.wait()

    def __enter__(self) -> CaptionScorer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- tokenisation
    def tokenize(self, texts: Mapping[_Key, Sequence[str]]) -> dict[_Key, list[str]]:
        """Tokenise every caption of every key the configured way."""
        if self.tokenizer == "simple":
            return {k: [simple_tokenize(t) for t in v] for k, v in texts.items()}
        return self._ptb(texts)

    def _ptb(self, texts: Mapping[_Key, Sequence[str]]) -> dict[_Key, list[str]]:
        """pycocoevalcap's PTBTokenizer call, with its temporary file outside site-packages and a check
        that every caption came back."""
        java = self._java()
        jar = Path(_pycoco("tokenizer.ptbtokenizer").__file__).with_name("stanford-corenlp-3.4.1.jar")
        keys = [k for k, v in texts.items() for _ in v]
        sentences = [" ".join(t.split()) for v in texts.values() for t in v]  # one line per caption
        fd, name = tempfile.mkstemp(suffix=".txt", prefix="synergai-ptb-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write("\n".join(sentences))
            cmd = [java, "-cp", str(jar), "edu.stanford.nlp.process.PTBTokenizer", "-preserveLines",
                   "-lowerCase", "-encoding", "utf-8", name]
            proc = subprocess.run(cmd, capture_output=True, check=False, timeout=600)
        finally:
            os.unlink(name)
        if proc.returncode != 0:
            raise MetricError(f"PTBTokenizer failed: {proc.stderr.decode(errors='replace').strip()[-200:]}")
        lines = proc.stdout.decode("utf-8").split("\n")
        if len(lines) < len(sentences) or any(line.strip() for line in lines[len(sentences) :]):
            raise MetricError(f"PTBTokenizer returned {len(lines)} lines for {len(sentences)} captions")
        out: dict[_Key, list[str]] = {k: [] for k in texts}
        for k, line in zip(keys, lines, strict=False):
            out[k].append(" ".join(w for w in line.rstrip().split(" ") if w and w not in _PTB_PUNCT))
        return out

    # -- scoring
    def score(
        self, preds: Mapping[_Key, str], refs: Mapping[_Key, Sequence[str]]
    ) -> dict[str, float]:
        """BLEU-1..4, METEOR (if enabled), ROUGE-L and CIDEr over the corpus, x100 as ScanQA reports.

        ``preds`` maps question id -> answer, ``refs`` question id -> reference answers; both must hold
        the same ids. CIDEr weighs n-grams by their rarity across the corpus, so it is only meaningful
        over many questions (a single question gets 0)."""
        gts, res = self._tokenized(preds, refs)
        bleu, _ = _pycoco("bleu.bleu").Bleu(4).compute_score(gts, res, verbose=0)
        scores = {f"BLEU-{i + 1}": 100.0 * float(b) for i, b in enumerate(bleu)}
        if self.use_meteor:
            scores["METEOR"] = 100.0 * self._meteor_score(gts, res)
        scores["ROUGE-L"] = 100.0 * float(_pycoco("rouge.rouge").Rouge().compute_score(gts, res)[0])
        scores["CIDEr"] = _cider(gts, res)
        return scores

    def cider(self, preds: Mapping[_Key, str], refs: Mapping[_Key, Sequence[str]]) -> float:
        """CIDEr alone (x100), as :meth:`score` computes it: no METEOR process is started."""
        return _cider(*self._tokenized(preds, refs))

    def _tokenized(self, preds: Mapping[_Key, str], refs: Mapping[_Key, Sequence[str]]
                   ) -> tuple[dict[_Key, list[str]], dict[_Key, list[str]]]:
        """The checked corpus tokenised: (references, predictions) by key."""
        _check_corpus(preds, refs)
        return self.tokenize({k: list(refs[k]) for k in preds}), self.tokenize({k: [preds[k]] for k in preds})

    def _meteor_score(self, gts: dict[_Key, list[str]], res: dict[_Key, list[str]]) -> float:
        self.start()
        try:
            value, _ = self._meteor.compute_score(gts, res)
        except (ValueError, OSError) as exc:
            lock = self._meteor.lock
            if lock.locked():
                lock.release()
            self.close()
            raise MetricError(f"METEOR process failed: {exc}") from None
        return float(value)


def caption_scores(
    preds: Mapping[_Key, str],
    refs: Mapping[_Key, Sequence[str]],
    scorer: CaptionScorer | None = None,
) -> dict[str, float]:
    """ScanQA caption metrics (x100) with ``scorer``, or with a temporary one closed afterwards."""
    if scorer is not None:
        return scorer.score(preds, refs)
    with CaptionScorer() as own:
        return own.score(preds, refs)
