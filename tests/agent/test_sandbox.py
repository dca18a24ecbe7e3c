"""The program sandbox: normal programs work; every hostile program in ``hostile/`` is stopped, harmless."""

from __future__ import annotations

import gc
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from agent_scripting import room

from synergai.agent.program.loop import API_FACTORY
from synergai.agent.program.sandbox import (
    SandboxError,
    SandboxLimits,
    SandboxResult,
    _interpret,
    _supervise,
    run_program,
)
from synergai.agent.program.sandbox_child import SecurityError, check_program
from synergai.scene.model import SceneGraph, SceneObject
from synergai.scene.serialization import graph_to_dict

ROOM = {"graph": graph_to_dict(room())}  # the scene API's arguments: the hand-made room, agent at the origin
DEMO = "synergai.agent.program.sandbox:demo_api"  # starts at once: the hostile corpus runs 8 at a time
HOSTILE_DIR = Path(__file__).parent / "hostile"
HOSTILE = sorted(HOSTILE_DIR.glob("*.py"))
CORPUS_LIMITS = SandboxLimits(cpu_seconds=1.0, wall_seconds=1.5, memory_mb=256, max_output_chars=2000)
MAX_WALL = 2.0
FAST = SandboxLimits(cpu_seconds=2.0, wall_seconds=10.0)


def run(code: str, **kwargs: object) -> SandboxResult:
    kwargs.setdefault("limits", FAST)
    return run_program(code, **kwargs)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------- positive


def test_program_using_injected_api_prints_the_answer() -> None:
    code = (
        "object_set = scene()\n"
        "chairs = filter(object_set=object_set, category='chair')\n"
        "nearest = min(chairs, key=lambda o: query_attribute(o, 'distance'))\n"
        "print(f'nearest chair: {query_attribute(nearest, \"color\")}, {len(chairs)} chairs')\n"
    )
    result = run(code, api_factory=API_FACTORY, api_args=ROOM)
    assert result == SandboxResult(True, "nearest chair: black, 2 chairs\n", None, result.wall_s)
    assert 0 < result.wall_s < FAST.wall_seconds


def test_api_args_reach_the_factory() -> None:
    sofa = SceneGraph("sofa", [SceneObject("0", "sofa", (3.0, 4.0, 0.0), (2.0, 1.0, 1.0))])
    result = run("print([(o.category, query_attribute(o, 'distance')) for o in scene()])",
                 api_factory=API_FACTORY, api_args={"graph": graph_to_dict(sofa)})
    assert result.stdout == "[('sofa', 5.0)]\n"


def test_constants_can_be_injected_with_a_plain_factory() -> None:
    result = run("print(answer * 2, name.upper())", api_factory="builtins:dict",
                 api_args={"answer": 21, "name": "lamp"})
    assert (result.ok, result.stdout) == (True, "42 LAMP\n")


def test_name_error_reports_only_the_last_traceback_line() -> None:
    result = run("a = 1\nprint(a)\nprint(x)")
    assert not result.ok
    assert result.error == "NameError: name 'x' is not defined"
    assert result.stdout == "1\n"  # output before the failure is kept


def test_name_error_suggests_a_close_name_and_explains_missing_builtins() -> None:
    assert run("object_set = 1\nprint(object_sett)").error == (
        "NameError: name 'object_sett' is not defined. Did you mean: 'object_set'?")
    assert run("open('x')").error == (
        "NameError: name 'open' is not defined (not available in the program sandbox)")


def test_next_on_an_empty_set_says_what_happened() -> None:
    error = run("print(next(iter(set())))").error or ""
    assert error.startswith("StopIteration: next() found nothing: the set is empty")
    assert run("raise StopIteration('done')").error == "StopIteration: done"


def test_empty_output_is_ok_with_empty_stdout() -> None:
    result = run("x = 1 + 1")
    assert (result.ok, result.stdout, result.error) == (True, "", None)


