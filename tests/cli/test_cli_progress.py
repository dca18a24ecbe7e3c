"""Progress: the stage spinner of `ask` and the ETA bar of `eval` on a pseudo-terminal (a scripted model,
the grounding oracle), none with --json, -q or when stderr is not a terminal; the first-time stages of the
embedded model as a bar and lines."""

from __future__ import annotations

import fcntl
import io
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

from rich.console import Console

from synergai.agent.progress import StagedModel, action_of
from synergai.cli.progress import StageDisplay, bar
from synergai.llm import ScriptedModel


def reply(action: str, args: dict, **extra) -> str:
    return json.dumps({**extra, "thought": "t", "action": action, "action_input": args})


def script(tmp_path: Path) -> str:
    path = tmp_path / "script.json"
    path.write_text(
        json.dumps(
            [
                reply("query_for_objects", {"query": "table"}, plan=["find the table", "answer"]),
                reply(
                    "final_answer",
                    {"answer": "The TV is on the wall.", "short_answer": "wall", "item_id_list": []},
                ),
            ]
        )
    )
    return f"scripted:{path}"


def run_on_pty(argv: list[str], *, stdout_on_pty: bool = True) -> tuple[int, str, str]:
    """The CLI with stderr (and stdout unless told) on a pseudo-terminal: (code, terminal text, stdout)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))  # 50 rows, 200 columns
    out = slave if stdout_on_pty else subprocess.PIPE
    env = {**os.environ, "COLUMNS": "200", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "synergai", *argv], stdin=subprocess.DEVNULL, stdout=out, stderr=slave, env=env
    )
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            proc.kill()
            raise AssertionError("no output for 60 s")
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    stdout = proc.stdout.read().decode() if proc.stdout else ""
    return proc.wait(), b"".join(chunks).decode(errors="replace"), stdout


def test_ask_on_a_terminal_shows_each_step_then_the_answer(tmp_path):
    code, text, _ = run_on_pty(
        ["ask", "Describe the TV.", "--db", str(tmp_path / "s.db"), "--llm", script(tmp_path)]
    )
    assert code == 0, text
    assert "step 1: the model is thinking" in text
    assert "step 1: running query_for_objects" in text
    assert "step 2: the model is thinking (after query_for_objects)" in text
    assert text.index("step 2: the model is thinking") < text.index("The TV is on the wall.")


def test_no_stages_with_json_or_quiet_on_a_terminal(tmp_path):
    db = str(tmp_path / "s.db")
    code, text, stdout = run_on_pty(
        ["ask", "Describe the TV.", "--db", db, "--llm", script(tmp_path), "--json"], stdout_on_pty=False
    )
    assert code == 0 and "step" not in text and json.loads(stdout)["answer"] == "The TV is on the wall."
    code, text, _ = run_on_pty(["ask", "Describe the TV.", "--db", db, "--llm", script(tmp_path), "-q"])
    assert code == 0 and "step 1" not in text and "The TV is on the wall." in text


def test_no_stages_when_stderr_is_not_a_terminal(tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "synergai",
            "ask",
            "Describe the TV.",
            "--db",
            str(tmp_path / "s.db"),
            "--llm",
            script(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and r.stderr == "" and "The TV is on the wall." in r.stdout


def test_lines_mode_reports_each_stage_once_and_assembly_by_tenths():
    buffer = io.StringIO()
    display = StageDisplay("lines", Console(file=buffer, width=200))
    total = 1_000_000
    for done in range(0, total + 1, 10_000):
        display.model_progress("assembling", done, total)
    display.model_progress("loading", 0, 0)
    display.model_progress("loading", 0, 0)
    lines = buffer.getvalue().splitlines()
    assert len(lines) == 12 and lines[-1] == "loading"
    assert lines[0].startswith("assembling [") and "  0 %" in lines[0] and "100 %" in lines[-2]
    off = StageDisplay("off", Console(file=(silent := io.StringIO())))
    off.model_progress("loading", 0, 0)
    assert silent.getvalue() == ""


def test_bar_and_action_parsing():
    assert bar(535_000_000, 1_070_000_000) == "[############............]  50 % of 1.07 GB"
    assert action_of(reply("final_answer", {})) == "final_answer"
    assert action_of('{"plan": [{"action": "query_for_objects"}]}') == "query_for_objects"
    assert action_of("not json") is None and action_of("[1]") is None
    program = "Thought: plan.\nAction: Program\nAction Input:\n```Python\nprint(1)\n```"
    assert action_of(program) == "the program"


def test_staged_model_counts_steps_per_turn_and_keeps_replies():
    replies = [reply("query_for_objects", {}), "plain text"]
    buffer = io.StringIO()
    model = StagedModel(ScriptedModel(replies), StageDisplay("lines", Console(file=buffer, width=200)).stage)
    user = [{"role": "user", "content": "hi"}]
    assert model.chat(user).text == replies[0]
    model.new_turn()
    assert model.chat(user).text == "plain text"
    assert buffer.getvalue().splitlines() == [
        "step 1: the model is thinking",
        "step 1: running query_for_objects",
        "step 1: the model is thinking",
    ]


def grounding_inputs(tmp_path: Path) -> list[str]:
    """`eval grounding --oracle` on a tiny scene: no model, a second or two."""
    objs = [{"id": 1, "label": "door", "center_position": [0, 0, 1], "size": [1, 0.1, 2]},
            {"id": 2, "label": "chair", "center_position": [1, 1, 0.45], "size": [0.5, 0.5, 0.9]},
            {"id": 3, "label": "chair", "center_position": [4, 3, 0.45], "size": [0.5, 0.5, 0.9]}]
    (tmp_path / "objects.json").write_text(json.dumps({"scenes": {"sc": objs}}))
    records = [{"scene_id": "sc", "target_id": t, "target_label": "chair", "relation": rel, "anchor_ids": [1],
                "anchor_labels": ["door"], "distractor_ids": [d], "utterance": f"the chair {rel} the door"}
               for t, d, rel in ((2, 3, "closest"), (3, 2, "farthest"))]
    (tmp_path / "utt.json").write_text(json.dumps(records))
    return ["eval", "grounding", "--utterances", str(tmp_path / "utt.json"), "--objects",
            str(tmp_path / "objects.json"), "--oracle"]


def test_eval_shows_a_bar_with_eta_on_a_terminal_and_none_with_json_or_quiet(tmp_path):
    argv = grounding_inputs(tmp_path)
    code, text, _ = run_on_pty([*argv, "--out", str(tmp_path / "a")])
    assert code == 0, text
    assert "grounding: 100%|" in text and "2/2 [" in text and "elapsed, ETA " in text
    code, text, stdout = run_on_pty([*argv, "--out", str(tmp_path / "b"), "--json"], stdout_on_pty=False)
    assert code == 0 and "ETA" not in text and "%|" not in text and json.loads(stdout)["n"] == 2
    code, text, _ = run_on_pty([*argv, "--out", str(tmp_path / "c"), "-q"])
    assert code == 0 and "ETA" not in text and "accuracy" in text  # the table still prints on stdout
    r = subprocess.run([sys.executable, "-m", "synergai", *argv, "--out", str(tmp_path / "d")],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "ETA" not in r.stderr
