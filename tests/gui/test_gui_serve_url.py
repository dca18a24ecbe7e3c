"""`synergai serve` prints one URL, the one that works (with its token), once, and says which scene and
store it serves (a store URL's password masked). The fast test fetches the printed URL over HTTP; the slow
one opens it in headless Chromium as a user would."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from child_lines import LineReader

URL = re.compile(r"https?://\S+")


class Served:
    """A `synergai serve` process and what it printed before it was ready."""

    def __init__(self, tmp_path: Path) -> None:
        script = tmp_path / "script.json"
        script.write_text("[]")
        self.db = tmp_path / "s.sqlite3"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "synergai", "serve", "--port", "0", "--db", str(self.db),
             "--scene", "house", "--llm", f"scripted:{script}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        # the process flushes its two lines once the server listens; a missing line fails, not hangs
        self.lines = LineReader(self.proc.stdout).until("Ctrl-C", timeout=60)
        self.urls = [u for line in self.lines for u in URL.findall(line)]

    def stop(self) -> str:
        """Stop the server (Ctrl-C's signal) and return what it wrote on stderr."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        assert self.proc.stderr is not None
        return self.proc.stderr.read()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    s = Served(tmp_path)
    try:
        yield s
    finally:
        s.stop()


def test_serve_prints_only_the_tokened_url_once_with_scene_and_store(served: Served) -> None:
    assert len(served.urls) == 1, served.lines
    url = served.urls[0]
    assert re.search(r"/\?token=[\w-]{20,}$", url), url
    assert "scene house" in served.lines[-1] and f"store {served.db}" in served.lines[-1]
    with urllib.request.urlopen(url, timeout=20) as reply:
        assert reply.status == 200
    bare = url.split("?")[0]
    with pytest.raises(urllib.error.HTTPError) as refused:  # what viser's own banner used to print
        urllib.request.urlopen(bare, timeout=20)
    assert refused.value.code == 403


@pytest.mark.slow  # a real browser
def test_the_printed_url_opens_the_gui_in_chromium(served: Served, chromium: Any) -> None:
    page = chromium.new_page()  # in a browser context of its own
    try:
        page.set_default_timeout(60_000)
        reply = page.goto(served.urls[0])
        assert reply is not None and reply.status == 200
        page.locator("form input").wait_for()  # the chat box: the GUI's panel is up
        page.get_by_text("house").first.wait_for()  # the scene it said it serves
    finally:
        page.close()