def test_output_is_truncated_with_a_marker() -> None:
    limits = SandboxLimits(max_output_chars=100, wall_seconds=10)
    result = run_program("for i in range(1000):\n    print('abcdefghij')", limits=limits)
    assert result.ok
    assert result.stdout.startswith("abcdefghij\n" * 9)
    assert result.stdout[:100] == ("abcdefghij\n" * 10)[:100]
    assert result.stdout[100:] == "\n...[output truncated after 100 characters]"


def test_error_raised_inside_an_api_call_is_reported() -> None:
    result = run("query_attribute(list(scene())[0], 'weight')", api_factory=API_FACTORY, api_args=ROOM)
    assert not result.ok
    assert result.error.startswith("ValueError: attribute_type must be one of ['lwh', 'distance', 'color', "
                                   "'shape', 'material'], got 'weight'")


def test_multiline_exception_message_becomes_one_line() -> None:
    result = run("raise KeyError('a')\n")
    assert result.error == "KeyError: 'a'"
    assert run("raise ValueError('first\\nsecond')").error == "ValueError: first second"


def test_syntax_error_names_the_line() -> None:
    result = run("x = 1\nif x\n    print(x)")
    assert not result.ok
    assert result.error is not None and result.error.startswith("SyntaxError: ")
    assert result.error.endswith("(line 2)")


def test_allowed_modules_are_served_as_plain_namespaces() -> None:
    code = (
        "import math\nfrom collections import Counter\nimport statistics as st\n"
        "from itertools import combinations\n"
        "print(math.sqrt(16), Counter('abca').most_common(1), st.median([3, 1, 2]),"
        " len(list(combinations('abcd', 2))))"
    )
    result = run(code)
    assert (result.ok, result.stdout) == (True, "4.0 [('a', 2)] 2 6\n")


def test_non_ascii_identifiers_work_after_the_lockdown() -> None:
    assert run("größe = 3\nprint(größe * 2)").stdout == "6\n"


def test_program_defined_functions_generators_and_exceptions_work() -> None:
    code = (
        "def squares(n):\n    for i in range(n):\n        yield i * i\n"
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    msg = str(e)\n"
        "print(sum(squares(4)), msg, getattr([1], 'count')(1), hasattr('', 'upper'), type(1) is int)"
    )
    assert run(code).stdout == "14 division by zero 1 True True\n"


def test_to_dict_has_the_four_fields() -> None:
    assert SandboxResult(False, "x", "E: m", 0.5).to_dict() == {"ok": False, "stdout": "x", "error": "E: m",
                                                                 "wall_s": 0.5}


# ------------------------------------------------------------------------------------------------- limits


def test_cpu_limit_stops_a_busy_loop() -> None:
    result = run_program("while True:\n    pass", limits=SandboxLimits(cpu_seconds=0.5, wall_seconds=10))
    assert not result.ok
    assert result.error == "TimeoutError: the program exceeded the CPU time limit of 0.5 s"
    assert result.wall_s < 5


def test_cpu_limit_holds_when_the_host_ignores_cpu_signals() -> None:
    # Ignored dispositions survive exec: without the child's reset only the hard RLIMIT_CPU (>= 3 s) stops it.
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGPROF, signal.SIGXCPU)}
    try:
        result = run_program("while True:\n    pass", limits=SandboxLimits(cpu_seconds=0.3, wall_seconds=10))
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    assert result.error == "TimeoutError: the program exceeded the CPU time limit of 0.3 s"
    assert result.wall_s < 2.0


def test_wall_limit_stops_a_run_before_the_cpu_limit() -> None:
    result = run_program("while True:\n    pass", limits=SandboxLimits(cpu_seconds=30, wall_seconds=0.6))
    assert result.error == "TimeoutError: the program exceeded the wall-clock limit of 0.6 s"
    assert 0.6 <= result.wall_s < 1.5


