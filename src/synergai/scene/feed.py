"""The store's live change feed: follow the event log as other processes commit.

The event log is the truth; a wake-up (PostgreSQL ``LISTEN`` / ``NOTIFY``, SQLite ``PRAGMA
data_version``) only says when to read it again, and a reader also reads it every
:data:`FALLBACK_S` seconds, so a lost wake-up delays an event but never loses it. A reader resumes
after any ``seq`` it has seen; a connection the server closed is opened again and the reader catches
up from the log (it gives up with :class:`~synergai.scene.store_db.StoreError` after
``reconnect_s`` seconds without a server).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

from synergai.scene.store import SceneStore, StoreEvent
from synergai.scene.store_db import StoreError, Waker, open_waker

#: How often the log is read when no wake-up comes (a safety net, not the mechanism).
FALLBACK_S = 1.0
RECONNECT_S = 60.0


def follow(location: Path | str | None, *, since: int | None = None, scene_id: str | None = None,
           stop: threading.Event | None = None, reconnect_s: float = RECONNECT_S) -> Iterator[StoreEvent]:
    """Yield the store's events after ``since`` (None: from now on), of one scene or all, as they are
    committed, until ``stop`` is set."""
    for batch in follow_batches(location, since=since, scene_id=scene_id, stop=stop, reconnect_s=reconnect_s):
        yield from batch


def follow_batches(location: Path | str | None, *, since: int | None = None, scene_id: str | None = None,
                   stop: threading.Event | None = None, reconnect_s: float = RECONNECT_S,
                   store: SceneStore | None = None) -> Iterator[list[StoreEvent]]:
    """Like :func:`follow`, but the events read at once come as one list (a reader that redraws
    redraws once per list). ``store``: an open store to read the log through (else one is opened and
    closed here)."""
    own = store is None
    log = SceneStore(location) if store is None else store
    waker: Waker | None = None
    try:
        waker = open_waker(log.location)
        last = log.last_event() if since is None else since
        failing_since: float | None = None
        while stop is None or not stop.is_set():
            try:
                if waker is None:
                    waker = open_waker(log.location)
                events = log.events(last, scene_id)
                failing_since = None
            except StoreError:
                failing_since = _retry(failing_since, reconnect_s)
                if waker is not None:
                    waker.close()
                    waker = None
                continue
            if events:
                last = events[-1].seq
                yield events
                continue  # there may be more than one page
            try:
                waker.wait(FALLBACK_S if stop is None else min(FALLBACK_S, 0.25))
            except StoreError:
                waker.close()
                waker = None
                failing_since = _retry(failing_since, reconnect_s)
    finally:
        if waker is not None:
            waker.close()
        if own:
            log.close()


def _retry(failing_since: float | None, reconnect_s: float) -> float:
    """Wait a little before trying the server again; raise once it has been away ``reconnect_s``."""
    now = time.monotonic()
    if failing_since is None:
        failing_since = now
    elif now - failing_since > reconnect_s:
        raise StoreError(f"the scene store has been unreachable for {reconnect_s:.0f} s")
    time.sleep(0.2)
    return failing_since
