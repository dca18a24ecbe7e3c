"""Shared fixtures: where the benchmark data lives (read in place, never copied), a real
PostgreSQL server for the store's tests (``SYNERGAI_TEST_PG`` when set, else a throwaway cluster
started here; without PostgreSQL those tests fail, they are not skipped), and the real embedded model
that the slow tests share (loaded once per session); ``cli`` runs a command in this process, as
``python -m synergai`` would in a child (tests keep a real child where the process itself matters:
logging set up once, encodings, a file no open connection has cached)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest

from pg_cluster import ClusterError, start, stop

if TYPE_CHECKING:
    from synergai.llm import EmbeddedModel

DATA_ENV = "SYNERGAI_DATA"
SHARED_DATA = Path(os.environ.get(DATA_ENV) or Path(__file__).resolve().parents[1].parent / "shared" / "data")
PG_ENV = "SYNERGAI_TEST_PG"
BACKENDS = ("sqlite", "postgres")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the repository root (``$SYNERGAI_DATA`` for a checkout elsewhere)."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"benchmark data not found at {SHARED_DATA}; set {DATA_ENV} to the data folder")
    return SHARED_DATA


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server's URL: ``$SYNERGAI_TEST_PG``, else a cluster started for this session."""
    given = os.environ.get(PG_ENV, "").strip()
    if given:
        yield given
        return
    directory = Path(tempfile.mkdtemp(prefix="synergai-pg-"))
    try:
        url = start(directory)
    except (ClusterError, OSError) as exc:
        stop(directory)
        pytest.fail(f"PostgreSQL is needed and could not be started ({exc}); set {PG_ENV} to a server's URL")
    try:
        yield url
    finally:
        stop(directory)


@pytest.fixture(scope="session")
def embedded_model() -> Iterator[EmbeddedModel]:
    """The real embedded model on 2 CPU threads (CI's cores), loaded once for every slow test that asks a
    question; the tests of loading itself make instances of their own."""
    from synergai.llm import EmbeddedModel

    model = EmbeddedModel(threads=2)
    model.load()
    yield model
    model.close()


@pytest.fixture
def cli(capfd: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``cli(*args, env=...)``: ``synergai ARGS`` run by :func:`synergai.cli.main.main` in this process with
    ``env`` added to the environment for that command only; its exit code and what it wrote on file
    descriptors 1 and 2 (a native library's output included)."""
    from synergai.cli.main import main

    def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        capfd.readouterr()  # what was printed before is not this command's
        with monkeypatch.context() as m:
            for name, value in (env or {}).items():
                m.setenv(name, value)
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse: usage errors and --help
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        out, err = capfd.readouterr()
        return subprocess.CompletedProcess(list(args), code, out, err)

    return run


def schema_url(url: str, schema: str) -> str:
    """``url`` with its search path set to ``schema`` (one store per schema: cheap to make)."""
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options={quote(f'-csearch_path={schema}')}"


@pytest.fixture
def pg_location(postgres_url: str) -> Iterator[str]:
    """A fresh, empty PostgreSQL store location (a schema of its own, dropped afterwards)."""
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    yield schema_url(postgres_url, schema)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=BACKENDS)
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """A fresh store location, once per backend: a SQLite file, then a PostgreSQL schema."""
    if request.param == "sqlite":
        return tmp_path / "store.sqlite3"
    return str(request.getfixturevalue("pg_location"))
