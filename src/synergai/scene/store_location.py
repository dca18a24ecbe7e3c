"""Store locations as the user gives them (``--db``, ``SYNERGAI_STORE``, config ``store``): a path
means a SQLite file, a ``scheme://`` URL a database server; passwords are masked in messages.
(Light on purpose: the command line parses ``--db`` before it imports anything heavy.)"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(location: str | Path | None) -> bool:
    """Whether a store location is a URL (``scheme://...``) rather than a file path."""
    return isinstance(location, str) and bool(_URL.match(location.strip()))


def mask_url(url: str) -> str:
    """``url`` with its password replaced by ``***`` (for messages)."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        netloc = parts.netloc.rsplit("@", 1)
        user = (parts.username or "")
        return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[-1]}"))
    except ValueError:
        return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)


def store_location(value: str | Path) -> str | Path:
    """A ``--db`` / ``SYNERGAI_STORE`` / config ``store`` value: a URL as given, else a path (``~``
    expanded)."""
    text = str(value).strip()
    return text if is_url(text) else Path(text).expanduser()
