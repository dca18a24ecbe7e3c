"""Resumable benchmark runs: results appended as JSONL, a rerun skips what is done.

Each item has a string id; its result (a JSON object with that id under ``"id"``) is appended to
``results.jsonl`` as soon as it is finished, so an interrupted run loses at most the items in flight.
An item whose result holds an ``"error"`` (its model call failed, its scene could not be read) is not
done: a rerun tries it again, and its newer line replaces the older one. Items run one at a time or,
for remote endpoints, ``concurrency`` at a time in threads. The settings
that make results comparable (benchmark, mode, model, objects file) are kept in ``run.json``; resuming a
directory with other settings is refused, so one ``results.jsonl`` never mixes two setups.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any, TypeVar

from tqdm import tqdm

T = TypeVar("T")

#: Done / total, elapsed and the estimated time left (from this run's pace: resumed items do not count).
BAR_FORMAT = ("{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "
              "[{elapsed} elapsed, ETA {remaining}, {rate_fmt}]")
RESULTS = "results.jsonl"
SETTINGS = "run.json"


class RunError(ValueError):
    """A benchmark run cannot start or continue (bad output directory, corrupt results file)."""


def read_results(path: Path) -> list[dict[str, Any]]:
    """Every complete result line of a results file; a torn last line (a killed run) is ignored."""
    if not path.exists():
        return []
    out: list[dict[str, Any]] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):
                break
            raise RunError(f"{path}:{number}: corrupt result line") from None
        if not isinstance(record, dict) or "id" not in record:
            raise RunError(f"{path}:{number}: result without an id")
        out.append(record)
    return out


class ResumableRun:
    """Appends one JSON line per finished item to ``out_dir/results.jsonl``.

    ``settings`` (eg. ``{"benchmark": "sqa3d", "mode": "program", "llm": ...}``) must match those of
    the run already in ``out_dir``, if any; the first run writes them.
    """

    def __init__(self, out_dir: Path, settings: Mapping[str, str] | None = None) -> None:
        self.out_dir = Path(out_dir)
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunError(f"cannot create output directory {out_dir}: {exc.strerror}") from None
        self.path = self.out_dir / RESULTS
        self._lock = threading.Lock()
        if settings is not None:
            self._check_settings(dict(settings))
        self._repair_torn_tail()

    def _check_settings(self, settings: dict[str, str]) -> None:
        """Refuse to resume a run made with other settings; record them for a new run."""
        path = self.out_dir / SETTINGS
        if path.exists():
            try:
                before = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise RunError(f"{path}: unreadable run settings ({exc})") from None
            if not isinstance(before, dict):
                raise RunError(f"{path}: run settings must be a JSON object")
            differ = [f"{k}: {before.get(k)!r} there, {v!r} now" for k, v in settings.items()
                      if k in before and before[k] != v]
            if differ:
                raise RunError(f"{self.out_dir} holds a run with other settings ({'; '.join(differ)}); "
                               "use another --out, or delete that directory to start afresh")
            settings = before | settings
        path.write_text(json.dumps(settings, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    def _repair_torn_tail(self) -> None:
        """Cut a half-written last line left by a killed run, so appends start on a fresh line."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            self.path.write_bytes(data[: data.rfind(b"\n") + 1])

    def results(self) -> list[dict[str, Any]]:
        """Results written so far, the last line per id (a retried item's newer result wins)."""
        latest = {str(r["id"]): r for r in read_results(self.path)}
        return list(latest.values())

    def done_ids(self) -> set[str]:
        """Ids finished without error (an item that failed is tried again)."""
        return {str(r["id"]) for r in self.results() if not r.get("error")}

    def append(self, record: dict[str, Any]) -> None:
        """Write one finished result (flushed and synced: a crash keeps it)."""
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(line)
            f.flush()

    def run(
        self,
        items: Sequence[T],
        item_id: Callable[[T], str],
        work: Callable[[T], dict[str, Any]],
        *,
        concurrency: int = 1,
        desc: str = "questions",
        progress: bool = True,
    ) -> list[dict[str, Any]]:
        """Run ``work`` on every item not done yet; returns all results (old and new) in item order.
        With ``progress`` a bar on stderr shows how many are done, the time elapsed and the ETA.
        ``concurrency`` below 1 is a ValueError (nothing runs)."""
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be a whole number >= 1, got {concurrency!r}")
        done = self.done_ids()
        todo = [it for it in items if item_id(it) not in done]
        bar = tqdm(total=len(items), initial=len(items) - len(todo), desc=desc, disable=not progress,
                   unit="q", dynamic_ncols=True, bar_format=BAR_FORMAT)

        def one(it: T) -> None:
            record = work(it)
            record["id"] = item_id(it)
            self.append(record)

        try:
            if concurrency <= 1:
                for it in todo:
                    one(it)
                    bar.update(1)
            else:
                with ThreadPoolExecutor(max_workers=concurrency) as pool:
                    for fut in as_completed([pool.submit(one, it) for it in todo]):
                        fut.result()
                        bar.update(1)
        finally:
            bar.close()
        order = {item_id(it): k for k, it in enumerate(items)}
        return sorted((r for r in self.results() if str(r["id"]) in order), key=lambda r: order[str(r["id"])])


def stride_subset(items: Iterable[T], limit: int | None) -> list[T]:
    """A fixed, spread-out subset: every k-th item so that ``limit`` items cover the whole list."""
    seq = list(items)
    if limit is None or limit >= len(seq):
        return seq
    if limit <= 0:
        return []
    step = len(seq) / limit
    return [seq[int(k * step)] for k in range(limit)]
