"""Child side of the program sandbox: check, lock down and run one untrusted program. Started by
:func:`synergai.agent.program.sandbox.run_program` by path (no package ``__init__`` runs here); reads one
JSON request on stdin, writes one reply line (nonce, then JSON) to its original stdout. Stdlib only.
Layers, in the order they act:

1. Static check (:func:`check_program`): no imports but a few pure modules, no class or async
   definitions, no attribute assignment or deletion, no ``__`` names or strings, no ``_`` attributes,
   no frame / generator / code introspection attributes, no ``format`` / ``format_map`` / ``mro``.
2. Curated builtins: no ``open``, ``eval``, ``exec``, ``compile``, ``globals``, ``setattr`` ...;
   ``getattr`` refuses what rule 1 refuses; ``type`` takes one argument; ``print`` is bounded.
3. Process limits set after the API factory ran: CPU (``ITIMER_PROF`` backed by ``RLIMIT_CPU``),
   ``RLIMIT_AS``, ``RLIMIT_NPROC`` / ``NOFILE`` / ``FSIZE`` / ``CORE`` 0; root first drops to 65534.
4. An audit hook that denies every event but a short benign list (``open``, new imports, sockets,
   processes, ``os.*``, ``ctypes.*``, ``compile``, other ``exec``, frame access ...); the first denial
   fails the run even if the program catches it.

Trusted API code shares layers 3-4: a factory imports everything its functions use before returning.
"""

from __future__ import annotations

import ast
import builtins
import collections
import contextlib
import difflib
import gc
import heapq  # noqa: F401 - loaded before the lockdown: Counter.most_common imports it
import importlib
import itertools
import json
import math
import os
import resource
import signal
import statistics
import sys
import types
import unicodedata  # noqa: F401 - the parser needs it for non-ASCII identifiers after the lockdown
import warnings
from collections.abc import Callable, Mapping
from typing import Any

NOBODY = 65534
_DUNDER: Mapping[type, Any] = types.MappingProxyType({str: "__", bytes: b"__"})
TRUNCATION_MARKER = "\n...[output truncated after {limit} characters]"
MAX_ERROR_CHARS = 2000

# Modules a program may import, served as namespaces of their listed public members (never a module object,
# whose attributes could reach other modules, e.g. ``statistics.sys``).
ALLOWED_MODULES: Mapping[str, tuple[types.ModuleType, tuple[str, ...] | None]] = types.MappingProxyType({
    "math": (math, None),
    "itertools": (itertools, None),
    "collections": (collections, ("Counter", "defaultdict", "deque", "OrderedDict")),
    "statistics": (statistics, ("mean", "median", "mode", "stdev", "pstdev", "variance", "fmean")),
})

FORBIDDEN_ATTRIBUTES = frozenset({
    # str.format field access reaches attributes; type.mro reaches ``object``.
    "format", "format_map", "mro",
    # frames
    "f_back", "f_builtins", "f_code", "f_globals", "f_lasti", "f_lineno", "f_locals", "f_trace",
    "f_trace_lines", "f_trace_opcodes",
    # generators, coroutines, async generators
    "gi_code", "gi_frame", "gi_running", "gi_suspended", "gi_yieldfrom",
    "cr_await", "cr_code", "cr_frame", "cr_origin", "cr_running", "cr_suspended",
    "ag_await", "ag_code", "ag_frame", "ag_running",
    # tracebacks and code objects
    "tb_frame", "tb_lasti", "tb_lineno", "tb_next",
    "co_code", "co_consts", "co_filename", "co_names", "co_varnames", "co_cellvars", "co_freevars",
})

SAFE_BUILTINS = (
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "dict", "divmod", "enumerate",
    "filter", "float", "frozenset", "hash", "hex", "int", "isinstance", "issubclass", "iter", "len", "list",
    "map", "max", "min", "next", "oct", "ord", "pow", "range", "repr", "reversed", "round", "set", "slice",
    "sorted", "str", "sum", "tuple", "zip",
    "ArithmeticError", "AssertionError", "AttributeError", "Exception", "IndexError", "KeyError",
    "LookupError", "MemoryError", "NameError", "NotImplementedError", "OverflowError", "RecursionError",
    "RuntimeError", "StopIteration", "TypeError", "ValueError", "ZeroDivisionError",
)

