"""The local scene graph of the marked object: its neighbours with relation labels, and an SVG drawing.

Relations are read from the marked object's side ("cup -- on --> table") with the deterministic wording
of :data:`synergai.scene.model.WORDING`. Support relations come first, then the rest in the canonical
relation order; several relations to one neighbour share one edge.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from types import MappingProxyType

from synergai.agent.observation import name_id
from synergai.gui.palette import MARK_COLOR, instance_color
from synergai.scene.model import SUPPORT_RELATIONS, WORDING, Relation, SceneGraph, SceneObject

_ORDER = MappingProxyType({rel: k for k, rel in enumerate(Relation)})


@dataclass(frozen=True)
class Neighbour:
    """One neighbour of the marked object and how the marked object relates to it."""

    id: str
    name: str
    relations: tuple[str, ...]  # wording, e.g. ("on", "near")

    @property
    def label(self) -> str:
        """``name (id: X)``."""
        return f"{self.name} (id: {self.id})"


@dataclass(frozen=True)
class LocalGraph:
    """The marked object, its level and its (first ``limit``) neighbours; ``more`` were left out."""

    center: SceneObject
    level: int | None
    neighbours: tuple[Neighbour, ...]
    more: int = 0

    def lines(self) -> list[str]:
        """One sentence per neighbour: ``The cup (id: 3) is on the table (id: 2).``."""
        return [f"The {name_id(self.center)} is {' and '.join(n.relations)} the {n.label}."
                for n in self.neighbours]


def _rank(rel: Relation) -> tuple[int, int]:
    support = rel in SUPPORT_RELATIONS or rel is Relation.SUPPORTS
    return (0 if support else 1, _ORDER[rel])


def local_graph(graph: SceneGraph, object_id: str, limit: int = 12) -> LocalGraph:
    """The neighbourhood of ``object_id`` in the stored graph (UnknownObjectError for a bad id)."""
    center = graph.get(object_id)
    by_other: dict[str, list[Relation]] = {}
    for rel, other in graph.relations_of(center.id):
        if other in graph and rel not in by_other.setdefault(other, []):
            by_other[other].append(rel)
    ordered = sorted(by_other.items(), key=lambda kv: (min(_rank(r) for r in kv[1]), _natural(kv[0])))
    neighbours = tuple(
        Neighbour(other, graph.get(other).name, tuple(WORDING[r] for r in sorted(rels, key=_rank)))
        for other, rels in ordered[:limit]
    )
    return LocalGraph(center, graph.levels.get(center.id), neighbours, max(0, len(ordered) - limit))


def _natural(object_id: str) -> tuple[int, int | str]:
    return (0, int(object_id)) if object_id.isdigit() else (1, object_id)


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _short(text: str, n: int = 16) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _border(x: float, y: float, dx: float, dy: float, hw: float, hh: float) -> tuple[float, float]:
    """Where the ray from a box centre (x, y) along (dx, dy) leaves the box of half-sizes (hw, hh)."""
    t = min(hw / abs(dx) if abs(dx) > 1e-9 else math.inf, hh / abs(dy) if abs(dy) > 1e-9 else math.inf)
    return x + t * dx, y + t * dy


def to_svg(local: LocalGraph, width: int = 380, height: int = 290) -> str:
    """A star drawing: the marked node in the middle, neighbours around it, relation words on the edges."""
    cx, cy = width / 2.0, height / 2.0
    cw, nw = 84.0, 74.0  # widths of the centre and neighbour boxes
    rx, ry = width / 2.0 - nw / 2.0 - 3.0, height / 2.0 - 18.0
    n = len(local.neighbours)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="100%" viewBox="0 0 {width} {height}" '
        'font-family="sans-serif" role="img" aria-label="local scene graph">',
        '<defs><marker id="arr" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#888"/></marker></defs>',
    ]
    nodes = []
    for k, nb in enumerate(local.neighbours):
        a = -math.pi / 2 + 2 * math.pi * k / max(n, 1)
        x, y = cx + rx * math.cos(a), cy + ry * math.sin(a)
        sx, sy = _border(cx, cy, x - cx, y - cy, cw / 2 + 3, 15 + 3)
        ex, ey = _border(x, y, cx - x, cy - y, nw / 2 + 3, 15 + 3)
        parts.append(f'<line x1="{sx:.1f}" y1="{sy:.1f}" x2="{ex:.1f}" y2="{ey:.1f}" stroke="#888" '
                     'stroke-width="1.3" marker-end="url(#arr)"/>')
        mx, my = 0.5 * (sx + ex), 0.5 * (sy + ey)
        shown = nb.relations[:3]
        top = my - 5.5 * (len(shown) - 1) + 3
        spans = "".join(f'<tspan x="{mx:.1f}" y="{top + 11 * k:.1f}">{html.escape(_short(w, 14))}</tspan>'
                        for k, w in enumerate(shown))
        parts.append(f'<text font-size="9" text-anchor="middle" fill="#333" stroke="#fff" stroke-width="3" '
                     f'paint-order="stroke">{spans}</text>')
        nodes.append((x, y, nb.name, nb.id, _hex(instance_color(nb.id)), False))
    nodes.append((cx, cy, local.center.name, local.center.id, _hex(MARK_COLOR), True))
    for x, y, name, oid, fill, is_center in nodes:
        w = cw if is_center else nw
        parts.append(f'<rect x="{x - w / 2:.1f}" y="{y - 15:.1f}" width="{w}" height="30" rx="7" '
                     f'fill="{fill}" fill-opacity="{1.0 if is_center else 0.35}" stroke="{fill}" '
                     f'stroke-width="{2.5 if is_center else 1.5}"/>')
        weight = "bold" if is_center else "normal"
        parts.append(f'<text x="{x:.1f}" y="{y - 2:.1f}" font-size="10.5" font-weight="{weight}" '
                     f'text-anchor="middle" fill="#111">{html.escape(_short(name, 13))}</text>')
        parts.append(f'<text x="{x:.1f}" y="{y + 10:.1f}" font-size="9" text-anchor="middle" '
                     f'fill="#444">id {html.escape(_short(oid, 10))}</text>')
    if local.more:
        parts.append(f'<text x="{width - 4}" y="{height - 4}" font-size="9" text-anchor="end" '
                     f'fill="#666">+{local.more} more</text>')
    if not n:
        parts.append(f'<text x="{cx:.1f}" y="{cy + 34:.1f}" font-size="10" text-anchor="middle" '
                     'fill="#666">no stored relations</text>')
    parts.append("</svg>")
    return "".join(parts)
