"""Answer text handling for QA metrics: normalisation, word-span containment, short-answer extraction.

Two normalisations, one per benchmark convention:

- :func:`em_normal_form` (ScanQA / SQuAD style, used by EM): lower-case, hyphens and slashes to
  spaces, other punctuation deleted (``"bed's"`` -> ``"beds"``), articles ``a an the`` dropped,
  number words ``zero`` .. ``twenty`` to digits (ScanQA writes counts as digits), spaces collapsed.
- :func:`clean_sqa3d` (LLM-TPC's ``clean_answer``, used by soft / strict match): lower-case, every
  run of non-alphanumerics to one space, integers 0..99 to English words (``"23"`` -> ``"twenty
  three"``; LLM-TPC only converted 0..20 and 23, and wrote 23 with a hyphen its own cleaning removes).

Both work on whole words (regular expressions with word boundaries), so ``"on top of"`` or
``"below"`` are never mangled by a replacement meant for another word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from types import MappingProxyType

from synergai.scene.vocabulary import WORD_TO_NUMBER, number_to_words

ARTICLES = frozenset({"a", "an", "the"})

#: Words that carry no answer content: ignored when soft match looks for a common word and when
#: :func:`short_answer` decides which part of a sentence echoes the question.
FUNCTION_WORDS = frozenset(
    {
        "a", "an", "the", "this", "that", "these", "those", "some", "any", "each", "both", "all",
        "of", "on", "in", "at", "to", "by", "for", "with", "from", "into", "onto", "up", "as",
        "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "has", "have",
        "had", "can", "could", "will", "would", "should", "may", "might", "must",
        "i", "me", "my", "you", "your", "it", "its", "he", "she", "his", "her", "we", "our", "they",
        "them", "their", "there", "here", "and", "or", "but", "so", "then", "also", "very",
        "o", "clock",
    }
)

WH_WORDS = frozenset({"what", "which", "where", "who", "whom", "whose", "how", "many", "much", "why", "when"})
COPULAS = frozenset({"is", "are", "was", "were"})
# Verbs that follow "is" in a location sentence and add nothing ("is located next to ...").
_PLACEMENT_VERBS = frozenset(
    {"located", "placed", "positioned", "situated", "sitting", "standing", "lying", "found", "kept", "seen",
     "currently", "also", "mounted", "hanging"}
)
_AUX_BASE = MappingProxyType({"has": "have", "had": "have", "does": "do", "did": "do"})
_PREPOSITIONS = frozenset(
    {"on", "in", "at", "to", "by", "for", "with", "from", "into", "onto", "under", "below", "above", "over",
     "near", "beside", "behind", "between", "against", "inside", "underneath", "beneath", "next", "of"}
)
_SUBJECT_FILLERS = frozenset(
    {"it", "they", "there", "this", "that", "these", "those", "he", "she", "i", "you"}
)

_WORD_TO_DIGIT = MappingProxyType({w: str(i) for w, i in WORD_TO_NUMBER.items()})

_PRONOUN_CONTRACTION = re.compile(r"\b(it|that|there|here|what|he|she|who|where)'s\b")
_OTHER_CONTRACTIONS = (
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"'re\b"), " are"),
    (re.compile(r"'m\b"), " am"),
    (re.compile(r"'ve\b"), " have"),
    (re.compile(r"'ll\b"), " will"),
)
_LEADING_CLAUSE = re.compile(r"^(based on|according to|looking at|from) [^,]{0,80},\s*")
_LEADING_FILLER = re.compile(
    r"^(the )?(final |short )?answer( is)?:?\s+|^(i think|i believe|i see that|it seems( that)?|"
    r"it looks like|it appears( that)?)\s+"
)
_YES_NO = re.compile(r"^(yes|no)\b\s*([,.!;:]|$)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


class MetricError(ValueError):
    """Bad input to a metric (one-line message naming the problem)."""


def _as_text(value: object, what: str) -> str:
    """``value`` as a string; ``None`` is the empty answer; anything else that is not text is an error."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise MetricError(f"{what} must be a string, got {type(value).__name__}")
    return value


def as_answer_list(gts: str | Sequence[str] | None, what: str = "ground-truth answers") -> list[str]:
    """Ground truths as a list of strings (a single string is one answer)."""
    if gts is None:
        return []
    if isinstance(gts, str):
        return [gts]
    if not isinstance(gts, Sequence):
        raise MetricError(f"{what} must be a string or a list of strings, got {type(gts).__name__}")
    return [_as_text(g, what) for g in gts]