# Audit events a run may raise; everything else is denied (``exec`` only for the program's own code).
ALLOWED_EVENTS = frozenset({"builtins.id", "sys.unraisablehook"})


class SecurityError(Exception):
    """A program tried something the sandbox forbids."""


def forbidden_attribute(name: str) -> bool:
    """True for attribute names a program may not touch, directly or through ``getattr``."""
    return name.startswith("_") or name in FORBIDDEN_ATTRIBUTES


def _name_problem(name: str | None) -> str | None:
    if name is not None and name.startswith("__"):
        return f"name {name!r} is not allowed (names starting with '__' are reserved)"
    return None


def _node_problem(node: ast.AST) -> str | None:
    """The rule ``node`` breaks, or None."""
    match node:
        case ast.Import(names=names):
            for alias in names:
                if alias.name not in ALLOWED_MODULES:
                    return f"import of {alias.name!r} is not allowed (allowed: {', '.join(ALLOWED_MODULES)})"
                if problem := _name_problem(alias.asname):
                    return problem
        case ast.ImportFrom(module=module, names=names, level=level):
            if level or module not in ALLOWED_MODULES:
                return f"import from {module!r} is not allowed (allowed: {', '.join(ALLOWED_MODULES)})"
            for alias in names:
                if alias.name == "*":
                    return "'from ... import *' is not allowed"
                if problem := _name_problem(alias.name) or _name_problem(alias.asname):
                    return problem
        case ast.ClassDef():
            return "class definitions are not allowed"
        case ast.AsyncFunctionDef() | ast.AsyncFor() | ast.AsyncWith() | ast.Await():
            return "async code is not allowed"
        case (ast.Name(id=name) | ast.FunctionDef(name=name) | ast.arg(arg=name) | ast.keyword(arg=name)
              | ast.ExceptHandler(name=name) | ast.MatchAs(name=name) | ast.MatchStar(name=name)
              | ast.MatchMapping(rest=name)):
            return _name_problem(name)
        case ast.Global(names=names) | ast.Nonlocal(names=names):
            return next((p for n in names if (p := _name_problem(n))), None)
        case ast.Attribute(ctx=ast.Store() | ast.Del()):
            return "assigning or deleting attributes is not allowed"
        case ast.Attribute(attr=attr) if forbidden_attribute(attr):
            return f"attribute {attr!r} is not allowed"
        case ast.MatchClass(kwd_attrs=attrs):
            return next((f"attribute {a!r} is not allowed" for a in attrs if forbidden_attribute(a)), None)
        case ast.Constant(value=str() | bytes() as value) if _DUNDER[type(value)] in value:
            return "string constants containing '__' are not allowed"
    return None


def check_program(code: str, max_chars: int) -> ast.Module:
    """Parse ``code`` and enforce the static rules; raise ``SyntaxError`` or :class:`SecurityError`."""
    if len(code) > max_chars:
        raise SecurityError(f"program has {len(code)} characters, more than the limit of {max_chars}")
    tree = ast.parse(code, filename="<program>", mode="exec")
    for node in ast.walk(tree):
        if problem := _node_problem(node):
            raise SecurityError(problem)
    return tree


