"""Bad stores end in one line, exit 2, nothing written: a URL with a bad scheme, an unreachable server,
a wrong password, a database holding another program's tables, a server that goes away mid-edit (the
password always masked); and a SQLite file removed or replaced under a running session is detected
before an edit is acknowledged (issue 33 item 3)."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from synergai.cli.main import main
from synergai.scene import edits as E
from synergai.scene.model import SceneGraph, SceneObject
from synergai.scene.store import SceneStore, StoreError, StoreLost

SECRET = "s3cret-Pa55"


def room_graph() -> SceneGraph:
    """A floor, a table and two chairs."""
    return SceneGraph("room", [SceneObject("0", "floor", (2, 2, -0.05), (4, 4, 0.1)),
                               SceneObject("2", "table", (2, 2, 0.375), (1.2, 0.8, 0.75)),
                               SceneObject("4", "chair", (1, 2, 0.45), (0.5, 0.5, 0.9)),
                               SceneObject("5", "chair", (3, 2, 0.45), (0.5, 0.5, 0.9))])


def _one_line_exit_2(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and SECRET not in err, err
    return err


def _with_password(url: str, password: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"{parts.username}:{password}@{parts.hostname}:{parts.port}"))


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_url_with_a_bad_scheme(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"mysql://me:{SECRET}@db.example/scenes"
    err = _one_line_exit_2(capsys, "scene", "list", "--db", url, "--json")
    assert "mysql://me:***@db.example/scenes" in err and "unsupported URL scheme 'mysql'" in err


def test_an_unreachable_server(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"postgresql://me:{SECRET}@127.0.0.1:{_closed_port()}/scenes"
    err = _one_line_exit_2(capsys, "scene", "show", "--db", url)
    assert f"cannot open scene store postgresql://me:***@127.0.0.1:{urlsplit(url).port}/scenes" in err


def test_a_wrong_password(postgres_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    url = _with_password(postgres_url, SECRET)
    err = _one_line_exit_2(capsys, "scene", "list", "--db", url)
    assert "password authentication failed" in err and ":***@" in err


@pytest.mark.parametrize("verbose", [[], ["-v"]])
def test_a_wrong_password_as_a_query_parameter_is_masked_in_errors_and_verbose_lines(
        postgres_url: str, capsys: pytest.CaptureFixture[str], verbose: list[str]) -> None:
    """Issue 42: ``?password=`` (and ``sslpassword=``) were printed as given."""
    parts = urlsplit(postgres_url)
    url = urlunsplit(parts._replace(netloc=f"{parts.username}@{parts.hostname}:{parts.port}",
                                    query=f"password={SECRET}&sslpassword={SECRET}"))
    assert main(["scene", "list", "--db", url, *verbose]) == 2
    err = capsys.readouterr().err
    assert "password authentication failed" in err and SECRET not in err and "password=***" in err
    assert len([line for line in err.splitlines() if "error:" in line]) == 1


def test_a_password_given_through_the_environment_is_masked_too(
        postgres_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYNERGAI_STORE", _with_password(postgres_url, SECRET))
    assert "password authentication failed" in _one_line_exit_2(capsys, "scene", "list")
    assert main(["config", "show"]) == 0
    shown = capsys.readouterr().out
    assert SECRET not in shown and ":***@" in shown


def test_a_database_holding_another_programs_tables_is_refused_untouched(
        pg_location: str, capsys: pytest.CaptureFixture[str]) -> None:
    with psycopg.connect(pg_location, autocommit=True) as c:
        c.execute("CREATE TABLE albums (id SERIAL PRIMARY KEY, name TEXT)")
        c.execute("INSERT INTO albums (name) VALUES ('holiday')")
    err = _one_line_exit_2(capsys, "scene", "list", "--db", pg_location)
    assert "is not a synergai scene store (tables albums)" in err
    with psycopg.connect(pg_location, autocommit=True) as c:
        tables = c.execute("SELECT table_name FROM information_schema.tables "
                           "WHERE table_schema = current_schema()").fetchall()
        assert tables == [("albums",)] and c.execute("SELECT name FROM albums").fetchall() == [("holiday",)]


def test_a_server_that_goes_away_mid_edit_writes_nothing(pg_location: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    with SceneStore(pg_location) as s:
        s.register(room_graph(), {"b": 1})
        s.apply("room", E.rename_object(s.load("room"), "4", "stool"))
        before = (s.edits("room", include_undone=True), s.last_event(), s.load("room"))
        save = s._save

        def server_gone(c, *args):  # type: ignore[no-untyped-def]
            with psycopg.connect(pg_location, autocommit=True) as admin:
                pid = c.execute("SELECT pg_backend_pid()").fetchone()[0]
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            return save(c, *args)

        monkeypatch.setattr(s, "_save", server_gone)
        with pytest.raises(StoreError) as err:
            s.apply("room", E.rename_object(s.load("room"), "5", "bench"))
        assert "\n" not in str(err.value) and str(err.value).startswith("scene store postgresql://")
        assert ":***@" in str(err.value) or "@" not in str(err.value)
        monkeypatch.undo()
        assert (s.edits("room", include_undone=True), s.last_event(), s.load("room")) == before  # reconnected
        assert s.verify("room")


def test_a_sqlite_store_removed_under_a_session_stops_its_edits(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    with SceneStore(path) as s:
        s.register(room_graph(), {"b": 1})
        s.apply("room", E.rename_object(s.load("room"), "4", "stool"))
        for f in tmp_path.glob("store.sqlite3*"):
            f.unlink()
        with pytest.raises(StoreLost, match="was removed or replaced while this session had it open") as err:
            s.undo("room")
        assert "\n" not in str(err.value)
        with pytest.raises(StoreLost):  # and every later edit
            s.reset("room")
    with SceneStore(path) as fresh:
        assert fresh.scenes() == []


def test_a_sqlite_store_replaced_under_a_session_is_detected(tmp_path: Path) -> None:
    path, other = tmp_path / "store.sqlite3", tmp_path / "other.sqlite3"
    with SceneStore(path) as s:
        s.register(room_graph(), {"b": 1})
        shutil.copy(path, other)  # an older copy put in its place (the WAL file still holds the scene)
        os.replace(other, path)
        with pytest.raises(StoreLost):
            s.apply("room", E.rename_object(s.load("room"), "4", "stool"))
    with SceneStore(path) as fresh:
        assert not fresh.has_scene("room") or fresh.edits("room") == []  # the edit went nowhere


def test_the_chat_says_when_its_store_is_gone_and_edits_nothing(tmp_path: Path) -> None:
    import json

    from synergai.agent.session import AgentSession
    from synergai.llm import ScriptedModel

    path = tmp_path / "store.sqlite3"
    with SceneStore(path) as s:
        s.register(room_graph(), {"b": 1})
        for f in tmp_path.glob("store.sqlite3*"):
            f.unlink()
        rename = {"item_id_list": ["marked"], "new_name_list": ["stool"]}
        plan = json.dumps({"thought": "Fix it.", "plan": [{"action": "update_name", "action_input": rename}]})
        done = json.dumps({"thought": "Done.", "action": "final_answer",
                           "action_input": {"answer": "Renamed.", "short_answer": "", "item_id_list": ["4"]}})
        with pytest.raises(StoreLost, match="removed or replaced"):  # an error, not an answer
            AgentSession(s, "room", ScriptedModel([plan, done]), marked="4").ask(
                "The marked object is a stool.")


def test_a_connection_the_server_closed_while_idle_is_opened_again(pg_location: str) -> None:
    with SceneStore(pg_location) as s:
        s.register(room_graph(), {"b": 1})
        with psycopg.connect(pg_location, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE application_name LIKE 'synergai %' AND pid <> pg_backend_pid()")
        rec = s.apply("room", E.rename_object(s.load("room"), "4", "stool"))  # no error: nothing was lost
        assert rec.seq == 1 and s.verify("room")
