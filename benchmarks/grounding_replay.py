"""What the grounding replay scripts share: their arguments (a recorded run, the utterance file it read,
the objects file) and the scene half a record belongs to (even / odd scene number)."""

from __future__ import annotations

import argparse
from pathlib import Path


def replay_arguments(description: str) -> argparse.ArgumentParser:
    """A parser with the recorded ``results``, ``--utterances`` and ``--objects``."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("results", type=Path)
    ap.add_argument("--utterances", type=Path, required=True,
                    help="the utterance file the run read (a record's id starts with its index there)")
    ap.add_argument("--objects", type=Path, default=Path("../shared/data/scannet/objects_gt.json"))
    return ap


def utterance_index(record_id: object) -> int:
    """The index in the utterance file of a recorded run's record id ("17:..." -> 17)."""
    return int(str(record_id).split(":")[0])


def scene_half(scene_id: object) -> str:
    """ "even" or "odd": the scene number's parity (failures of one half read, the other measured)."""
    return "even" if int(str(scene_id)[5:9]) % 2 == 0 else "odd"
