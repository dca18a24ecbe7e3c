"""The GUI's front door: only the user's own page, holding the session's token, reaches the viser server.

viser answers any Origin and any Host and has no login, so a page of another site open in the same browser
could read the scene and press Undo. :func:`guard` puts an :class:`AccessPolicy` in front of viser's
request handling; every HTTP and websocket request must

* carry the session's random token, as ``?token=`` (the URL printed at start, as Jupyter does) or as the
  cookie the first such request sets (``HttpOnly``, ``SameSite=Strict``: the page's assets and its
  websocket send it);
* name this server in ``Host`` (a loopback name and our port when bound to loopback: no DNS rebinding);
* come from this server's origin when it names one (``Origin`` equal to ``http://`` + ``Host``).

Anything else gets HTTP 403 and never reaches viser: a refused websocket opens no browser tab, so it
receives nothing and can change nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hmac
import secrets
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
WILDCARD = frozenset({"0.0.0.0", "::", ""})


def new_token() -> str:
    """A fresh random session token (URL-safe)."""
    return secrets.token_urlsafe(24)


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine's loopback interface only."""
    return host.strip("[]").lower() in LOOPBACK_NAMES


def split_host(host_header: str) -> tuple[str, str]:
    """A Host header's (name, port); ("", "") when it is malformed ("[::1]:80" keeps "::1")."""
    if host_header.startswith("["):
        name, _, rest = host_header[1:].partition("]")
        return (name, rest[1:]) if rest.startswith(":") else (name, "")
    if host_header.count(":") > 1:
        return "", ""
    name, _, port = host_header.partition(":")
    return name, port


@dataclass(frozen=True)
class AccessPolicy:
    """Who may talk to the GUI: the token, the served port and the Host names that reach it."""

    token: str
    port: int
    bind_host: str = "127.0.0.1"

    @property
    def cookie_name(self) -> str:
        """One cookie per port, so two GUIs on one machine keep their own tokens."""
        return f"synergai-token-{self.port}"

    def _host_allowed(self, host_header: str) -> bool:
        name, port = split_host(host_header)
        if not name or port != str(self.port):
            return False
        if self.bind_host in WILDCARD:
            return True
        names = LOOPBACK_NAMES if is_loopback(self.bind_host) else {self.bind_host.strip("[]").lower()}
        return name.lower() in names

    def token_in(self, path: str, headers: Any) -> str | None:
        """The token a request carries (query first, then cookie), or None."""
        query = parse_qs(urlsplit(path).query).get("token")
        if query:
            return query[0]
        cookie = SimpleCookie()
        for raw in headers.get_all("Cookie") if hasattr(headers, "get_all") else [headers.get("Cookie", "")]:
            with contextlib.suppress(CookieError):
                cookie.load(raw or "")
        morsel = cookie.get(self.cookie_name)
        return morsel.value if morsel is not None else None

    def problem(self, path: str, headers: Any) -> str | None:
        """Why a request is refused (one line), or None when it may pass."""
        host = headers.get("Host") or ""
        if not self._host_allowed(host):
            return f"this server does not answer for host {host!r}"
        origin = headers.get("Origin")
        if origin is not None and origin.lower() != f"http://{host}".lower():
            return f"requests from origin {origin!r} are refused (same-origin only)"
        token = self.token_in(path, headers)
        if token is None or not hmac.compare_digest(token.encode(), self.token.encode()):
            return "a valid token is required: open the URL printed when the server started"
        return None


def check_bindable(host: str) -> None:
    """Raise a one-line OSError when ``host`` is no address of this machine (viser would wait forever)."""
    try:
        infos = socket.getaddrinfo(host or None, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise OSError(f"cannot serve the GUI on {host!r}: {exc}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        try:
            probe.bind(address)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot serve the GUI on {host!r}: {exc.strerror or exc}") from None


def _guarded(policy: AccessPolicy, inner: Callable[..., Any] | None) -> Callable[..., Any]:
    """viser's request hook behind the policy: a refused request gets 403 and never reaches viser."""

    def process_request(connection: Any, request: Any) -> Any:
        problem = policy.problem(request.path, request.headers)
        if problem is not None:
            return connection.respond(HTTPStatus.FORBIDDEN, f"synergai: forbidden: {problem}\n")
        response = inner(connection, request) if inner is not None else None
        if response is not None:  # an HTTP answer (the page, its assets); None goes on to the websocket
            response.headers["Referrer-Policy"] = "no-referrer"  # the page's URL holds the token
            response.headers["X-Frame-Options"] = "DENY"
            if parse_qs(urlsplit(request.path).query).get("token"):
                response.headers["Set-Cookie"] = (f"{policy.cookie_name}={policy.token}; Path=/; HttpOnly; "
                                                  "SameSite=Strict")
        return response

    return process_request


def guard(server: Any, policy: AccessPolicy, timeout: float = 10.0) -> None:
    """Put ``policy`` in front of a started viser server, for HTTP and websocket requests alike.

    viser offers no hook for its handshake, so one websocket connection of our own finds the
    websockets server behind it (``connection.server``) and wraps its ``process_request``; any
    connection made before that is closed. Call it before registering the app's connect callbacks.
    """
    import websockets.asyncio.client
    from viser import __version__ as viser_version
    from websockets.typing import Subprotocol

    infra = server._websock_server  # viser's websocket server (private: viser has no public hook)
    found = threading.Event()

    async def capture(conn: Any) -> None:
        live = infra._live_connections.get(conn.client_id)
        if live is None or found.is_set():
            return
        ws_server = live.server
        ws_server.process_request = _guarded(policy, ws_server.process_request)
        found.set()

    infra.on_client_connect(capture)

    async def probe() -> None:
        async with websockets.asyncio.client.connect(
                f"ws://127.0.0.1:{server.get_port()}/", subprotocols=[Subprotocol(f"viser-v{viser_version}")],
                open_timeout=timeout):
            await asyncio.get_running_loop().run_in_executor(None, found.wait, timeout)

    asyncio.run(probe())
    if not found.is_set():
        raise OSError(errno.ETIMEDOUT, "could not put the access check in front of the GUI server")
    infra.disconnect_all_clients()
