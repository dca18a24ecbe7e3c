"""Only the user's own page reaches the GUI: a token on every request, same Origin, our Host.

A served instance on 127.0.0.1 is probed with plain HTTP and a real websocket client, as a page of
another site (or another program) would.
"""

from __future__ import annotations

import asyncio
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import viser
import websockets.asyncio.client
import websockets.exceptions

from synergai.gui import GuiHandle, serve
from synergai.gui.gate import AccessPolicy, check_bindable
from synergai.llm import ScriptedModel
from synergai.scene.catalog import SceneCatalog
from synergai.scene.store import SceneStore

PROTOCOL = f"viser-v{viser.__version__}"


def test_policy_checks_token_host_and_origin() -> None:
    p = AccessPolicy("s3cret", 8080)
    ok = {"Host": "127.0.0.1:8080"}
    assert p.problem("/?token=s3cret", ok) is None
    assert p.problem("/", {**ok, "Cookie": "synergai-token-8080=s3cret"}) is None
    same = {**ok, "Origin": "http://127.0.0.1:8080", "Cookie": "synergai-token-8080=s3cret"}
    assert p.problem("/", same) is None
    assert "token" in p.problem("/", ok)
    assert "token" in p.problem("/?token=wrong", ok)
    assert "token" in p.problem("/", {**ok, "Cookie": "synergai-token-9999=s3cret"})  # another GUI's cookie
    assert "origin" in p.problem("/?token=s3cret", {**ok, "Origin": "http://evil.example"})
    assert "origin" in p.problem("/?token=s3cret", {**ok, "Origin": "http://127.0.0.1:9999"})  # another port
    assert "origin" in p.problem("/?token=s3cret", {**ok, "Origin": "null"})
    assert "host" in p.problem("/?token=s3cret", {"Host": "evil.example:8080"})  # DNS rebinding
    assert "host" in p.problem("/?token=s3cret", {"Host": "127.0.0.1:8081"})
    assert "host" in p.problem("/?token=s3cret", {})
    assert p.problem("/?token=s3cret", {"Host": "[::1]:8080"}) is None
    wide = AccessPolicy("s3cret", 8080, "0.0.0.0")
    assert wide.problem("/?token=s3cret", {"Host": "192.168.1.20:8080"}) is None
    assert "token" in wide.problem("/", {"Host": "192.168.1.20:8080"})


def test_an_address_not_on_this_machine_is_a_one_line_error() -> None:
    started = time.monotonic()
    with pytest.raises(OSError, match=r"cannot serve the GUI on '192\.0\.2\.1'"):
        check_bindable("192.0.2.1")  # TEST-NET-1: never one of ours
    assert time.monotonic() - started < 5


@pytest.fixture(scope="module")
def gui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GuiHandle]:
    store = SceneStore(Path(tmp_path_factory.mktemp("gui")) / "s.sqlite3")
    handle = serve(SceneCatalog(store), lambda: ScriptedModel([]), port=0, block=False, poll_seconds=0)
    yield handle
    handle.stop()
    store.close()


def _base(handle: GuiHandle) -> str:
    return handle.url.split("?")[0].rstrip("/")


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_http_needs_the_token_and_the_printed_url_sets_a_strict_cookie(gui: GuiHandle) -> None:
    assert "?token=" in gui.url and gui.policy is not None
    status, _, body = _get(_base(gui) + "/")
    assert status == 403 and b"token" in body
    status, _, _ = _get(_base(gui) + "/index.html?token=wrong")
    assert status == 403
    status, headers, body = _get(gui.url)
    assert status == 200 and b"<html" in body[:2000].lower()
    cookie = headers["Set-Cookie"]
    assert f"{gui.policy.cookie_name}={gui.policy.token}" in cookie
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert headers["Referrer-Policy"] == "no-referrer"
    status, _, _ = _get(_base(gui) + "/", {"Cookie": f"{gui.policy.cookie_name}={gui.policy.token}"})
    assert status == 200
    status, _, _ = _get(gui.url, {"Host": "evil.example:80"})
    assert status == 403


async def _connect(handle: GuiHandle, origin: str | None, with_cookie: bool = True) -> str:
    """Open a websocket as a page at ``origin`` would: 'refused <status>', or 'open' once viser sent data."""
    assert handle.policy is not None
    headers = {"Origin": origin} if origin else {}
    if with_cookie:  # a browser sends the cookie also for a foreign page's websocket to 127.0.0.1
        headers["Cookie"] = f"{handle.policy.cookie_name}={handle.policy.token}"
    url = _base(handle).replace("http://", "ws://") + "/"
    try:
        async with websockets.asyncio.client.connect(url, additional_headers=headers,
                                                     subprotocols=[PROTOCOL], open_timeout=10) as ws:
            first = await asyncio.wait_for(ws.recv(), 10)
            return "open" if first else "open, empty"
    except websockets.exceptions.InvalidStatus as exc:
        return f"refused {exc.response.status_code}"


def test_a_foreign_origin_websocket_gets_nothing_and_opens_no_tab(gui: GuiHandle) -> None:
    edits_before = gui.app.catalog.store.edits("demo", include_undone=True)
    assert asyncio.run(_connect(gui, "http://evil.example")) == "refused 403"
    port = gui.policy.port if gui.policy else 0
    assert asyncio.run(_connect(gui, f"http://127.0.0.1:{port + 1}")) == "refused 403"  # another local site
    assert asyncio.run(_connect(gui, f"http://127.0.0.1:{port}", with_cookie=False)) == "refused 403"
    time.sleep(0.5)
    assert gui.app.clients == {} and gui.server.get_clients() == {}
    assert gui.app.catalog.store.edits("demo", include_undone=True) == edits_before


def test_the_own_page_websocket_opens_a_tab(gui: GuiHandle) -> None:
    port = gui.policy.port if gui.policy else 0
    assert asyncio.run(_connect(gui, f"http://127.0.0.1:{port}")) == "open"
    assert asyncio.run(_connect(gui, f"http://localhost:{port}")) == "refused 403"  # Host is 127.0.0.1 here


def test_serve_on_an_address_not_on_this_machine_exits_2_at_once(tmp_path: Path, capsys) -> None:
    from synergai.cli.main import main

    script = tmp_path / "script.json"
    script.write_text("[]")
    started = time.monotonic()
    code = main(["serve", "--host", "192.0.2.1", "--port", "0", "--db", str(tmp_path / "s.sqlite3"),
                 "--llm", f"scripted:{script}"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot serve the GUI on '192.0.2.1'" in err and len(err.strip().splitlines()) == 1
    assert time.monotonic() - started < 20
