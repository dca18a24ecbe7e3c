"""`--update` of `synergai scene import` and `synergai scene build`: a new perception of a stored scene
updates it (:mod:`synergai.scene.reperception`) instead of being refused or replacing it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from synergai.cli.common import print_json
from synergai.cli.safe_text import visible
from synergai.scene.model import SceneError, SceneGraph


def add_update_options(p: argparse.ArgumentParser, *, replace: bool) -> None:
    """``--update`` and ``--keep-unseen`` (and ``--replace`` where the command has none yet)."""
    p.add_argument("--update", action="store_true",
                   help="the scene is already stored: match the new perception to it (stored ids kept), "
                        "carry people's and robots' edits over it, remove what it no longer sees; one undo "
                        "reverts it")
    p.add_argument("--keep-unseen", action="store_true",
                   help="with --update: keep stored objects the new perception lacks (a partial scan)")
    if replace:
        p.add_argument("--replace", action="store_true",
                       help="replace a stored scene of the same id (its edits stay in the log, discarded)")


def update(args: argparse.Namespace, graph: SceneGraph, source: dict[str, Any], label: str,
           db: Path | str | None) -> int:
    """Update the stored scene by ``graph`` (register it when the store lacks it) and print the report:
    with ``--json`` one document ``{scene, matched, added, removed, carried, conflicts}``."""
    from synergai.scene.reperception import OtherSceneError, UpdatePlan, update_scene
    from synergai.scene.store import SceneStore

    with SceneStore(db) as store:
        if not store.has_scene(graph.scene_id):
            store.register(graph, source)
            plan = UpdatePlan(graph.scene_id, None, 0, tuple(graph.ids), (), 0, ())
            note = "not stored yet: registered"
        else:
            try:
                plan = update_scene(store, graph, source=label, keep_unseen=args.keep_unseen)
                note = "" if plan.request is not None else "nothing changed"
            except OtherSceneError as exc:
                if not args.replace:
                    raise SceneError(f"{exc}; nothing was changed (--replace rebuilds it; its edits stay in "
                                     "the log, discarded)") from None
                store.register(graph, source, replace_existing=True)
                plan = UpdatePlan(graph.scene_id, None, 0, tuple(graph.ids), (), 0, ())
                note = "another scene: replaced"
    if args.json:
        print_json(plan.report())
        return 0
    note = f" ({note})" if note else ""
    print(visible(f"updated {graph.scene_id} from {label}: {plan.summary()}{note}"))
    for c in plan.conflicts:
        print(visible(f"conflict: edit #{c.edit}: {c.reason}; it is applied to nothing else"))
    if plan.request is not None:
        print(visible(f"undo it with: synergai scene undo --scene {graph.scene_id}"))
    return 0
