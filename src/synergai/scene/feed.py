"""The store's live change feed: follow the event log as other processes commit.

The event log is the truth; a wake-up (PostgreSQL ``LISTEN`` / ``NOTIFY``, SQLite ``PRAGMA
data_version``) only says when to read it again, and a reader also reads it every
:data:`FALLBACK_S` seconds, so a lost wake-up delays an event but never loses it. A reader resumes
after any ``seq`` it has seen. A server that cannot be reached is tried again (one notice when it goes
away, one when it is back; it gives up with :class:`~synergai.scene.store_db.StoreError` after
``reconnect_s`` seconds without a server); any other error (no permission to read the log, not a
store) ends the feed at once. A SQLite file replaced under the reader (restored from a copy) is opened
again: the feed goes on after the last event shown when the new file holds the same history, else from
the new file's newest event, and says so; a removed file is waited for.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from synergai.scene.store import SceneStore, StoreEvent
from synergai.scene.store_db import StoreBusy, StoreError, StoreLost, StoreUnavailable, Waker, open_waker

log = logging.getLogger(__name__)

#: How often the log is read when no wake-up comes (a safety net, not the mechanism).
FALLBACK_S = 1.0
RECONNECT_S = 60.0
#: Errors a later try may not see (the server away, a lock held): the feed retries them.
PASSING = (StoreUnavailable, StoreBusy)

Notice = Callable[[str], None]


def follow(location: Path | str | None, *, since: int | None = None, scene_id: str | None = None,
           stop: threading.Event | None = None, reconnect_s: float = RECONNECT_S,
           notice: Notice | None = None) -> Iterator[StoreEvent]:
    """Yield the store's events after ``since`` (None: from now on), of one scene or all, as they are
    committed, until ``stop`` is set. ``notice`` hears what the feed has to say besides events (the
    server away and back, a file replaced, waiting for an event past the end); default: logged."""
    for batch in follow_batches(location, since=since, scene_id=scene_id, stop=stop, reconnect_s=reconnect_s,
                                notice=notice):
        yield from batch


def _log_notice(text: str) -> None:
    log.warning("%s", text)


class _Feed:
    """One reader of the event log: its store, its waker, the last event shown and the notices."""

    def __init__(self, location: Path | str | None, store: SceneStore | None, notice: Notice,
                 reconnect_s: float) -> None:
        self.own = store is None  # the store was opened here (and is closed here)
        self.store = SceneStore(location) if store is None else store
        self.notice = notice
        self.reconnect_s = reconnect_s
        self.waker: Waker | None = None
        self.failing_since: float | None = None
        self.removed_said = False

    def close(self) -> None:
        self.drop_waker()
        if self.own:
            self.store.close()

    def drop_waker(self) -> None:
        if self.waker is not None:
            self.waker.close()
            self.waker = None

    def failed(self, exc: StoreError) -> None:
        """A passing failure: said once, then retried (until ``reconnect_s`` without success)."""
        if self.failing_since is None:
            self.notice(f"{exc}; trying again")
        self.drop_waker()
        self.failing_since = _retry(self.failing_since, self.reconnect_s)

    def succeeded(self) -> None:
        if self.failing_since is not None:
            self.notice(f"scene store {self.store.where} is reachable again")
        self.failing_since = None

    def reopen(self, last: int) -> int | None:
        """The store file was replaced or removed: open the one now at its path and return the seq to
        go on after (None while there is no file)."""
        path = self.store.path
        if path is None:
            raise StoreLost(f"scene store {self.store.where} was removed or replaced while it was followed")
        if not path.exists():
            if not self.removed_said:
                self.notice(f"scene store {path} was removed; waiting for a store file at that path")
                self.removed_said = True
            return None
        shown = self.store.events(last - 1, limit=1) if last > 0 else []
        new = SceneStore(path)
        self.close()
        self.store, self.own, self.removed_said = new, True, False
        if not shown or new.events(last - 1, limit=1) == shown:
            self.notice(f"scene store {path} was replaced by another file with the same history; "
                        f"going on after event #{last}")
            return last
        newest = new.last_event()
        self.notice(f"scene store {path} was replaced by another file whose history differs from what was "
                    f"shown (its newest event is #{newest}); going on from there")
        return newest


def follow_batches(location: Path | str | None, *, since: int | None = None, scene_id: str | None = None,
                   stop: threading.Event | None = None, reconnect_s: float = RECONNECT_S,
                   store: SceneStore | None = None,
                   notice: Notice | None = None) -> Iterator[list[StoreEvent]]:
    """Like :func:`follow`, but the events read at once come as one list (a reader that redraws
    redraws once per list). ``store``: an open store to read the log through (else one is opened and
    closed here; a SQLite file replaced under it is followed in a store opened here)."""
    feed = _Feed(location, store, notice or _log_notice, reconnect_s)
    try:
        newest = feed.store.last_event()
        last = newest if since is None else since
        if last > newest:
            feed.notice(f"the store's newest event is #{newest}: waiting for event #{last + 1}")
        while stop is None or not stop.is_set():
            events = _read(feed, last, scene_id)
            if events is None:
                continue
            if isinstance(events, int):
                last = events
                continue
            if events:
                last = events[-1].seq
                yield events
                continue  # there may be more than one page
            try:
                assert feed.waker is not None
                feed.waker.wait(FALLBACK_S if stop is None else min(FALLBACK_S, 0.25))
            except PASSING as exc:
                feed.failed(exc)
    finally:
        feed.close()


def _read(feed: _Feed, last: int, scene_id: str | None) -> list[StoreEvent] | int | None:
    """The events after ``last``; an int: go on after that seq (a replaced file was opened); None:
    nothing to read now (the server away, the file removed)."""
    try:
        if feed.store.replaced():
            after = feed.reopen(last)
            if after is None:
                time.sleep(FALLBACK_S / 4)
            return after
        if feed.waker is None:
            feed.waker = open_waker(feed.store.location)
        events = feed.store.events(last, scene_id)
    except PASSING as exc:
        feed.failed(exc)
        return None
    feed.succeeded()
    return events


def _retry(failing_since: float | None, reconnect_s: float) -> float:
    """Wait a little before trying the server again; raise once it has been away ``reconnect_s``."""
    now = time.monotonic()
    if failing_since is None:
        failing_since = now
    elif now - failing_since > reconnect_s:
        raise StoreUnavailable(f"the scene store has been unreachable for {reconnect_s:.0f} s")
    time.sleep(0.2)
    return failing_since
