"""Resolve a typed referring expression against a scene graph: ranked candidates, each with a score
and a one-line reason, ties made explicit.

How a candidate is scored:

* the pool is every object whose category the expression's category words name (see
  :func:`~synergai.scene.grounding.vocabulary.map_word_to`), or every ordinary object for "object" /
  "thing" ("what is on the table?"); anchors are resolved first, recursively,
  and the anchor's top-scoring (tied) candidates stand for it; a uniquely resolved anchor leaves the
  pool, tied ones of the target's own kind stay in it, each measured against the others ("the trash
  can next to the trash can": one of a group, not whatever stands beside any of them);
* each non-comparative relation (stored edges: on, inside, above, near ...; geometry: between, far from,
  within reach of, left / right / in front of / behind) and each attribute word (colour, size, material)
  gives a component in [0, 1]; their mean is the candidate's base score;
* comparatives (closest to, farthest from, a superlative) then rank the candidates that share the
  best base score; with comparatives the score is ``0.5 * base + 0.5 * comparative`` (others keep
  ``0.5 * base``). A comparative measured in metres (closest, a room position, an order, isolation)
  falls from 1 over the room's diagonal, not over the candidates' spread, so two that disagree
  ("the right one, closest to the window") weigh their metres alike instead of each scoring the
  other's winner 0 (a tie). Extremes within ``closest_tie`` (thresholds) share the top, and of those
  the ones whose centres are nearest (farthest) the anchor's within 0.1 m (two rails both 0.3 m from
  a sink: the one beside it, not the one past its corner): ambiguity is reported as
  :attr:`Grounding.tied`, never hidden by picking the first.

Left / right / in front of / behind use the viewpoint the expression sets ("facing the door") or the
given one; without one, the anchor's own front (someone looking at the anchor's front, as Sr3D phrases
them); for an anchor without a known front, a person at the room's centre looking at it.

People's own words add (:mod:`~synergai.scene.grounding.layout`): a room position (center, corner, wall),
an order within the group (left, middle, second from the right ...), isolation ("the lone chair"), each
a comparative over the candidates that share the best base score (so are size words: "the bigger of
the two", "the tall shelf"); a count of anchors ("with three
computers under it"); a negated clause ("not the one in the corner"), which scores the candidates the
clause singles out 0 and the others 1. A holding or vertical relation (on, under, above ...) that no
candidate holds in the stored graph ranks the tied candidates by their distance to its anchor: the edge
is missing (a desk under a window on the wall), and the nearest is what the words point at; for above /
under / below, the one on the named side whose centre is nearest the anchor's vertical line ("the sign
above the sink": two signs touch the sink, one hangs over it). Likewise left / right / in front of /
behind that no candidate holds (the sectors are strict): the one on the named side nearest the line
from the anchor that way, else the one nearest the anchor. A colour word that no candidate's colour
name reads ("the blue trash can" of two that read gray) ranks them by how near their colour is to it.
A clause said of the floor ("the box on the floor under the TV") is the target's own: the floor is one
surface, so only the target can be told apart by it. A colour word written on both the target and an
anchor of another kind ("the whiteboard closest to the black door", parsed with "black" on both) is
read as the anchor's only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from synergai.geometry.frames import Viewpoint
from synergai.scene.attributes import color_distance, color_name
from synergai.scene.build import between, facing_viewpoint, far, view_relation, within_reach
from synergai.scene.grounding.expression import ObjectRef, RelationRef
from synergai.scene.grounding.layout import (
    ORDER_TIE_M,
    RoomExtent,
    back_to,
    graded,
    looking_at,
    main_cluster,
    order_keys,
    position_keys,
    tightest,
)
from synergai.scene.grounding.rooms import room_anchor, room_parts
from synergai.scene.grounding.vocabulary import kindred_categories, map_word_to, nearest_categories
from synergai.scene.model import (
    SUPPORT_RELATIONS,
    VIEW_DEPENDENT,
    ObjectKind,
    Relation,
    SceneGraph,
    SceneObject,
)
from synergai.scene.relations.comparative import object_distance
from synergai.scene.relations.thresholds import RelationThresholds
from synergai.scene.vocabulary import (
    ANY_OBJECT_WORDS,
    COLOR_NAMES,
    COLOR_RGB,
    SIZE_WORDS,
    canonical_color,
    color_agreement,
    singular,
    words_of,
)

#: Scores closer than this are equal (ties).
TIE_TOLERANCE = 1e-6
#: Superlatives on sizes tie when within this fraction of the extreme.
SIZE_TIE_FRACTION = 0.05
#: Superlatives on heights above the floor tie when within this many metres.
HEIGHT_TIE_M = 0.05
#: Score of a related-but-not-named stored edge ("mounted on" asked, "hanging on" stored).
NEIGHBOUR_EDGE = 0.5
#: Score of a candidate that ties on the box gap of "closest" / "farthest" but whose centre is not the
#: nearest (farthest): below the top, above any graded second (at most 0.9), so it never outweighs metres.
CENTRE_SECOND = 0.99
#: Colour distances (8-bit redmean units) within this of the nearest tie when ranking by colour.
COLOUR_TIE = 15.0
#: Score of a colour component when the object's colour is unknown.
UNKNOWN_COLOR = 0.5

_FWD, _INV, _BOTH = "fwd", "inv", "both"
_NEAR_SET = (Relation.NEAR, Relation.NEXT_TO, Relation.BESIDE)
#: Stored relation name -> accepted edges (relation, direction, score).
def _holder_edges(rel: Relation) -> tuple[tuple[Relation, str, float], ...]:
    """A named holding relation, with the other holding relations as related-but-not-named edges."""
    return ((rel, _FWD, 1.0), *((r, _FWD, NEIGHBOUR_EDGE) for r in sorted(SUPPORT_RELATIONS) if r is not rel))


_EDGES: MappingProxyType[str, tuple[tuple[Relation, str, float], ...]] = MappingProxyType({
    "on": tuple((r, _FWD, 1.0) for r in sorted(SUPPORT_RELATIONS)),
    "supporting": tuple((r, _INV, 1.0) for r in sorted(SUPPORT_RELATIONS)),
    "inside": ((Relation.INSIDE, _FWD, 1.0), (Relation.EMBEDDED_IN, _FWD, 1.0)),
    "under": ((Relation.BELOW, _FWD, 1.0), (Relation.ABOVE, _INV, 1.0)),
    "below": ((Relation.BELOW, _FWD, 1.0), (Relation.ABOVE, _INV, 1.0)),
    "above": ((Relation.ABOVE, _FWD, 1.0), (Relation.BELOW, _INV, 1.0)),
    "near": tuple((r, _BOTH, 1.0) for r in _NEAR_SET),
    "next to": ((Relation.NEXT_TO, _BOTH, 1.0), (Relation.BESIDE, _BOTH, 1.0),
                (Relation.NEAR, _BOTH, NEIGHBOUR_EDGE)),
    "beside": ((Relation.BESIDE, _BOTH, 1.0), (Relation.NEXT_TO, _BOTH, 1.0),
               (Relation.NEAR, _BOTH, NEIGHBOUR_EDGE)),
    "higher than": ((Relation.HIGHER_THAN, _FWD, 1.0), (Relation.LOWER_THAN, _INV, 1.0)),
    "lower than": ((Relation.LOWER_THAN, _FWD, 1.0), (Relation.HIGHER_THAN, _INV, 1.0)),
    "hanging on": _holder_edges(Relation.HANGING_ON),
    "mounted on": _holder_edges(Relation.MOUNTED_ON),
    "embedded in": _holder_edges(Relation.EMBEDDED_IN),
    "affixed on": _holder_edges(Relation.AFFIXED_ON),
})
_COMPARATIVE = frozenset({"closest to", "farthest from"})
#: Relations that hold by degree: when several candidates satisfy them equally, a description that
#: singles out one object means the one they hold for most (the nearest, the farthest).
_GRADED = MappingProxyType({"near": "closest to", "next to": "closest to", "beside": "closest to",
                           "far from": "farthest from"})
#: Relations read from stored edges that, when no candidate holds them at all, still say where to look:
#: the stored edge is missing (a desk against the wall under a window, a box on a box it barely touches),
#: so the candidate nearest the anchor is the one meant.
_NEAREST_WHEN_NONE = frozenset({"on", "supporting", "inside", "under", "below", "above", "hanging on",
                                "mounted on", "embedded in", "affixed on"})
#: Vertical relations: with the stored edge missing, the candidate on the named side of the anchor whose
#: centre is nearest the anchor's vertical line is meant ("the sign above the sink": directly above).
_VERTICAL = MappingProxyType({"above": 1, "under": -1, "below": -1})
#: Left / right / in front of / behind: the direction in the viewer's frame (right, forward). With no
#: candidate inside the anchor's sector, the one nearest the ray from the anchor that way is meant.
_DIRECTIONS = MappingProxyType({"left of": (-1.0, 0.0), "right of": (1.0, 0.0), "in front of": (0.0, -1.0),
                                "behind": (0.0, 1.0)})
#: Added to the horizontal offset of a candidate on the wrong side (below the anchor for "above").
WRONG_SIDE_M = 10.0
#: Per candidate id: (component score in [0, 1], reason fragment).
Parts = dict[str, tuple[float, str]]


@dataclass(frozen=True)
class Candidate:
    """One object the expression may refer to: its id, score (higher is better) and why."""

    id: str
    score: float
    reason: str


@dataclass(frozen=True)
class Grounding:
    """The ranked candidates of an expression; ``tied`` > 1 means the top is ambiguous."""

    candidates: tuple[Candidate, ...]
    tied: int
    missing: str = ""
    closest_categories: tuple[str, ...] = ()
    #: every candidate that meets the description in full where only a degree ("next to": the closest)
    #: chose among them; what "how many" counts (empty when the words single one out, or none fits fully)
    fitting: tuple[str, ...] = ()

    @property
    def top(self) -> Candidate | None:
        """The best candidate (None when nothing matches)."""
        return self.candidates[0] if self.candidates else None

    @property
    def unique(self) -> bool:
        """Whether exactly one candidate has the top score."""
        return self.tied == 1

    def tied_ids(self) -> list[str]:
        """Ids of the candidates sharing the top score."""
        return [c.id for c in self.candidates[: self.tied]]

    def message(self) -> str:
        """One line for an observation: the missing phrase, or the top candidate(s) and the tie."""
        if self.missing:
            near = ", ".join(self.closest_categories)
            return f"{self.missing}; the closest categories are {near}" if near else self.missing
        if self.tied > 1:
            tops = self.candidates[: self.tied]
            return f"{self.tied} candidates tie: " + " | ".join(c.reason for c in tops)
        return self.candidates[0].reason


def ground(graph: SceneGraph, ref: ObjectRef, viewpoint: Viewpoint | None = None,
           thresholds: RelationThresholds | None = None) -> Grounding:
    """Resolve ``ref`` against ``graph`` (read only) into ranked candidates."""
    return _Resolver(graph, viewpoint, thresholds or RelationThresholds()).ground(ref)


def _negated(part: tuple[float, str]) -> tuple[float, str]:
    """A clause said with "not": what held now fails (and says so), what failed now holds."""
    score, why = part
    return 1.0 - score, why if score < 0.5 else f"{why}, asked not"


def _label(o: SceneObject) -> str:
    return f"{o.category} {o.id}"


def _measure(o: SceneObject, name: str) -> float:
    sx, sy, sz = o.size
    if name == "volume":
        return float(sx * sy * sz)
    if name == "height":
        return float(sz)
    if name == "length":
        return float(max(sx, sy))
    if name == "width":
        return float(min(sx, sy))
    if name == "top":
        return float(o.center[2] + sz / 2.0)
    return float(o.center[2] - sz / 2.0)  # bottom


#: Superlative -> (measure, +1 largest wins / -1 smallest wins, absolute tie tolerance or None).
_SUPERLATIVE: dict[str, tuple[str, int, float | None]] = {
    "largest": ("volume", 1, None), "smallest": ("volume", -1, None),
    "tallest": ("height", 1, None), "shortest": ("height", -1, None),
    "highest": ("top", 1, HEIGHT_TIE_M), "lowest": ("bottom", -1, HEIGHT_TIE_M),
}


def _words_below(ref: ObjectRef) -> set[str]:
    """The attribute words of ``ref`` and of its anchors, at any depth."""
    return {*ref.attributes, *(w for r in ref.relations for a in r.anchors for w in _words_below(a))}


class _Resolver:
    def __init__(self, graph: SceneGraph, viewpoint: Viewpoint | None, th: RelationThresholds) -> None:
        self.graph = graph
        self.viewpoint = viewpoint
        self.th = th
        self.categories = sorted({o.category for o in graph})
        self.room = RoomExtent.of(graph)

    # ------------------------------------------------------------------ expression
    def ground(self, ref: ObjectRef) -> Grounding:
        ref = self._floor_clauses_hoisted(ref)
        ref = self._shared_colours_dropped(ref)
        anything = singular(ref.category) in ANY_OBJECT_WORDS and ref.category not in self.categories
        matched = {o.category for o in self.graph if o.kind is ObjectKind.OBJECT} if anything else set(
            map_word_to(ref.category, self.categories))
        if sum(o.category in matched for o in self.graph) == 1 and (
                ref.order or ref.superlative or ref.group_size):
            # "the bin on the right" of one object labelled bin: the group compared is of its kind, which
            # the scan labels with kindred names too ("storage bin")
            matched |= set(kindred_categories(ref.category, self.categories))
        if not matched:
            return Grounding((), 0, f"there is no {ref.category} in this room",
                             tuple(nearest_categories(ref.category, self.categories)))
        relations: list[tuple[RelationRef, list[list[str]]]] = []
        anchor_ids: set[str] = set()
        in_rooms = []  # "in the kitchen": rooms as anchors (synergai.scene.grounding.rooms)
        for r in ref.relations:
            rooms = room_anchor(self.graph, r, self.categories)
            if rooms is not None:
                in_rooms.append(rooms)
                continue
            sets = []
            for a in r.anchors:
                g = self.ground(a)
                if g.missing:
                    return Grounding((), 0, g.missing, g.closest_categories)
                sets.append(g.tied_ids())
                if g.unique:  # a tied anchor of the target's kind stays a candidate: "the pillow behind
                    anchor_ids.update(g.tied_ids())  # the white pillow" means another white pillow
            relations.append((r, sets))
        vp = self._stance(ref) or self.viewpoint
        pool = [o for o in self.graph if o.category in matched and o.id not in anchor_ids
                and (not anything or o.kind is ObjectKind.OBJECT)]
        if not pool and relations and all(o.id in anchor_ids for o in self.graph if o.category in matched):
            # "the coffee table on the coffee table": the description names only its own anchor, so
            # nothing but "any object" can satisfy it (a small model copies the anchor into the target)
            pool = [o for o in self.graph if o.kind is ObjectKind.OBJECT and o.id not in anchor_ids]
        if not pool:
            return Grounding((), 0, f"there is no {ref.category} other than the anchor in this room",
                             tuple(nearest_categories(ref.category, self.categories)))
        ids = [o.id for o in pool]
        parts: dict[str, list[tuple[float, str]]] = {i: [] for i in ids}
        unmet: list[tuple[RelationRef, list[list[str]]]] = []  # held by no candidate (see _NEAREST_WHEN_NONE)
        for r, sets in relations:
            if r.relation not in _COMPARATIVE:
                scored = self._relation(r, sets, ids, vp)
                for i, part in scored.items():
                    parts[i].append(_negated(part) if r.negated else part)
                fallback = r.relation in _NEAREST_WHEN_NONE or r.relation in _DIRECTIONS
                if fallback and not r.negated and not any(sc > 0 for sc, _ in scored.values()):
                    unmet.append((r, sets))
            elif r.negated:  # "not the one closest to the door": every candidate but the closest
                for i, (sc, why) in self._comparative(r, sets, ids).items():
                    parts[i].append((0.0, f"is the one {why}") if sc >= 1.0 else (1.0, f"not the one: {why}"))
        if ref.position and ref.position.startswith("not "):
            for i, (sc, why) in self._position(ref.position[4:], ids).items():
                parts[i].append((0.0, f"is the one {why}") if sc >= 1.0 else (1.0, f"not the one {why}"))
        sizes = [w for w in ref.attributes if " ".join(words_of(w)) in SIZE_WORDS]
        for word in ref.attributes:
            if word not in sizes:
                for i, part in self._attribute(word, pool).items():
                    parts[i].append(part)
        for rooms in in_rooms:
            for i, part in room_parts(self.graph, rooms, ids).items():
                parts[i].append(part)
        base = {i: (sum(s for s, _ in p) / len(p) if p else 1.0) for i, p in parts.items()}
        best = max(base.values())
        group = [i for i in ids if base[i] >= best - TIE_TOLERANCE]
        comps: list[dict[str, tuple[float, str]]] = [
            self._comparative(r, sets, group) for r, sets in relations if r.relation in _COMPARATIVE
        ]
        if ref.position and not ref.position.startswith("not "):
            comps.append(self._position(ref.position, group))
        if ref.alone:
            comps.append(self._alone(group, matched))
        if ref.order:
            comps.append(self._order(ref.order, group, vp, ref.group_size))
        # "the lower of the two stacked bins": compared among the number said, those standing closest
        among = tightest(self.graph, group, ref.group_size) if ref.group_size else group
        apart = {i: (0.0, f"apart from the group of {len(among)}") for i in group if i not in among}
        if ref.superlative:
            comps.append({**self._superlative(ref.superlative, among), **apart})
        comps += [{**self._size(word, among), **apart} for word in sizes]
        comps += [c for c in (self._colour_rank(w, group) for w in ref.attributes) if c]
        fitting = tuple(group) if not comps and best >= 1.0 - TIE_TOLERANCE else ()
        if len(group) > 1:  # a tie on a relation that holds by degree: the degree decides
            comps += [self._comparative(r.model_copy(update={"relation": _GRADED[r.relation]}), sets, group)
                      for r, sets in relations if r.relation in _GRADED and not r.negated]
            comps += [self._aligned(r.relation, sets[0], group) if r.relation in _VERTICAL else
                      self._directional(r.relation, sets[0], group, vp) if r.relation in _DIRECTIONS else
                      self._comparative(r.model_copy(update={"relation": "closest to"}), sets, group)
                      for r, sets in unmet]
        scores: dict[str, float] = {}
        reasons: dict[str, list[str]] = {i: [t for _, t in parts[i]] for i in ids}
        for i in ids:
            if not comps:
                scores[i] = base[i]
                continue
            if i in group:
                scores[i] = 0.5 * base[i] + 0.5 * sum(c[i][0] for c in comps) / len(comps)
                reasons[i] += [c[i][1] for c in comps]
            else:
                scores[i] = 0.5 * base[i]
        order = {i: k for k, i in enumerate(ids)}
        ranked = sorted(ids, key=lambda i: (-round(scores[i], 9), order[i]))
        top = scores[ranked[0]]
        tied = sum(1 for i in ranked if scores[i] >= top - TIE_TOLERANCE)
        objs = {o.id: o for o in pool}
        cands = tuple(
            Candidate(i, round(scores[i], 6), f"{_label(objs[i])}: " + (
                "; ".join(reasons[i]) if reasons[i] else f"named by '{ref.category}'"))
            for i in ranked
        )
        return Grounding(cands, tied, fitting=fitting)

    def _floor_clauses_hoisted(self, ref: ObjectRef) -> ObjectRef:
        """ "the box on the floor under the TV": the floor is one surface, so a clause said of it places
        the target, not the floor; the floor anchor's relations become the target's own."""
        hoisted: list[RelationRef] = []
        kept: list[RelationRef] = []
        for r in ref.relations:
            a = r.anchors[0]
            if len(r.anchors) == 1 and not r.negated and a.relations and self._is_floor(a.category):
                kept.append(r.model_copy(update={"anchors": [a.model_copy(update={"relations": []})]}))
                hoisted += a.relations
            else:
                kept.append(r)
        return ref.model_copy(update={"relations": kept + hoisted}) if hoisted else ref

    def _shared_colours_dropped(self, ref: ObjectRef) -> ObjectRef:
        """ "the whiteboard closest to the black door" read as whiteboard{black} closest to door{black}:
        a colour word written on the target and on an anchor of another kind is one word said once, and
        the anchor is what it picks out; on the target it would rank the candidates by a colour nobody
        said of them. Size words stay (a "taller person on the couch" is said of the person)."""
        below = {w for r in ref.relations for a in r.anchors if a.category != ref.category
                 for w in _words_below(a)}
        keep = [w for w in ref.attributes if w not in below or not canonical_color(w)]
        return ref.model_copy(update={"attributes": keep}) if len(keep) < len(ref.attributes) else ref

    def _is_floor(self, word: str) -> bool:
        """Whether ``word`` names only the floor (structural floor nodes) in this graph."""
        named = set(map_word_to(word, self.categories))
        kinds = {o.kind for o in self.graph if o.category in named}
        return kinds == {ObjectKind.FLOOR}

    # ------------------------------------------------------------------ relations
    def _names(self, anchors: Sequence[str]) -> str:
        return " or ".join(_label(self.graph.get(a)) for a in anchors)

    def _relation(self, r: RelationRef, sets: list[list[str]], ids: list[str],
                  vp: Viewpoint | None = None) -> Parts:
        name = r.relation
        if name in _EDGES and r.count:
            return {i: self._counted(name, i, sets[0], r.count) for i in ids}
        if name in _EDGES:
            return {i: self._edge_score(name, i, sets[0]) for i in ids}
        if name == "between":
            inside: set[str] = set()
            for a in sets[0]:
                for b in sets[1]:
                    if a != b:
                        inside.update(between(self.graph, ids, a, b, self.th))
            where = f"{self._names(sets[0])} and {self._names(sets[1])}"
            return {i: (1.0, f"between {where}") if i in inside else (0.0, f"not between {where}")
                    for i in ids}
        if name in ("far from", "within reach of"):
            fn = far if name == "far from" else within_reach
            hits: set[str] = set()
            for a in sets[0]:
                hits.update(fn(self.graph, a, ids, self.th))
            where = self._names(sets[0])
            return {i: (1.0, f"{name} {where}") if i in hits else (0.0, f"not {name} {where}") for i in ids}
        rel = r.meaning
        if rel in VIEW_DEPENDENT:
            return self._view(name, rel, sets[0], ids, vp)
        raise AssertionError(f"relation {name!r} has no resolver")  # RELATION_MEANING and this module agree

    def _edge_score(self, name: str, subject: str, anchors: list[str]) -> tuple[float, str]:
        best, why = 0.0, ""
        for a in anchors:
            if a == subject:
                continue
            for rel, direction, w in _EDGES[name]:
                fwd = direction in (_FWD, _BOTH) and self.graph.has_edge(subject, rel, a)
                inv = direction in (_INV, _BOTH) and self.graph.has_edge(a, rel, subject)
                if (fwd or inv) and w > best:
                    stored = rel.value.replace("_", " ") if fwd else f"{a} {rel.value.replace('_', ' ')} it"
                    best, why = w, f"{name} {_label(self.graph.get(a))}" + (
                        "" if w == 1.0 else f" (stored: {stored})")
        return (best, why) if best > 0 else (0.0, f"not {name} {self._names(anchors)}")

    def _view(self, name: str, rel: Relation, anchors: list[str], ids: list[str],
              given: Viewpoint | None = None) -> Parts:
        hits: dict[str, str] = {}  # candidate -> the anchor and frame it holds for
        for a in anchors:
            vp, frame = self._frame(a, given)
            for i in view_relation(self.graph, ids, a, rel, vp, self.th):
                hits.setdefault(i, f"{name} {_label(self.graph.get(a))} ({frame})")
        where = self._names(anchors)
        return {i: (1.0, hits[i]) if i in hits else (0.0, f"not {name} {where}") for i in ids}

    def _frame(self, anchor: str, given: Viewpoint | None) -> tuple[Viewpoint, str]:
        """Where left / right of ``anchor`` are seen from, and its name: the viewpoint said or given; else
        facing the anchor's front; else from the room's centre looking at it."""
        if given is not None:
            return given, "from the viewpoint"
        front = facing_viewpoint(self.graph.get(anchor))
        if front is not None:
            return front, "facing its front"
        return looking_at(self.room, np.asarray(self.graph.get(anchor).center)), "from the room's centre"

    def _counted(self, name: str, subject: str, anchors: list[str], count: int) -> tuple[float, str]:
        """ "with three computers under it": how many of the anchors hold the relation, against ``count``."""
        n = sum(1 for a in anchors if self._edge_score(name, subject, [a])[0] >= 1.0)
        what = f"{name} {n} of {self._names(anchors[:1]).split()[0]} (asked {count})"
        return (1.0 if n == count else 0.5 if n else 0.0), what

    def _stance(self, ref: ObjectRef) -> Viewpoint | None:
        """The viewpoint the expression sets ("facing the door", "back to the window"); None when it sets
        none, or names an object the room does not hold (the default view then stands)."""
        for anchor, facing in ((ref.facing, True), (ref.back_to, False)):
            if anchor is None:
                continue
            g = self.ground(anchor)
            if g.missing or not g.candidates:
                continue
            at = np.mean([self.graph.get(i).center for i in g.tied_ids()], axis=0)
            return looking_at(self.room, at) if facing else back_to(self.room, at)
        return None

    def _ranked(self, keys: dict[str, float], word: str, unit: str = "m") -> Parts:
        scores = graded(keys, scale=self.room.diagonal)
        return {i: (s, f"{word} ({keys[i]:.2f} {unit} from the best)" if s < 1.0 else word)
                for i, s in scores.items()}

    def _position(self, position: str, group: list[str]) -> Parts:
        keys = position_keys(self.graph, self.room, group, position)
        return self._ranked(keys, f"nearest the room's {position}")

    def _order(self, order: str, group: list[str], vp: Viewpoint | None, size: int | None = None) -> Parts:
        """The place of each candidate in its row; the row is the ``size`` said ("the middle of the three
        cups") standing closest together, else the largest cluster (not a stray one across the room)."""
        if len(group) == 1:
            return {group[0]: (1.0, f"{order} (the only one)")}
        row = tightest(self.graph, group, size) if size else main_cluster(self.graph, group)
        centre = np.mean([self.graph.get(i).center for i in row], axis=0)
        view = vp or looking_at(self.room, centre)
        out = self._ranked(order_keys(self.graph, row, order, view), f"{order} of the group")
        return {i: out.get(i, (0.0, f"apart from the group of {len(row)}")) for i in group}

    def _alone(self, group: list[str], categories: set[str]) -> Parts:
        """ "the lone chair": the candidate farthest from any other object of its categories."""
        kin = [o.id for o in self.graph if o.category in categories]
        b = self.graph.box_array([*group, *kin])
        n = len(group)
        keys: dict[str, float] = {}
        for k, i in enumerate(group):
            others = np.array([n + j for j, o in enumerate(kin) if o != i], dtype=int)
            gap = float(object_distance(b, np.full(len(others), k), others).min()) if len(others) else 99.0
            keys[i] = -gap
        scores = graded(keys, ORDER_TIE_M, self.room.diagonal)
        return {i: (s, f"{-keys[i]:.1f} m from the nearest of its kind") for i, s in scores.items()}

    def _comparative(self, r: RelationRef, sets: list[list[str]], group: list[str]) -> Parts:
        anchors = sets[0]
        # a candidate is measured against the other anchors ("the pillow closest to another pillow")
        cands = [i for i in group if any(a != i for a in anchors)]
        largest = r.relation == "farthest from"
        if not cands:
            return {i: (0.0, f"is the anchor of {r.relation}") for i in group}
        b = self.graph.box_array([*cands, *anchors])
        n = len(cands)
        d = np.full(n, np.inf)
        for k, a in enumerate(anchors):
            gaps = object_distance(b, np.arange(n), np.full(n, n + k))
            d = np.minimum(d, np.where([i == a for i in cands], np.inf, gaps))
        key = -d if largest else d
        order = np.argsort(key, kind="stable")
        best = float(d[order[0]])
        runner = float(d[order[1]]) if n > 1 else None
        span = max(float(np.max(d) - np.min(d)), self.room.diagonal) or 1.0
        word = "farthest" if largest else "closest"
        out: dict[str, tuple[float, str]] = {}
        where = self._names(anchors)
        # two that touch the anchor (both 0 m apart) are not equally close: the one whose centre is nearer
        tied = [k for k in range(n) if abs(float(d[k]) - best) <= self.th.closest_tie]
        centre = self._centre_distances([cands[k] for k in tied], anchors)
        centre_best = max(centre.values()) if largest else min(centre.values())
        for k, i in enumerate(cands):
            dk = float(d[k])
            if abs(dk - best) <= self.th.closest_tie:
                s = 1.0 if abs(centre[i] - centre_best) <= ORDER_TIE_M else CENTRE_SECOND
                first = runner is not None and k == int(order[0])
                off = abs(centre[i] - centre_best)
                note = word + (f"; next {runner:.1f} m" if first else "") + (
                    "" if s == 1.0 else f"; its centre {off:.1f} m {'nearer' if largest else 'farther'}")
            else:
                s = 0.9 * (1.0 - abs(dk - best) / span)
                note = f"{abs(dk - best):.1f} m {'nearer' if largest else 'farther'} than the {word}"
            out[i] = (s, f"{dk:.1f} m from {where} ({note})")
        for i in group:
            out.setdefault(i, (0.0, f"is the anchor of {r.relation}"))
        return out

    def _centre_distances(self, ids: list[str], anchors: list[str]) -> dict[str, float]:
        """Per candidate, the distance between its centre and the nearest anchor's centre (not itself)."""
        out = {}
        for i in ids:
            c = np.asarray(self.graph.get(i).center, dtype=float)
            out[i] = min((float(np.linalg.norm(c - np.asarray(self.graph.get(a).center, dtype=float)))
                          for a in anchors if a != i), default=np.inf)
        return out

    def _directional(self, name: str, anchors: list[str], group: list[str], given: Viewpoint | None) -> Parts:
        """ "right of the copier" with no candidate in its sector: the candidates on that side of it (in the
        frame :meth:`_view` uses), nearest the ray from the anchor in that direction first; then, when the
        frame put them all on the other side (the speaker stood elsewhere), the nearest the anchor."""
        way = np.asarray(_DIRECTIONS[name])
        keys: dict[str, float] = {}
        for a in anchors:
            vp, _ = self._frame(a, given)
            at = vp.to_local(np.asarray([self.graph.get(a).center]))[0, :2]
            for i in group:
                if i == a:
                    continue
                d = vp.to_local(np.asarray([self.graph.get(i).center]))[0, :2] - at
                along = float(d @ way)
                key = abs(float(d[0] * way[1] - d[1] * way[0])) if along > 0 else WRONG_SIDE_M + float(
                    np.linalg.norm(d))
                keys[i] = min(keys.get(i, np.inf), key)
        for i in group:
            keys.setdefault(i, 2 * WRONG_SIDE_M)
        return self._off_line(keys, f"the line {name} {self._names(anchors)}", "on the other side")

    def _aligned(self, name: str, anchors: list[str], group: list[str]) -> Parts:
        """ "above" / "under" the anchor without the stored edge: the candidates on that side of it (by
        centre height), nearest its vertical line first (horizontal distance between the centres)."""
        sign = _VERTICAL[name]
        keys: dict[str, float] = {}
        for i in group:
            c = np.asarray(self.graph.get(i).center, dtype=float)
            best = np.inf
            for a in anchors:
                if a == i:
                    continue
                ac = np.asarray(self.graph.get(a).center, dtype=float)
                side = 0.0 if sign * (c[2] - ac[2]) > 0 else WRONG_SIDE_M
                best = min(best, float(np.linalg.norm(c[:2] - ac[:2])) + side)
            keys[i] = best if np.isfinite(best) else 2 * WRONG_SIDE_M
        return self._off_line(keys, f"the vertical of {self._names(anchors)}", f"not {name} it")

    def _off_line(self, keys: dict[str, float], line: str, wrong_side: str) -> Parts:
        """Scores from offsets off ``line`` (metres; ``WRONG_SIDE_M`` added on the wrong side), graded
        over the room's diagonal."""
        scores = graded(keys, ORDER_TIE_M, self.room.diagonal)
        return {i: (s, f"{keys[i] % WRONG_SIDE_M:.1f} m off {line}"
                    + ("" if keys[i] < WRONG_SIDE_M else f", {wrong_side}")) for i, s in scores.items()}

    def _size(self, word: str, group: list[str]) -> Parts:
        """ "the bigger of the two", "the tall shelf": a size word ranks the candidates that fit the rest
        (the larger the better, or the smaller), the extremes within ``SIZE_TIE_FRACTION`` tied."""
        key = " ".join(words_of(word))
        measure, sign = SIZE_WORDS[key]
        vals = {i: _measure(self.graph.get(i), measure) for i in group}
        best = max(vals.values()) if sign > 0 else min(vals.values())
        scores = graded({i: -sign * v for i, v in vals.items()}, SIZE_TIE_FRACTION * abs(best))
        lo, hi = min(vals.values()), max(vals.values())
        return {i: (sc, f"{key}: {measure} {vals[i]:.2f} (range {lo:.2f}-{hi:.2f})")
                for i, sc in scores.items()}

    def _superlative(self, word: str, group: list[str]) -> Parts:
        measure, sign, tol = _SUPERLATIVE[word]
        vals = {i: _measure(self.graph.get(i), measure) for i in group}
        best = max(vals.values()) if sign > 0 else min(vals.values())
        span = (max(vals.values()) - min(vals.values())) or 1.0
        limit = tol if tol is not None else SIZE_TIE_FRACTION * abs(best)
        unit = "m³" if measure == "volume" else "m"
        out = {}
        for i, v in vals.items():
            if abs(v - best) <= limit:
                out[i] = (1.0, f"{word} ({measure} {v:.2f} {unit})")
            else:
                out[i] = (0.9 * (1.0 - abs(v - best) / span), f"not the {word} ({measure} {v:.2f} {unit})")
        return out

    # ------------------------------------------------------------------ attributes
    def _colour_rank(self, word: str, group: list[str]) -> Parts:
        """ "the blue trash can" when no candidate's colour reads blue (both read gray): the candidates
        ranked by how near their colour is to the word's, within ``COLOUR_TIE`` tied; {} when the word
        is no colour, a candidate does read it, or a candidate's colour is unknown."""
        name = canonical_color(word)
        objs = [self.graph.get(i) for i in group]
        if len(group) < 2 or not name or name not in COLOR_RGB or any(o.color is None for o in objs):
            return {}
        if any(color_agreement(word, color_name(o.color)) >= 1.0 for o in objs if o.color is not None):
            return {}
        keys = {o.id: color_distance(o.color, name) for o in objs if o.color is not None}
        scores = graded(keys, COLOUR_TIE)
        # said in words, not as the colour distance (a bare number an answer could copy as a count)
        return {i: (s, f"the colour nearest {name}" if s >= 1.0 else f"a colour farther from {name}")
                for i, s in scores.items()}

    def _attribute(self, word: str, pool: list[SceneObject]) -> Parts:
        colour = canonical_color(word)
        if colour:
            out = {}
            for o in pool:
                named = color_name(o.color) if o.color is not None else next(
                    (a for a in o.attributes if canonical_color(a) in COLOR_NAMES and canonical_color(a)), "")
                if not named:
                    out[o.id] = (UNKNOWN_COLOR, f"colour unknown (asked {word})")
                else:
                    s = color_agreement(word, named)
                    out[o.id] = (s, f"{named}" + ("" if s == 1.0 else f" (asked {word})"))
            return out
        key = " ".join(words_of(word))
        if key in SIZE_WORDS:
            measure, sign = SIZE_WORDS[key]
            vals = {o.id: _measure(o, measure) for o in pool}
            lo, hi = min(vals.values()), max(vals.values())
            span = hi - lo
            out = {}
            for i, v in vals.items():
                s = 1.0 if span <= 0 else ((v - lo) / span if sign > 0 else (hi - v) / span)
                out[i] = (s, f"{key}: {measure} {v:.2f} (range {lo:.2f}-{hi:.2f})")
            return out
        has = {o.id: key in {" ".join(words_of(a)) for a in o.attributes} or key in set(words_of(" ".join(
            o.attributes))) for o in pool}
        if not any(has.values()):
            return {}  # no candidate records this word: it cannot tell them apart
        return {i: (1.0, key) if h else (0.0, f"not {key}") for i, h in has.items()}
