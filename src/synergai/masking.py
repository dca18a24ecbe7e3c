"""Secrets masked in text: the one function every error message, log line (``-v``), ``config show``,
trace file, GUI message and ``serve`` line passes its text through.

Below every layer (geometry, scene, llm, ... may all import it; it imports nothing of synergai). It
masks, wherever they appear in the text:

- the password of a URL's user information (``scheme://user:PASSWORD@host``, the user name kept), and
  the whole user information of an ``http(s)`` URL that has no password (``https://TOKEN@host``);
- the value of a secret-named parameter (``password=``, ``passwd=``, ``sslpassword=``, ``api_key=``,
  ``key=``, ``token=``, ``access_token=``, ``secret=``, ``auth=``, ...) in a URL query, a libpq
  connection string (``password='a b'``) or a log line, and of a secret-named field in JSON or a Python
  dict's text (``"api_key": "..."``);
- HTTP credentials (``Authorization: ...``, ``x-api-key: ...``, ``Bearer TOKEN``) and API keys an
  endpoint echoes in an error body (``sk-...``, ``Incorrect API key provided: KEY``);
- the values of ``known`` (a key, a password, or a URL / connection string whose credentials are then
  masked in any form they appear, e.g. only the password quoted by libpq), and of the environment's
  secrets: variables named like ``*API_KEY*``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*`` and the
  credentials of every URL held in an environment variable (``SYNERGAI_STORE``, ``SYNERGAI_BASE_URL``).

A secret value shorter than :data:`MIN_SECRET` characters is masked only where its form shows it is
one (a bare value that short would mask ordinary words).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from urllib.parse import unquote

#: What a masked secret is replaced with.
MASK = "***"
#: Shortest bare value masked wherever it appears (shorter ones only in a recognised form).
MIN_SECRET = 4

_SECRET_WORD = r"(?:pass|pwd|key|token|secret|signature|credential|auth)"
#: A secret-named parameter: ``password=``, ``sslpassword =``, ``api_key=``, ``X-Amz-Signature=``.
_PARAM = re.compile(
    rf"(?i)(?<![\w.-])([\w.-]*{_SECRET_WORD}[\w.-]*\s*=\s*)"
    r"('(?:[^'\\]|\\.)*'?|\"(?:[^\"\\]|\\.)*\"?|[^\s&#'\"<>]+)"
)
#: A secret-named field of JSON or a Python dict's text: ``"api_key": "sk-..."``, ``'token': 'abc'``.
_FIELD = re.compile(
    rf"(?i)([\"'][\w.-]*{_SECRET_WORD}[\w.-]*[\"']\s*:\s*)"
    r"(\"(?:[^\"\\]|\\.)*\"?|'(?:[^'\\]|\\.)*'?|[^\s,}\]]+)"
)
#: HTTP credentials in a header's text.
_HEADER = re.compile(
    r"(?i)\b((?:proxy-)?authorization|x-api-key|api-key)(\s*:\s*)(?:(bearer|basic|token|digest)\s+)?"
    r"[^\s,;'\"]+"
)
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+")
#: HTTP basic credentials (base64 of ``user:password``; a word with no digit or ``+/=`` is no such thing).
_BASIC = re.compile(r"(?i)\b(basic\s+)(?=[A-Za-z0-9+/]*[0-9+/=])[A-Za-z0-9+/]{6,}={0,2}")
#: API keys as endpoints write them back (OpenAI-style ``sk-...``; "key provided: KEY").
_KEY_SHAPE = re.compile(r"\b(sk-)[A-Za-z0-9_-]{4,}")
_PROVIDED = re.compile(r"(?i)(key provided\s*:\s*)[^\s,;'\"]+")
#: A URL's user information: scheme, user, and the password (to the last ``@`` of the authority).
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^\s/?#@:'\"]*):([^\s/?#'\"]*)@")
_HTTP_USER = re.compile(r"(?i)\b(https?://)([^\s/?#@:'\"]+)@")
#: Environment variables whose whole value is a secret.
_SECRET_ENV = re.compile(r"(?i)api_?key|token|secret|passw(?:or)?d")


def mask_secrets(text: object, *known: str | None, only_known: bool = False) -> str:
    """``text`` (made a string) with every credential it holds replaced by :data:`MASK`; ``known`` are
    secrets of the caller (an API key, a store URL) masked in whatever form they appear (see the
    module doc-string for what is recognised). ``only_known`` masks only the values of ``known`` and of
    the environment, no forms: for a prompt or a model's reply, where ``key=`` is a program's text."""
    out = str(text)
    whole = _url_password(out)  # a URL given whole: its password even where no pattern finds it
    values = {v for hint in (*known, *_environment_secrets()) for v in _secret_values(hint)}
    values |= {whole} if len(whole) >= MIN_SECRET else set()
    for value in sorted(values, key=len, reverse=True):
        if value in out:
            out = _bounded(value).sub(MASK, out)
    if only_known:
        return out
    out = _USERINFO.sub(lambda m: f"{m[1]}{m[2]}:{MASK}@", out)
    out = _HTTP_USER.sub(lambda m: f"{m[1]}{MASK}@" if m[2] != MASK else m[0], out)
    out = _PARAM.sub(lambda m: m[1] + _masked_value(m[2]), out)
    out = _FIELD.sub(lambda m: m[1] + _masked_value(m[2]), out)
    out = _HEADER.sub(lambda m: f"{m[1]}{m[2]}{m[3] + ' ' if m[3] else ''}{MASK}", out)
    out = _BEARER.sub(lambda m: m[1] + MASK, out)
    out = _BASIC.sub(lambda m: m[1] + MASK, out)
    out = _KEY_SHAPE.sub(lambda m: m[1] + MASK, out)
    return _PROVIDED.sub(lambda m: m[1] + MASK, out)


def _masked_value(value: str) -> str:
    """A matched value masked, its quotes kept (``'a b'`` -> ``'***'``)."""
    if value[:1] in "'\"":
        return value[0] + MASK + (value[0] if len(value) > 1 and value[-1] == value[0] else "")
    return MASK


def _bounded(value: str) -> re.Pattern[str]:
    """``value`` where it is not part of a longer word (an edge that is a letter or digit must not
    touch another one: the password ``postgres`` is not masked in ``postgresql://``)."""
    before = r"(?<![A-Za-z0-9])" if value[0].isalnum() else ""
    after = r"(?![A-Za-z0-9])" if value[-1].isalnum() else ""
    return re.compile(before + re.escape(value) + after)


def _environment_secrets() -> Iterator[str]:
    """The secret-named environment variables' values that look like secrets (a flag such as ``true`` or
    a word such as ``postgres`` would mask ordinary text) and the URLs held in any variable."""
    for name, value in os.environ.items():
        holds_credentials = "://" in value or "=" in value
        if holds_credentials or (_SECRET_ENV.search(name) and _looks_secret(value)):
            yield value


def _looks_secret(value: str) -> bool:
    """Whether a secret-named variable's value is a key or a password, not a flag or a plain word."""
    return len(value) >= 16 or (len(value) >= 6 and not value.isalpha())


def _url_password(url: str) -> str:
    """The password of a URL given whole, even one no parser accepts (``postgresql://u:a b@h/db``)."""
    scheme = re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", url)
    if not scheme:
        return ""
    head = re.split(r"[?#]", url[scheme.end():], maxsplit=1)[0]
    userinfo = head[:max(head.rfind("@"), 0)]
    return userinfo.split(":", 1)[1] if ":" in userinfo and "/" not in userinfo else ""


def _secret_values(hint: str | None) -> Iterable[str]:
    """The secret values in a hint: the credentials of a URL or connection string, else the hint itself;
    each also percent-decoded; none shorter than :data:`MIN_SECRET`."""
    if not hint or not hint.strip():
        return ()
    hint = hint.strip()
    found = [_url_password(hint)] if _url_password(hint) else []
    for m in _USERINFO.finditer(hint):
        found.append(m[3])
    for m in _HTTP_USER.finditer(hint):
        found.append(m[2])
    for m in (*_PARAM.finditer(hint), *_FIELD.finditer(hint)):
        value = m[2]
        found.append(value[1:-1] if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"" else value)
    if not found and not ("://" in hint or "=" in hint):
        found.append(hint)
    out = set()
    for value in found:
        for form in (value, unquote(value), value.replace("\\'", "'")):
            if len(form) >= MIN_SECRET and form != MASK:
                out.add(form)
    return out
