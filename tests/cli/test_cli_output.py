"""Machine-readable output stays clean: no library banner on stdout, whatever the command imports."""

from __future__ import annotations

import json
import subprocess
import sys


def test_json_output_is_pure_json(tmp_path):
    r = subprocess.run([sys.executable, "-m", "synergai", "scene", "edits", "--db", str(tmp_path / "s.db"),
                        "--json"], capture_output=True, text=True, check=True)
    assert json.loads(r.stdout) == {"scene": "demo", "edits": []}
    assert "pybullet" not in r.stdout
