"""Static check of a program before it runs (Python ``ast``, nothing executed): what the scene API would
report one error at a time, at once, each with a repair hint naming the legal values; only what is certain
from the text. The sandbox remains the security boundary."""

from __future__ import annotations

import ast
import difflib
import inspect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType

from synergai.agent.matching import category_matches
from synergai.agent.program.api import API_FUNCTIONS, LENIENT_ONLY, api_signatures, full_keywords
from synergai.agent.program.names import bound_names, closest_hint, undefined_hint, undefined_names
from synergai.agent.program.values import (
    AGENT_RELATIONS,
    DIRECTIONS,
    FIELDS,
    QUERY_RELATIONS,
    RELATE_RELATIONS,
    clock_hour,
    legal_value,
)

#: Functions that return a set of objects.
SET_FUNCTIONS = frozenset({"scene", "room", "filter", "relate", "relate_agent"})
_CATEGORY_LIST_MAX = 60
#: Arguments that must be one object, per function.
OBJECT_ARGUMENTS = MappingProxyType({"query_relation": ("object", "reference_object"),
                                     "query_relation_agent": ("object",), "query_attribute": ("object",),
                                     "query_state": ("object",)})
#: Per function that takes relations: the argument, the legal values, whether a clock direction is one
#: too, and the function it is when given a ``reference_object``.
_RELATIONS = MappingProxyType({
    "relate": ("relation", RELATE_RELATIONS, False, "relate"),
    "relate_agent": ("relation", AGENT_RELATIONS, True, "relate"),
    "query_relation": ("candidate_relations", QUERY_RELATIONS, False, "query_relation"),
    "query_relation_agent": ("candidate_relations", DIRECTIONS, True, "query_relation")})


@dataclass(frozen=True)
class Finding:
    """One problem: its kind (``syntax``, ``category``, ...), its line (0: the whole program), its hint."""

    kind: str
    line: int
    hint: str

    def render(self) -> str:
        return f"line {self.line}: {self.hint}" if self.line else self.hint


def _takes(function: str, value: str) -> bool:
    """Whether ``function`` takes the relation ``value``."""
    _, legal, clock, _ = _RELATIONS[function]
    return legal_value(value, legal) is not None or (clock and clock_hour(value) is not None)


def _signature_text(name: str, sig: inspect.Signature) -> str:
    """The documented signature (without the parameters accepted only to be lenient)."""
    return f"{name}({', '.join(p for p in sig.parameters if p not in LENIENT_ONLY.get(name, ()))})"


def _legal_list(values: Sequence[str]) -> str:
    return ", ".join(repr(v) for v in values)


def _callee(node: ast.AST | None) -> str:
    """The name a call calls (``scene`` for ``scene()``), or ""."""
    return node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else ""


