"""What the GUI's browser tests share: Debian's headless Chromium, its flags, and waiting for a page."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
#: Headless, and no background connections (this machine's network is closed).
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def wait_for(pred: Callable[[], Any], timeout: float, what: str, poll: float = 0.1) -> Any:
    """``pred()``'s first truthy value, checked every ``poll`` seconds; fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(poll)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