def test_memory_limit_is_a_budget_above_the_api_footprint() -> None:
    limits = SandboxLimits(memory_mb=100, wall_seconds=10)
    fits = run_program("print(len(bytes(50 * 10**6)))", limits=limits, api_factory=API_FACTORY, api_args=ROOM)
    assert fits.stdout == "50000000\n"
    result = run_program("print(len(bytes(200 * 10**6)))", limits=limits, api_factory=API_FACTORY,
                         api_args=ROOM)
    assert result.error == "MemoryError: the program exceeded the memory limit of 100 MB"


def test_too_long_program_is_rejected_without_running() -> None:
    result = run_program("x = 1\n" * 100, limits=SandboxLimits(max_code_chars=50))
    assert not result.ok
    assert result.error == "SecurityError: program has 600 characters, more than the limit of 50"
    assert result.wall_s < 0.05


def test_parser_bomb_fails_cleanly() -> None:
    result = run("x = " + "-" * 15000 + "1\nprint(x)")
    assert not result.ok
    assert result.error == "MemoryError: the program is too deeply nested to compile"


# ------------------------------------------------------------------------------------------- static rules


@pytest.mark.parametrize(("code", "message"), [
    ("import os", "import of 'os' is not allowed"),
    ("from os import path", "import from 'os' is not allowed"),
    ("from math import *", "'from ... import *' is not allowed"),
    ("import math as __m", "name '__m' is not allowed"),
    ("class A:\n    pass", "class definitions are not allowed"),
    ("async def f():\n    pass", "async code is not allowed"),
    ("x = __builtins__", "name '__builtins__' is not allowed"),
    ("x = ().__class__", "attribute '__class__' is not allowed"),
    ("x = obj._private", "attribute '_private' is not allowed"),
    ("x = g.gi_frame", "attribute 'gi_frame' is not allowed"),
    ("x = tb.tb_frame.f_back", "attribute 'f_back' is not allowed"),
    ("x = '{}'.format(1)", "attribute 'format' is not allowed"),
    ("x = int.mro()", "attribute 'mro' is not allowed"),
    ("x = '__class__'", "string constants containing '__' are not allowed"),
    ("x = b'__'", "string constants containing '__' are not allowed"),
    ("def f(__a):\n    pass", "name '__a' is not allowed"),
    ("match x:\n    case int(__class__=c):\n        pass", "attribute '__class__' is not allowed"),
    ("x = f'{y.__dict__}'", "attribute '__dict__' is not allowed"),
    ("obj.category = 'x'", "assigning or deleting attributes is not allowed"),
    ("del math.sqrt", "assigning or deleting attributes is not allowed"),
])
def test_static_check_rejects(code: str, message: str) -> None:
    with pytest.raises(SecurityError) as raised:
        check_program(code, 10_000)
    assert str(raised.value).startswith(message)


def test_static_check_accepts_ordinary_programs() -> None:
    code = "for _ in range(3):\n    _tmp = [o.category for o in scene()]\nprint(f'{len(_tmp):>3}', 'a_b')"
    assert check_program(code, 10_000).body


def test_check_program_raises_syntax_error() -> None:
    with pytest.raises(SyntaxError):
        check_program("if", 100)


# -------------------------------------------------------------------------------------- runtime defences


def test_runtime_guards_fail_the_run_even_when_the_program_catches() -> None:
    code = ("u = '_' * 2\ntry:\n    getattr(1, u + 'class' + u)\n"
            "except Exception as e:\n    print('caught', e)")
    result = run(code)
    assert result.stdout == "caught attribute '__class__' is not allowed\n"
    assert (result.ok, result.error) == (False, "SecurityError: attribute '__class__' is not allowed")


def test_type_with_three_arguments_and_metaclass_recovery_are_refused() -> None:
    assert run("type('X', (), {})").error == "SecurityError: type() takes exactly one argument in the sandbox"
    assert run("print(type(type(1)) is type)").stdout == "True\n"


def test_audit_hook_denies_a_lazy_import_from_a_codec_lookup() -> None:
    result = run("print('abc'.encode('rot13'))")
    assert result.error == "SecurityError: import of 'encodings.rot_13' is not allowed"


