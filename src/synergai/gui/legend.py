"""The segmentation view's legend: each category with the instance colour of each of its objects.

The segmentation view colours every object by its id (:func:`~synergai.gui.palette.instance_color`), so
a category has one swatch per object, labelled with the object's id. Names and ids are escaped.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from synergai.gui.palette import RGB, instance_color
from synergai.scene.model import SceneGraph

MAX_HEIGHT_PX = 260


def legend_rows(graph: SceneGraph, ids: Iterable[str]) -> list[tuple[str, list[tuple[str, RGB]]]]:
    """``[(category, [(object id, colour), ...]), ...]`` for the given objects, categories sorted."""
    rows: dict[str, list[tuple[str, RGB]]] = {}
    for oid in ids:
        if oid in graph:
            rows.setdefault(graph.get(oid).name, []).append((oid, instance_color(oid)))
    return [(name, rows[name]) for name in sorted(rows, key=str.lower)]


def _text_colour(rgb: RGB) -> str:
    r, g, b = rgb
    return "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#fff"


def legend_html(graph: SceneGraph, ids: Iterable[str]) -> str:
    """The legend as an HTML block (scrolls when long)."""
    lines = []
    for name, swatches in legend_rows(graph, ids):
        chips = "".join(
            f'<span title="{html.escape(name)} (id: {html.escape(oid)})" style="display:inline-block;'
            f"background:rgb{rgb};color:{_text_colour(rgb)};border-radius:3px;padding:0 4px;margin:1px;"
            f'font-size:11px">{html.escape(oid)}</span>'
            for oid, rgb in swatches)
        lines.append(f'<div style="margin:2px 0"><span style="font-size:12px">{html.escape(name)}</span> '
                     f"{chips}</div>")
    if not lines:
        return ""
    return (f'<div class="synergai-legend" style="max-height:{MAX_HEIGHT_PX}px;overflow-y:auto;'
            f'padding:0 12px">' + "".join(lines) + "</div>")
