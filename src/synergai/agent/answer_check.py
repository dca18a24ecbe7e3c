"""Every answer checked before it is given (:func:`check_answer`; :func:`settle` is the loops' one call):

(a) **subject**: it is about the object the question names (or the marked one), not another; a question
    about an object the room lacks is answered by saying there is none;
(b) **form**: it has the form the question asks (:mod:`synergai.agent.answer_forms`);
(c) **no tool text**: no ids (nor an object named as the tools name it: "table 28"), coordinates, counts
    of matches, observation sentences or error texts.

A failed check carries its reason (sent back to the model, once) and the graph's best typed answer. An answer
whose only tool text is objects named by id ("trash can 15") is first said without the ids (:func:`settle`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from itertools import takewhile

from synergai.agent.answer_forms import PLACE_RELATIONS, AnswerForm, normalise_answer
from synergai.agent.answer_sentence import count_sentence
from synergai.agent.evidence import counted_at, literal_at, named_at
from synergai.agent.kernel import AnswerVerdict
from synergai.agent.matching import category_matches
from synergai.agent.observation import Fact
from synergai.agent.question import Question
from synergai.agent.result import Answered
from synergai.scene.attributes import color_name
from synergai.scene.grounding.place import places
from synergai.scene.grounding.vocabulary import SceneVocabulary
from synergai.scene.model import (
    STRUCTURE_KINDS,
    SUPPORT_RELATIONS,
    VIEW_DEPENDENT,
    Relation,
    SceneGraph,
    read_from_object,
)
from synergai.scene.vocabulary import (
    ANY_OBJECT_WORDS,
    COLOR_NAMES,
    COLOR_WORDS,
    HAVING_WORDS,
    MATERIAL_WORDS,
    OPEN_QUERY_WORDS,
    PERSON_WORDS,
    RELATION_CUE_WORDS,
    RELATION_PREPOSITIONS,
    ROOM_PART_WORDS,
    SIZE_WORDS,
    basic_color,
    plural,
    singular,
    with_article,
    words_of,
)

#: Tool text an answer must never carry: ids, coordinates, counts of matches, observation templates.
TOOL_TEXT = re.compile(
    r"\(\s*id\s*[:=]?\s*[^)]*\)"  # "(id: 15)"
    r"|\bids?\s*[:#=]\s*\w+|\bid\s+\d+"  # "id: 15", "id 15"
    r"|\[\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?"  # "[1.2, 0.4 ..." (a position or a size)
    r"|-?\d+\.\d+\s*,\s*-?\d+\.\d+\s*,\s*-?\d+\.\d+"  # "1.2, 0.4, 0.8"
    r"|\b\d+\s+objects?\s+(?:fit|match|matches|found)\b|\bobjects? (?:fit|match) '"  # counts of matches
    r"|\bbest match for\b|\bno object matches\b|\bnothing in this room matches\b|\bnext: "
    r"|\bhas attributes:|\bthe position of the\b|\bits size is\b|\bmid point of\b"
    r"|\bclosest categories\b|\bthe room has:|\bobservation\s*:|\berror\s*:|\btraceback\b|\bcheckerror\b"
    r"|\bquery_for_\w+|\bfinal_answer\b|\baction_input\b",
    re.IGNORECASE,
)
#: A word and the number after it: an object named by its id when the number is one of the graph's ids
#: and the word is its category's or "object" ("table 28"), and the ids listed after it ("chairs 4 and 5").
_NAMED_BY_ID = re.compile(r"\b([A-Za-z]+)\s+(\d+)\b((?:\s*(?:,|and)\s*\d+\b)*)")
#: A program's empty value given as the answer ("None", "[]", "set()"): what a program printed, not an answer.
PROGRAM_VALUE = re.compile(r"None|\[\]|set\(\)|\{\}|\(\)|''|\"\"")
#: What each closed form asks for, as the send-back says it.
WANTED: dict[AnswerForm, str] = {
    AnswerForm.YES_NO: "yes or no", AnswerForm.NUMBER: "a number", AnswerForm.COLOR: "a colour word",
    AnswerForm.SHAPE: "a shape word", AnswerForm.DIRECTION: "a direction (left, right, front or back)",
    AnswerForm.CATEGORY: "an object of this room",
    AnswerForm.PLACE: "a place: a relation and its anchor, e.g. 'on the desk'",
}
_CLOSED = (AnswerForm.YES_NO, AnswerForm.NUMBER, AnswerForm.COLOR, AnswerForm.SHAPE, AnswerForm.DIRECTION,
           AnswerForm.CHOICE)
#: Words that end the noun phrase a question names its object by ("the piano *in* the corner").
_PHRASE_END = frozenset({"is", "are", "was", "were", "has", "have", "does", "do", "can", "that", "which",
                         "who", "and", "or", "but", "if", "when", "while", "for", "with", "located", "placed",
                         "there", "here", "it", "in", "on", "at", "of", "by", "from", "to"}
                        | RELATION_PREPOSITIONS | RELATION_CUE_WORDS | PERSON_WORDS)
_ARTICLES = frozenset({"the", "a", "an", "any"})
#: Why a correction's reply fails when it only says the user's words back and nothing was changed.
ECHOES = "it says the user's words back, but nothing was changed"
#: Share of a reply's words that are the user's for it to be their words said back; shortest such reply.
ECHO_SHARE = 0.8
_ECHO_WORDS = 3
#: Why an answer quoting tool text fails.
QUOTES = "it quotes the tools' own text ({!r}); answer in plain words"
_NONE_WORDS = frozenset({"no", "none", "not", "nothing", "nowhere", "0", "zero"})
#: Longest noun phrase read as the thing a question names (words).
_PHRASE_WORDS = 3
#: Shortest noun a category's word may end with for the phrase not to be absent ("can": "trash can").
_SHORTEST_NOUN = 3


@dataclass(frozen=True)
class Subject:
    """What a question is about: objects (``ids``) and their name, or the thing the room lacks."""

    ids: tuple[str, ...] = ()
    name: str = ""
    absent: str = ""
    at: int | None = None  # which word of the question names it


def question_subject(question: Question, graph: SceneGraph, marked: str | None = None) -> Subject:
    """The objects a question names first (the marked object when the question names no other category:
    "what colour is this chair?", not "what colour is the lamp?"); the thing it names that the room lacks
    when it names no category."""
    if marked is not None and marked in graph and (not question.categories
                                                   or graph.get(marked).category in question.categories):
        return Subject((marked,), graph.get(marked).name)
    if not question.categories:
        return Subject(absent=absent_thing(question, graph))
    first = {c: named_at(graph, graph.by_category(c)[0].id, question)
             for c in question.categories if graph.by_category(c)}
    at = min((p for p in first.values() if p is not None), default=None)
    if at is None or any(w in ANY_OBJECT_WORDS or w == "one" for w in question.words[1:at]):
        return Subject(at=at)  # "what colour is the object on the desk": the desk is not what is asked
    cats = [c for c, p in first.items() if p == at]
    # of the names said as written, the longest ("the toilet seat cover dispenser", not the toilet), and a
    # compound's head is its last noun ("the desk chair", "the floor lamp")
    literal = {c: literal_at(question.words, c) for c in first}
    said = {c: len(words_of(c)) for c in cats if literal[c] == at}
    longest = max(said.values(), default=0)
    cats = [c for c in cats if said.get(c, longest) == longest]
    if longest and (heads := [c for c, p in literal.items() if p == at + longest]):
        at, cats = at + longest, heads
    ids = tuple(o.id for c in cats for o in graph.by_category(c))
    return Subject(ids, cats[0], at=at)


def absent_thing(question: Question, graph: SceneGraph) -> str:
    """The noun phrase a question names its object by when nothing in the room can be called so; '' when
    it names none, a part of the room, or one the room has. Only a name no object could answer to is
    absent: no run of the phrase's words names a category (a verb may follow the noun: "what direction do
    the chairs face"), and no category's word ends with one of its nouns ("chair": "armchair"; "sofa":
    "sofa chair")."""
    words = list(question.words)
    start = next((k + 1 for k, w in enumerate(words)
                  if w in _ARTICLES or words[max(k - 1, 0):k + 1] == ["how", "many"]), None)
    if start is None or not question.asking or (start >= 2 and words[start - 2] in HAVING_WORDS):
        return ""  # "what has a faucet": a part of what is asked, not what is asked
    head = takewhile(lambda w: w not in _PHRASE_END, words[start:start + _PHRASE_WORDS + 2])
    named = [w for w in head if w not in COLOR_WORDS and w not in SIZE_WORDS and w not in MATERIAL_WORDS]
    if not named or any(w in ROOM_PART_WORDS | OPEN_QUERY_WORDS | ANY_OBJECT_WORDS for w in named):
        return ""
    cats = sorted({o.category for o in graph} | {n for r in graph.rooms for n in (r.category, r.name)})
    nouns = {singular(w) for w in named if len(w) >= _SHORTEST_NOUN}
    if SceneVocabulary(tuple(cats), ()).categories_said(" ".join(named)) or any(
            w.endswith(n) for c in cats for w in words_of(c) for n in nouns):
        return ""
    return " ".join([*named[-_PHRASE_WORDS:-1], singular(named[-1])])


def tool_text(text: str, graph: SceneGraph | None = None) -> str:
    """The first piece of tool text in ``text`` ('' when there is none); with the ``graph``, also an object
    named by its id as the tools name it ("table 28", "washing machines 14", "object 14")."""
    if m := TOOL_TEXT.search(text):
        return m.group(0)
    return next((m.group(0) for m in _named_by_id(text, graph)), "") if graph is not None else ""


def _named_by_id(text: str, graph: SceneGraph) -> list[re.Match[str]]:
    """Where ``text`` names an object by a word of its category (or "object") and its id."""
    return [m for m in _NAMED_BY_ID.finditer(text) if m.group(2) in graph and (
        (word := m.group(1).lower()) in ANY_OBJECT_WORDS
        or singular(word) in {singular(w) for w in words_of(graph.get(m.group(2)).category)})]


def without_ids(text: str, graph: SceneGraph) -> str:
    """``text`` with the ids taken out of the objects it names by id ("trash can 15" -> "trash can"; "chairs
    4 and 5" -> "chairs" when 5 is an id too)."""
    for m in reversed(_named_by_id(text, graph)):
        listed = all(i in graph for i in re.findall(r"\d+", m.group(3)))
        text = text[:m.end(1)] + text[m.end(3 if listed else 2):]
    return text


def _colours(graph: SceneGraph, ids: Sequence[str]) -> Counter[str]:
    """The basic colour terms of the objects (stored colour words and the captured colour's name)."""
    found: Counter[str] = Counter()
    for oid in ids:
        obj = graph.get(oid)
        named = {basic_color(a) for a in obj.attributes if " ".join(words_of(a)) in COLOR_NAMES}
        if not named and obj.color is not None:
            named = {basic_color(color_name(obj.color))}
        found.update(n for n in named if n)
    return found


def _said(graph: SceneGraph, text: str, structure: bool = False) -> tuple[str, ...]:
    """The room's categories (structure aside; with ``structure``, its floor, walls, ceiling) that ``text``
    names."""
    cats = tuple(sorted({o.category for o in graph if (o.kind in STRUCTURE_KINDS) == structure}))
    return SceneVocabulary(cats, ()).categories_said(text)


def _holds_up(question: Question) -> bool:
    """Whether the question asks what holds its object up ("what is the towel hanging from?"): the one
    kind of question the floor, a wall or the ceiling answers. They take part in no other relation
    (nothing is "in front of the floor"), so a question that says a direction is never one."""
    meant = question.relations_meant
    return bool(meant & SUPPORT_RELATIONS) and not meant & VIEW_DEPENDENT


def _place_anchor(text: str) -> tuple[str, str] | None:
    """(relation, the words after it) of a place answer, the first relation it says; None without one."""
    t = f" {' '.join(words_of(text))} "
    found = [(t.find(f" {r} "), r) for r in PLACE_RELATIONS if f" {r} " in t]
    if not found:
        return None
    at, rel = min(found, key=lambda f: (f[0], -len(f[1])))
    return rel, t[at + len(rel) + 2:].strip()


def _form_problem(question: Question, text: str, graph: SceneGraph) -> str:
    """Why the answer is not of the form asked ('' when it is)."""
    form = question.reply_form
    if form in _CLOSED:
        fits = bool(normalise_answer(form, text, question.options))
    elif form is AnswerForm.PLACE:
        place = _place_anchor(text)
        fits = bool(place and (set(words_of(place[1])) & ROOM_PART_WORDS or _said(graph, place[1])))
    else:
        fits = form is not AnswerForm.CATEGORY or bool(_said(graph, text))
    if fits:
        return ""
    wanted = f"one of: {', '.join(question.options)}" if form is AnswerForm.CHOICE else WANTED[form]
    return f"the question asks for {wanted}"


def _subject_problem(question: Question, text: str, graph: SceneGraph, subject: Subject) -> str:
    """Why the answer is about another object than the question's ('' when it is not, or unknown)."""
    form, name = question.reply_form, subject.name
    if not subject.ids:
        return ""
    if form is AnswerForm.COLOR:
        colours = _colours(graph, subject.ids)
        said = normalise_answer(form, text)
        if colours and said not in colours:
            return f"no {name} here is {said}: the {name} is {' or '.join(sorted(colours))}"
    if form is AnswerForm.PLACE:
        place = _place_anchor(text)
        named = _said(graph, place[1]) if place else ()
        if named and set(named) <= {graph.get(i).category for i in subject.ids}:
            return f"a place is said by another object than the {name} itself"
    if form is AnswerForm.CATEGORY and question.kind_at is None:
        named, asked = _said(graph, text), question.asked_categories  # its name, or its head: "counter"
        if named and set(named) <= {*asked, *(singular(words_of(c)[-1]) for c in asked)}:
            return f"the question already names the {named[0]}; name the other object it asks for"
    if form is AnswerForm.NUMBER and counted_at(question, subject.at):
        said, n = normalise_answer(form, text), len(_counted(graph, subject))
        if said.isdigit() and int(said) > n:
            return f"the room has only {n} {plural(name) if n != 1 else name}"
    return ""


def _counted(graph: SceneGraph, subject: Subject) -> list[str]:
    """The objects a "how many" of the subject's name counts: every one the name matches."""
    return [o.id for o in graph if category_matches(subject.name, o.category)] or list(subject.ids)


def counted_matches(question: Question, subject: Subject, facts: Sequence[Fact]) -> tuple[str, ...] | None:
    """The objects the lookups matched for the question's subject when "how many" counts it ("how many
    chairs are next to the table": every chair found next to it, not only the closest); None when it
    counts no object the room has or no lookup matched it fully."""
    if not subject.ids or not counted_at(question, subject.at):
        return None
    matched = (f.fitting or f.subjects for f in facts if not f.wording and not f.partial and f.subjects)
    return next((ids for ids in matched if set(ids) <= set(subject.ids)), None)


def graph_answer(question: Question, graph: SceneGraph, subject: Subject) -> tuple[str, str] | None:
    """The best typed answer the graph gives, as (short answer, sentence); None when it gives none."""
    form, name, ids = question.reply_form, subject.name, subject.ids
    if subject.absent:
        short = {AnswerForm.YES_NO: "no", AnswerForm.NUMBER: "0"}.get(form, f"there is no {subject.absent}")
        return short, f"There is no {subject.absent} in this room."
    if not ids:
        return None
    if form is AnswerForm.COLOR and (colours := _colours(graph, ids)):
        colour = colours.most_common(1)[0][0]
        return colour, f"The {name} is {colour}."
    if form is AnswerForm.NUMBER and counted_at(question, subject.at):
        n = len(_counted(graph, subject))
        return str(n), count_sentence(n, name)
    if form is AnswerForm.PLACE:
        place = next((p for oid in ids for p in places(graph, oid)
                      if not p.anchor or graph.get(p.anchor).category != name), None)
        if place is not None:
            words = place.words(graph)
            return words, f"The {name} is {words}."
    if form is AnswerForm.CATEGORY and question.kind_at is None:
        # of the objects related to it, first one in a relation the question says
        meant = _from_subject(question, subject)
        related = sorted(((r, graph.get(o)) for oid in ids for r, o in graph.relations_of(oid) if o in graph),
                         key=lambda ro: ro[0] not in meant)
        other = next((o for _, o in related if o.kind not in STRUCTURE_KINDS
                      and o.category not in question.asked_categories and o.category not in ANY_OBJECT_WORDS),
                     None)
        if other is not None:
            return other.category, f"It is {with_article(other.category)}."
    return None


def _from_subject(question: Question, subject: Subject) -> frozenset[Relation]:
    """The relations the question means, read from its subject's side: a relation said before the subject
    is the asked object's ("what is on the desk": what the desk supports; "what is the tv above": above)."""
    meant = question.relations_meant
    if subject.at is None or not RELATION_CUE_WORDS & set(question.words[:subject.at]):
        return meant
    return frozenset(read_from_object(r) or r for r in meant)


def _failed(question: Question, graph: SceneGraph, subject: Subject, reason: str) -> AnswerVerdict:
    short, sentence = graph_answer(question, graph, subject) or (None, "")
    return AnswerVerdict(False, reason, short, sentence)


def check_answer(question: Question, answer: str, graph: SceneGraph,
                 marked: str | None = None) -> AnswerVerdict:
    """Check one answer (its short form, or its sentence) before it is given (see the module doc-string)."""
    text = " ".join(str(answer).split())
    subject = question_subject(question, graph, marked)
    failed = partial(_failed, question, graph, subject)
    if quoted := tool_text(text, graph):
        return failed(QUOTES.format(quoted))
    if subject.absent:
        said = set(words_of(text))
        if said & _NONE_WORDS and singular(subject.absent.split()[-1]) in {singular(w) for w in said}:
            return AnswerVerdict(True)  # "there is no piano": a bare "none" is given as that sentence
        return failed(f"this room has no {subject.absent}: say so, do not answer about another object")
    if not text:
        return failed("the answer is empty")
    if question.reply_form not in _CLOSED and PROGRAM_VALUE.fullmatch(text):
        return failed(f"{text!r} is a program's empty value, not an answer")
    if question.reply_form not in _CLOSED and set(words_of(text)) & _NONE_WORDS:
        return AnswerVerdict(True)  # "there is nothing on it", "I could not find it": an answer too
    problem = _form_problem(question, text, graph)
    if question.reply_form is AnswerForm.CATEGORY and set(words_of(text)) <= ANY_OBJECT_WORDS | _ARTICLES:
        return failed("'object' names no object: say which one")
    if problem and question.reply_form is AnswerForm.CATEGORY:
        # "what is in front of the desk": the floor, named with no other object
        if _said(graph, text, structure=True) and not _said(graph, text) and not _holds_up(question):
            return failed("the floor, walls and ceiling only hold things up: name an object of this room")
        return AnswerVerdict(False, problem)  # a thing the labels lack ("the rod"): no better word
    problem = problem or _subject_problem(question, text, graph, subject)
    if problem:
        return failed(problem)
    # a count cannot be of this room when it is more than all the objects the room holds
    count = normalise_answer(AnswerForm.NUMBER, text) if question.reply_form is AnswerForm.NUMBER else ""
    if not (count.isdigit() and int(count) > len(graph)):
        return AnswerVerdict(True)
    beyond = f"{count} is more than all the {len(graph)} objects this room holds"
    verdict = failed(beyond)
    # a count of parts ("200" legs) with no count in the graph: no number is given
    return verdict if verdict.fallback is not None else AnswerVerdict(False, beyond, "", CANNOT_COUNT)


#: The trace record of a failed check (one per answer that failed).
CHECK = "answer-check"
#: The trace step of an answer whose objects named by id were said without their ids.
UNNAMED = "answer-ids-taken-out"
#: What the model is told when its answer is sent back.
SEND_BACK = ("Your answer was not given to the user: {reason}. Give the final answer again, from the "
             "observations.")
#: What is said when an answer fails its check and the graph gives none (never the tool text).
NO_ANSWER = "Sorry, I could not find that in this room."
#: What is said for a count that cannot be of this room when the graph gives none ("200" legs).
CANNOT_COUNT = "Sorry, I cannot count that from the objects of this room."


def settle(result: Answered, question: Question, graph: SceneGraph, marked: str | None = None, *,
           may_retry: bool) -> str | None:
    """Check the answer in ``result``: the send-back text when it fails and ``may_retry``, else None;
    ``result`` then holds what may be given (the graph's answer, when the check failed)."""
    if not question.asking or result.error or not (result.answer or result.short_answer):
        return None  # a correction, or no answer at all (the loop says why)
    _say_without_ids(result, graph)
    verdict = check_answer(question, result.short_answer or result.answer, graph, marked)
    said = tool_text(result.answer, graph)
    if verdict.ok and said:
        verdict = _failed(question, graph, question_subject(question, graph, marked), QUOTES.format(said))
    if verdict.ok:
        return None
    retry = _rejected(result, verdict, may_retry)
    if verdict.fallback is None and any(tool_text(t, graph) for t in (result.answer, result.short_answer)):
        result.short_answer, result.answer = "", NO_ANSWER
    return SEND_BACK.format(reason=verdict.reason) if retry else None


def _say_without_ids(result: Answered, graph: SceneGraph) -> None:
    """An answer whose only tool text is objects named by id, said without the ids (recorded)."""
    if tool_text(result.answer) or tool_text(result.short_answer):
        return  # other tool text: the check fails it
    plain = [without_ids(t, graph) for t in (result.answer, result.short_answer)]
    if plain != [result.answer, result.short_answer]:
        result.trace.append({"type": UNNAMED, "answer": result.answer, "short_answer": result.short_answer})
        result.answer, result.short_answer = plain


def echoes(answer: str, said: str) -> bool:
    """Whether ``answer`` is the user's words ``said`` said back: most of its words are theirs."""
    words, theirs = words_of(answer), set(words_of(said))
    return len(words) >= _ECHO_WORDS and sum(w in theirs for w in words) >= ECHO_SHARE * len(words)


def settle_quotes(result: Answered, plain: str, *, may_retry: bool, unchanged: str = "",
                  graph: SceneGraph | None = None) -> str | None:
    """Check only that ``result``'s reply quotes no tool text: for a correction's reply, and for an answer
    the conversation may outweigh the graph for. The send-back text when it quotes and ``may_retry``;
    else ``result`` then says ``plain`` instead. ``unchanged``: the words of a correction that changed
    nothing, which its reply may not say back as if done. With the ``graph`` (an answer), objects named
    by id are said without the ids first."""
    if graph is not None and not result.error:
        _say_without_ids(result, graph)
    quoted = tool_text(result.answer, graph) or tool_text(result.short_answer, graph)
    if result.error or not (quoted or (unchanged and echoes(result.answer, unchanged))):
        return None
    reason = QUOTES.format(quoted) if quoted else ECHOES
    if _rejected(result, AnswerVerdict(False, reason), may_retry and bool(quoted)):
        return SEND_BACK.format(reason=reason)
    result.short_answer, result.answer = "", plain
    return None


def _rejected(result: Answered, verdict: AnswerVerdict, may_retry: bool) -> bool:
    """The failed check recorded in ``result``'s trace; the graph's answer, if any, put in its place.
    Whether it is sent back: when ``may_retry``, once an answer."""
    sent_back = may_retry and not any(t.get("type") == CHECK for t in result.trace)
    result.trace.append({"type": CHECK, "ok": False, "reason": verdict.reason, "answer": result.answer,
                         "short_answer": result.short_answer, "fallback": verdict.fallback,
                         "sent_back": sent_back})
    if verdict.fallback is not None:
        result.short_answer, result.answer = verdict.fallback, verdict.sentence
    return sent_back


def fall_back(result: Answered, question: Question, graph: SceneGraph, reason: str) -> None:
    """Where the loop has no answer (``reason``): the graph's typed answer in ``result``, recorded as a
    failed check; nothing changes when the graph gives none."""
    verdict = _failed(question, graph, question_subject(question, graph), reason)
    if verdict.fallback is not None:
        _rejected(result, verdict, may_retry=False)
