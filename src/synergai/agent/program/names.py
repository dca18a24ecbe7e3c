"""Which names a program reads before it binds them (``ast``, nothing executed), and the assignments of
earlier programs that give a repair back the names it dropped."""

from __future__ import annotations

import ast
import builtins
import difflib
from collections.abc import Iterable, Sequence

from synergai.agent.program.api import API_FUNCTIONS
from synergai.scene.vocabulary import singular


def parsed(code: str) -> ast.Module | None:
    """``code``'s syntax tree, or None when the sandbox's Python cannot read it."""
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):
        return None


def bound_names(tree: ast.Module) -> set[str]:
    """Every name the program binds anywhere (flow-insensitive)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            names.update(node.names)
    return names


def undefined_names(tree: ast.Module) -> list[ast.Name]:
    """The names ``tree`` reads that nothing binds (the program, the builtins or the API), and those its
    top level reads before it first assigns them."""
    known = bound_names(tree) | set(dir(builtins)) | set(API_FUNCTIONS) | {"ObjectAttribute"}
    unbound = [node for node in ast.walk(tree)
               if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in known]
    return unbound + read_before_assigned(tree)


_Position = tuple[int, int]


def _top_level(node: ast.AST) -> Iterable[ast.AST]:
    """The nodes under ``node`` run in the module's scope (not in functions, lambdas, classes...)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            child = child.generators[0].iter  # of a comprehension, only this runs in the module's scope
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        yield child
        yield from _top_level(child)


def _bindings(nodes: Sequence[ast.AST]) -> dict[str, _Position]:
    """Where a statement's module-scope ``nodes`` first bind each name, in the order of evaluation: an
    assignment's targets after its value, a loop's target after its iterable."""
    first: dict[str, _Position] = {}

    def bind(name: str, after: ast.AST) -> None:
        at = (getattr(after, "end_lineno", 0) or 0, getattr(after, "end_col_offset", 0) or 0)
        first[name] = min(first.get(name, at), at)

    def bind_all(targets: Iterable[ast.AST], after: ast.AST) -> None:
        for name in (n for t in targets for n in ast.walk(t)):
            if isinstance(name, ast.Name):
                bind(name.id, after)

    for node in nodes:
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.NamedExpr):
            bind_all(node.targets if isinstance(node, ast.Assign) else [node.target], node)
        elif isinstance(node, ast.For | ast.AsyncFor):
            bind_all([node.target], node.iter)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            bind_all([node.optional_vars], node.context_expr)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                bind((alias.asname or alias.name).split(".")[0], node)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bind(node.name, node)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            first.setdefault(node.name, (node.lineno, node.col_offset))
    return first


def read_before_assigned(tree: ast.Module) -> list[ast.Name]:
    """The reads of module-level names before the program first assigns them (``print(x)`` before
    ``x = ...``); an assignment under a condition counts."""
    scopes = [[statement, *_top_level(statement)] for statement in tree.body]
    per_statement = [_bindings(nodes) for nodes in scopes]
    module_names = {name for binds in per_statement for name in binds}
    assigned: set[str] = set()
    early: list[ast.Name] = []
    for nodes, binds in zip(scopes, per_statement, strict=True):
        for node in nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in module_names \
                    and node.id not in assigned \
                    and (node.id not in binds or (node.lineno, node.col_offset) < binds[node.id]):
                early.append(node)
        assigned.update(binds)
    return early


def carry_definitions(code: str, earlier: Sequence[str]) -> tuple[str, list[str]] | None:
    """``code`` with the top-level assignments of the ``earlier`` programs its undefined names need put in
    front (a later program's wins), and the names carried; None when it needs none or one is missing."""
    tree = parsed(code)
    if tree is None or not (missing := list(dict.fromkeys(n.id for n in undefined_names(tree)))):
        return None
    definitions: dict[str, ast.Assign] = {}  # each name's last top-level ``name = ...``
    for stmt in (s for program in earlier for s in getattr(parsed(program), "body", [])):  # a later one wins
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            definitions[stmt.targets[0].id] = stmt
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


def closest_hint(word: str, options: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the option closest to ``word``, or ""."""
    near = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" (did you mean {near[0]!r}?)" if near else ""


def one_object_code(category: str, ordered_sets: bool) -> str:
    """The code that takes the nearest object of a category (``next(iter(...))`` for unordered sets)."""
    found = f"filter(object_set=scene(), category={category!r})"
    return f"{found}[0]" if ordered_sets else f"next(iter({found}))"


def category_named(name: str, categories: Sequence[str]) -> str | None:
    """The scene category a program's name spells (``water_cooler``, ``chairs``), or None."""
    words = name.replace("_", " ").strip().lower()
    return next((c for c in categories if c.lower() in (words, singular(words))), None)


def undefined_hint(name: str, bound: set[str], categories: Sequence[str], ordered_sets: bool) -> str:
    """The repair hint for an undefined ``name``; a name that is a scene category says how to get one."""
    if name in bound:
        return f"name {name!r} is read before it is assigned: assign it first (a line above this one)"
    if (category := category_named(name, categories)) is not None:
        return (f"name {name!r} is not defined: the scene has {category!r} objects; assign one first, "
                f"e.g. {name} = {one_object_code(category, ordered_sets)} (the nearest)")
    return f"name {name!r} is not defined{closest_hint(name, sorted(bound))}: assign it before use"
