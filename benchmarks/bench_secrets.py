"""Secrets fuzz: URLs and error texts with credentials in every position, pushed through the real paths;
counts every credential printed (stdout, stderr, ``-v`` included) or written to a trace file.

    python benchmarks/bench_secrets.py [--cases 200] [--seed 0] [--json]

Each case draws a fresh random secret (letters, digits, ``-._~`` and, in a third of the cases, characters
a URL must percent-encode: ``@ / : ' % #`` and a space) and runs one command in this process
(``synergai.cli.main.main``, output captured):

- ``store``: ``synergai scene list -v --db URL`` on a PostgreSQL URL that fails (refused port, the
  password in the user information or as ``?password=`` / ``sslpassword=``, a URL libpq quotes whole,
  bad percent-encoding, a space, an unknown parameter, an unsupported scheme);
- ``llm``: ``synergai ask -v --llm openai:m --base-url URL --trace FILE`` against a fake endpoint on
  127.0.0.1 that answers 401 echoing the key it was sent (``Authorization``) and the path and query it
  was asked for, in one of several forms (LiteLLM's "Incorrect API key provided: KEY", JSON, a header
  line, ``token=``, bare); the secret is the API key (``OPENAI_API_KEY``), the endpoint URL's password,
  its user information, or its ``api_key=`` / ``key=`` / ``token=`` / ``access_token=`` parameter;
- ``config``: ``synergai config show [-v] [--json]`` with a credential-bearing ``base_url`` and store
  given as a flag, an environment variable or in the config file.

A secret counts as leaked when it, or its percent-encoded form, appears in the command's output or its
trace file. No model, no network beyond 127.0.0.1, no database server.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import string
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

from synergai.cli.main import main

ECHO_FORMS = (
    "Incorrect API key provided: {key}. You can find your API key at https://example/keys ({path})",
    '{{"api_key": "{key}", "request": "{path}"}}',
    "Authorization: Bearer {key} rejected for {path}",
    "invalid token={key} on {path}",
    "the key {key} is not valid here: {path}",
)


@dataclass
class Case:
    kind: str
    secret: str
    argv: list[str]
    env: dict[str, str]
    echo: str = ""
    config: str = ""


class _Echo(BaseHTTPRequestHandler):
    server: EchoServer

    def log_message(self, *args: object) -> None:
        pass

    def _answer(self) -> None:
        key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        message = self.server.form.format(key=key, path=self.path)
        body = json.dumps({"error": {"message": message, "type": "auth_error"}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer()

    do_GET = _answer


class EchoServer(ThreadingHTTPServer):
    """A chat endpoint that answers 401 echoing the key and the request line in ``form``."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Echo)
        self.form = ECHO_FORMS[0]


@contextlib.contextmanager
def echo_server() -> Iterator[EchoServer]:
    server = EchoServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def random_secret(rng: random.Random) -> str:
    """A secret of 8-24 characters; a third hold characters a URL must percent-encode."""
    alphabet = string.ascii_letters + string.digits + "-._~"
    chars = [rng.choice(alphabet) for _ in range(rng.randint(8, 24))]
    if rng.random() < 1 / 3:
        chars.insert(rng.randrange(1, len(chars)), rng.choice("@/:'%# "))
    return "".join(chars)


def store_urls(s: str, e: str) -> list[str]:
    """Failing store URLs holding the secret ``s`` (``e``: its percent-encoded form; a raw space is kept
    only in the URL that tests one, where ``s`` holds no other character a URL must encode)."""
    return [
        f"postgresql://alice:{e}@127.0.0.1:1/scenes",
        f"postgres://alice:{e}@127.0.0.1:1/scenes?connect_timeout=1",
        f"postgresql://alice@127.0.0.1:1/scenes?password={e}",
        f"postgresql://127.0.0.1:1/scenes?user=alice&sslpassword={e}&password={e}",
        f"postgresql://alice:{e}@[bad/scenes",  # libpq quotes the whole URL
        f"postgresql://alice:{e}%zz@127.0.0.1:1/scenes",  # bad percent-encoding: libpq quotes the password
        f"postgresql://alice:{s} x@127.0.0.1:1/scenes",  # a space: libpq quotes the password
        f"postgresql://alice:{e}@127.0.0.1:1/scenes?passwrd=x",  # an unknown parameter
        f"postgresql://alice:{e}@127.0.0.1:1/scenes?sslmode=bogus",
        f"mysql://alice:{e}@127.0.0.1/scenes",
    ]