AUDIT_PROBE = """
import json, os, socket, subprocess, sys
from synergai.agent.program.sandbox_child import Guard, audit_hook
code = compile("x = 1", "<program>", "exec")
guard = Guard()
sys.addaudithook(audit_hook(guard, code))
probes = {
    "open": lambda: open("/etc/hostname"),
    "socket": lambda: socket.socket(),
    "popen": lambda: subprocess.Popen(["true"]),
    "system": lambda: os.system("true"),
    "getframe": lambda: sys._getframe(),
    "compile": lambda: compile("1", "x", "eval"),
    "exec_other": lambda: exec("1"),
    "frame_attr": lambda: (lambda: (yield))().gi_frame,
    "import": lambda: __import__("xml.dom.minidom"),
}
results = {}
for name, probe in probes.items():
    try:
        probe()
        results[name] = "allowed"
    except Exception as exc:
        results[name] = f"{type(exc).__name__}: {exc}"
exec(code, {})
results["own_exec"] = "allowed"
sys.stdout.write(json.dumps(results))
"""


def test_audit_hook_denies_files_network_processes_frames_and_code() -> None:
    proc = subprocess.run([sys.executable, "-c", AUDIT_PROBE], capture_output=True, text=True, timeout=30)
    results = json.loads(proc.stdout)
    assert results.pop("own_exec") == "allowed"
    assert results == {
        "open": "SecurityError: open is not allowed",
        "socket": "SecurityError: socket.__new__ is not allowed",
        "popen": "SecurityError: subprocess.Popen is not allowed",
        "system": "SecurityError: os.system is not allowed",
        "getframe": "SecurityError: sys._getframe is not allowed",
        "compile": "SecurityError: compile is not allowed",
        "exec_other": "SecurityError: compile is not allowed",
        "frame_attr": "SecurityError: attribute 'gi_frame' is not allowed",
        "import": "SecurityError: import of 'xml.dom.minidom' is not allowed",
    }


# ------------------------------------------------------------------------------------ host-side robustness


def py(source: str) -> list[str]:
    return [sys.executable, "-c", source]


def test_parent_survives_a_segfaulting_child() -> None:
    outcome = _supervise(py("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"), b"{}", 10, 1000)
    assert outcome.returncode == -signal.SIGSEGV
    assert _interpret(None, outcome, FAST) == (False, "", "RuntimeError: the program process died of SIGSEGV")


def test_parent_ignores_garbage_and_fake_replies_on_stdout() -> None:
    garbage = ("import os, sys; sys.stdout.write('{\"ok\": true}\\n\\x00\\xff garbage'); sys.stdout.flush();"
               " os._exit(7)")
    outcome = _supervise(py(garbage), b"{}", 10, 1000)
    assert outcome.returncode == 7
    error = _interpret(None, outcome, FAST)[2]
    assert error == "RuntimeError: the program process exited with code 7 without a result"


def test_parent_caps_an_endless_stdout_flood() -> None:
    start = time.monotonic()
    outcome = _supervise(py("import sys\nwhile True: sys.stdout.write('x' * 65536)"), b"", 10, 100_000)
    assert outcome.overflowed and len(outcome.stdout) <= 100_000 + 65536
    assert time.monotonic() - start < 5


def test_parent_returns_when_child_closes_its_pipes_and_hangs() -> None:
    start = time.monotonic()
    closer = "import os, time; [os.close(f) for f in (0, 1, 2)]; time.sleep(30)"
    outcome = _supervise(py(closer), b"x", 10, 1000)
    assert time.monotonic() - start < 5
    assert outcome.returncode == -signal.SIGKILL and not outcome.timed_out


def test_parent_does_not_block_writing_to_a_child_that_never_reads() -> None:
    start = time.monotonic()
    outcome = _supervise(py("import time; time.sleep(30)"), b"x" * 10_000_000, 0.5, 1000)
    assert outcome.timed_out
    assert time.monotonic() - start < 3


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"


