"""PostgreSQL roles for tests: a login role that may only read a test store's schema (or part of it)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from urllib.parse import unquote, urlsplit, urlunsplit


def read_only_role(location: str, hidden: Sequence[str] = ()) -> str:
    """``location`` (a test store: a URL whose options set the search path to its schema) for a new login
    role that may only read that schema, except its tables named in ``hidden`` (not even those)."""
    import psycopg

    role, password = f"ro_{uuid.uuid4().hex[:10]}", uuid.uuid4().hex
    parts = urlsplit(location)
    schema = unquote(parts.query).split("search_path=", 1)[1].split("&", 1)[0]
    with psycopg.connect(location, autocommit=True) as c:
        c.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
        c.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        c.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}")
        for table in hidden:
            c.execute(f"REVOKE SELECT ON {schema}.{table} FROM {role}")
    netloc = f"{role}:{password}@{parts.hostname}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


@contextmanager
def reader_role(location: str, hidden: Sequence[str] = ()) -> Iterator[str]:
    """:func:`read_only_role` for the block, the role dropped after it."""
    import psycopg

    url = read_only_role(location, hidden)
    try:
        yield url
    finally:
        role = urlsplit(url).username
        with psycopg.connect(location, autocommit=True) as c:
            c.execute(f"DROP OWNED BY {role}")
            c.execute(f"DROP ROLE {role}")
