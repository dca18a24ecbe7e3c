"""`synergai trace show FILE [--turn N]`: a model-call log (``--trace FILE``) as a person reads it.

Each turn is printed as its question and its calls in order: what the model was sent (messages the
previous call of the turn already had are summarised, a system prompt written once is named), the
reply, and what the call cost. Every text is printed literally, with control characters escaped. A
line that is not JSON (a truncated last line) or not a call record (an older format) is skipped, and
the output says which lines were skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synergai.cli.safe_text import visible


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `trace` command group."""
    trace = sub.add_parser("trace", help="read a model-call log written with --trace")
    tsub = trace.add_subparsers(dest="trace_cmd", required=True)
    p = tsub.add_parser("show", help="print the turns of a trace file as a person reads them")
    p.add_argument("path", type=Path, metavar="FILE",
                   help="a JSON Lines log of model calls, as --trace FILE.jsonl writes it")
    p.add_argument("--turn", type=int, default=None, metavar="N", help="only turn N")
    p.set_defaults(func=cmd_show, uses_settings=False)


def literal(text: object) -> str:
    """Text printed as it is, control and bidi characters escaped (:func:`synergai.cli.safe_text.visible`)."""
    return visible(text, multiline=True)


@dataclass
class TraceFile:
    """The call records of a trace file, by turn, and the lines that could not be read.

    Turns are numbered in the order they first appear in the file: each process writes its own ``run``
    (numbering its turns from 1), so two processes tracing into one file keep their calls apart. Lines
    without a run (an older format) keep their own turn numbers as one run."""

    turns: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # "line 7: not JSON (cut off?)"
    texts: dict[str, str] = field(default_factory=dict)  # system prompts by reference
    numbers: dict[tuple[str, int], int] = field(default_factory=dict)  # (run, turn in the run) -> turn

    def add(self, record: dict[str, Any]) -> None:
        """File one call record under its turn."""
        key = (str(record.get("run", "")), record["turn"])
        number = self.numbers.setdefault(key, len(self.numbers) + 1)
        self.turns.setdefault(number, []).append(record)


def read_trace(lines: Iterable[str]) -> TraceFile:
    """Read what can be read of a trace file's lines."""
    out = TraceFile()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            out.skipped.append(f"line {number}: not JSON (cut off?)")
            continue
        if not isinstance(record, dict) or not isinstance(record.get("turn"), int) \
                or not isinstance(record.get("messages"), list):
            out.skipped.append(f"line {number}: not a model call record (another version?)")
            continue
        for m in record["messages"]:
            if isinstance(m, dict) and "ref" in m and "content" in m:
                out.texts[str(m["ref"])] = str(m["content"])
        out.add(record)
    return out


def _cost(call: Mapping[str, Any]) -> str:
    parts = [f"{call.get('seconds', '?')} s"]
    if "prompt_tokens" in call:
        parts.append(f"{call['prompt_tokens']}+{call.get('completion_tokens', 0)} tokens "
                     f"({call.get('cached_tokens', 0)} cached)")
    if call.get("cache_hit"):
        parts.append("reply from the cache")
    for kind in ("schema", "grammar"):
        if call.get(kind):
            parts.append(f"{kind} {call[kind]}")
    if call.get("finish_reason"):
        parts.append(f"finish {call['finish_reason']}")
    return ", ".join(literal(p) for p in parts)


def _message(m: Any, texts: Mapping[str, str]) -> str:
    if not isinstance(m, dict):
        return f"  (unreadable message {literal(m)[:60]})"
    role = literal(m.get("role", "?"))
    if "content" in m:
        content = str(m["content"])
        if role == "system":
            return f"  system: [{len(content)} characters{', ' + literal(m['ref']) if 'ref' in m else ''}]"
        return f"  {role}: " + literal(content).replace("\n", "\n    ")
    ref = str(m.get("ref", "?"))
    known = f"{len(texts[ref])} characters, " if ref in texts else "not in this file, "
    return f"  {role}: [{known}{literal(ref)}]"


def render_turn(number: int, calls: list[dict[str, Any]], texts: Mapping[str, str]) -> str:
    """One turn for people: its question, then each call's new messages, reply and cost."""
    question = next((c.get("question") for c in calls if c.get("question")), "")
    out = [f"turn {number}: {literal(question)}" if question else f"turn {number}"]
    previous: list[Any] = []
    for call in calls:
        messages = call["messages"]
        now, before = [_without_content(m) for m in messages], [_without_content(m) for m in previous]
        same = 0
        while same < min(len(now), len(before)) and now[same] == before[same]:
            same += 1
        out.append(f"step {literal(call.get('step', '?'))} ({_cost(call)})")
        if same:
            out.append(f"  ... {same} message{'s' if same > 1 else ''} as in the step before")
        out.extend(_message(m, texts) for m in messages[same:])
        if "reply" in call:
            out.append("  reply: " + literal(call["reply"]).replace("\n", "\n    "))
        if "error" in call:
            out.append(f"  error: {literal(call['error'])}")
        previous = [*messages, {"role": "assistant", "content": call.get("reply", "")}]
    return "\n".join(out)


def _without_content(m: Any) -> Any:
    """A system message by its reference (the first call has its text, later ones the reference)."""
    return {"role": m.get("role"), "ref": m.get("ref")} if isinstance(m, dict) and "ref" in m else m


def cmd_show(args: argparse.Namespace) -> int:
    if args.path.exists() and not args.path.is_file():  # a pipe, a device, a directory: never read
        raise ValueError(f"{args.path} is not a regular file (a trace is a file written with --trace)")
    with args.path.open(encoding="utf-8", errors="replace") as f:
        trace = read_trace(f)
    if args.turn is not None and args.turn not in trace.turns:
        held = f"turns {min(trace.turns)}-{max(trace.turns)}" if trace.turns else "no turns"
        raise ValueError(f"{args.path} has no turn {args.turn} ({held})")
    numbers = [args.turn] if args.turn is not None else sorted(trace.turns)
    text = "\n\n".join(render_turn(n, trace.turns[n], trace.texts) for n in numbers)
    sys.stdout.write(text + "\n" if text else f"{literal(args.path)}: no model calls\n")
    if trace.skipped:
        sys.stdout.write(f"skipped {len(trace.skipped)} line{'s' if len(trace.skipped) > 1 else ''} "
                         f"that could not be read: {'; '.join(trace.skipped[:5])}"
                         f"{' ...' if len(trace.skipped) > 5 else ''}\n")
    return 0
