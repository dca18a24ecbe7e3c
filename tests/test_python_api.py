"""The public Python API: `synergai` re-exports the names a program needs, each documented and imported
only when used; the worked example of docs/python-api.md runs as written (scripted model, no network)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import synergai

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "python-api.md"


def test_every_public_name_resolves_and_has_a_doc_string() -> None:
    names = [n for n in synergai.__all__ if n != "__version__"]
    assert sorted(names) == sorted(synergai._PUBLIC)
    assert {"SceneGraph", "SceneStore", "build_graph", "import_scene", "export_scene", "AgentSession",
            "ProgramLoop", "make_model"} <= set(names)
    for name in names:
        value = getattr(synergai, name)
        assert (value.__doc__ or "").strip(), name
        assert name in dir(synergai) and f"`{name}" in DOC.read_text(encoding="utf-8"), name


def test_import_synergai_loads_none_of_its_layers() -> None:
    code = ("import sys, synergai\n"
            "print(sorted(m for m in sys.modules if m.startswith(('synergai.', 'numpy'))))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]"


def _replies() -> list[str]:
    """What a model answers in the example: a plan and a typed answer (the agent), then a program and a
    final answer (program mode)."""
    plan = {"plan": [{"action": "query_for_relations",
                      "action_input": {"item_id_list": ["table"], "relation": "on"}}]}
    typed = {"action": "final_answer", "action_input": {"short_answer": "cup"}}
    program = ("Thought: I will count.\nAction: Program\nAction Input:\n```Python\n"
               "chairs = filter(object_set=scene(), category='chair')\nprint(len(chairs))\n```")
    answer = "Thought: Done.\nAction: Final Answer\nAction Input: two"
    return [json.dumps(plan), json.dumps(typed), program, answer]


def test_the_documented_example_runs(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(_replies()), encoding="utf-8")
    env = {**os.environ, "SYNERGAI_LLM": f"scripted:{script}"}
    r = subprocess.run([sys.executable, "-c", blocks[0]], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "2 supported_by 1" in lines  # the cup on the table, computed from the boxes
    assert "5 objects, 6 relations read back" in lines  # the four and the floor build_graph adds
    assert lines[-2:] == ["The cup is on the table.", "two"]