class BoundedOutput:
    """A write-only text sink keeping the first ``limit`` characters and counting the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def write(self, text: str) -> int:
        """Keep what fits, count what does not."""
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        piece = text[:max(self.limit - self.kept, 0)]
        if piece:  # once full, a print loop adds nothing to keep
            self.parts.append(piece)
            self.kept += len(piece)
        self.dropped += len(text) - len(piece)
        return len(text)

    def flush(self) -> None:
        """Nothing to flush."""

    def getvalue(self) -> str:
        """The kept text, with the truncation marker if anything was dropped."""
        text = "".join(self.parts)
        return text + TRUNCATION_MARKER.format(limit=self.limit) if self.dropped else text


class Guard:
    """Remembers the first violation of a run, however the program reacts to the exception."""

    def __init__(self) -> None:
        self.violations: list[str] = []

    def deny(self, message: str) -> SecurityError:
        """Record ``message`` and return the exception to raise."""
        self.violations.append(message)
        return SecurityError(message)


def _module_namespace(module: types.ModuleType, names: tuple[str, ...] | None) -> types.SimpleNamespace:
    members = names or tuple(n for n in dir(module) if not n.startswith("_"))
    values = {n: getattr(module, n) for n in members}
    return types.SimpleNamespace(**{n: v for n, v in values.items() if not isinstance(v, types.ModuleType)})


def safe_builtins(out: BoundedOutput, guard: Guard) -> dict[str, Any]:
    """The builtins a program sees: the curated set plus guarded ``print``, ``getattr``, ``type`` ..."""
    table: dict[str, Any] = {name: getattr(builtins, name) for name in SAFE_BUILTINS}
    modules = {name: _module_namespace(mod, names) for name, (mod, names) in ALLOWED_MODULES.items()}
    real_print, real_getattr, real_type = builtins.print, builtins.getattr, builtins.type

    def print_(*values: object, sep: str | None = " ", end: str | None = "\n", file: object = None,
               flush: bool = False) -> None:
        if file is not None:
            raise guard.deny("print(file=...) is not allowed")
        real_print(*values, sep=sep, end=end, file=out)

    def checked(name: object) -> str:
        if not isinstance(name, str):
            raise TypeError("attribute name must be a string")
        if forbidden_attribute(name):
            raise guard.deny(f"attribute {name!r} is not allowed")
        return name

    def getattr_(obj: object, name: str, *default: object) -> object:
        return real_getattr(obj, checked(name), *default)

    def hasattr_(obj: object, name: str) -> bool:
        return builtins.hasattr(obj, checked(name))

    def type_(*args: object) -> object:
        if len(args) != 1:
            raise guard.deny("type() takes exactly one argument in the sandbox")
        found = real_type(args[0])
        return type_ if issubclass(found, real_type) else found

    def import_(name: str, globals_: object = None, locals_: object = None, fromlist: object = (),
                level: int = 0) -> object:
        if level or name not in modules:
            raise guard.deny(f"import of {name!r} is not allowed")
        return modules[name]

    table.update(print=print_, getattr=getattr_, hasattr=hasattr_, type=type_, __import__=import_)
    return table


def audit_hook(guard: Guard, program: types.CodeType) -> Callable[[str, tuple[Any, ...]], None]:
    """An audit hook denying every event but :data:`ALLOWED_EVENTS` and the program's own ``exec``."""

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in ALLOWED_EVENTS or (event == "exec" and args and args[0] is program):
            return
        if event == "import":
            raise guard.deny(f"import of {args[0]!r} is not allowed")
        if event == "object.__getattr__" and len(args) > 1:
            raise guard.deny(f"attribute {args[1]!r} is not allowed")
        raise guard.deny(f"{event} is not allowed")

    return hook


def _virtual_memory_bytes() -> int:
    # binary: a text codec could need an import the dropped privileges no longer allow
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/self/status", "rb") as status:
        for line in status:
            if line.startswith(b"VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def drop_privileges() -> None:
    """As root, become uid/gid 65534 with no supplementary groups (hardening; ignored where not allowed)."""
    if os.geteuid() != 0:
        return
    with contextlib.suppress(OSError):
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)


