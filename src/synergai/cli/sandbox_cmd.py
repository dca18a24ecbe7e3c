"""`synergai sandbox run FILE`: run a program against a scene's APIs in the sandbox."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from synergai.agent.program.loop import API_FACTORY
from synergai.agent.program.sandbox import SandboxLimits, run_program
from synergai.cli.common import add_scene_options, open_catalog, parse_pose, print_json, seconds
from synergai.cli.safe_text import visible
from synergai.scene.serialization import graph_to_dict


def register(sub: argparse._SubParsersAction) -> None:
    """Add `sandbox run`."""
    sb = sub.add_parser("sandbox", help="run untrusted programs against the scene APIs")
    ssub = sb.add_subparsers(dest="sandbox_cmd", required=True)
    p = ssub.add_parser("run", help="run a program file in the sandbox")
    p.add_argument("file", type=Path,
                   help="a Python program (UTF-8 text) calling the scene API: scene(), filter(), relate(), "
                        "query_attribute(), ... (docs/api-reference.md)")
    add_scene_options(p)
    p.add_argument("--pose", type=parse_pose, default=None, metavar="X,Y,Z,QX,QY,QZ,QW")
    p.add_argument("--timeout", type=seconds, default=5.0, help="wall-clock limit in seconds")
    p.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    try:
        code = args.file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {args.file}: {exc.strerror}") from None
    graph = open_catalog(args).open(args.scene)
    pose = None
    if args.pose is not None:
        pose = {"position": list(args.pose.position), "forward": list(args.pose.forward)}
    limits = SandboxLimits(wall_seconds=args.timeout, cpu_seconds=min(2.0, args.timeout))
    result = run_program(code, api_factory=API_FACTORY, api_args={"graph": graph_to_dict(graph),
                                                                  "viewpoint": pose}, limits=limits)
    if args.json:
        print_json(result.to_dict())
    else:
        sys.stdout.write(visible(result.stdout, multiline=True))
        if result.error:
            print(f"error: {visible(result.error)}", file=sys.stderr)
    return 0 if result.ok else 1
