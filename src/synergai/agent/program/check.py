"""Static check of a program before it runs (Python ``ast``, nothing executed): a syntax error, a copy of
an API function's documentation, a name nothing defines, each with a repair hint. How the scene API is
called is left to the API's own errors (a check of calls, relations and categories lost answers on the
check half). The sandbox remains the security boundary."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType

from synergai.agent.program.api import API_FUNCTIONS, LENIENT_ONLY, api_signatures, full_keywords
from synergai.agent.program.names import bound_names, closest_hint, undefined_hint, undefined_names
from synergai.agent.program.values import FIELDS, legal_value

#: Functions that return a set of objects.
SET_FUNCTIONS = frozenset({"scene", "room", "filter", "relate", "relate_agent"})
#: Arguments that must be one object, per function.
OBJECT_ARGUMENTS = MappingProxyType({"query_relation": ("object", "reference_object"),
                                     "query_relation_agent": ("object",), "query_attribute": ("object",),
                                     "query_state": ("object",)})


@dataclass(frozen=True)
class Finding:
    """One problem: its kind (``syntax``, ``undefined-name``, ...), its line (0: the whole program), its
    hint."""

    kind: str
    line: int
    hint: str

    def render(self) -> str:
        return f"line {self.line}: {self.hint}" if self.line else self.hint


def _signature_text(name: str, sig: inspect.Signature) -> str:
    """The documented signature (without the parameters accepted only to be lenient)."""
    return f"{name}({', '.join(p for p in sig.parameters if p not in LENIENT_ONLY.get(name, ()))})"


def _callee(node: ast.AST | None) -> str:
    """The name a call calls (``scene`` for ``scene()``), or ""."""
    return node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else ""


class _Uses(ast.NodeVisitor):
    """Walks the program in source order: which names hold sets or single objects, how each is used, and
    where a set stands where one object is expected."""

    def __init__(self, ordered_sets: bool, shadowed: set[str]) -> None:
        self.ordered_sets = ordered_sets
        self.shadowed = shadowed  # API names the program binds itself
        self.sigs = api_signatures()
        self.kinds: dict[str, str] = {}  # name -> "set" | "object" | "other"
        self.uses: dict[str, set[str]] = {}  # name -> {"set", "object"}
        self.sets_as_objects: set[tuple[str, str]] = set()  # (the set, what needs one object)

    def kind_of(self, node: ast.expr) -> str:
        """"set", "object" or "other" ("other" when unsure)."""
        if isinstance(node, ast.Name):
            return self.kinds.get(node.id, "other")
        name, first = _callee(node), node.args[0] if isinstance(node, ast.Call) and node.args else None
        if name in SET_FUNCTIONS and name not in self.shadowed:
            return "set"
        if name == "next" and _callee(first) == "iter" and isinstance(first, ast.Call) and first.args \
                and self.kind_of(first.args[0]) == "set":
            return "object"
        if name in ("min", "max") and first is not None and self.kind_of(first) == "set":
            return "object"
        if isinstance(node, ast.Subscript) and self.ordered_sets and self.kind_of(node.value) == "set" \
                and not isinstance(node.slice, ast.Slice):
            return "object"
        return "other"

    def bind(self, target: ast.expr, kind: str) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                self.kinds[node.id] = kind if node is target else "other"

    def use(self, node: ast.expr, kind: str, needs: str = "") -> None:
        """Note that ``node`` is used as ``kind`` (and a set where ``needs`` wants one object)."""
        if isinstance(node, ast.Name):
            self.uses.setdefault(node.id, set()).add(kind)
        if needs and kind == "object" and self.kind_of(node) == "set":
            self.sets_as_objects.add((ast.unparse(node), needs))

    def visit_Assign(self, node: ast.Assign | ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
        for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
            self.visit(t)
            self.bind(t, self.kind_of(node.value) if node.value is not None else "other")

    visit_AnnAssign = visit_Assign

    def visit_For(self, node: ast.For | ast.comprehension) -> None:
        self.visit(node.iter)
        self.use(node.iter, "set")
        self.bind(node.target, "object" if self.kind_of(node.iter) == "set" else "other")
        for stmt in (*node.ifs,) if isinstance(node, ast.comprehension) else (*node.body, *node.orelse):
            self.visit(stmt)

    visit_comprehension = visit_For

    def _visit_comp(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        outer = dict(self.kinds)  # a comprehension's variables do not leak out of it
        for gen in node.generators:
            self.visit(gen)
        for part in [getattr(node, p) for p in ("elt", "key", "value") if hasattr(node, p)]:
            self.visit(part)
        self.kinds = outer

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _visit_comp

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.generic_visit(node)
        self.use(node.value, "set")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.generic_visit(node)
        if legal_value(node.attr, FIELDS) is not None:
            self.use(node.value, "object", f".{node.attr}")

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        name = _callee(node)
        sig = self.sigs.get(name)
        if name == "len" and node.args:
            self.use(node.args[0], "set")
        if sig is None or name in self.shadowed or any(isinstance(a, ast.Starred) for a in node.args) \
                or any(k.arg is None for k in node.keywords):
            return
        try:
            args = sig.bind(*node.args, **full_keywords({str(k.arg): k.value for k in node.keywords},
                                                        sig.parameters)).arguments
        except TypeError:
            return
        for arg, value in args.items():
            if arg in OBJECT_ARGUMENTS.get(name, ()):
                self.use(value, "object", f"{name}()'s {arg}")
            elif arg in ("object_set", "reference_object"):  # relate()'s reference_object may be a set too
                self.use(value, "set")


_NAMES = "|".join(sorted(API_FUNCTIONS, key=len, reverse=True))  # a regular expression's, longest first
#: ``def relate_agent(`` or ``query_relation_agent(object: ObjectAttribute, ...``: the documentation copied.
_COPIED = re.compile(rf"^\s*def\s+({_NAMES})\s*\([^)]*\)\s*->|\b({_NAMES})\s*\(\s*\w+\s*:\s*[A-Z]",
                     re.MULTILINE)


def _syntax_hint(exc: SyntaxError | ValueError, code: str) -> Finding:
    """A syntax error (or a program Python cannot read: ValueError), with the line it is on."""
    line, msg = getattr(exc, "lineno", 0) or 0, getattr(exc, "msg", str(exc))
    text = (code.splitlines()[line - 1].strip() if 0 < line <= len(code.splitlines()) else "")[:120]
    hint = f"SyntaxError: {msg}" + (f" in: {text}" if text else "")
    if "f-string" in (msg or "") or ("f'" in text or 'f"' in text):
        hint += ("; inside an f-string use the other kind of quotes (f\"{obj.category}\" with 'x' inside), "
                 "no backslashes, or build the text with str() and +")
    elif "positional argument follows keyword" in (msg or ""):  # filter(object_set=s, <a condition>)
        hint += "; name every argument (a condition on each object is category=lambda obj: <condition>)"
    return Finding("syntax", line, hint)


def check_program(code: str, categories: Sequence[str] = (), *, ordered_sets: bool = True) -> list[Finding]:
    """Findings for ``code`` ([] when it looks right; an undefined name is matched against the API and
    ``categories``); a copy of an API function's documented signature (typed parameters, ``-> Set``)
    instead of a call is the only one."""
    if copied := _COPIED.search(code):
        group = 1 if copied[1] else 2
        return [Finding("api-copied", code.count("\n", 0, copied.start(group)) + 1,
                        f"{copied[group]}() already exists: call it with values, do not define it or copy "
                        "its signature from the documentation (e.g. chairs = filter(object_set=scene(), "
                        "category='chair'), then print what the question needs)")]
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError) as exc:
        return [_syntax_hint(exc, code)]
    bound = bound_names(tree)
    sigs = api_signatures()
    findings: list[Finding] = []
    for node in undefined_names(tree):
        if any(isinstance(p, ast.Call) and p.func is node for p in ast.walk(tree)):
            findings.append(Finding("unknown-function", node.lineno, f"{node.id}() is not an API function"
                                    f"{closest_hint(node.id, API_FUNCTIONS)}; the functions are: "
                                    + ", ".join(_signature_text(n, s) for n, s in sigs.items())))
        else:
            findings.append(Finding("undefined-name", node.lineno,
                                    undefined_hint(node.id, bound, categories, ordered_sets)))
    first: dict[tuple[str, str], Finding] = {}
    for finding in findings:  # the first of each hint
        first.setdefault((finding.kind, finding.hint), finding)
    return sorted(first.values(), key=lambda f: f.line)


def _walked(tree: ast.Module, ordered_sets: bool) -> _Uses:
    uses = _Uses(ordered_sets, bound_names(tree) & set(API_FUNCTIONS))
    uses.visit(tree)
    return uses


def name_uses(tree: ast.Module, ordered_sets: bool = True) -> dict[str, set[str]]:
    """How the program uses each name it reads: as a "set" (a set argument, a loop, ``len()``, an index)
    or as one "object" (an object argument, a field)."""
    return _walked(tree, ordered_sets).uses


def sets_as_objects(tree: ast.Module) -> int:
    """How many places pass a set where one object is expected (the scene API takes its nearest)."""
    return len(_walked(tree, False).sets_as_objects)


def repair_hint(findings: Sequence[Finding], limit: int = 4) -> str:
    """The findings as one message for the repair prompt (at most ``limit``)."""
    return " ".join(f.render() for f in findings[:limit])
