"""The honest development split: every dev set divided by room into a *read* half and a *check* half.

Failures are read, example banks are built and mechanisms are chosen on the read half only; the check
half is only measured. A scene's half comes from a stable hash of its room (``scene0011_00`` and
``scene0011_01`` are two scans of one room and always fall in the same half), so it holds for scenes
that are not in any file yet and never changes between runs or machines.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

from synergai.eval.runner import stride_subset

T = TypeVar("T")
Half = Literal["read", "check"]
HALVES: tuple[Half, ...] = ("read", "check")
_SCAN = re.compile(r"(scene\d{4})_\d{2}")
_SALT = b"synergai dev split/"


def scene_room(scene_id: str) -> str:
    """The room a scan belongs to: ``scene0011_01`` -> ``scene0011``; any other id is its own room."""
    match = _SCAN.fullmatch(scene_id.strip())
    return match.group(1) if match else scene_id.strip()


def scene_half(scene_id: str) -> Half:
    """``"read"`` or ``"check"``: the half of the split this scene's room is in."""
    digest = hashlib.sha256(_SALT + scene_room(scene_id).encode("utf-8")).digest()
    return "read" if digest[0] % 2 == 0 else "check"


def select(
    items: Sequence[T],
    scene_of: Callable[[T], str],
    *,
    half: Half | None = None,
    limit: int | None = None,
    sample: int | None = None,
    seed: int = 0,
) -> list[T]:
    """The items of one half (all with ``half`` None), then either a seeded random draw of ``sample``
    items (in their original order) or a fixed spread-out subset of ``limit`` items."""
    if half is not None and half not in HALVES:
        raise ValueError(f"half must be one of {', '.join(HALVES)}, got {half!r}")
    if limit is not None and sample is not None:
        raise ValueError("give either a limit (a spread-out subset) or a sample (a random draw), not both")
    kept = [it for it in items if half is None or scene_half(scene_of(it)) == half]
    if sample is None:
        return stride_subset(kept, limit)
    if sample < 1:
        raise ValueError(f"sample must be at least 1, got {sample}")
    if sample >= len(kept):
        return kept
    chosen = set(random.Random(seed).sample(range(len(kept)), sample))
    return [it for k, it in enumerate(kept) if k in chosen]