def em_normal_form(s: str | None) -> str:
    """ScanQA / SQuAD-style normal form (see the module doc-string); ``None`` gives ``""``."""
    text = _as_text(s, "answer").lower()
    text = re.sub(r"[-/]", " ", text)
    text = re.sub(r"[^\w\s]|_", "", text)
    words = [_WORD_TO_DIGIT.get(w, w) for w in text.split() if w not in ARTICLES]
    return " ".join(words)


def clean_sqa3d(s: str | None) -> str:
    """LLM-TPC's answer cleaning for SQA3D, without its number bugs (see the module doc-string)."""
    text = _as_text(s, "answer").lower()
    text = re.sub(r"\boclock\b", "o clock", text)
    text = re.sub(r"[^a-z0-9]+", " ", text)
    text = re.sub(r"\b\d+\b", lambda m: number_to_words(int(m.group())), text)
    return " ".join(text.split())


def contains_span(outer: Sequence[str], inner: Sequence[str]) -> bool:
    """True when the words ``inner`` form a contiguous run of ``outer``, or when ``inner`` written
    without spaces equals a contiguous run of ``outer`` written without spaces (``"minifridge"`` in
    ``"mini fridge"``). Word-aligned: ``"on"`` is not in ``"front"``. Empty ``inner`` is never contained."""
    if not inner or not outer:
        return False
    n, m = len(outer), len(inner)
    if any(list(outer[i : i + m]) == list(inner) for i in range(n - m + 1)):
        return True
    glued = "".join(inner)
    for i in range(n):
        run = ""
        for j in range(i, n):
            run += outer[j]
            if len(run) >= len(glued):
                if run == glued:
                    return True
                break
    return False


def _stem(word: str) -> str:
    """A crude base form for comparing a sentence's words with the question's (``chairs`` -> ``chair``,
    ``sitting`` -> ``sit``, ``has`` -> ``have``)."""
    word = word.removesuffix("'s").strip("'")
    if word in _AUX_BASE:
        return _AUX_BASE[word]
    if len(word) > 5 and word.endswith("ing"):
        base = word[:-3]
        return base[:-1] if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "lsz" else base
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _words(text: str) -> list[str]:
    """Lower-case words of a sentence: pronoun contractions expanded, possessive ``'s`` kept."""
    text = text.lower().replace("’", "'")
    text = _PRONOUN_CONTRACTION.sub(r"\1 is", text)
    for pattern, repl in _OTHER_CONTRACTIONS:
        text = pattern.sub(repl, text)
    text = re.sub(r"[-/]", " ", text)
    text = re.sub(r"[^\w\s']|_", " ", text)
    return [w.strip("'") for w in text.split() if w.strip("'")]


def _first_sentence(text: str) -> str:
    for part in _SENTENCE_END.split(text.strip()):
        if part.strip():
            return part.strip()
    return ""


def _is_content(word: str) -> bool:
    return word not in FUNCTION_WORDS and word not in WH_WORDS


def _echo_share(words: Sequence[str], echo: frozenset[str]) -> float:
    """Share of the content words of ``words`` that repeat the question (1.0 when none are content)."""
    content = [w for w in words if _is_content(w) and w not in _SUBJECT_FILLERS]
    if not content:
        return 1.0
    return sum(_stem(w) in echo for w in content) / len(content)


def _question_echo(question: str) -> frozenset[str]:
    """Stems of the question's content words, minus the options of an ``X or Y`` choice."""
    words = _words(question)
    options = {
        words[i + d] for i, w in enumerate(words) if w == "or" for d in (-1, 1) if 0 <= i + d < len(words)
    }
    return frozenset(_stem(w) for w in words if _is_content(w) and w not in options)


def _echo_prefix(part: list[str], question: Sequence[str], echo: frozenset[str], strict: bool) -> int:
    """Length of the longest opening of ``part`` (never all of it) that the question contains word for
    word, that holds a question word and that ends at a phrase boundary (a function word or a
    preposition on either side): ``"surrounded by"`` in ``"surrounded by 10 chairs"`` for "What is the
    table surrounded by?", but not ``"next to brown"`` in ``"next to brown chair"``. ``strict`` (no
    "is" in the sentence) also wants two words or more starting with a content word (a subject and its
    verb: ``"black knapsack rests on"``), so that ``"tv stand"`` or ``"in front of whiteboard"`` stay."""
    stems = [_stem(w) for w in part]
    for k in range(len(part) - 1, 0, -1):
        boundary = not _is_content(part[k - 1]) or not _is_content(part[k]) or part[k] in _PREPOSITIONS
        if not boundary or (strict and (k < 2 or not _is_content(part[0]))):
            continue
        if any(_stem(w) in echo for w in part[:k] if _is_content(w)) and contains_span(question, stems[:k]):
            return k
    return 0


