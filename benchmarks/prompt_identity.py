"""Record every model request the answering paths send for real dev questions, with canned replies.

A recording model answers each call with a scripted reply chosen only by the question and the call's
number (never by the prompt), so two versions of the code that send the same prompts get the same
replies all the way through. Run it under each version and compare the two files:

    PYTHONPATH=/work/main/src python benchmarks/prompt_identity.py --out /tmp/old.jsonl
    PYTHONPATH=src python benchmarks/prompt_identity.py --out /tmp/new.jsonl --compare /tmp/old.jsonl

Paths: ScanQA questions in react and program mode, SQA3D questions in both modes, Nr3D descriptions
through the grounding parse. Prints one row per path: questions, requests, requests that differ; and per
path the results (answers, short answers, traces, usage; timings left out) that differ.
"""

from __future__ import annotations

import argparse
import copy
import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from synergai.agent.grounding_parse import ground_description
from synergai.agent.program.loop import ProgramLimits, ProgramLoop
from synergai.agent.program.sandbox import SandboxLimits
from synergai.eval import scanqa, sqa3d
from synergai.eval.grounding import Scenes
from synergai.llm.base import ChatReply
from synergai.scene.builders.objects_json import load_objects_file
from synergai.scene.catalog import SceneCatalog
from synergai.scene.store import SceneStore

DATA = Path("/work/shared/data")
#: A busy machine must not time a program out in one run and not the other.
PATIENT = ProgramLimits(sandbox=SandboxLimits(cpu_seconds=30.0, wall_seconds=60.0))


def _program(code: str, thought: str = "I will look.") -> str:
    return f"Thought: {thought}\nAction: Program\nAction Input:\n```Python\n{code}\n```"


def _plan(*cats: str) -> str:
    steps = [{"action": "query_for_objects", "action_input": {"category": c}} for c in cats]
    return json.dumps({"plan": steps})


def _act(action: str, **args: Any) -> str:
    return json.dumps({"action": action, "action_input": args})


def react_script(k: int, cat: str) -> list[str | dict[str, str]]:
    """Canned agent replies for question ``k`` about ``cat``: plans, errors, repeats, answers."""
    final = _act("final_answer", answer="It is brown.", short_answer="brown", item_id_list=[])
    scripts: list[list[str | dict[str, str]]] = [
        [_plan(cat), final],
        ["not json at all", _plan(cat), _act("final_answer", answer="The chair (id: 3).", short_answer="2")],
        [_plan(cat, "table"), _act("query_for_objects", category=cat), final],
        [_plan("zzz"), _act("query_for_objects", category=cat), final],
        [{"text": _plan(cat)[:30], "finish_reason": "length"}, _plan(cat), final],
        [_plan(cat), _act("query_for_relations", item_id_list=["1"]), final],
    ]
    return scripts[k % len(scripts)]


def program_script(k: int, cat: str) -> list[str | dict[str, str]]:
    """Canned program-mode replies for question ``k`` about ``cat``: repairs, errors, send-backs."""
    good = f"objs = filter(object_set=scene(), category={cat!r})\nprint(len(objs))"
    scripts: list[list[str | dict[str, str]]] = [
        [_program(f"objs = filter(object_set=scene(), {cat!r})\nprint(len(objs))"), "2"],
        ["Thought: easy.\nAction: Final Answer\nAction Input: 2",
         _program(f'objs = filter(object_set=scene(), category={cat!r})\nprint(f"{{len(objs)}} {{"x"}}")'),
         "Thought: done.\nAction: Final Answer\nAction Input: yes"],
        [_program("print(1 / 0)"), _program("print(1 / 0)"), _program(good), "Final Answer: 3"],
        ["I do not know", _program(f"print(len({'_'.join(cat.split())}s))"), "left"],
        [_program("print(len(filter(object_set=scene(), category='zzz')))"), _program(good),
         "no idea", '{"thought": "t", "answer": "two"}'],
        [_program("x = relate_agent(object_set=scene(), relation='seven_o\\'clock')\nprint(x)"),
         {"text": _program("print(1)\n" * 40)[:200], "finish_reason": "length"}, _program(good), "blue"],
        [_program("print(len(scene()))"), _program("print(len(scene()))"), "4"],
    ]
    return scripts[k % len(scripts)]


_TIMES = ("latency_s", "harness_s", "llm_seconds", "seconds", "wall_s")


def _timeless(value: Any) -> Any:
    """A result without its timings (they differ from run to run)."""
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k not in _TIMES}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


