"""The GUI's access check is in place before its port listens, and a client holding the token that sends
frames viser cannot read gets its connection closed with one log line, no traceback (issue 33)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
import viser
import websockets.asyncio.client
import websockets.exceptions

from synergai.gui import GuiHandle, serve
from synergai.gui.gate import AccessPolicy, PolicySlot, guarded_serving
from synergai.llm import ScriptedModel
from synergai.scene.catalog import SceneCatalog
from synergai.scene.store import SceneStore

PROTOCOL = f"viser-v{viser.__version__}"


async def _open(port: int, headers: dict[str, str], send: bytes | str | None = None) -> str:
    url = f"ws://127.0.0.1:{port}/"
    try:
        async with websockets.asyncio.client.connect(url, additional_headers=headers, subprotocols=[PROTOCOL],
                                                     open_timeout=10) as ws:
            await asyncio.wait_for(ws.recv(), 10)
            if send is not None:
                await ws.send(send)
                await asyncio.sleep(0.3)
            return "open"
    except websockets.exceptions.InvalidStatus as exc:
        return f"refused {exc.response.status_code}"


def test_no_websocket_is_accepted_before_the_policy_is_known() -> None:
    """From the moment the port listens, every request meets the check: until the policy is set (the
    bound port known), even the own page with the token is refused; a foreign origin always is."""
    slot = PolicySlot()
    with guarded_serving(slot):
        server = viser.ViserServer(host="127.0.0.1", port=0, verbose=False)
    try:
        port = server.get_port()
        policy = AccessPolicy("s3cret", port)
        own = {"Origin": f"http://127.0.0.1:{port}", "Cookie": f"{policy.cookie_name}=s3cret"}
        foreign = {**own, "Origin": "http://evil.example"}
        assert asyncio.run(_open(port, foreign)) == "refused 403"
        assert asyncio.run(_open(port, own)) == "refused 403"
        assert server.get_clients() == {}
        slot.policy = policy
        assert asyncio.run(_open(port, foreign)) == "refused 403"
        assert asyncio.run(_open(port, own)) == "open"
    finally:
        server.stop()
    import websockets.asyncio.server as ws_server

    assert ws_server.serve.__module__ == "websockets.asyncio.server"  # the wrapper is gone


@pytest.fixture
def gui(tmp_path: Path) -> Iterator[GuiHandle]:
    store = SceneStore(tmp_path / "s.sqlite3")
    handle = serve(SceneCatalog(store), lambda: ScriptedModel([]), port=0, block=False, poll_seconds=0)
    yield handle
    handle.stop()
    store.close()


@pytest.mark.parametrize("frame", [b"\x00garbage", "a text frame", b"\x81\xa4type\xa3foo"])
def test_a_malformed_frame_from_a_token_holder_logs_one_line_without_a_traceback(
    gui: GuiHandle, frame: bytes | str, caplog: pytest.LogCaptureFixture
) -> None:
    assert gui.policy is not None
    port = gui.policy.port
    headers = {"Origin": f"http://127.0.0.1:{port}", "Cookie": f"{gui.policy.cookie_name}={gui.policy.token}"}
    with caplog.at_level(logging.WARNING):
        assert asyncio.run(_open(port, headers, send=frame)) == "open"
        asyncio.run(asyncio.sleep(0.3))
    records = [r for r in caplog.records if r.name.startswith("websockets")]
    assert records and all(r.exc_info is None and "\n" not in r.getMessage() for r in records)
    assert "malformed message" in records[0].getMessage()
    assert "Traceback" not in caplog.text
