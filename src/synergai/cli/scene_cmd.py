"""`synergai scene ...`: list, show, edits, undo, redo, reset, drop, watch, export, import."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from synergai.cli import build_cmd, reperceive_cmd
from synergai.cli.common import add_scene_options, open_catalog, open_store, print_json, settings
from synergai.cli.safe_text import visible
from synergai.scene.formats import (
    FORMATS,
    READ_FORMATS,
    WRITE_FORMATS,
    describe_formats,
    export_scene,
    import_scene,
)
from synergai.scene.model import WORDING, SceneGraph
from synergai.scene.rooms import room_members
from synergai.scene.store_location import store_location


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `scene` command group."""
    scene = sub.add_parser("scene", help="inspect and edit scene graphs")
    ssub = scene.add_subparsers(dest="scene_cmd", required=True)
    for name, command, help_ in [
        ("list", cmd_list, "scenes that can be opened"),
        ("show", cmd_show, "a scene's objects and relations"),
        ("edits", cmd_edits, "the scene's edit log"),
        ("undo", cmd_undo, "undo the last edit"),
        ("redo", cmd_redo, "redo the last undone edit"),
        ("reset", cmd_reset, "undo every edit of the scene (the log keeps them, marked discarded)"),
        ("drop", cmd_drop, "delete the scene and its edit log from the store"),
    ]:
        p = ssub.add_parser(name, help=help_)
        add_scene_options(p)
        p.set_defaults(func=command)
    build_cmd.register(ssub)
    p = ssub.add_parser("watch", help="print the store's changes as they are committed (edits, undo, redo, "
                                      "reset, registrations, drops), one line each, until Ctrl-C")
    p.add_argument("--scene", default=None, help="only this scene's events (default: every scene)")
    p.add_argument("--since", type=_event_seq, default=None, metavar="SEQ",
                   help="start after event SEQ (0: the whole history; default: from now on)")
    p.add_argument("--db", type=store_location, default=None, help="scene store (a path or postgresql://...)")
    p.add_argument("--json", action="store_true", help="one JSON object per line: "
                                                       "{scene, seq, kind, actor, object_ids, at}")
    p.set_defaults(func=cmd_watch)
    p = ssub.add_parser("export", help=f"write a scene graph as {', '.join(WRITE_FORMATS)}",
                        description=f"Write a stored scene graph in one of these formats: "
                                    f"{describe_formats(WRITE_FORMATS)}.")
    add_scene_options(p)
    p.add_argument("--format", choices=WRITE_FORMATS, default="json", help="default: json")
    p.add_argument("--out", type=Path, default=None,
                   help="output file (default: stdout; spark-dsg needs one: .json is JSON, .sparkdsg binary)")
    p.set_defaults(func=cmd_export)
    p = ssub.add_parser("import", help=f"load a scene-graph file ({', '.join(READ_FORMATS)}) into the store",
                        description=f"Load a scene-graph file into the store, ready to ask: when the file "
                                    f"brings no relations, synergai computes them from the boxes "
                                    f"(--no-relations keeps the file as it is). Formats: "
                                    f"{describe_formats(READ_FORMATS)}. A scan (ScanNet, point cloud, RGB-D, "
                                    f"ROS bag) goes through `scene build` instead.")
    p.add_argument("path", type=Path, help="the scene-graph file")
    p.add_argument("--format", choices=READ_FORMATS, default="json", help="default: json (synergai's own)")
    p.add_argument("--scene-id", default=None,
                   help="id in the store (default: the one in the file; conceptgraphs and graphs "
                        "not written by synergai: the file name)")
    p.add_argument("--no-relations", action="store_true",
                   help="keep a file that brings no relations without them (default: compute them)")
    p.add_argument("--db", type=store_location, default=None, help="scene store (a path or postgresql://...)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    reperceive_cmd.add_update_options(p, replace=True)
    p.set_defaults(func=cmd_import)


def _event_seq(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an event number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an event number >= 0, got {text!r}")
    return value


def cmd_watch(args: argparse.Namespace) -> int:
    from synergai.scene.feed import follow

    settings(args)

    def notice(text: str) -> None:  # the server away and back, a file replaced, waiting past the end
        print(visible(f"synergai: {text}"), file=sys.stderr, flush=True)

    try:
        for event in follow(args.db, since=args.since, scene_id=args.scene, notice=notice):
            if args.json:
                print_json(event.to_dict(), one_line=True)
            else:
                ids = ", ".join(event.object_ids) or "-"
                print(visible(f"#{event.seq} {event.at} {event.scene} {event.kind} by {event.actor}: {ids}"))
            sys.stdout.flush()
    except KeyboardInterrupt:
        return 0
    return 0


def graph_summary(graph: SceneGraph) -> dict[str, object]:
    """The `scene show --json` document (``rooms``: empty for a scene that is one room, as a scan)."""
    members = room_members(graph)
    return {
        "scene": graph.scene_id,
        "objects": [
            {"id": o.id, "label": o.category, "center": list(o.center), "size": list(o.size),
             "attributes": list(o.attributes), "level": graph.levels.get(o.id)}
            for o in graph
        ],
        "relations": [{"subject": e.subject, "relation": e.relation.value, "object": e.object}
                      for e in sorted(graph.edges)],
        "rooms": [{"id": r.id, "name": r.name, "category": r.category, "object_ids": members[r.id]}
                  for r in graph.rooms],
    }


def cmd_list(args: argparse.Namespace) -> int:
    catalog = open_catalog(args)
    stored = {i.id: i for i in catalog.store.scenes()}
    rows = [{"id": s, "stored": s in stored,
             "objects": stored[s].n_objects if s in stored else None,
             "edits": stored[s].n_active_edits if s in stored else 0} for s in catalog.scene_ids()]
    if args.json:
        print_json({"scenes": rows})
        return 0
    table = Table("scene", "in store", "objects", "edits")
    for r in rows:
        table.add_row(escape(visible(r["id"])), "yes" if r["stored"] else "no", str(r["objects"] or "-"),
                      str(r["edits"]))
    Console().print(table)
    return 0


#: `scene show`'s columns: (name, wraps). Ids never wrap (they are what --mark takes), nor levels.
_SHOW_COLUMNS = (("id", False), ("label", True), ("level", False), ("center", True), ("size", True),
                 ("attributes", True), ("room", True))
def _show_objects(graph: SceneGraph) -> Console:
    """Print the objects table: ids whole (the table widens past the terminal rather than cut one), other
    cells wrapped at spaces, never cut. Returns the console used, for what follows."""
    rows = []
    for o in graph:
        rows.append([visible(o.id), visible(o.category), str(graph.levels.get(o.id, "-")),
                     ", ".join(f"{v:.2f}" for v in o.center), ", ".join(f"{v:.2f}" for v in o.size),
                     visible(", ".join(o.attributes)),
                     visible(graph.room(o.room).name if o.room else "-")])
    columns = [c for c in _SHOW_COLUMNS if graph.rooms or c[0] != "room"]
    table = Table(title=escape(visible(f"{graph.scene_id} ({graph.scene_type or 'scene'})")))
    needed = 1
    for k, (name, wraps) in enumerate(columns):
        natural = max([len(name), *(len(r[k]) for r in rows)])
        if wraps:  # rich narrows these (down to their header) before the table widens
            table.add_column(name, overflow="fold")
            needed += min(natural, len(name)) + 3  # the padding on both sides and one rule
        else:
            table.add_column(name, no_wrap=True, min_width=natural)
            needed += natural + 3
    for r in rows:
        table.add_row(*(escape(cell) for cell in r[:len(columns)]))
    console = Console()
    if needed > console.width:
        console = Console(width=needed)
    console.print(table)
    return console


def cmd_show(args: argparse.Namespace) -> int:
    graph = open_catalog(args).open(args.scene)
    if args.json:
        print_json(graph_summary(graph))
        return 0
    console = _show_objects(graph)
    if graph.rooms:
        members = room_members(graph)
        console.print(f"[bold]{len(graph.rooms)} rooms[/bold]")
        for r in graph.rooms:
            kind = "" if r.category == r.name else f", {r.category}"
            n = len(members[r.id])
            console.print(Text(visible(f"  {r.name} (id {r.id}{kind}, {r.area:.1f} m²): {n} objects")))
    console.print(f"[bold]{len(graph.edges)} relations[/bold]")
    for e in sorted(graph.edges):
        s, o = graph.get(e.subject), graph.get(e.object)
        console.print(Text(visible(f"  {s.category} ({s.id}) {WORDING[e.relation]} {o.category} ({o.id})")))
    return 0


def _edit_dict(rec) -> dict[str, object]:
    return {"seq": rec.seq, "actor": rec.who, "op": rec.op, "utterance": rec.utterance,
            "timestamp": rec.timestamp, "state": str(rec.state), "summary": rec.summary()}


def cmd_edits(args: argparse.Namespace) -> int:
    catalog = open_catalog(args)
    catalog.ensure(args.scene)
    records = catalog.store.edits(args.scene, include_undone=True)
    if args.json:
        print_json({"scene": args.scene, "edits": [_edit_dict(r) for r in records]})
        return 0
    if not records:
        print(visible(f"{args.scene}: no edits"))
    for r in records:
        print(visible(f"#{r.seq} [{r.state}] {r.timestamp} {r.summary()}"))
    return 0


def _undo_redo(args: argparse.Namespace, redo: bool) -> int:
    catalog = open_catalog(args)
    catalog.ensure(args.scene)
    rec = catalog.store.redo(args.scene) if redo else catalog.store.undo(args.scene)
    verb = "redone" if redo else "undone"
    if args.json:
        print_json({"scene": args.scene, verb: _edit_dict(rec) if rec else None})
    else:
        print(visible(f"{verb}: {rec.summary()}") if rec else f"nothing to {'redo' if redo else 'undo'}")
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    return _undo_redo(args, redo=False)


def cmd_redo(args: argparse.Namespace) -> int:
    return _undo_redo(args, redo=True)


def cmd_reset(args: argparse.Namespace) -> int:
    catalog = open_catalog(args)
    catalog.ensure(args.scene)
    catalog.store.reset(args.scene)
    if args.json:
        print_json({"scene": args.scene, "reset": True})
    else:
        print(visible(f"{args.scene}: reset to the perceived graph"))
    return 0


def cmd_drop(args: argparse.Namespace) -> int:
    store = open_catalog(args).store
    store.drop(args.scene)
    if args.json:
        print_json({"scene": args.scene, "dropped": True})
    else:
        print(visible(f"{args.scene}: dropped from {store.where}"))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    if FORMATS[args.format].dumps is None and args.out is None:
        raise ValueError(f"--format {args.format} needs --out FILE (.json for JSON, .sparkdsg for the binary "
                         "form)")
    graph = open_catalog(args).open(args.scene)
    text = export_scene(graph, args.format, args.out)
    if text is not None:
        print(text)
    else:
        print(visible(f"wrote {args.out}"))
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    result = import_scene(args.path, args.format, args.scene_id, relations=not args.no_relations)
    graph = result.graph
    settings(args)
    source = {"builder": "import", "path": str(args.path.resolve())}
    if args.update:
        return reperceive_cmd.update(args, graph, source, args.format, args.db)
    store = open_store(args)
    if store.has_scene(graph.scene_id) and not args.replace:
        raise ValueError(f"scene {graph.scene_id} is already in the store (--update carries its edits over "
                         "the new perception; --replace discards them)")
    store.register(graph, source, replace_existing=args.replace)
    notes = list(result.notes)
    if result.computed_relations is not None:
        notes.append(f"the file brought no relations: computed {result.computed_relations} from the boxes "
                     "(--no-relations keeps the file as it is)")
    if args.json:
        print_json({"scene": graph.scene_id, "objects": len(graph), "relations": len(graph.edges),
                    "rooms": len(graph.rooms), "computed_relations": result.computed_relations,
                    "notes": notes})
    else:
        rooms = f", {len(graph.rooms)} rooms" if graph.rooms else ""
        print(visible(f"imported {graph.scene_id}: {len(graph)} objects, "
                      f"{len(graph.edges)} relations{rooms}"))
        for note in notes:
            print(visible(note))
    return 0
