"""Text from files, users and models, made safe to print: the one sanitiser every command uses.

A scene id, a label, a model's reply or a program's output may hold terminal control sequences (ESC /
CSI / OSC, C1 codes such as U+009B) or bidirectional overrides that reorder what a reader sees. In
text mode each such character is written visibly as a Python-style escape (``\\x1b``, ``\\u202e``); in
JSON it is written as a ``\\uXXXX`` escape, so the document decodes to the same string yet shows none
of them raw.
"""

from __future__ import annotations

import re

#: Characters never printed raw: C0 controls (tab and newline aside), DEL, C1 controls, and the
#: bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E-U+200F, U+202A-U+202E,
#: U+2066-U+2069).
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: The same, newline and tab included: for one-line fields (ids, labels, error lines).
UNSAFE_IN_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object, *, multiline: bool = False) -> str:
    """``text`` with every control or bidi character written as an escape; ``multiline`` keeps newlines
    and tabs (a program's output, an answer of several lines)."""
    return (UNSAFE if multiline else UNSAFE_IN_LINE).sub(_escape, str(text))


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_safe(document: str) -> str:
    """A JSON document (as ``json.dumps`` wrote it) with DEL, C1 and bidi characters escaped as
    ``\\uXXXX`` (``json.dumps`` already escapes C0; these can stand only inside strings)."""
    return UNSAFE.sub(_json_escape, document)
