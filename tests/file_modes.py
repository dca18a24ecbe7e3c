"""Files and folders this user cannot write, for tests of read-only stores (root included)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def unwritable(paths: Sequence[Path]) -> Iterator[None]:
    """``paths`` unwritable inside the block, restored after it. Root is not stopped by modes, so for
    root it sets the immutable attribute (the test is skipped where ``chattr`` cannot)."""
    if os.geteuid() != 0:
        for p in paths:
            p.chmod(0o555 if p.is_dir() else 0o444)
        undo = [["chmod", "755" if p.is_dir() else "644", str(p)] for p in paths]
    else:
        try:
            for p in paths:
                subprocess.run(["chattr", "+i", str(p)], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError):
            pytest.skip("cannot make a file unwritable for root here (no chattr)")
        undo = [["chattr", "-i", str(p)] for p in paths]
    try:
        yield
    finally:
        for cmd in reversed(undo):
            subprocess.run(cmd, check=True)
