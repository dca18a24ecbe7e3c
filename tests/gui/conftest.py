"""The GUI's browser tests share one headless Chromium per test file (each test opens pages of its own
and closes them); per file, not per run: a live Playwright keeps an event loop running that other
tests' asyncio.run would trip over."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser import ARGS, CHROMIUM


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright, launched once for the GUI tests; fails (never skips) when
    the browser or the playwright package is missing."""
    if not CHROMIUM.exists():
        pytest.fail(f"headless Chromium not found at {CHROMIUM}: run `apt-get install -y chromium` "
                    "(the GUI's browser tests need a real browser)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the Python package playwright is missing: pip install playwright (never `playwright "
                    "install`: the tests use Debian's chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()
