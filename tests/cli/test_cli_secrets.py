"""Secrets are never printed or traced (issue 42, item 4): one function masks them
(:func:`synergai.masking.mask_secrets`) and every error, ``-v`` line, ``config show``, trace and GUI
message goes through it. A fake endpoint on 127.0.0.1 (the secrets benchmark's) answers 401 echoing the key,
as LiteLLM does."""

from __future__ import annotations

import runpy
from collections.abc import Iterator
from pathlib import Path

import pytest

from synergai.cli.main import main
from synergai.masking import MASK, mask_secrets

KEY = "sk-live-7Hq2xWv9ZpL4"
PASSWORD = "Pq7-zx.Wv4"


@pytest.mark.parametrize(("text", "secret"), [
    (f"postgresql://alice:{PASSWORD}@db:5432/x", PASSWORD),
    (f"postgresql://alice@db/x?sslmode=require&password={PASSWORD}", PASSWORD),
    (f'in URI: "postgresql://alice:{PASSWORD}@[bad/db"', PASSWORD),  # libpq quotes the whole URL
    (f"host=db password='{PASSWORD} x\\' y' dbname=z", PASSWORD),  # a libpq connection string
    (f"http://user:{PASSWORD}@127.0.0.1:9/v1", PASSWORD),
    (f"https://{KEY}@api.example/v1", KEY),
    (f"http://h/v1?api_key={KEY}&x=1", KEY),
    (f"http://h/v1?key={KEY}", KEY),
    (f"http://h/v1?token={KEY}", KEY),
    (f"http://h/v1?access_token={KEY}", KEY),
    (f"Error code: 401 - {{'error': {{'message': 'Incorrect API key provided: {KEY[3:]}'}}}}", KEY[3:]),
    (f'{{"api_key": "{KEY}", "ok": 1}}', KEY),
    (f"Authorization: Bearer {KEY[3:]}", KEY[3:]),
    (f"rejected x-api-key: {KEY[3:]}", KEY[3:]),
    (f"your key {KEY} is invalid", KEY),
    ("invalid credentials: Basic ZHB5cFlsVm9lYzo=", "ZHB5cFlsVm9lYzo="),
])
def test_every_form_of_a_credential_is_masked(text: str, secret: str) -> None:
    masked = mask_secrets(text)
    assert secret not in masked and MASK in masked


def test_known_secrets_are_masked_in_any_form_and_plain_text_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "opaque0key0value")
    url = "postgresql://alice:s3cret pw@db/x"
    assert mask_secrets('unexpected spaces found in "s3cret pw"', url) == 'unexpected spaces found in "***"'
    assert mask_secrets("the endpoint said opaque0key0value.") == "the endpoint said ***."
    plain = "postgresql://postgres@localhost/postgres: the key words, passing tokens"
    assert mask_secrets(plain) == plain
    program = "sorted(objs, key=lambda o: o.size) opaque0key0value"
    assert mask_secrets(program, only_known=True) == "sorted(objs, key=lambda o: o.size) ***"
    monkeypatch.setenv("HF_TOKEN_ENABLED", "true")  # a flag, not a secret: ordinary text stays
    monkeypatch.setenv("PGPASSWORD", "postgres")
    assert mask_secrets('{"open": true} as postgres', only_known=True) == '{"open": true} as postgres'


#: The fake endpoint of benchmarks/bench_secrets.py (one server for the fuzz and these tests), its 401
#: message echoing the key three ways and the path it was asked for.
echo_server = runpy.run_path(str(Path(__file__).resolve().parents[2] / "benchmarks" / "bench_secrets.py"))[
    "echo_server"]
ECHO = "Incorrect API key provided: {key}; bad key {key} for {path} (Authorization: Bearer {key})"


@pytest.fixture
def echoing() -> Iterator[int]:
    with echo_server() as server:
        server.form = ECHO
        yield server.server_address[1]


@pytest.mark.parametrize("base", [
    "http://127.0.0.1:{port}/v1",
    "http://user:" + PASSWORD + "@127.0.0.1:{port}/v1",
    "http://127.0.0.1:{port}/v1?api_key=" + PASSWORD,
])
def test_a_401_echoing_the_key_is_printed_and_traced_masked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, echoing: int,
    base: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    trace = tmp_path / "t.jsonl"
    code = main(["ask", "What colour is the lamp?", "-v", "--db", str(tmp_path / "s.db"), "--no-cache",
                 "--llm", "openai:m", "--base-url", base.format(port=echoing), "--trace", str(trace)])
    out, err = capsys.readouterr()
    assert code == 2 and "HTTP 401" in err
    written = trace.read_text()
    assert "Incorrect API key provided: ***" in written
    for secret in (KEY, KEY[3:], PASSWORD):
        assert secret not in out and secret not in err and secret not in written


@pytest.mark.parametrize("url", [
    f"postgresql://alice:{PASSWORD}@127.0.0.1:1/x",
    f"postgresql://alice@127.0.0.1:1/x?password={PASSWORD}",
    f"postgresql://alice:{PASSWORD}@[bad/x",
    f"postgresql://alice:{PASSWORD}%zz@127.0.0.1:1/x",
    f"postgresql://alice:{PASSWORD} x@127.0.0.1:1/x",
    f"postgresql://127.0.0.1:1/x?user=alice&password={PASSWORD}&sslmode=bogus",
    f"mysql://alice:{PASSWORD}@127.0.0.1/x",
])
def test_a_store_url_that_fails_is_one_line_without_its_password(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scene", "list", "-v", "--db", url]) == 2
    out, err = capsys.readouterr()
    assert "synergai: error:" in err and PASSWORD not in err + out


def test_config_show_masks_every_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'base_url = "http://u:{PASSWORD}@h/v1?key={KEY}"\n')
    monkeypatch.setenv("SYNERGAI_CONFIG", str(config))
    monkeypatch.setenv("SYNERGAI_STORE", f"postgresql://alice@h/x?password={PASSWORD}")
    for flags in ([], ["--json"], ["--llm", "openai:m"]):
        assert main(["config", "show", "-v", *flags]) == 0
        out, err = capsys.readouterr()
        assert "h/v1" in out and KEY not in out + err and PASSWORD not in out + err
