"""GBNF grammars checked by llama.cpp's own grammar engine (in the xllamacpp wheel, no model loaded), and a
pure-Python check that every rule a grammar references is defined.

``engine()`` reaches llama.cpp's grammar functions through ctypes, as llama.cpp's own grammar tests do
(``llama_grammar_init_impl`` with no vocabulary, then ``llama_grammar_accept`` one code point at a time);
it returns None when xllamacpp is missing or its build does not export them, and the tests skip.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass
from typing import Any

_INIT = "_Z23llama_grammar_init_implPK11llama_vocabPKcS3_bPS3_mPKim"
_ACCEPT = "_Z20llama_grammar_acceptP13llama_grammarj"
_STACKS = "_Z24llama_grammar_get_stacksP13llama_grammar"
_FREE = "_Z23llama_grammar_free_implP13llama_grammar"
_VECTOR = 3 * ctypes.sizeof(ctypes.c_void_p)  # libstdc++ std::vector: begin, end, capacity pointers


@dataclass(frozen=True)
class Engine:
    """llama.cpp's grammar parser and matcher (the four functions, typed)."""

    init: Any
    accept: Any
    stacks: Any
    free: Any

    def _init(self, grammar: str) -> int | None:
        return self.init(None, grammar.encode("utf-8"), b"root", False, None, 0, None, 0)

    def parses(self, grammar: str) -> bool:
        """Whether llama.cpp parses ``grammar`` (rules defined, a root, no left recursion)."""
        handle = self._init(grammar)
        if handle:
            self.free(handle)
        return bool(handle)

    def matches(self, grammar: str, text: str) -> bool:
        """Whether ``text`` is a complete sentence of ``grammar``."""
        handle = self._init(grammar)
        assert handle, "grammar does not parse"
        try:
            stacks = self.stacks(handle)
            for ch in text:
                self.accept(handle, ord(ch))
                if not _vector_items(stacks):
                    return False
            return any(not _vector_items(stack) for stack in _vector_elements(stacks))
        finally:
            self.free(handle)


def _vector_items(address: int) -> int:
    begin, end = ctypes.cast(address, ctypes.POINTER(ctypes.c_void_p))[0:2]
    return ((end or 0) - (begin or 0)) // ctypes.sizeof(ctypes.c_void_p)


def _vector_elements(address: int) -> list[int]:
    begin, end = ctypes.cast(address, ctypes.POINTER(ctypes.c_void_p))[0:2]
    return list(range(begin or 0, end or 0, _VECTOR))


def engine() -> Engine | None:
    """llama.cpp's grammar engine from the installed xllamacpp, or None."""
    try:
        import xllamacpp.xllamacpp as native

        lib = ctypes.CDLL(native.__file__)
        init, accept, stacks, free = lib[_INIT], lib[_ACCEPT], lib[_STACKS], lib[_FREE]
    except (ImportError, OSError, AttributeError):
        return None
    init.restype = ctypes.c_void_p
    init.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_bool,
                     ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
    accept.restype, accept.argtypes = None, [ctypes.c_void_p, ctypes.c_uint32]
    stacks.restype, stacks.argtypes = ctypes.c_void_p, [ctypes.c_void_p]
    free.restype, free.argtypes = None, [ctypes.c_void_p]
    return Engine(init, accept, stacks, free)


_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"')
_CLASS = re.compile(r"\[(?:[^\]\\]|\\.)*\]")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*")


def undefined_rules(grammar: str) -> set[str]:
    """Rule names ``grammar`` references but does not define (without llama.cpp)."""
    defined, used = set(), set()
    for line in grammar.splitlines():
        if not line.strip():
            continue
        name, sep, body = line.partition("::=")
        assert sep, f"not a rule: {line!r}"
        defined.add(name.strip())
        used |= set(_NAME.findall(_CLASS.sub(" ", _LITERAL.sub(" ", body))))
    return used - defined