class _Checker(ast.NodeVisitor):
    """Walks the program in source order: which names hold sets or single objects, how each is used."""

    def __init__(self, categories: Sequence[str], ordered_sets: bool, shadowed: set[str]) -> None:
        self.categories = sorted({c for c in categories if c})
        self.ordered_sets = ordered_sets
        self.shadowed = shadowed  # API names the program binds itself
        self.sigs = api_signatures()
        self.findings: list[Finding] = []
        self.kinds: dict[str, str] = {}  # name -> "set" | "object" | "other"
        self.uses: dict[str, set[str]] = {}  # name -> {"set", "object"}

    def add(self, kind: str, node: ast.AST | None, hint: str) -> None:
        if not any(f.kind == kind and f.hint == hint for f in self.findings):
            self.findings.append(Finding(kind, getattr(node, "lineno", 0), hint))

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
        """Note that ``node`` is used as ``kind``; a set where ``needs`` wants one object is a finding."""
        if isinstance(node, ast.Name):
            self.uses.setdefault(node.id, set()).add(kind)
        if needs and kind == "object" and self.kind_of(node) == "set" and not self.ordered_sets:
            what = ast.unparse(node)
            one = f"next(iter({what}))" + needs * needs.startswith(".")  # next(iter(cups)).category
            self.add("set-as-object", node, f"{what} is a set of objects, but {needs} needs one object: take "
                     f"the nearest with {one} after checking len({what}) > 0, or loop over it (for obj in "
                     f"{what}: ...)")

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
        if not self.ordered_sets and self.kind_of(node.value) == "set":
            what = ast.unparse(node.value)
            self.add("set-index", node, f"{what} is a set of objects and cannot be indexed: loop over it "
                     f"(for obj in {what}: ...) or take the nearest with next(iter({what})) after checking "
                     f"len({what}) > 0")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.generic_visit(node)
        if legal_value(node.attr, FIELDS) is not None:
            self.use(node.value, "object", f".{node.attr}")
        elif self.kind_of(node.value) == "object":
            self.add("object-field", node, f"objects have no .{node.attr}: their fields are "
                     f"{', '.join('.' + f for f in FIELDS)}; ask for relations and states with "
                     "query_relation() and query_state()")

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        name = _callee(node)
        if name == "ObjectAttribute":
            self.add("hand-built-object", node, "do not build ObjectAttribute(...) yourself: get objects "
                     "from scene(), filter() or relate(), e.g. tables = filter(object_set=scene(), "
                     "category='table')")
        elif name == "len" and node.args:
            self.use(node.args[0], "set")
            if self.kind_of(node.args[0]) == "object":
                self.add("object-as-set", node, f"{ast.unparse(node.args[0])} is one object, it has no "
                         "len(): count a set of objects instead, e.g. len(filter(object_set=scene(), "
                         "category='chair'))")
        elif name in self.sigs and name not in self.shadowed:
            self.check_api_call(name, node)

    def check_api_call(self, name: str, node: ast.Call) -> None:
        sig = self.sigs[name]
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return
        keywords = full_keywords({str(k.arg): k.value for k in node.keywords}, sig.parameters)
        try:
            args = sig.bind(*node.args, **keywords).arguments
        except TypeError as exc:
            params = list(sig.parameters)
            bad = [k.arg for k in node.keywords if k.arg not in params]
            detail = str(exc) if not bad else \
                f"there is no argument {bad[0]!r}{closest_hint(bad[0] or '', params)}"
            self.add("arguments", node, f"{name}() takes {_signature_text(name, sig)}: {detail}")
            return
        for arg, value in args.items():
            if arg in OBJECT_ARGUMENTS.get(name, ()):
                self.use(value, "object", f"{name}()'s {arg}")
            elif arg in ("object_set", "reference_object"):  # relate()'s reference_object may be a set too
                self.use(value, "set")
        if name == "filter" and "category" in args:
            self.check_category(args["category"])
        if name in _RELATIONS:  # given a reference_object, relate_agent() is relate() (and so on)
            arg, _, _, as_object = _RELATIONS[name]
            function = as_object if args.get("reference_object") is not None else name
            value = args.get(arg)
            for item in value.elts if isinstance(value, ast.List | ast.Tuple | ast.Set) else [value]:
                self.check_relation(item, function, "relation" if arg == "relation" else "candidate relation")
        if name == "query_attribute" and "attribute_type" in args:
            self.check_value(args["attribute_type"], FIELDS, "an attribute_type", "attribute")
        if name == "filter" and "relation" in args:  # filter's relation is relate_agent()'s (or relate()'s)
            function = "relate" if args.get("reference_object") is not None else "relate_agent"
            self.check_relation(args["relation"], function, "relation")

    def check_value(self, node: ast.expr | None, legal: Sequence[str], what: str, kind: str,
                    more: str = "") -> None:
        """Report a string constant outside ``legal`` with the legal values (and ``more``)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and legal_value(node.value, legal) is None:
            self.add(kind, node, f"{node.value!r} is not {what}{closest_hint(node.value, legal)}; "
                     f"use one of: {_legal_list(legal)}{more}")

    def check_relation(self, node: ast.expr | None, function: str, what: str) -> None:
        """Report a relation ``function`` does not take, saying which functions take it."""
        value = node.value if isinstance(node, ast.Constant) else None
        if not isinstance(value, str) or _takes(function, value):
            return
        _, legal, clock, _ = _RELATIONS[function]
        more = ", or a clock direction such as \"7 o'clock\"" if clock else ""
        if elsewhere := [f"{f}()" for f in _RELATIONS if f != function and _takes(f, value)]:
            more += f"; {value!r} is a relation of {' and '.join(elsewhere)}"
        self.check_value(node, legal, f"a {what} of {function}()", "relation", more)

    def check_category(self, node: ast.expr) -> None:
        """Report a category the scene does not hold (each of a list of them)."""
        for item in node.elts if isinstance(node, ast.List | ast.Tuple | ast.Set) else [node]:
            if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                continue
            value = item.value.strip()
            if not value:
                self.add("category", item, "category is empty: name one of the scene's categories, e.g. "
                         f"{self.categories[0]!r}" if self.categories else "category is empty")
            elif self.categories and not any(category_matches(value, c) for c in self.categories):
                near = difflib.get_close_matches(value.lower(), self.categories, n=3, cutoff=0.5)
                listed = self.categories if len(self.categories) <= _CATEGORY_LIST_MAX else near
                closest = f" (closest: {_legal_list(near)})" if near else ""
                self.add("category", item, f"the scene has no {value!r}{closest}, so filter() would return "
                         f"an empty set; its categories are: {_legal_list(listed)}. Use one of them, or give "
                         "your Final Answer if what you look for is not in the scene")


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
    """Findings for ``code`` against the scene API and ``categories`` ([] when it looks right); a copy of an
    API function's documented signature (typed parameters, ``-> Set``) instead of a call is the only one."""
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
    checker = _Checker(categories, ordered_sets, bound & set(API_FUNCTIONS))
    for node in undefined_names(tree):
        if any(isinstance(p, ast.Call) and p.func is node for p in ast.walk(tree)):
            checker.add("unknown-function", node, f"{node.id}() is not an API function"
                        f"{closest_hint(node.id, API_FUNCTIONS)}; the functions are: "
                        + ", ".join(_signature_text(n, s) for n, s in checker.sigs.items()))
        else:
            checker.add("undefined-name", node, undefined_hint(node.id, bound, categories, ordered_sets))
    checker.visit(tree)
    return sorted(checker.findings, key=lambda f: f.line)


def name_uses(tree: ast.Module, ordered_sets: bool = True) -> dict[str, set[str]]:
    """How the program uses each name it reads: as a "set" (a set argument, a loop, ``len()``, an index)
    or as one "object" (an object argument, a field)."""
    checker = _Checker((), ordered_sets, bound_names(tree) & set(API_FUNCTIONS))
    checker.visit(tree)
    return checker.uses


def repair_hint(findings: Sequence[Finding], limit: int = 4) -> str:
    """The findings as one message for the repair prompt (at most ``limit``)."""
    return " ".join(f.render() for f in findings[:limit])
