"""Benchmark reports: ``metrics.json``, ``report.md`` and bar plots per group, in the run's folder."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def format_figure(key: str, v: Any) -> str:
    """A figure for a table: floats with two decimals; a query ratio (a fraction) as a percentage."""
    if isinstance(v, float) and key.startswith("query_ratio"):
        return f"{100 * v:.2f} %"
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


def markdown_report(title: str, metrics: Mapping[str, Any], command: str = "") -> str:
    """Top-level figures as a table, then one table per ``by_*`` group."""
    lines = [f"# {title}", ""]
    if command:
        lines += ["Reproduce with:", "", f"    {command}", ""]
    lines += ["| figure | value |", "|---|---|"]
    lines += [f"| {k} | {format_figure(k, v)} |" for k, v in metrics.items() if not isinstance(v, Mapping)]
    for key, groups in metrics.items():
        if not isinstance(groups, Mapping) or not groups:
            continue
        first = next(iter(groups.values()))
        if not isinstance(first, Mapping):
            lines += ["", f"## {key}", "", "| figure | value |", "|---|---|"]
            lines += [f"| {k} | {format_figure(k, v)} |" for k, v in groups.items()]
            continue
        cols = list(first)
        lines += ["", f"## {key}", "", "| group | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
        for g, row in groups.items():
            lines.append(f"| {g} | " + " | ".join(format_figure(c, row.get(c)) for c in cols) + " |")
    return "\n".join(lines) + "\n"


def plot_groups(metrics: Mapping[str, Any], out_dir: Path) -> list[Path]:
    """One bar chart per ``by_*`` group (first numeric column after ``n``); returns the files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for key, groups in metrics.items():
        if not key.startswith("by_") or not isinstance(groups, Mapping) or not groups:
            continue
        first = next(iter(groups.values()))
        cols = [c for c in first if c != "n" and isinstance(first[c], int | float)]
        if not cols:
            continue
        names = [str(g) for g in groups]
        fig, ax = plt.subplots(figsize=(max(4.0, 0.9 * len(names) + 2), 3.2))
        width = 0.8 / len(cols)
        for k, col in enumerate(cols):
            xs = [i + k * width for i in range(len(names))]
            ax.bar(xs, [float(groups[g][col]) for g in groups], width=width, label=col)
        ax.set_xticks([i + width * (len(cols) - 1) / 2 for i in range(len(names))])
        ax.set_xticklabels([f"{n}\n(n={groups[g]['n']})" if "n" in groups[g] else n
                            for n, g in zip(names, groups, strict=True)], fontsize=8)
        ax.set_title(key.replace("_", " "))
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = Path(out_dir) / f"{key}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return written


def write_report(out_dir: Path, title: str, metrics: Mapping[str, Any], command: str = "") -> None:
    """metrics.json, report.md and the plots."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2, default=str) + "\n", encoding="utf-8")
    (out / "report.md").write_text(markdown_report(title, metrics, command), encoding="utf-8")
    plot_groups(metrics, out)
