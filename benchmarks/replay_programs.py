"""Replay programs through this checkout's repairs, static check and sandbox, without a model.

Compares two versions of program mode on the same programs (no model, no contention):

    python benchmarks/replay_programs.py extract TESTS_DIR > programs.json   # programs the tests hold
    PYTHONPATH=OLD/src python benchmarks/replay_programs.py run programs.json > old.json
    PYTHONPATH=NEW/src python benchmarks/replay_programs.py run programs.json > new.json
    python benchmarks/replay_programs.py compare programs.json old.json new.json

Each program runs against the tests' hand-made room (tests/agent/agent_scripting.py) with the agent at
(2, 0, 1.2) facing +y; the outcome is the check's findings, or the sandbox's ok / output / error class.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

_CODE = re.compile(r"```Python\n(.*?)(?:```|$)", re.S)


def extract(tests: Path) -> list[str]:
    """Programs written in the program-mode tests (string constants, or the code of scripted replies)."""
    found = set()
    for path in sorted(tests.glob("test_program*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                match = _CODE.search(node.value)
                code = match.group(1) if match else node.value
                if "scene()" in code or "filter(" in code or "relate" in code:
                    found.add(code)
    return sorted(found)


def run(programs: list[str], tests: Path) -> list[dict[str, Any]]:
    """Each program's outcome under the synergai importable here."""
    sys.path.insert(0, str(tests))
    from agent_scripting import room

    from synergai.agent.program.check import check_program
    from synergai.agent.program.repairs import repair_program
    from synergai.agent.program.sandbox import run_program
    from synergai.scene.serialization import graph_to_dict

    graph = room()
    categories, counts = sorted({o.category for o in graph}), Counter(o.category for o in graph)
    api_args = {"graph": graph_to_dict(graph), "ordered_sets": True,
                "viewpoint": {"position": [2.0, 0.0, 1.2], "forward": [0.0, 1.0, 0.0]}}
    out: list[dict[str, Any]] = []
    for code in programs:
        code, _ = repair_program(code, counts, [])
        findings = [f.kind for f in check_program(code, categories)]
        if findings:
            out.append({"stage": "check", "findings": findings})
            continue
        outcome = run_program(code, api_factory="synergai.agent.program.api:sandbox_api", api_args=api_args)
        out.append({"stage": "sandbox", "ok": outcome.ok, "stdout": outcome.stdout.strip(),
                    "error": (outcome.error or "").split(":")[0]})
    return out


def compare(programs: list[str], old: list[dict[str, Any]], new: list[dict[str, Any]]) -> None:
    """Print how many outcomes are the same, and each that differs."""
    same = sum(a == b for a, b in zip(old, new, strict=True))
    print(f"programs {len(programs)}, same outcome {same}; ran ok old {sum(bool(a.get('ok')) for a in old)}, "
          f"new {sum(bool(b.get('ok')) for b in new)}")
    for code, a, b in zip(programs, old, new, strict=True):
        if a != b:
            print(f"---\n{code}\n old: {a}\n new: {b}")


def main(argv: list[str]) -> int:
    tests = Path(__file__).resolve().parents[1] / "tests" / "agent"
    if argv[:1] == ["extract"]:
        print(json.dumps(extract(Path(argv[1]) if len(argv) > 1 else tests)))
    elif argv[:1] == ["run"]:
        print(json.dumps(run(json.loads(Path(argv[1]).read_text()), tests)))
    elif argv[:1] == ["compare"]:
        programs, old, new = (json.loads(Path(p).read_text()) for p in argv[1:4])
        compare(programs, old, new)
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
