"""Predictions matched to ground truth, and the misperceptions the Table I tools can repair.

The robot's graph is built from predicted instances (3D-VisTA / Mask3D proposals with ScanNet200 labels);
the simulated user sees the ScanNet ground truth. Per scene:

1. **Matching.** Predictions are matched one-to-one to ground-truth objects by the 3D IoU of their
   axis-aligned boxes with the Hungarian algorithm (``scipy.optimize.linear_sum_assignment``, maximising
   the summed IoU); a pair counts when IoU >= 0.25 (ScanRefer's Acc@0.25 threshold). Ordinary objects
   and structure (floor / wall / ceiling) are matched separately, so a door box lying in a wall's plane
   is never called a mislabelled wall. Unmatched ground truth is *missed*; an unmatched prediction that
   overlaps (IoU >= 0.25) an object another prediction already claimed is *duplicated*; the rest are
   *spurious* (false positives, or objects the ground truth does not list). None of these three can be
   repaired with the Table I tools; they are counted and reported.
2. **Misperceptions the tools can repair**, on matched ordinary objects: a wrong *label* (the predicted
   label does not name the ground-truth category: :meth:`LabelVocabulary.same`), a wrong *colour* (colour
   names of the predicted and true mean colours are not compatible:
   :func:`synergai.eval.words.colors_compatible`), and a wrong or missing *support* ("on") relation
   (the ground-truth graph, built from the true boxes by the same relation engine, has ``x on y``
   between two matched objects and the robot's graph does not).
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from pathlib import Path

import numpy as np
from scipy.optimize import linear_sum_assignment

from synergai.eval.words import colors_compatible, names_category, plain
from synergai.geometry.boxes import BoxArray, intersection_volume
from synergai.scene.build import structure_kind
from synergai.scene.model import (
    STRUCTURE_KINDS,
    Edge,
    ObjectKind,
    Relation,
    SceneError,
    SceneGraph,
    SceneObject,
)
from synergai.scene.vocabulary import COLOR_NAMES, with_article

#: Minimum 3D IoU for a prediction to count as the ground-truth object (ScanRefer Acc@0.25).
MIN_IOU = 0.25
# fmt: off
#: Ground-truth labels a person would not use to name an object.
GENERIC_LABELS = frozenset({"object", "objects", "otherprop", "otherfurniture", "otherstructure", "item",
                            "stuff", "thing", "things", "unknown"})
#: NYU40 classes too broad to make two labels mean the same thing.
BROAD_NYU40 = frozenset({"", "otherprop", "otherfurniture", "otherstructure"})

# fmt: on



# ---------------------------------------------------------------------------------------------- labels
@dataclass(frozen=True)
class LabelVocabulary:
    """ScanNet's label table: raw category -> ScanNet200-style name and NYU40 class."""

    common: Mapping[str, str] = field(default_factory=dict)
    nyu40: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_tsv(cls, path: str | Path) -> LabelVocabulary:
        """Read ``scannetv2-labels.combined.tsv`` (columns raw_category, category, nyu40class, count)."""
        p = Path(path)
        try:
            with p.open(encoding="utf-8", newline="") as f:
                rows = list(csv.DictReader(f, delimiter="\t"))
        except OSError as exc:
            raise SceneError(f"{p}: cannot read the label table ({exc.strerror or exc})") from None
        if not rows or not {"raw_category", "category", "nyu40class"} <= set(rows[0]):
            raise SceneError(f"{p}: not a ScanNet label table (needs raw_category, category, nyu40class)")
        common: dict[str, str] = {}
        nyu: dict[str, str] = {}
        votes: dict[str, dict[str, int]] = {}
        for r in rows:
            raw, cat, cls_ = plain(r["raw_category"]), plain(r["category"]), plain(r["nyu40class"])
            if not raw:
                continue
            common[raw] = cat or raw
            nyu[raw] = cls_
            count = int(r.get("count") or 0) if str(r.get("count") or "0").isdigit() else 0
            bucket = votes.setdefault(cat, {})
            bucket[cls_] = bucket.get(cls_, 0) + count + 1
        for cat, bucket in votes.items():  # a ScanNet200 name that is not itself a raw label
            nyu.setdefault(cat, max(sorted(bucket), key=lambda c: bucket[c]))
        return cls(common, nyu)

    def common_name(self, label: str) -> str:
        """The everyday (ScanNet200) name of a label: "kitchen cabinets" -> "kitchen cabinet"."""
        n = plain(label)
        return self.common.get(n, n)

    def nyu40_class(self, label: str) -> str:
        """The label's NYU40 class, or "" when the table does not know it."""
        n = plain(label)
        return self.nyu40.get(n) or self.nyu40.get(self.common_name(n), "")

    def same(self, a: str, b: str) -> bool:
        """Whether two labels name the same kind of object (a person would accept either)."""
        na, nb = self.common_name(a), self.common_name(b)
        if not na or not nb:
            return False
        if na == nb or names_category(na, nb) or names_category(nb, na):
            return True
        ca, cb = self.nyu40_class(a), self.nyu40_class(b)
        return ca == cb and ca not in BROAD_NYU40


# -------------------------------------------------------------------------------------------- matching
@dataclass(frozen=True)
class Pair:
    """A prediction matched to a ground-truth object."""

    gt_id: str
    pred_id: str
    iou: float


@dataclass(frozen=True)
class SceneMatch:
    """The one-to-one matching of one scene's predictions to its ground truth."""

    scene_id: str
    pairs: tuple[Pair, ...]
    missed: tuple[str, ...]
    duplicated: tuple[str, ...]
    spurious: tuple[str, ...]

    @cached_property
    def pred_of(self) -> dict[str, str]:
        """Ground-truth id -> matched prediction id."""
        return {p.gt_id: p.pred_id for p in self.pairs}

    @cached_property
    def gt_of(self) -> dict[str, str]:
        """Prediction id -> matched ground-truth id."""
        return {p.pred_id: p.gt_id for p in self.pairs}


