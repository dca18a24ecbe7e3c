"""Numbers a command cannot use are refused with one line and exit 2 (issue 33): a concurrency of 0 and a
thread count of 20 digits."""

from __future__ import annotations

import pytest

from synergai.cli.main import main


@pytest.mark.parametrize("argv", [
    ["eval", "scanqa", "--questions", "q.json", "--objects", "o.json", "--concurrency", "0"],
    ["eval", "sqa3d", "--questions", "q.json", "--objects", "o.json", "--concurrency", "0"],
    ["eval", "sqa3d", "--questions", "q.json", "--objects", "o.json", "--concurrency", "-3"],
    ["eval", "scanqa", "--questions", "q.json", "--objects", "o.json", "--concurrency", "99999999999"],
])
def test_a_concurrency_below_one_or_absurd_is_refused(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--concurrency" in err and len(err.strip().splitlines()) == 1


def test_twenty_digit_threads_are_refused(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ask", "What is here?", "--db", str(tmp_path / "s.sqlite3"),
                 "--threads", "99999999999999999999"])
    err = capsys.readouterr().err
    assert code == 2 and "at most 1024 threads" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "s.sqlite3").exists()


@pytest.mark.parametrize("value", [0, -1, True])
def test_a_run_refuses_a_concurrency_below_one_before_any_work(tmp_path, value) -> None:
    from synergai.eval.runner import ResumableRun

    done: list[str] = []
    with pytest.raises(ValueError, match="concurrency must be a whole number >= 1"):
        ResumableRun(tmp_path).run(["a", "b"], str, lambda it: done.append(it) or {}, concurrency=value,
                                   progress=False)
    assert done == []
