"""The parse passes: Python written wrongly in a few general ways that has exactly one meaning, rewritten
(each registered in :data:`synergai.agent.program.repairs.REPAIRS`)."""

from __future__ import annotations

import io
import re
import tokenize

from synergai.agent.program.api import api_signatures, full_keyword
from synergai.agent.program.names import parsed

_QUOTE = r"(\"\"\"|'''|\"|')"
#: An f-string's opening: its prefix and quote.
_PREFIX = re.compile(rf"(?<![\w'\"])(?:[rRbBuU]?[fF][rR]?|[rR]?[fF]){_QUOTE}")
#: What the requoting scanner steps over outside f-strings: a comment, an f-string's or a string's opening.
_OUTER = re.compile(rf"(#[^\n]*)|{_PREFIX.pattern}|{_QUOTE}")
_OTHER = {'"': "'", "'": '"'}


def parses(code: str) -> bool:
    """Whether ``code`` is valid Python for the sandbox's interpreter."""
    return parsed(code) is not None


def _scan_fstring(code: str, start: int, quote: str, out: list[str]) -> int:
    """Copy the f-string body from ``start`` to ``out``, literals in its fields that reuse ``quote`` with
    the other quotes; the index after its closing quote."""
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
    """``code`` with literals in f-string fields that reuse the f-string's quotes given the other kind
    (PEP 701 code made valid for Python 3.11)."""
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


_CLOCK_IN_NAME = re.compile(r"(?<=\w)o'clock")


def clock_names(code: str) -> str:
    """``code`` with "o'clock" written as "oclock" where it ends a name (``seven_o'clock``)."""
    return _CLOCK_IN_NAME.sub("oclock", code)


_FIELD = re.compile(r"\{([^{}\"'\n]*)\}(\]?)")
_CLOSER = {"[": "]", "(": ")"}


def _closers(text: str) -> str | None:
    """The brackets that close what ``text`` leaves open, innermost first; None when it closes one more."""
    stack: list[str] = []
    for ch in text:
        if ch in _CLOSER:
            stack.append(_CLOSER[ch])
        elif ch in "])" and (not stack or stack.pop() != ch):
            return None
    return "".join(reversed(stack))


def close_fields(code: str) -> str:
    """``code`` with the brackets an f-string field leaves open closed before its ``}``."""

    def fix(m: re.Match[str]) -> str:
        closers = _closers(m[1])
        after = "" if closers and m[2] and closers.endswith(m[2]) else m[2]  # a "]" after the "}" moves in
        return "{" + m[1] + closers + "}" + after if closers else m[0]

    lines = code.splitlines(keepends=True)
    return "".join(_FIELD.sub(fix, line) if _PREFIX.search(line) else line for line in lines)


def _call_arguments(tokens: list[tokenize.TokenInfo], at: int) -> list[list[tokenize.TokenInfo]]:
    """The arguments (their tokens) of the call whose ``(`` is ``tokens[at]``; [] for a call left open."""
    args: list[list[tokenize.TokenInfo]] = [[]]
    depth = 0
    for tok in tokens[at + 1:]:
        if tok.type in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            continue
        depth += (tok.string in "([{") - (tok.string in ")]}") if tok.type == tokenize.OP else 0
        if depth < 0:
            return [a for a in args if a]
        if depth == 0 and tok.string == ",":
            args.append([])
        else:
            args[-1].append(tok)
    return []


def name_positional_arguments(code: str) -> str:
    """``code`` with an unnamed argument after named ones in an API call (``filter(object_set=s, lambda o:
    ...)``) named as the function's first parameter not yet given (``category=lambda o: ...``)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return code
    lines, inserts, signatures = code.splitlines(keepends=True), [], api_signatures()
    for i, tok in enumerate(tokens[:-1]):
        if tok.string not in signatures or tokens[i + 1].string != "(" or (
                i and tokens[i - 1].string in (".", "def")):
            continue
        params = [p.name for p in signatures[tok.string].parameters.values()
                  if p.kind is p.POSITIONAL_OR_KEYWORD]
        args = _call_arguments(tokens, i + 1)
        named = [len(a) > 1 and a[0].type == tokenize.NAME and a[1].string == "=" for a in args]
        first = named.index(True) if True in named else len(args)
        late = [a for a, n in zip(args[first:], named[first:], strict=True) if not n]
        if any(a[0].string in ("*", "**") for a in late):  # *items after keywords is Python's own
            continue
        keywords = (a[0].string for a, n in zip(args, named, strict=True) if n)
        given = {*params[:first], *(full_keyword(k, params) for k in keywords)}
        free = [p for p in params if p not in given]
        if len(late) > len(free):
            raise ValueError("more unnamed arguments than parameters left")
        inserts += [(arg[0].start, f"{name}=") for arg, name in zip(late, free, strict=False)]
    for (row, col), text in sorted(inserts, reverse=True):  # from the end: earlier columns stay right
        lines[row - 1] = lines[row - 1][:col] + text + lines[row - 1][col:]
    return "".join(lines)
