"""Registered repairs that make a program parse (:data:`PASSES`), applied only when the text as written
does not, and the definition of names a program reads that spell a scene category.

Python written wrongly in a few general ways has exactly one meaning, so it is repaired rather than sent
back for a repair round: each pass is a function below, named in :data:`PASSES`, in docs/overview.md and
in the program's trace (``repairs``). A rewrite is kept only when the result parses; otherwise the
program is left as written and the static check reports the syntax error with its hint. Calls that parse
are never rewritten: the scene API accepts what a reasonable person writes
(:mod:`synergai.agent.program.api`).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from synergai.agent.program.api import API_NAMES_PATTERN, api_signatures
from synergai.agent.program.arguments import name_positional_arguments
from synergai.agent.program.check import name_uses
from synergai.agent.program.names import category_named, one_object_code, undefined_names

_QUOTE = r"(\"\"\"|'''|\"|')"
#: An f-string's opening: its prefix and quote.
_PREFIX = re.compile(rf"(?<![\w'\"])(?:[rRbBuU]?[fF][rR]?|[rR]?[fF]){_QUOTE}")
#: What the requoting scanner steps over outside f-strings: a comment, an f-string's or a string's opening.
_OUTER = re.compile(rf"(#[^\n]*)|{_PREFIX.pattern}|{_QUOTE}")
_OTHER = {'"': "'", "'": '"'}


def parses(code: str) -> bool:
    """Whether ``code`` is valid Python for the sandbox's interpreter."""
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def _scan_fstring(code: str, start: int, quote: str, out: list[str]) -> int:
    """Copy the f-string body from ``start`` (after its opening quote) to ``out``; return the index after
    its closing quote. Literals inside replacement fields that reuse ``quote`` get the other quotes."""
    i, depth, other = start, 0, _OTHER[quote[0]]
    while i < len(code) and not (code[i] == "\n" and len(quote) == 1):
        ch = code[i]
        if depth == 0 and code.startswith(quote, i):
            out.append(quote)
            return i + len(quote)
        if depth == 0 and (ch == "\\" or code.startswith("{{", i)):  # an escape, a literal brace
            out.append(code[i:i + 2])
            i += 2
        elif depth and ch in "\"'":  # a string literal inside a replacement field
            delim = code[i:i + 3] if code.startswith(ch * 3, i) else ch
            end = code.find(delim, i + len(delim))
            body = code[i + len(delim):end]
            if end < 0 or (delim[0] == quote[0] and (other in body or "\\" in body or len(delim) == 3)):
                raise ValueError("cannot requote")
            inner = other if delim[0] == quote[0] else delim
            out.append(inner + body + inner)
            i = end + len(delim)
        else:
            depth += (ch in "{[(") - (ch in "}])") if depth or ch == "{" else 0
            out.append(ch)
            i += 1
    raise ValueError("unterminated f-string")


def requote_fstrings(code: str) -> str:
    """``code`` with string literals inside f-string replacement fields using the other kind of quotes
    where they reuse the f-string's own (PEP 701 code made valid for Python 3.11)."""
    out, i = [], 0
    while (m := _OUTER.search(code, i)) is not None:
        out.append(code[i:m.end()])
        i = m.end()
        if m[2]:
            i = _scan_fstring(code, i, m[2], out)
        elif m[3]:  # a plain string: copy it whole
            while i < len(code) and not code.startswith(m[3], i):
                i += 2 if code[i] == "\\" else 1
            out.append(code[m.end():i + len(m[3])])
            i += len(m[3])
    return "".join(out) + code[i:]


def _spells(run: list[tokenize.TokenInfo], words: tuple[str, ...]) -> bool:
    """Whether the tokens ``run`` are bare names on one line that spell the category ``words``, the first
    possibly with a prefix joined by ``_`` and the last with a suffix (``closest_water cooler_distance``)."""
    if len(run) != len(words) or any(t.type != tokenize.NAME or t.start[0] != run[0].start[0] for t in run):
        return False
    first, *middle, last = (t.string for t in run)
    return (first == words[0] or first.endswith("_" + words[0])) and tuple(middle) == words[1:-1] and (
        last == words[-1] or last.startswith(words[-1] + "_"))


def join_category_names(code: str, categories: Sequence[str]) -> str:
    """``code`` with the words of a multi-word scene category that stand as bare names joined by ``_``
    (``water cooler = ...`` becomes ``water_cooler = ...``; ``water cooler_distance`` becomes
    ``water_cooler_distance``)."""
    phrases = sorted({tuple(c.split()) for c in categories if len(c.split()) > 1}, key=len, reverse=True)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline)) if phrases else []
    except (tokenize.TokenError, SyntaxError):
        return code
    lines, runs, i = code.splitlines(keepends=True), [], 0
    while i < len(tokens):
        run = next((tokens[i:i + len(w)] for w in phrases if _spells(tokens[i:i + len(w)], w)), None)
        runs += [run] if run else []
        i += len(run) if run else 1
    for run in reversed(runs):  # from the end, so the columns of earlier runs stay right
        (row, begin), end = run[0].start, run[-1].end[1]
        lines[row - 1] = lines[row - 1][:begin] + "_".join(t.string for t in run) + lines[row - 1][end:]
    return "".join(lines)


