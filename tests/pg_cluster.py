"""A throwaway PostgreSQL cluster for the tests: ``initdb`` in a temporary directory, ``pg_ctl start``
on a free port on 127.0.0.1, password authentication over TCP, stopped at the end.

Used by tests/conftest.py (when ``SYNERGAI_TEST_PG`` is not set) and by .ci/run::

    python tests/pg_cluster.py start DIR [--durable]   # prints the URL (--durable: fsync on)
    python tests/pg_cluster.py stop DIR

As root (CI), the server's tools run as the ``postgres`` user (``runuser -u postgres --``; initdb
refuses root) in a directory that user owns. The cluster runs with ``fsync=off``: the tests kill
clients, never the server, and a test suite need not survive a power cut.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import socket
import subprocess
import sys
from pathlib import Path

USER = "synergai"
DATABASE = "postgres"


class ClusterError(RuntimeError):
    """PostgreSQL's server tools are missing or the cluster did not start."""


def server_bin() -> Path:
    """The newest ``/usr/lib/postgresql/*/bin`` holding initdb, else the directory of ``initdb`` on PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    raise ClusterError("PostgreSQL's server tools (initdb, pg_ctl) were not found: "
                       "apt-get install postgresql (make test does it)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_server_user(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


def start(directory: Path, *, durable: bool = False) -> str:
    """Initialise and start a cluster in ``directory`` (created); returns its URL. ``durable``: keep
    PostgreSQL's default ``fsync=on`` (for benchmarks)."""
    tools = server_bin()
    directory.mkdir(parents=True, exist_ok=True)
    data, password = directory / "data", secrets.token_hex(12)
    pwfile = directory / "pw"
    pwfile.write_text(password + "\n")
    if os.geteuid() == 0:
        shutil.chown(directory, "postgres", "postgres")
        shutil.chown(pwfile, "postgres", "postgres")
    port = _free_port()
    steps = [
        [str(tools / "initdb"), "-D", str(data), "-U", USER, f"--pwfile={pwfile}", "-E", "UTF8",
         "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync"],
        [str(tools / "pg_ctl"), "-D", str(data), "-l", str(directory / "log"), "-w", "-t", "60", "start",
         "-o", f"-c listen_addresses=127.0.0.1 -p {port} -c unix_socket_directories={directory} "
               + ("" if durable else "-c fsync=off -c full_page_writes=off ") + "-c max_connections=200"],
    ]
    for cmd in steps:
        done = subprocess.run(_as_server_user(cmd), capture_output=True, text=True, check=False)
        if done.returncode != 0:
            log = directory / "log"
            tail = log.read_text()[-2000:] if log.is_file() else ""
            why = done.stderr.strip() or done.stdout.strip()
            raise ClusterError(f"{Path(cmd[0]).name} failed: {why} {tail}")
    (directory / "port").write_text(str(port))
    return f"postgresql://{USER}:{password}@127.0.0.1:{port}/{DATABASE}"


def stop(directory: Path) -> None:
    """Stop the cluster in ``directory`` (immediate shutdown) and remove the directory."""
    data = directory / "data"
    if data.is_dir():
        subprocess.run(_as_server_user([str(server_bin() / "pg_ctl"), "-D", str(data), "-m", "immediate",
                                        "-w", "stop"]), capture_output=True, check=False)
    shutil.rmtree(directory, ignore_errors=True)


def main(argv: list[str]) -> int:
    durable = "--durable" in argv
    argv = [a for a in argv if a != "--durable"]
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: pg_cluster.py start|stop DIR [--durable]", file=sys.stderr)
        return 2
    if argv[0] == "start":
        print(start(Path(argv[1]), durable=durable))
    else:
        stop(Path(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
