"""Registered repairs that make a program parse (:data:`PASSES`), applied only when the text as written
does not, and the carrying of an earlier attempt's assignments.

Python written wrongly in a few general ways has exactly one meaning, so it is repaired rather than
sent back for a repair round (each pass is named in the program's trace, ``repairs``):

* **Reused quotes inside an f-string** (``f"{x["a"]}"``): valid from Python 3.12 (PEP 701), a syntax
  error in the sandbox's Python 3.11. The string literals inside replacement fields get the other kind
  of quotes, which is what the code means under 3.12.
* **A scene category written as an identifier with spaces** (``water cooler = filter(...)``, also inside a
  longer name: ``water cooler_distance``): the words of one of the scene's multi-word categories, standing
  outside any string, are joined with ``_``.

* **"o'clock" inside a name** (``seven_o'clock = ...``): the apostrophe opens a string; the name is
  written ``seven_oclock``.
* **A bracket left open inside an f-string's replacement field** (``f"{[o.category for o in objs[:3]}"``,
  also with the ``]`` written after the ``}``): closed before the ``}``.
* **A keyword written with a colon in an API call** (``query_relation_agent(object: chair)``): one of the
  function's parameter names followed by ``:`` and a value is the keyword ``object=chair``.

A rewrite is kept only when the result parses; otherwise the program is left as written and the static
check reports the syntax error with its hint.

Calls that parse but are not what the API documents (``relate_agent(..., reference_object=x)``,
Python's ``filter(lambda x: ..., items)``, ``query_attribute(obj, "category")``, ``objects.sort(...)``)
are not rewritten: the scene API accepts them (:mod:`synergai.agent.program.api`).

A repaired program often fixes the line the hint named and drops the lines before it, so names the
earlier attempt assigned are undefined. :func:`carry_definitions` puts those top-level assignments (and
the ones they need) back in front, in their original order: the model's own code, meant to run first.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from synergai.agent.program.api import api_signatures
from synergai.agent.program.check import API_NAMES_PATTERN, category_named, name_uses, one_object_code
from synergai.agent.program.names import assignments, undefined_names


def _params(name: str) -> list[str]:
    """The parameter names of an API function, in order."""
    return list(api_signatures()[name].parameters)


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


def _spells(names: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """Whether consecutive bare ``names`` spell the category ``words``, the first name possibly with a
    prefix joined by ``_`` and the last with a suffix (``closest_water cooler_distance``)."""
    first, *middle, last = names
    return (first == words[0] or first.endswith("_" + words[0])) and tuple(middle) == words[1:-1] and (
        last == words[-1] or last.startswith(words[-1] + "_"))


def join_category_names(code: str, categories: Sequence[str]) -> str:
    """``code`` with the words of a multi-word scene category that stand as bare names joined by ``_``
    (``water cooler = ...`` becomes ``water_cooler = ...``; ``water cooler_distance`` becomes
    ``water_cooler_distance``)."""
    phrases = sorted({tuple(c.split()) for c in categories if len(c.split()) > 1}, key=len, reverse=True)
    if not phrases:
        return code
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return code
    lines = code.splitlines(keepends=True)
    edits: list[tuple[int, int, int, str]] = []  # (row, start col, end col, replacement)
    i = 0
    while i < len(tokens):
        for words in phrases:
            run = tokens[i:i + len(words)]
            if (len(run) == len(words) and all(t.type == tokenize.NAME for t in run)
                    and _spells(tuple(t.string for t in run), words)
                    and len({t.start[0] for t in run}) == 1):
                edits.append((run[0].start[0], run[0].start[1], run[-1].end[1],
                              "_".join(t.string for t in run)))
                i += len(words) - 1
                break
        i += 1
    for row, begin, end, text in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:begin] + text + line[end:]
    return "".join(lines)


_CLOCK_IN_NAME = re.compile(r"(?<=\w)o'clock")


def clock_names(code: str) -> str:
    """``code`` with "o'clock" written as "oclock" where it ends a name (``seven_o'clock``)."""
    return _CLOCK_IN_NAME.sub("oclock", code)


_API_CALL = re.compile(rf"\b({API_NAMES_PATTERN})\s*\(")
_COLON_ARGUMENT = re.compile(r"([(,]\s*)(\w+)\s*:\s*(?=[a-z_\"'\[\d])")


def colon_keywords(code: str) -> str:
    """``code`` with an API call's keyword written with a colon, ``query_relation_agent(object: chair)``,
    written with ``=`` (only the function's own parameter names, and not before a capitalised word: a
    copied signature, ``object: ObjectAttribute``, is the check's to report)."""
    def keyword(m: re.Match[str], params: set[str]) -> str:
        return f"{m.group(1)}{m.group(2)}=" if m.group(2) in params else m.group(0)

    out, last = [], 0
    for call in _API_CALL.finditer(code):
        if call.start() < last:
            continue
        params = set(_params(call.group(1)))
        end = code.find("\n", call.end())
        end = len(code) if end < 0 else end
        span = code[call.end() - 1:end]
        fixed = _COLON_ARGUMENT.sub(functools.partial(keyword, params=params), span)
        out.append(code[last:call.end() - 1] + fixed)
        last = end
    return "".join(out) + code[last:]


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
        closers = _closers(m.group(1))
        if not closers:
            return m.group(0)
        after = m.group(2)
        if after and closers.endswith(after):
            return "{" + m.group(1) + closers + "}"
        return "{" + m.group(1) + closers + "}" + after

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


def carry_definitions(code: str, earlier: Sequence[str]) -> tuple[str, list[str]] | None:
    """``code`` with the top-level assignments of the ``earlier`` programs that its undefined names need
    put in front (each one's own needs before it; a later program's assignment wins), and the names
    carried; None when it needs none, or when one of them was never assigned before (then the check's
    hint goes back as usual)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    missing = list(dict.fromkeys(n.id for n in undefined_names(tree)))
    if not missing:
        return None
    definitions: dict[str, ast.Assign] = {}
    for program in earlier:  # earliest first, so a later program's assignment wins
        definitions.update(assignments(program))
    order: list[str] = []

    def need(name: str, path: tuple[str, ...]) -> bool:
        if name in order:
            return True
        if name not in definitions or name in path:
            return False
        probe = ast.Module(body=[definitions[name]], type_ignores=[])
        if not all(need(n, (*path, name)) for n in dict.fromkeys(u.id for u in undefined_names(probe))):
            return False
        order.append(name)
        return True

    if not all(need(name, ()) for name in missing):
        return None
    head = "".join(ast.unparse(definitions[name]) + "\n" for name in order)
    return head + code, order


def define_categories(code: str, counts: Mapping[str, int], *,
                      ordered_sets: bool = True) -> tuple[str, list[str]] | None:
    """``code`` with an assignment put in front for each name it reads but never assigns that spells a
    scene category (``counts``: objects per category) and is used one way only: as a set it is the
    category's objects (``chairs = filter(object_set=scene(), category='chair')``); as one object only
    when the scene holds exactly one of them (``sink = filter(...)[0]``, ``next(iter(...))`` without
    ordered sets: with several, which one is the model's choice and the check's hint goes back). None
    when no name qualifies."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    uses = name_uses(tree, ordered_sets)
    lines, names = [], []
    for name in dict.fromkeys(n.id for n in undefined_names(tree)):
        category = category_named(name, list(counts))
        kinds = uses.get(name, set())
        if category is None or len(kinds) != 1:
            continue
        if kinds == {"object"} and counts[category] != 1:
            continue
        found = one_object_code(category, ordered_sets) if kinds == {"object"} else \
            f"filter(object_set=scene(), category={category!r})"
        lines.append(f"{name} = {found}\n")
        names.append(name)
    return ("".join(lines) + code, names) if names else None
