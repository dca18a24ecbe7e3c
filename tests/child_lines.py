"""Reading a child process's output line by line with a deadline: a line that never comes fails the test
after ``timeout`` seconds instead of hanging it (a plain ``for line in proc.stdout`` waits forever)."""

from __future__ import annotations

import queue
import threading
import time
from typing import IO


class LineReader:
    """The lines of ``stream``, read by a daemon thread into a queue as the child writes them."""

    def __init__(self, stream: IO[str]) -> None:
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        try:
            for line in stream:
                self._lines.put(line)
        except ValueError:  # the test closed the stream
            pass
        self._lines.put(None)  # end of output

    def _next(self, deadline: float) -> str | None:
        """The next line (None: the output ended); queue.Empty when ``deadline`` (monotonic) passes first."""
        return self._lines.get(timeout=max(0.0, deadline - time.monotonic()))

    def until(self, marker: str, timeout: float) -> list[str]:
        """The lines up to and including the first holding ``marker`` (newlines stripped); fails when the
        output ends or ``timeout`` seconds pass first, showing what came."""
        deadline = time.monotonic() + timeout
        got: list[str] = []
        while True:
            try:
                line = self._next(deadline)
            except queue.Empty:
                raise AssertionError(f"no line with {marker!r} within {timeout:.0f} s; got {got}") from None
            if line is None:
                raise AssertionError(f"the output ended without a line with {marker!r}; got {got}")
            got.append(line.rstrip("\n"))
            self.seen.append(got[-1])
            if marker in line:
                return got

    def rest(self, timeout: float) -> str:
        """What the child writes from here until its output ends (at most ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        got: list[str] = []
        while True:
            try:
                line = self._next(deadline)
            except queue.Empty:
                line = None
            if line is None:
                return "".join(got)
            got.append(line)