def test_process_group_is_killed_with_everything_the_child_started() -> None:
    spawner = "import subprocess, sys; p = subprocess.Popen(['sleep', '30']); print(p.pid, flush=True)"
    outcome = _supervise(py(spawner), b"", 1.0, 1000)
    assert outcome.timed_out  # the grandchild holds the stdout pipe open: only the deadline ends the wait
    grandchild = int(outcome.stdout.split()[0])
    deadline = time.monotonic() + 3
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild)


def test_setup_failures_raise_sandbox_error() -> None:
    with pytest.raises(SandboxError, match="api_factory must be 'module:function'"):
        run_program("print(1)", api_factory="not a spec")
    with pytest.raises(SandboxError, match="ModuleNotFoundError: No module named 'no_such_module'"):
        run_program("print(1)", api_factory="no_such_module:api")
    with pytest.raises(SandboxError, match="not an identifier without a leading '_'"):
        run_program("print(1)", api_factory="builtins:dict", api_args={"_hidden": 1})
    with pytest.raises(SandboxError, match="JSON-serialisable"):
        run_program("print(1)", api_factory="builtins:dict", api_args={"x": object()})
    with pytest.raises(SandboxError, match="code must be a str"):
        run_program(b"print(1)")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [{"cpu_seconds": 0}, {"wall_seconds": -1}, {"memory_mb": True},
                                 {"max_output_chars": "10"}])
def test_limits_are_validated(bad: dict[str, object]) -> None:
    with pytest.raises(SandboxError, match=f"SandboxLimits.{next(iter(bad))} must be a positive number"):
        SandboxLimits(**bad)  # type: ignore[arg-type]


def test_concurrent_runs_keep_their_own_answers() -> None:
    codes = [f"print(sum(range({n})))" for n in range(8)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run, codes))
    assert [r.stdout for r in results] == [f"{sum(range(n))}\n" for n in range(8)]


# ---------------------------------------------------------------------------------------- hostile corpus


def _header(path: Path) -> dict[str, str]:
    fields = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("# "):
            break
        key, _, value = line[2:].partition(":")
        fields[key.strip().lower()] = value.strip()
    return fields


