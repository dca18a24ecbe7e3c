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
receives nothing and can change nothing. The check is installed before the server listens
(:func:`guarded_serving`): until the bound port is known every request is refused. A connection that
sends a frame viser cannot read is logged in one line, without a traceback (:class:`MalformedMessageLog`).
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import secrets
import socket
from collections.abc import Callable, Iterator
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


@dataclass
class PolicySlot:
    """Where a server being started finds its policy: None until the port it bound is known, and every
    request is refused meanwhile, so none is answered before the check is in place."""

    policy: AccessPolicy | None = None


def _guarded(slot: PolicySlot, inner: Callable[..., Any] | None) -> Callable[..., Any]:
    """viser's request hook behind the policy: a refused request gets 403 and never reaches viser."""

    def process_request(connection: Any, request: Any) -> Any:
        policy = slot.policy
        if policy is None:
            return connection.respond(HTTPStatus.FORBIDDEN, "synergai: forbidden: the server is starting\n")
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


@contextlib.contextmanager
def guarded_serving(slot: PolicySlot) -> Iterator[None]:
    """While a viser server is constructed inside this block, its websockets server is created with the
    policy's hook in front of viser's own, so the check is in place before the port listens.

    viser offers no hook for its handshake: ``websockets.asyncio.server.serve``, which viser calls while
    it starts, is wrapped for the duration of the block (viser's constructor returns once it listens)."""
    import websockets.asyncio.server as ws_server

    original = ws_server.serve

    def serve(*args: Any, **kwargs: Any) -> Any:
        kwargs["process_request"] = _guarded(slot, kwargs.get("process_request"))
        return original(*args, **kwargs)

    ws_server.serve = serve  # type: ignore[misc,assignment]
    try:
        yield
    finally:
        ws_server.serve = original  # type: ignore[misc]


class MalformedMessageLog(logging.Filter):
    """A connection that ends on a message viser cannot read (a client's malformed or text frame) is
    logged as one warning line, without a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage() == "connection handler failed" and record.exc_info:
            exc = record.exc_info[1]
            record.msg, record.args = "a browser connection closed on a malformed message: %s", (
                " ".join(f"{type(exc).__name__}: {exc}".split())[:200],)
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info, record.exc_text = None, None
        return True


def quiet_malformed_messages(logger_name: str = "websockets.server") -> None:
    """Install :class:`MalformedMessageLog` on the websockets server's logger (once)."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(f, MalformedMessageLog) for f in logger.filters):
        logger.addFilter(MalformedMessageLog())