def _echo_suffix(part: list[str], question: Sequence[str], echo: frozenset[str]) -> int:
    """Start of the longest closing phrase (a preposition and its object) that the question contains
    word for word, e.g. ``"in hotel room"``; ``len(part)`` when there is none. ``"of piano"`` for
    "Where is the piano bench?" is not in the question, so an answer keeps its anchor."""
    stems = [_stem(w) for w in part]
    for k in range(1, len(part)):
        if (
            part[k] in _PREPOSITIONS
            and any(_is_content(w) for w in part[:k])
            and any(_stem(w) in echo for w in part[k:] if _is_content(w))
            and contains_span(question, stems[k:])
        ):
            return k
    return len(part)


def _trim(part: list[str], question: Sequence[str], echo: frozenset[str], after_copula: bool) -> list[str]:
    """Drop placement verbs after "is" (``"is located next to"``), articles, an opening and (in a
    sentence) a closing phrase that repeat the question, and in a count the nouns after the number."""
    while after_copula and part and part[0] in _PLACEMENT_VERBS:
        part = part[1:]
    part = [w for w in part if w not in ARTICLES]
    start = _echo_prefix(part, question, echo, strict=not after_copula)
    part = part[start:]
    if after_copula or start:  # a sentence: its closing phrase may repeat the question
        part = part[: _echo_suffix(part, question, echo)]
    rest = [w for w in part[1:] if _is_content(w) and w not in _PLACEMENT_VERBS]
    if len(part) > 1 and part[0].isdigit() and all(_stem(w) in echo for w in rest):
        part = part[:1]
    return part


def short_answer(text: str | None, question: str = "") -> str:
    """A ScanQA-style short phrase from a model's answer, which may be a full sentence.

    Works on the first sentence: drops lead-ins (``"Based on the scene, "``, ``"The answer is"``),
    returns ``yes`` / ``no`` when the sentence starts with one, turns number words into digits, then
    splits the sentence at its first ``is`` / ``are`` / ``was`` / ``were`` and keeps the side that
    repeats fewer of the question's words (pronouns like *it*, *there* count as repeating). From that
    side it drops placement verbs after "is" (*located*, *placed*), articles, an opening and a closing
    phrase the question already says word for word (``"surrounded by"``, ``"in the hotel room"``),
    and in a count the nouns after the number (``"2 chairs"`` -> ``"2"``). A place keeps an anchor the
    question does not name (``"to the left of the desk"``). No question-specific rules: it
    only compares the answer's words with the question's. Examples::

        "The chair is brown."  /  "What color is the chair?"  -> "brown"
        "There are 2 chairs."  /  "How many chairs are there?" -> "2"
        "It is on the table."  /  "Where is the cup?"          -> "on table"

    A short answer without a verb comes back normalised the same way (``"Brown."`` -> ``"brown"``).
    """
    raw = _as_text(text, "answer")
    sentence = _first_sentence(raw).lower()
    sentence = _LEADING_CLAUSE.sub("", sentence)
    sentence = _LEADING_FILLER.sub("", sentence)
    words = [_WORD_TO_DIGIT.get(w, w) for w in _words(sentence)]
    if not words:
        return ""
    if _YES_NO.match(sentence):
        return words[0]
    question = _as_text(question, "question")
    echo = _question_echo(question)
    question_stems = [_stem(w) for w in _words(question) if w not in ARTICLES]
    part, after_copula = words, False
    cop = next((i for i, w in enumerate(words) if w in COPULAS), None)
    if cop is not None:
        left, right = words[:cop], words[cop + 1 :]
        if right and (not left or _echo_share(left, echo) >= _echo_share(right, echo)):
            part, after_copula = right, True
        elif left:
            part = left
    trimmed = _trim(list(part), question_stems, echo, after_copula)
    if not trimmed:
        trimmed = [w for w in part if w not in ARTICLES] or part
    return " ".join(trimmed)