def _parent(pid: int) -> int:
    """A process's parent id (0 when it is gone)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _another_workers(pid: int) -> bool:
    """Whether a process descends from another test worker of this run (a sibling of this process under
    pytest-xdist), whose own tests run sandboxes meanwhile."""
    at = _parent(pid)
    while at > 1 and at != os.getpid():
        if _parent(at) == os.getppid():
            return True
        at = _parent(at)
    return False


def _sandbox_children() -> set[int]:
    """Sandbox children of this tree's code anywhere on the machine (a leftover one is re-parented, so not
    only our descendants), not another checkout's (another test run beside this one) nor another worker's
    of this run (running its own tests)."""
    import synergai.agent.program.sandbox_child as child

    script = str(Path(child.__file__)).encode()
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if script in (entry / "cmdline").read_bytes():
                    found.add(int(entry.name))
            except OSError:
                continue
    return {pid for pid in found if not _another_workers(pid)}


def _host_state() -> dict[str, object]:
    gc.collect()  # objects earlier tests left behind close their files now, not during the corpus
    return {
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "fds": sorted(os.listdir("/proc/self/fd")),
        "threads": threading.active_count(),
        "sigint": signal.getsignal(signal.SIGINT),
        "modules": len(sys.modules),
    }


@pytest.fixture(scope="module")
def corpus() -> Iterator[dict[str, tuple[SandboxResult, float, str]]]:
    """Every hostile program run once, in parallel, against a world-readable canary directory."""
    canary = Path(tempfile.mkdtemp(prefix="sandbox-canary-"))
    canary.chmod(0o777)  # reachable for any uid: only the sandbox stands in the way
    secret = f"SECRET-{secrets.token_hex(8)}"
    (canary / "secret.txt").write_text(secret)
    (canary / "secret.txt").chmod(0o666)
    run_program("print(1)", limits=FAST)  # warm the host's imports before taking the baseline
    before_state, before_children = _host_state(), _sandbox_children()

    def one(path: Path) -> tuple[SandboxResult, float]:
        code = path.read_text(encoding="utf-8").replace("CANARY_DIR", str(canary))
        start = time.monotonic()
        result = run_program(code, api_factory=DEMO, limits=CORPUS_LIMITS)
        return result, time.monotonic() - start

    with ThreadPoolExecutor(8) as pool:
        runs = dict(zip((p.stem for p in HOSTILE), pool.map(one, HOSTILE), strict=True))
    time.sleep(0.2)
    host = {
        "state_changed": {k: v for k, v in _host_state().items() if before_state[k] != v},
        "leftover_children": {p for p in _sandbox_children() - before_children if _alive(p)},
        "canary_files": sorted(p.name for p in canary.iterdir()),
        "secret_intact": (canary / "secret.txt").read_text() == secret,
    }
    yield {"runs": runs, "secret": secret, "host": host}  # type: ignore[misc]
    shutil.rmtree(canary, ignore_errors=True)


def test_corpus_has_at_least_40_documented_programs() -> None:
    assert len(HOSTILE) >= 40
    for path in HOSTILE:
        header = _header(path)
        assert path.read_text(encoding="utf-8").startswith("# Tries: "), path.name
        assert header.get("tries") and header.get("harm"), path.name


@pytest.mark.parametrize("path", HOSTILE, ids=[p.stem for p in HOSTILE])
def test_hostile_program_is_stopped_and_harmless(corpus: dict, path: Path) -> None:
    result, measured = corpus["runs"][path.stem]
    may_succeed = _header(path).get("expect") == "may-succeed"
    assert may_succeed or not result.ok, f"{path.name} succeeded: {result}"
    assert measured <= MAX_WALL and result.wall_s <= MAX_WALL, f"{path.name} took {measured:.2f} s"
    text = result.stdout + (result.error or "")
    assert "ESCAPED" not in text
    assert corpus["secret"] not in text
    assert "root:x:0:0" not in text
    assert len(result.stdout) <= CORPUS_LIMITS.max_output_chars + 60
    assert result.error is None or ("\n" not in result.error and len(result.error) <= 2000)
    text.encode("utf-8")  # always encodable, even after lone surrogates


def test_host_is_alive_and_unchanged_after_the_corpus(corpus: dict) -> None:
    host = corpus["host"]
    assert host["state_changed"] == {}
    assert host["leftover_children"] == set()
    assert host["canary_files"] == ["secret.txt"]
    assert host["secret_intact"]
    assert os.getppid() > 1  # the host and its parent are still there


def test_corpus_errors_name_the_defence_that_stopped_them() -> None:
    # Run alone with a roomy wall limit, so a loaded machine cannot turn these into wall-clock timeouts.
    limits = SandboxLimits(cpu_seconds=1.0, wall_seconds=10, memory_mb=256)
    names = ("import_os_system", "infinite_loop", "huge_string", "subclasses_built_strings",
             "catch_security_error", "fake_result_line", "memory_then_report", "finalizer_after_run",
             "deep_recursion")
    errors = {name: run_program((HOSTILE_DIR / f"{name}.py").read_text(encoding="utf-8"), api_factory=DEMO,
                                limits=limits).error for name in names}
    assert errors["import_os_system"].startswith("SecurityError: import of 'os' is not allowed")
    assert errors["infinite_loop"].startswith("TimeoutError: ")
    assert errors["huge_string"] == "MemoryError: the program exceeded the memory limit of 256 MB"
    assert errors["subclasses_built_strings"] == "SecurityError: attribute '__class__' is not allowed"
    assert errors["catch_security_error"] == "SecurityError: attribute '__class__' is not allowed"
    assert errors["fake_result_line"] == "ValueError: real failure"
    assert errors["memory_then_report"] == "ValueError: after the memory fill"
    assert errors["finalizer_after_run"] == "SecurityError: attribute '__class__' is not allowed"
    assert errors["deep_recursion"].startswith("RecursionError: ")
