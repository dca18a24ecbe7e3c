"""`synergai serve` (the web GUI) and the GUI half of `synergai demo`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from synergai.cli.common import OBJECTS_HELP, add_llm_options, open_catalog, open_llm
from synergai.cli.progress import StageDisplay, progress_mode
from synergai.cli.safe_text import visible
from synergai.llm import check_model
from synergai.masking import mask_secrets
from synergai.scene.catalog import DEMO_SCENE_ID
from synergai.scene.store_location import store_location

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def register(sub: argparse._SubParsersAction) -> None:
    """Add `serve`."""
    p = sub.add_parser("serve", help="the web GUI: see the scene, click to mark an object, chat")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1; 0.0.0.0 exposes the GUI to your network)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080; taken: the next free one)")
    p.add_argument("--scene", default=DEMO_SCENE_ID, help="scene shown first (default: the built-in demo)")
    p.add_argument("--objects", type=Path, default=None,
                   help=f"{OBJECTS_HELP}; its scenes join the drop-down")
    p.add_argument("--db", type=store_location, default=None,
                   help="scene store: a SQLite file or a postgresql:// URL (default: user data directory)")
    add_llm_options(p)
    p.set_defaults(func=cmd_serve)


def _run(args: argparse.Namespace) -> int:
    from synergai.gui import serve

    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0..65535, got {args.port}")
    catalog = open_catalog(args)
    display = StageDisplay(progress_mode(args, default="lines"))  # the first question's slow stages
    model = open_llm(args, progress=display.model_progress)  # one model for every tab
    check_model(model)  # a dead endpoint is reported now, not as the first answer
    handle = serve(catalog, lambda: model, host=args.host, port=args.port, scene_id=args.scene, block=False)
    try:  # a Ctrl-C from the moment the server runs stops it, not only once it waits
        print(visible(f"SynergAI GUI: open {handle.url}"))  # the only URL printed: the one with its token
        served = mask_secrets(f"scene {args.scene}, store {catalog.store.where}, model {args.llm}")
        print(visible(f"  {served}; Ctrl-C to stop"), flush=True)
        if args.host not in LOOPBACK:
            print(f"note: bound to {visible(args.host)}: the GUI is reachable from your network; every "
                  "request still needs the token in the URL above (keep it secret, share it only with people "
                  "who may edit)", file=sys.stderr)
        handle.wait()  # stops the server on Ctrl-C or stop()
    except KeyboardInterrupt:
        handle.stop()
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the GUI until Ctrl-C."""
    return _run(args)


def run_demo(args: argparse.Namespace) -> int:
    """`synergai demo`: the demo scene and the embedded model (unless --llm says otherwise) in the GUI."""
    for name, default in (("host", "127.0.0.1"), ("port", 8080), ("scene", DEMO_SCENE_ID), ("objects", None),
                          ("db", None), ("llm", None), ("base_url", None), ("threads", None),
                          ("no_cache", False)):
        if not hasattr(args, name):
            setattr(args, name, default)
    args.scene = DEMO_SCENE_ID
    return _run(args)
