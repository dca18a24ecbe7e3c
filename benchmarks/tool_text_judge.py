"""Count answers that carry tool text, in benchmark results (one command, prints a table).

The judge never shares code with what it judges: this file imports nothing from ``synergai.agent``
(in particular not ``answer_check``); its patterns are written from what a person would call "not an
answer": object ids, coordinates or sizes in brackets, counts of matches ("2 objects fit ..."), the
observation templates' fixed words, tool and error names; and, with the scenes' objects file, an object
named the way the tools name it: a word of its label, or "object", and its id ("table 28", "object 14").

    python benchmarks/tool_text_judge.py RUN_DIR [RUN_DIR ...] [--show N] [--objects FILE]

Each RUN_DIR holds a ``results.jsonl`` (``synergai eval scanqa|sqa3d --out RUN_DIR``); the answer, its
short form and the sentence given (SQA3D's ``raw_answer``) are judged.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

#: What no answer to a person contains, each with its name.
PATTERNS: dict[str, re.Pattern[str]] = {
    "object id": re.compile(r"\(\s*id\b|\bid\s*[:=#]\s*\S|\bids?\s+\d+\b", re.I),
    "coordinates": re.compile(r"\[\s*-?\d[\d.]*\s*,\s*-?\d[\d.]*|(?:-?\d+\.\d+\s*,\s*){2}-?\d+\.\d+"),
    "count of matches": re.compile(r"\b\d+\s+(?:objects?|candidates?)\s+(?:fit|match|found)", re.I),
    "template words": re.compile(r"has attributes|position of the|its size is|best match for|"
                                 r"no object matches|nothing in this room matches|mid point of|"
                                 r"closest categories|the room has:", re.I),
    "tool or error name": re.compile(r"query_for|final_answer|action_input|observation\s*:|error\s*:|"
                                     r"traceback|checkerror", re.I),
}


DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
#: A word and the number after it ("table 28").
_WORD_NUMBER = re.compile(r"\b([a-z]+)\s+(\d+)\b", re.I)


def judge(text: str, labels: dict[str, str] | None = None) -> list[str]:
    """The names of the patterns ``text`` shows; ``labels`` (object id -> label, of the answer's scene)
    adds "object named by id"."""
    kinds = [name for name, pattern in PATTERNS.items() if pattern.search(text or "")]
    if not labels:
        return kinds
    for m in _WORD_NUMBER.finditer(text or ""):
        word, label = m.group(1).lower(), labels.get(m.group(2), "")
        if label and (word in ("object", "objects", "item") or any(
                w.rstrip("s") == word.rstrip("s") for w in label.lower().split())):
            return [*kinds, "object named by id"]
    return kinds


def scene_labels(path: Path) -> dict[str, dict[str, str]]:
    """Scene id -> object id -> label, from an objects file (``{"scenes": {scene: [{id, label}, ...]}}``)."""
    scenes = json.loads(path.read_text(encoding="utf-8")).get("scenes", {})
    return {sid: {str(o["id"]): str(o.get("label", "")) for o in objs} for sid, objs in scenes.items()}


def read(run_dir: Path) -> list[dict]:
    """The last result line per id of a run directory."""
    latest: dict[str, dict] = {}
    for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line of a killed run
            latest[str(record.get("id"))] = record
    return list(latest.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--show", type=int, default=0, help="print up to N offending answers per run")
    parser.add_argument("--objects", type=Path, default=DATA / "scannet" / "objects_gt.json",
                        help="the scenes' objects file, to find objects named by id (default: %(default)s; "
                             "skipped when missing)")
    args = parser.parse_args(argv)
    labels = scene_labels(args.objects) if args.objects.is_file() else {}
    print(f"{'run':50} {'n':>5} {'with tool text':>15}  kinds")
    for run in args.runs:
        try:
            records = read(run)
        except OSError as exc:
            print(f"{run}: {exc.strerror}", file=sys.stderr)
            return 2
        bad = [(r, sorted({k for f in ("answer", "short", "raw_answer")
                           for k in judge(str(r.get(f, "")), labels.get(str(r.get("scene_id"))))}))
               for r in records]
        bad = [(r, kinds) for r, kinds in bad if kinds]
        kinds = sorted({k for _, ks in bad for k in ks})
        print(f"{str(run)[-50:]:50} {len(records):>5} {len(bad):>15}  {', '.join(kinds)}")
        for r, ks in bad[:args.show]:
            print(f"    {r.get('question', '')!r} -> {r.get('answer', '')!r} ({', '.join(ks)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