def cases(n: int, rng: random.Random, port: int, work: Path) -> list[Case]:
    """``n`` cases spread over the three paths and their positions."""
    out: list[Case] = []
    db = str(work / "s.db")
    base = f"127.0.0.1:{port}/v1"
    for k in range(n):
        s = random_secret(rng)
        e = quote(s, safe="")
        kind = ("store", "llm", "config")[k % 3]
        if kind == "store":
            url = rng.choice(store_urls(s, e))
            if " x@" in url:  # the secret is the password with its space
                s = "".join(c for c in s if c not in "@/:'%# ")
                url, s = f"postgresql://alice:{s} x@127.0.0.1:1/scenes", f"{s} x"
            out.append(Case(kind, s, ["scene", "list", "-v", "--db", url], {}))
        elif kind == "llm":
            key = "sk-" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(20))
            position = rng.choice(["key", "password", "user", "api_key", "key=", "token", "access_token"])
            env = {"OPENAI_API_KEY": key}
            if position == "key":
                s, url = key, f"http://{base}"
            elif position == "password":
                url = f"http://alice:{e}@{base}"
            elif position == "user":
                s = s.replace(" ", "").replace("%", "").replace("#", "") or "tok12345"
                url = f"http://{quote(s, safe='')}@{base}"
            else:
                url = f"http://{base}?{position.rstrip('=')}={e}"
            argv = ["ask", "What colour is the lamp?", "-v", "--db", db, "--no-cache", "--llm", "openai:m",
                    "--base-url", url, "--trace", str(work / f"trace{k}.jsonl")]
            out.append(Case(kind, s, argv, env, echo=rng.choice(ECHO_FORMS)))
        else:
            where = rng.choice(["flag", "env", "file"])
            value = rng.choice([f"http://u:{e}@h.example/v1", f"http://h.example/v1?api_key={e}",
                                f"http://h.example/v1?token={e}&x=1"])
            store = rng.choice([f"postgresql://alice:{e}@db.example/x",
                                f"postgresql://alice@db.example/x?password={e}"])
            argv = ["config", "show", *rng.choice([[], ["-v"], ["--json"]])]
            env: dict[str, str] = {}
            config = ""
            if where == "flag":
                argv += ["--base-url", value, "--db", store]
            elif where == "env":
                env = {"SYNERGAI_BASE_URL": value, "SYNERGAI_STORE": store}
            else:
                config = f"base_url = {json.dumps(value)}\nstore = {json.dumps(store)}\n"
            out.append(Case(kind, s, argv, env, config=config))
    return out


def run_case(case: Case, server: EchoServer, work: Path) -> dict[str, object]:
    """Run one case; what leaked where, its exit code and whether a traceback was printed."""
    config = work / "config.toml"
    config.write_text(case.config)
    saved = dict(os.environ)
    os.environ.update(case.env, SYNERGAI_CONFIG=str(config))
    server.form = case.echo or ECHO_FORMS[0]
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(case.argv)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    traced = "".join(p.read_text(errors="replace") for p in work.glob("trace*.jsonl"))
    for p in work.glob("trace*.jsonl"):
        p.unlink()
    forms = {case.secret, quote(case.secret, safe="")}
    printed = out.getvalue() + err.getvalue()
    return {"kind": case.kind, "code": code, "printed": any(f in printed for f in forms),
            "traced": any(f in traced for f in forms), "traceback": "Traceback" in printed,
            "shown": printed}


def main_bench(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    started = time.perf_counter()
    results: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp, echo_server() as server:
        work = Path(tmp)
        os.environ.update(XDG_CACHE_HOME=str(work / "cache"), XDG_DATA_HOME=str(work / "data"))
        for case in cases(args.cases, rng, server.server_address[1], work):
            results.append(run_case(case, server, work))
    rows = []
    for kind in ("store", "llm", "config", "all"):
        mine = [r for r in results if kind in ("all", r["kind"])]
        rows.append({"path": kind, "cases": len(mine), "printed": sum(bool(r["printed"]) for r in mine),
                     "traced": sum(bool(r["traced"]) for r in mine),
                     "tracebacks": sum(bool(r["traceback"]) for r in mine),
                     "exit codes": sorted({int(str(r["code"])) for r in mine})})
    if args.json:
        print(json.dumps({"rows": rows, "seconds": round(time.perf_counter() - started, 1)}))
    else:
        print(f"{'path':<8}{'cases':>7}{'printed':>9}{'traced':>8}{'tracebacks':>12}  exit codes")
        for r in rows:
            print(f"{r['path']:<8}{r['cases']:>7}{r['printed']:>9}{r['traced']:>8}{r['tracebacks']:>12}  "
                  f"{r['exit codes']}")
        print(f"{time.perf_counter() - started:.1f} s")
    leaked = [r for r in results if r["printed"] or r["traced"]]
    for r in leaked[:5]:
        print(f"leak ({r['kind']}): {str(r['shown'])[-300:]!r}", file=sys.stderr)
    return 1 if leaked else 0


if __name__ == "__main__":
    sys.exit(main_bench())