def limit_resources(cpu_seconds: float, memory_mb: int) -> None:
    """Apply the CPU, memory, process, file and core limits to this process."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft_cpu = math.ceil(usage.ru_utime + usage.ru_stime + cpu_seconds) + 1
    memory = _virtual_memory_bytes() + memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_CPU, (soft_cpu, soft_cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    for limit in (resource.RLIMIT_NPROC, resource.RLIMIT_NOFILE, resource.RLIMIT_FSIZE, resource.RLIMIT_CORE):
        resource.setrlimit(limit, (0, 0))
    for signum in (signal.SIGPROF, signal.SIGXCPU):  # an ignored or blocked disposition may be inherited
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGPROF, signal.SIGXCPU})
    signal.setitimer(signal.ITIMER_PROF, cpu_seconds)


def describe(exc: BaseException, names: Any = (), memory_mb: int = 0) -> str:
    """One line ``Type: message`` for an exception, as the last line of its traceback would read."""
    kind = type(exc).__name__
    try:
        if isinstance(exc, SyntaxError):
            text = f"{exc.msg} (line {exc.lineno})"
        elif isinstance(exc, MemoryError):
            text = f"the program exceeded the memory limit of {memory_mb} MB"
        else:
            text = " ".join(str(exc)[:MAX_ERROR_CHARS].split())
            if isinstance(exc, NameError) and isinstance(exc.name, str):
                text += _name_hint(exc.name, names)
            if isinstance(exc, StopIteration) and not text:
                text = ("next() found nothing: the set is empty; check len(objects) > 0 before taking "
                        "one, or answer that there is none")
    except BaseException:  # a hostile message must not break the report
        text = ""
    return (f"{kind}: {text}" if text else kind)[:MAX_ERROR_CHARS]


def _name_hint(name: str, names: Any) -> str:
    if name in dir(builtins):
        return " (not available in the program sandbox)"
    candidates = [n for n in (*names, *SAFE_BUILTINS) if isinstance(n, str) and not n.startswith("_")]
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.7)
    return f". Did you mean: {close[0]!r}?" if close else ""


def load_api(spec: str | None, args: Mapping[str, Any]) -> dict[str, Any]:
    """Import ``module:function`` and call it with ``args``; check the names it returns."""
    if spec is None:
        return {}
    module_name, _, function_name = spec.partition(":")
    api = getattr(importlib.import_module(module_name), function_name)(args)
    if not isinstance(api, Mapping):
        raise TypeError(f"{spec} returned {type(api).__name__}, not a mapping of names to objects")
    for name in api:
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise ValueError(f"{spec} returned the name {name!r}: not an identifier without a leading '_'")
    return dict(api)


def serve(request: Mapping[str, Any]) -> dict[str, Any]:
    """Run one request; the reply is ``{"ok", "stdout", "error"}`` or ``{"setup_error"}``."""
    limits = request["limits"]
    out = BoundedOutput(int(limits["max_output_chars"]))
    try:
        api = load_api(request.get("api_factory"), request.get("api_args") or {})
        guard = Guard()
        namespace: dict[str, Any] = {"__builtins__": safe_builtins(out, guard), **api}
        gc.collect()
    except Exception as exc:  # reported to the host as a setup failure
        return {"setup_error": describe(exc)}
    sys.stdout = out  # what API functions print while the program runs is program output
    memory_mb = int(limits["memory_mb"])
    # warnings and unraisable exceptions silenced: showing them reads source files (denied after lockdown)
    warnings.simplefilter("ignore")
    sys.unraisablehook = lambda unraisable: None
    drop_privileges()
    limit_resources(float(limits["cpu_seconds"]), memory_mb)
    try:
        program = compile(check_program(request["code"], int(limits["max_code_chars"])), "<program>", "exec")
    except MemoryError:  # the parser's own stack guard
        reason = "MemoryError: the program is too deeply nested to compile"
        return {"ok": False, "stdout": "", "error": reason}
    except BaseException as exc:  # syntax, rule or resource failure
        return {"ok": False, "stdout": "", "error": describe(exc, memory_mb=memory_mb)}
    error: str | None = None
    sys.addaudithook(audit_hook(guard, program))
    try:
        exec(program, namespace)
    except BaseException as exc:  # whatever the program raises is its result
        error = describe(exc, namespace, memory_mb)
    text = out.getvalue()
    namespace.clear()
    if guard.violations:
        error = f"SecurityError: {guard.violations[0]}"
    return {"ok": error is None, "stdout": text, "error": error}


def main() -> None:
    """Read the request, serve it, write ``nonce + JSON`` to the original stdout and leave at once."""
    reply_fd = os.dup(1)
    os.dup2(2, 1)  # stray C-level writes go to stderr, never into the reply channel
    try:
        request = json.loads(sys.stdin.buffer.read())
        nonce = str(request["nonce"])
    except (ValueError, KeyError, TypeError):
        os._exit(3)
    try:
        reply = serve(request)
    except BaseException as exc:  # report instead of a traceback
        reply = {"ok": False, "stdout": "", "error": describe(exc)}
    data = (nonce + json.dumps(reply) + "\n").encode("utf-8", "replace")
    while data:
        data = data[os.write(reply_fd, data):]
    os._exit(0)


if __name__ == "__main__":
    main()
