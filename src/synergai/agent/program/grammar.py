"""llama.cpp GBNF grammars for program mode's replies: the format fixed (:data:`_PROGRAM_RULES`), a
program's strings legal values (categories, :func:`~synergai.agent.program.values.api_strings`), print
labels, separators or f-strings of legal values, and a closed form's answer one of its values.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from itertools import groupby
from string import Template

from synergai.agent.answer_forms import PHRASE_MAX, AnswerForm, answer_schema
from synergai.agent.program.values import api_strings

THOUGHT_CHARS = 150
PROGRAM_LINES = 10
LINE_ITEMS = 100
LABEL_CHARS = 50
#: Placeholders in one f-string, and code characters or strings in one placeholder.
FSTRING_HOLES = 4
HOLE_ITEMS = 60

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def literal(text: str) -> str:
    """``text`` as a GBNF string literal."""
    return '"' + "".join(_ESCAPES.get(ch, ch) for ch in text) + '"'


def choice(words: Iterable[str]) -> str:
    """A GBNF expression matching exactly ``words`` (non-empty strings), factored by common prefixes."""
    unique = sorted(set(words))
    if not unique or "" in unique:
        raise ValueError("choice() needs non-empty strings, and at least one")
    return _choice(unique)


def _choice(words: list[str]) -> str:
    optional = words[0] == ""  # sorted: the empty tail comes first
    alternatives = []
    for _, group in groupby((w for w in words if w), key=lambda w: w[0]):
        members = list(group)
        prefix = os.path.commonprefix(members)  # noqa: RUF071 - by character, as wanted
        tails = [w[len(prefix):] for w in members]
        alternatives.append(literal(prefix) if tails == [""] else f"{literal(prefix)} {_choice(tails)}")
    body = " | ".join(alternatives)
    if optional:
        return f"({body})?"
    return f"({body})" if len(alternatives) > 1 else body


def program_strings(categories: Iterable[str], answers: Iterable[str] = ()) -> tuple[str, ...]:
    """The legal values of a program's strings: categories, API strings, answers (it may print "yes")."""
    return tuple(sorted({c for c in (*categories, *answers) if c.strip()} | set(api_strings())))


def _answer(form: AnswerForm, categories: Sequence[str],
            options: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """GBNF for a final answer of ``form`` (the values its schema lists, a number or a phrase); the values."""
    schema = answer_schema(form, categories, options)
    values = tuple(str(v) for v in schema.get("enum", ()))
    if values:
        return choice(values), values
    if schema.get("type") == "integer":
        return f"[0-9]{{1,{len(str(schema.get('maximum', 999)))}}}", ()
    return f"[^\\n]{{1,{PHRASE_MAX}}}", ()


def reply_grammar(categories: Sequence[str], form: AnswerForm, options: Sequence[str] = (), *,
                  program: bool = True) -> str:
    """The GBNF grammar of one reply; ``program`` False allows only the Final Answer (after output)."""
    answer, values = _answer(form, categories, options)
    rules = [
        'root ::= "Thought: " thought "\\nAction: " ' + ("(program | final)" if program else "final"),
        f"thought ::= [^\\n]{{1,{THOUGHT_CHARS}}}",
        'final ::= "Final Answer\\nAction Input: " answer',
        f"answer ::= {answer}",
    ]
    if program:
        strings = program_strings(categories, values)
        rules.append(f"dqv ::= {choice(v for v in strings if chr(34) not in v)}")
        rules.append(f"sqv ::= {choice(v for v in strings if chr(39) not in v)}")
        text = Template(_PROGRAM_RULES).substitute(LINES=PROGRAM_LINES, ITEMS=LINE_ITEMS, LABEL=LABEL_CHARS,
                                                   HOLES=FSTRING_HOLES, HOLE=HOLE_ITEMS)
        rules += text.strip().splitlines()
    return "\n".join(rules) + "\n"


#: The program's rules (GBNF; ``$NAME`` marks a bound): lines of code characters and strings.
_PROGRAM_RULES = r"""
program ::= "Program\nAction Input:\n```Python\n" line{1,$LINES} "```"
line ::= item{1,$ITEMS} "\n"
item ::= [^"'\n#\\`] | dq | sq | fdq | fsq
dq ::= "\"" (dqv | dqlabel | sep) "\""
sq ::= "'" (sqv | sqlabel | sep) "'"
dqlabel ::= [^"\\\n{}]{0,$LABEL} [:=] " "?
sqlabel ::= [^'\\\n{}]{0,$LABEL} [:=] " "?
sep ::= [ ,;|/.-]{0,3}
fdq ::= "f\"" dqtext (dqhole dqtext){1,$HOLES} "\""
fsq ::= "f'" sqtext (sqhole sqtext){1,$HOLES} "'"
dqtext ::= [^"\\\n{}]{0,$LABEL}
sqtext ::= [^'\\\n{}]{0,$LABEL}
dqhole ::= "{" ([^"'\\\n{}#`] | sq){1,$HOLE} "}"
sqhole ::= "{" ([^"'\\\n{}#`] | dq){1,$HOLE} "}"
"""
