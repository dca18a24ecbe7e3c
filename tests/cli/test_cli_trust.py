"""Errors are errors, text is printed literally, bad input gets one line: the command line and eval."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from synergai.cli.main import main
from synergai.eval.scanqa import run_scanqa, scanqa_metrics
from synergai.llm import LLMError, ScriptedModel
from synergai.scene.model import Edge, ObjectKind, Relation, SceneGraph, SceneObject
from synergai.scene.serialization import dumps
from synergai.scene.store import SceneStore

MARKUP = "[bold]mug[/] [/]"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src"),
        "PYTHONIOENCODING": "utf-8",
    }
    return subprocess.run(
        [sys.executable, "-m", "synergai", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def final(answer: str, ids: list[str] | None = None) -> str:
    return json.dumps(
        {
            "thought": "t",
            "action": "final_answer",
            "action_input": {"answer": answer, "short_answer": "", "item_id_list": ids or []},
        }
    )


@pytest.fixture
def marked_up_store(tmp_path: Path) -> Path:
    """A scene whose id, labels and attributes hold rich markup."""
    objs = [
        SceneObject("0", "floor", (2.0, 2.0, -0.05), (4.0, 4.0, 0.1), kind=ObjectKind.FLOOR),
        SceneObject("1", "table", (2.0, 2.0, 0.375), (1.2, 0.8, 0.75), attributes=("[red]",)),
        SceneObject("2", MARKUP, (2.1, 2.0, 0.8), (0.08, 0.08, 0.1), attributes=("red",)),
    ]
    edges = [Edge("1", Relation.SUPPORTED_BY, "0"), Edge("2", Relation.SUPPORTED_BY, "1")]
    db = tmp_path / "s.sqlite3"
    with SceneStore(db) as store:
        store.register(SceneGraph("[x]room[/]", objs, edges), {"builder": "test"})
    return db


def test_ask_against_a_dead_endpoint_is_a_one_line_error_naming_it(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    r = _run(
        "ask",
        "What is on the table?",
        "--db",
        str(tmp_path / "s.db"),
        "--llm",
        "openai:some-model",
        "--base-url",
        url,
        "--no-cache",
        "--json",
    )
    assert r.returncode != 0 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and url in lines[0] and "refused" in lines[0].lower(), r.stderr
    assert "Sorry" not in r.stderr + r.stdout


def test_chat_shows_a_failed_model_call_as_an_error(tmp_path: Path) -> None:
    script = tmp_path / "empty.json"
    script.write_text("[]")
    r = _run("chat", "--db", str(tmp_path / "s.db"), "--llm", f"scripted:{script}", stdin="What is here?\n")
    assert "error:" in r.stdout and "script exhausted" in r.stdout
    assert "Sorry" not in r.stdout


def test_markup_in_scene_labels_and_answers_is_printed_literally(
    marked_up_store: Path, tmp_path: Path, cli: Any
) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([final(f"The {MARKUP} is [red] on the table.", ["2"])]))
    db = str(marked_up_store)
    r = cli(
        "ask", "What is on the table?", "--scene", "[x]room[/]", "--db", db, "--llm", f"scripted:{script}"
    )
    assert r.returncode == 0, r.stderr
    assert f"The {MARKUP} is [red] on the table." in r.stdout
    shown = cli("scene", "show", "--scene", "[x]room[/]", "--db", db)
    assert shown.returncode == 0, shown.stderr
    assert MARKUP in shown.stdout and "[red]" in shown.stdout and "[x]room[/]" in shown.stdout
    listed = cli("scene", "list", "--db", db)
    assert listed.returncode == 0 and "[x]room[/]" in listed.stdout


def test_chat_edits_list_keeps_the_state_in_brackets(marked_up_store: Path, tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    rename = json.dumps(
        {
            "thought": "t",
            "plan": [
                {"action": "update_name", "action_input": {"item_id_list": ["2"], "new_name_list": ["cup"]}}
            ],
        }
    )
    script.write_text(json.dumps([rename, final("Renamed.")]))
    r = _run(
        "chat",
        "--scene",
        "[x]room[/]",
        "--db",
        str(marked_up_store),
        "--llm",
        f"scripted:{script}",
        stdin=f"The {MARKUP} is a cup.\n/edits\n",
    )
    assert r.returncode == 0, r.stderr
    listed = [line.removeprefix("you> ") for line in r.stdout.splitlines() if "#1 [" in line]
    assert listed and listed[0].startswith("#1 [active] ") and MARKUP in listed[0], r.stdout


def test_a_lone_surrogate_in_a_reply_still_gives_valid_json(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    look = ('{"thought": "odd \\ud800 text", "plan": [{"action": "query_for_objects", '
            '"action_input": {"query": "x"}}]}')
    script.write_text(json.dumps([look, final("Nothing matches.")]))
    r = _run("ask", "What is here?", "--db", str(tmp_path / "s.db"), "--llm", f"scripted:{script}", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["trace"][0]["thought"] == "odd \ud800 text" and doc["answer"] == "Nothing matches."


@pytest.mark.parametrize(
    "argv, says",
    [
        (["ask", "hi?", "--viewpoint", "1,2"], "viewpoint must be 6 numbers"),
        (["ask", "hi?", "--viewpoint", "nan,0,0,1,0,0"], "finite"),
        (["ask", "hi?", "--viewpoint", "0,0,0,inf,0,0"], "finite"),
        (["ask", "hi?", "--mode", "program", "--pose", "nan,0,0,0,0,0,1"], "finite"),
        (["sandbox", "run", "x.py", "--timeout", "inf"], "finite number of seconds"),
        (["sandbox", "run", "x.py", "--timeout", "nan"], "finite number of seconds"),
    ],
)
def test_bad_flags_get_one_line_and_exit_2(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and says in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("body", ["[" * 100_000 + "]" * 100_000, "[" + "1" * 5000 + "]"])
def test_unusable_json_files_get_one_line(
    tmp_path: Path, body: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(body)
    assert main(["scene", "import", str(bad), "--db", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert (len(err.strip().splitlines()) == 1 and str(bad) not in err) or "graph" in err, err
    assert (
        main(
            ["eval", "scanqa", "--questions", str(bad), "--objects", str(bad), "--out", str(tmp_path / "out")]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and str(bad) in err, err


def test_a_309_digit_number_in_a_graph_is_a_one_line_error(tmp_path: Path, capsys) -> None:
    objs = [SceneObject("1", "box", (2.125, 2.0, 0.8), (0.5, 0.5, 0.5))]
    text = dumps(SceneGraph("big", objs, []))
    assert "2.125" in text
    bad = tmp_path / "big.json"
    bad.write_text(text.replace("2.125", "9" * 400, 1))
    assert main(["scene", "import", str(bad), "--db", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "finite" in err, err


class Dead(ScriptedModel):
    """A model whose endpoint is down for the first ``down`` calls."""

    def __init__(self, replies: list[str], down: int) -> None:
        super().__init__(replies)
        self.down = down

    def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
        if self.down > 0:
            self.down -= 1
            raise LLMError("openai:m@http://127.0.0.1:9/v1: cannot connect: [Errno 111] Connection refused")
        return super().chat(messages, **kw)


def test_eval_items_whose_model_failed_are_errors_not_scored_and_retried(
    tmp_path: Path, shared_data: Path
) -> None:
    questions = json.loads((shared_data / "scanqa" / "scanqa_val_dev.json").read_text())
    objects = shared_data / "scannet" / "objects_gt.json"
    first = run_scanqa(questions, objects, Dead([], down=100), tmp_path, limit=3, progress=False)
    assert len(first) == 3 and all("Connection refused" in r["error"] for r in first)
    m = scanqa_metrics(first)
    assert m["errors"] == 3 and m["n"] == 0 and "EM" not in m  # nothing scored
    answers = [final(f"It is {q}.") for q in ("a", "b", "c")]
    second = run_scanqa(questions, objects, Dead(answers, down=1), tmp_path, limit=3, progress=False)
    assert len(second) == 3 and sum(1 for r in second if r.get("error")) == 1  # all retried, one failed again
    m = scanqa_metrics(second)
    assert m["errors"] == 1 and m["n"] == 2


def test_serve_checks_the_embedded_model_before_starting(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("SYNERGAI_GGUF", str(tmp_path / "missing.gguf"))
    code = main(["serve", "--port", "0", "--db", str(tmp_path / "s.db"), "--llm", "embedded", "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2 and "missing.gguf does not name an existing file" in err, err