def iou_matrix(a: Sequence[SceneObject], b: Sequence[SceneObject]) -> np.ndarray:
    """(len(a), len(b)) 3D IoU of the axis-aligned boxes."""
    if not a or not b:
        return np.zeros((len(a), len(b)))
    objs = [*a, *b]
    boxes = BoxArray.from_center_size(np.array([o.center for o in objs]), np.array([o.size for o in objs]))
    rows, cols = np.meshgrid(np.arange(len(a)), len(a) + np.arange(len(b)), indexing="ij")
    i, j = rows.ravel(), cols.ravel()
    inter = intersection_volume(boxes, i, j)
    vol = boxes.volume()
    union = vol[i] + vol[j] - inter
    return (inter / np.maximum(union, 1e-12)).reshape(len(a), len(b))


def _is_structure(obj: SceneObject) -> bool:
    return obj.kind in STRUCTURE_KINDS or structure_kind(obj.category) is not ObjectKind.OBJECT


def match_objects(
    scene_id: str, gt: Sequence[SceneObject], pred: Sequence[SceneObject], min_iou: float = MIN_IOU
) -> SceneMatch:
    """Hungarian matching by 3D IoU (ordinary objects and structure separately); pairs need IoU >= min_iou."""
    if not 0.0 < min_iou <= 1.0:
        raise SceneError(f"min_iou must be in (0, 1], got {min_iou}")
    pairs: list[Pair] = []
    missed: list[str] = []
    duplicated: list[str] = []
    spurious: list[str] = []
    for structure in (False, True):
        g = [o for o in gt if _is_structure(o) is structure]
        p = [o for o in pred if _is_structure(o) is structure]
        m = iou_matrix(g, p)
        taken_g: set[int] = set()
        taken_p: set[int] = set()
        if m.size:
            rows, cols = linear_sum_assignment(-m)
            for r, c in zip(rows, cols, strict=True):
                if m[r, c] >= min_iou:
                    pairs.append(Pair(g[r].id, p[c].id, round(float(m[r, c]), 4)))
                    taken_g.add(int(r))
                    taken_p.add(int(c))
        missed += [o.id for k, o in enumerate(g) if k not in taken_g]
        for k, o in enumerate(p):
            if k in taken_p:
                continue
            overlaps = m.shape[0] > 0 and float(m[:, k].max()) >= min_iou
            (duplicated if overlaps else spurious).append(o.id)
    return SceneMatch(scene_id, tuple(pairs), tuple(missed), tuple(duplicated), tuple(spurious))


# ------------------------------------------------------------------------------------ misperceptions
class ErrorKind(StrEnum):
    """What the robot got wrong about one object."""

    LABEL = "label"
    COLOR = "color"
    SUPPORT = "support"


@dataclass(frozen=True)
class Correction:
    """One repairable misperception, and what the user tells the robot to fix it.

    ``pred_id`` is the robot's object (the one the user marks); ``truth`` the true name (LABEL), colour
    (COLOR) or the true supporting object's name (SUPPORT, with its robot id in ``anchor_id``);
    ``perceived`` what the robot has now ("" when a support relation is missing).
    """

    kind: ErrorKind
    pred_id: str
    truth: str
    perceived: str = ""
    anchor_id: str = ""

    def applied(self, graph: SceneGraph, vocab: LabelVocabulary) -> bool:
        """Whether the robot's graph now agrees with the truth on this point."""
        if self.pred_id not in graph:
            return False
        obj = graph.get(self.pred_id)
        if self.kind is ErrorKind.LABEL:
            return vocab.same(obj.category, self.truth)
        if self.kind is ErrorKind.COLOR:
            words = [plain(a) for a in obj.attributes]
            return any(colors_compatible(w, self.truth) for w in words) and not any(
                w in COLOR_NAMES and not colors_compatible(w, self.truth) for w in words
            )
        return self.anchor_id in graph and graph.has_edge(self.pred_id, Relation.SUPPORTED_BY, self.anchor_id)

    def apply_to(self, graph: SceneGraph) -> None:
        """Make the fix directly (the oracle used to decide which tasks the toolset can solve)."""
        obj = graph.get(self.pred_id)
        if self.kind is ErrorKind.LABEL:
            graph.put(obj.with_changes(category=self.truth))
        elif self.kind is ErrorKind.COLOR:
            rest = tuple(a for a in obj.attributes if plain(a) not in COLOR_NAMES)
            graph.put(obj.with_changes(attributes=(self.truth, *rest)))
        elif not graph.has_edge(self.pred_id, Relation.SUPPORTED_BY, self.anchor_id):
            graph.add_edge(Edge(self.pred_id, Relation.SUPPORTED_BY, self.anchor_id, "user"))

    def fact(self) -> str:
        """The ground-truth fact as text with the robot's ids (the in-context baseline's knowledge)."""
        if self.kind is ErrorKind.LABEL:
            truth, perceived = with_article(self.truth), with_article(self.perceived)
            return f"The object with id {self.pred_id} is {truth}, not {perceived}."
        if self.kind is ErrorKind.COLOR:
            return f"The object with id {self.pred_id} is {self.truth}, not {self.perceived}."
        return f"The object with id {self.pred_id} is on the {self.truth} with id {self.anchor_id}."

    def to_dict(self) -> dict[str, str]:
        return {
            "kind": self.kind.value,
            "pred_id": self.pred_id,
            "truth": self.truth,
            "perceived": self.perceived,
            "anchor_id": self.anchor_id,
        }