_CLOCK_IN_NAME = re.compile(r"(?<=\w)o'clock")


def clock_names(code: str) -> str:
    """``code`` with "o'clock" written as "oclock" where it ends a name (``seven_o'clock``)."""
    return _CLOCK_IN_NAME.sub("oclock", code)


#: An API call, to the end of its line.
_API_CALL = re.compile(rf"\b({API_NAMES_PATTERN})\s*\([^\n]*")
_COLON_ARGUMENT = re.compile(r"([(,]\s*)(\w+)\s*:\s*(?=[a-z_\"'\[\d])")


def colon_keywords(code: str) -> str:
    """``code`` with an API call's keyword written with a colon, ``query_relation_agent(object: chair)``,
    written with ``=`` (only the function's own parameter names, and not before a capitalised word: a
    copied signature, ``object: ObjectAttribute``, is the check's to report)."""
    def fix(call: re.Match[str]) -> str:
        params = api_signatures()[call[1]].parameters
        return _COLON_ARGUMENT.sub(lambda m: f"{m[1]}{m[2]}=" if m[2] in params else m[0], call[0])

    return _API_CALL.sub(fix, code)


_FIELD = re.compile(r"\{([^{}\"'\n]*)\}(\]?)")
_CLOSER = {"[": "]", "(": ")"}


def _closers(text: str) -> str | None:
    """The brackets that close what ``text`` leaves open, innermost first; None when it closes one it
    never opened."""
    stack: list[str] = []
    for ch in text:
        if ch in _CLOSER:
            stack.append(_CLOSER[ch])
        elif ch in "])" and (not stack or stack.pop() != ch):
            return None
    return "".join(reversed(stack))


def close_fields(code: str) -> str:
    """``code`` with the brackets an f-string replacement field leaves open closed before its ``}``
    (``f"{[o.category for o in objs[:3]}"``; a ``]`` written after the ``}`` moves inside it)."""

    def fix(m: re.Match[str]) -> str:
        closers = _closers(m[1])
        after = "" if closers and m[2] and closers.endswith(m[2]) else m[2]  # a "]" after the "}" moves in
        return "{" + m[1] + closers + "}" + after if closers else m[0]

    lines = code.splitlines(keepends=True)
    return "".join(_FIELD.sub(fix, line) if _PREFIX.search(line) else line for line in lines)


@dataclass(frozen=True)
class RepairPass:
    """One registered repair of Python written wrongly in a general way (see the module doc-string)."""

    name: str
    repair: Callable[[str, Sequence[str]], str]  # (code, the scene's categories) -> code; ValueError: no fix


#: The repairs :func:`make_parse` tries, in order (each documented in docs/overview.md and tested).
PASSES: tuple[RepairPass, ...] = (
    RepairPass("requote-fstrings", lambda code, _: requote_fstrings(code)),
    RepairPass("join-category-names", join_category_names),
    RepairPass("clock-names", lambda code, _: clock_names(code)),
    RepairPass("close-fields", lambda code, _: close_fields(code)),
    RepairPass("colon-keywords", lambda code, _: colon_keywords(code)),
    RepairPass("name-positional-arguments", lambda code, _: name_positional_arguments(code)),
)


def make_parse(code: str, categories: Sequence[str] = ()) -> tuple[str, list[str]] | None:
    """A repair of ``code`` that parses and the names of the passes it took, when ``code`` does not parse
    and the passes of :data:`PASSES`, applied in turn, make it parse; None otherwise."""
    if parses(code):
        return None
    candidate, used = code, []
    for repair in PASSES:
        try:
            fixed = repair.repair(candidate, categories)
        except ValueError:
            continue
        if fixed != candidate:
            candidate = fixed
            used.append(repair.name)
        if parses(candidate):
            return candidate, used
    return None


def define_categories(code: str, counts: Mapping[str, int], *,
                      ordered_sets: bool = True) -> tuple[str, list[str]] | None:
    """``code`` with an assignment put in front for each name it reads but never assigns that spells a
    scene category (``counts``: objects per category) and is used one way only: as a set it is the
    category's objects (``chairs = filter(object_set=scene(), category='chair')``); as one object only
    when the scene holds exactly one of them (``sink = filter(...)[0]``, ``next(iter(...))`` without
    ordered sets: with several, which one is the model's choice and the check's hint goes back). None
    when no name qualifies."""
    if not parses(code):
        return None
    tree = ast.parse(code)
    uses, found = name_uses(tree, ordered_sets), {}
    for name in dict.fromkeys(n.id for n in undefined_names(tree)):
        category, kinds = category_named(name, list(counts)), uses.get(name, set())
        if category is not None and kinds == {"set"}:
            found[name] = f"filter(object_set=scene(), category={category!r})"
        elif category is not None and kinds == {"object"} and counts[category] == 1:
            found[name] = one_object_code(category, ordered_sets)
    return ("".join(f"{n} = {v}\n" for n, v in found.items()) + code, list(found)) if found else None
