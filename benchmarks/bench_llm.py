"""Benchmark the embedded model: load time, prompt and generation speed, the shared-prefix saving, the cache.

Run from the repository root:  .venv/bin/python benchmarks/bench_llm.py [--threads N]
Everything runs in this process on the CPU; prints one table.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from synergai.llm import CachedModel, EmbeddedModel, locate_gguf

TOOL_LINES = [
    "{name}(target: str, limit: int = 5) -> list[str]",
    "    Looks up {name} entries whose label matches target and returns at most limit identifiers.",
    "    Hints: call it before acting on an identifier you have not seen; labels are lower case.",
    "    Arguments: target, the label to match; limit, how many identifiers to return.",
    "    Return: the identifiers, best match first; an empty list when nothing matches.",
]
QUESTIONS = [
    "Which tool lists records? Answer with its name.",
    "Which tool deletes records? Answer with its name.",
]


def shared_prefix(model: EmbeddedModel, target_tokens: int = 900) -> tuple[str, int]:
    """A stable system prompt of about ``target_tokens`` tokens (tool doc-strings, as an agent sends)."""
    verbs = [
        "list",
        "delete",
        "rename",
        "tag",
        "link",
        "unlink",
        "merge",
        "split",
        "count",
        "locate",
        "describe",
    ]
    lines = ["You are an assistant that answers by naming one of the tools below.", ""]
    index = 0
    while True:
        name = f"{verbs[index % len(verbs)]}_records_{index // len(verbs)}"
        lines += [line.format(name=name) for line in TOOL_LINES] + [""]
        index += 1
        text = "\n".join(lines)
        tokens = model.count_tokens(text)
        if tokens >= target_tokens:
            return text, tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--n-ctx", type=int, default=4096)
    args = parser.parse_args()
    rows: list[tuple[str, str, str]] = []

    started = time.perf_counter()
    path = locate_gguf()
    rows.append(("locate GGUF (stamp check)", f"{(time.perf_counter() - started) * 1000:.1f} ms", path.name))

    model = EmbeddedModel(threads=args.threads, n_ctx=args.n_ctx)
    model.load()
    rows.append(("load", f"{model.load_seconds:.2f} s", f"{args.threads} threads, n_ctx {args.n_ctx}"))

    prefix, prefix_tokens = shared_prefix(model)
    first = model.chat(
        [{"role": "system", "content": prefix}, {"role": "user", "content": QUESTIONS[0]}], max_tokens=16
    )
    timings = model.last_timings or {}
    pp_rate = timings.get("prompt_per_second", 0.0)
    rows.append(("1st call, cold prefix", f"{first.seconds:.2f} s", f"{first.prompt_tokens} prompt tokens"))
    rows.append(
        ("prompt processing", f"{pp_rate:.1f} tok/s", f"{timings.get('prompt_n', 0)} tokens evaluated")
    )

    second = model.chat(
        [{"role": "system", "content": prefix}, {"role": "user", "content": QUESTIONS[1]}], max_tokens=16
    )
    timings = model.last_timings or {}
    rows.append(
        (
            "2nd call, shared prefix",
            f"{second.seconds:.2f} s",
            f"{timings.get('cache_n', 0)} of {second.prompt_tokens} prompt tokens reused "
            f"(prefix {prefix_tokens} tokens)",
        )
    )

    generation = model.chat(
        [{"role": "user", "content": "Write the numbers from 1 to 300 separated by single spaces."}],
        max_tokens=128,
    )
    timings = model.last_timings or {}
    rows.append(
        (
            "generation",
            f"{timings.get('predicted_per_second', 0.0):.1f} tok/s",
            f"{generation.completion_tokens} tokens in {generation.seconds:.2f} s "
            f"({generation.finish_reason})",
        )
    )

    schema = {
        "type": "object",
        "properties": {
            "tool": {"type": "string", "maxLength": 40},
            "reason": {"type": "string", "maxLength": 120},
        },
        "required": ["tool", "reason"],
    }
    constrained = model.chat(
        [
            {"role": "system", "content": prefix},
            {"role": "user", "content": QUESTIONS[0] + " Reply as JSON."},
        ],
        json_schema=schema,
        max_tokens=96,
    )
    timings = model.last_timings or {}
    rows.append(
        (
            "json_schema call, shared prefix",
            f"{constrained.seconds:.2f} s",
            f"{constrained.completion_tokens} tokens at {timings.get('predicted_per_second', 0.0):.1f} tok/s "
            f"({constrained.finish_reason})",
        )
    )

    with tempfile.TemporaryDirectory() as tmp:
        cached = CachedModel(model, Path(tmp))
        messages = [{"role": "user", "content": "Say OK."}]
        miss = cached.chat(messages, max_tokens=4)
        hit = cached.chat(messages, max_tokens=4)
        rows.append(
            ("response cache", f"{hit.seconds * 1000:.2f} ms", f"hit (miss took {miss.seconds:.2f} s)")
        )
    model.close()

    width = max(len(r[0]) for r in rows)
    value_width = max(len(r[1]) for r in rows)
    print(f"{'measure':<{width}}  {'value':>{value_width}}  note")
    print(f"{'-' * width}  {'-' * value_width}  ----")
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>{value_width}}  {note}")


if __name__ == "__main__":
    main()
