"""Arguments of scene API calls in program text that may not parse, read by token: an argument written
without a name after named ones (a SyntaxError in Python) is named as Python would bind it were that
allowed. A repair pass of :mod:`synergai.agent.program.rewrite`."""

from __future__ import annotations

import io
import tokenize

from synergai.agent.program.api import api_signatures, full_keyword


def _call_arguments(tokens: list[tokenize.TokenInfo], at: int) -> list[list[tokenize.TokenInfo]]:
    """The arguments of the call whose ``(`` is ``tokens[at]``, each its tokens (comments and line breaks
    left out); [] for a call left open."""
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
    """``code`` with an argument written without a name after named ones in an API call
    (``filter(object_set=s, lambda o: ...)``) named as Python would bind it were that allowed: the
    function's first parameter not yet given (``category=lambda o: ...``)."""
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