class Recorder:
    """A chat model that records each request and replies from the current question's script."""

    name = "recorder"
    supports_grammar = False

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.script: list[str | dict[str, str]] = []
        self.label = ""
        self.results: list[Any] = []

    def start(self, label: str, script: list[str | dict[str, str]]) -> None:
        self.label, self.script, self.calls = label, script, 0

    def chat(self, messages: Sequence[Mapping[str, str]], **kwargs: Any) -> ChatReply:
        request = {k: v for k, v in kwargs.items()}
        if request.get("json_schema") is not None:
            request["json_schema"] = json.dumps(request["json_schema"], sort_keys=True)
        self.requests.append({"q": self.label, "call": self.calls, "messages": copy.deepcopy(list(messages)),
                              **request})
        entry = self.script[self.calls] if self.calls < len(self.script) else json.dumps(
            {"thought": "t", "answer": "one", "action": "final_answer",
             "action_input": {"short_answer": "one"}})
        self.calls += 1
        text, finish = (entry["text"], entry["finish_reason"]) if isinstance(entry, dict) else (entry, "stop")
        return ChatReply(text, 100 + len(str(messages)) // 4, 20, finish, self.name)

    def count_tokens(self, text: str) -> int:
        return len(text) // 4


def _category(graph: Any, question: str) -> str:
    cats = sorted(graph.categories(), key=len, reverse=True)
    return next((c for c in cats if c in question.lower()), sorted(graph.categories())[0])


def run(n: int) -> dict[str, Recorder]:
    """Every path's recorder after ``n`` questions of each."""
    objects = DATA / "scannet/objects_gt.json"
    scan = json.loads((DATA / "scanqa/scanqa_val_dev.json").read_text())[:n * 7:7]
    situated = json.loads((DATA / "sqa3d/sqa3d_test_dev.json").read_text())[:n * 5:5]
    aligned = json.loads((DATA / "scannet/axis_alignment_matrices.json").read_text())
    names = ("scanqa-react", "scanqa-program", "sqa3d-react", "sqa3d-program", "nr3d")
    paths = {p: Recorder() for p in names}
    with tempfile.TemporaryDirectory() as tmp:
        store = SceneStore(Path(tmp) / "scenes.sqlite3")
        catalog = SceneCatalog(store, objects)
        for k, q in enumerate(scan):
            graph = catalog.open(q["scene_id"])
            cat = _category(graph, q["question"])
            rec = paths["scanqa-react"]
            rec.start(f"scanqa {k}", react_script(k, cat))
            rec.results.append(_timeless(scanqa.answer_question(catalog, rec, q)))
            rec = paths["scanqa-program"]
            rec.start(f"scanqa {k}", program_script(k, cat))
            result = ProgramLoop(rec, PATIENT).run(graph, q["question"])
            rec.results.append(_timeless({"answer": result.answer, "short": result.short_answer,
                                          "trace": result.trace, **result.usage.to_dict()}))
        for k, q in enumerate(situated):
            graph = catalog.open(q["scene_id"])
            cat = _category(graph, q["question"])
            for mode, script in (("react", react_script(k, cat)), ("program", program_script(k, cat))):
                rec = paths[f"sqa3d-{mode}"]
                rec.start(f"sqa3d {k}", script)
                rec.results.append(_timeless(sqa3d.answer_question(catalog, rec, aligned, q, mode, PATIENT)))
        store.close()
    scenes = Scenes(load_objects_file(objects))
    for k, r in enumerate(json.loads((DATA / "nr3d/nr3d_test_dev.json").read_text())[: n * 11: 11]):
        graph, vocab = scenes.get(r["scene_id"])
        rec = paths["nr3d"]
        label = r.get("target_label", "chair")
        rec.start(f"nr3d {k}", [json.dumps({"category": label}), json.dumps({"category": label})])
        parsed, found = ground_description(rec, r["utterance"], vocab, graph)
        rec.results.append([parsed.raw, parsed.problem, found.top.id if found and found.top else None])
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="write the requests here (JSON lines)")
    ap.add_argument("--compare", type=Path, help="an earlier --out file to compare with")
    ap.add_argument("-n", type=int, default=30, help="questions per path")
    args = ap.parse_args()
    paths = run(args.n)
    lines = [json.dumps({"path": p, **r}, sort_keys=True) for p, rec in paths.items() for r in rec.requests]
    lines += [json.dumps({"path": f"{p} results", "result": r}, sort_keys=True)
              for p, rec in paths.items() for r in rec.results]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    old = args.compare.read_text(encoding="utf-8").splitlines() if args.compare else None
    print(f"{'path':16} {'questions':>9} {'requests':>8} {'differ':>6}")
    for p, rec in [*paths.items(), *((f"{p} results", r) for p, r in paths.items())]:
        mine = [line for line in lines if json.loads(line)["path"] == p]
        differ = "-"
        if old is not None:
            theirs = [line for line in old if json.loads(line)["path"] == p]
            same = sum(a != b for a, b in zip(mine, theirs, strict=False))
            differ = str(same + abs(len(mine) - len(theirs)))
        print(f"{p:16} {len({r['q'] for r in rec.requests}):>9} {len(rec.requests):>8} {differ:>6}")


if __name__ == "__main__":
    main()
