"""The scene APIs of LLM-TPC (Fig. S4) over a scene graph, for programs the model writes: the paper's names
and arguments (even where they shadow builtins), plus our ``rooms()`` / ``room(name)``; wrong arguments raise
errors listing the legal values. With ``ordered_sets`` a set iterates, prints and indexes nearest first.
The values programs pass are read in :mod:`synergai.agent.program.values`.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from synergai.agent.matching import category_matches
from synergai.agent.program.values import (
    AGENT_RELATIONS,
    ATTRIBUTE_TYPES,
    ATTRIBUTE_WORDS,
    CLOCK_HOURS,
    DIRECTIONS,
    FIELDS,
    OBJECT_FIELDS,
    QUERY_RELATIONS,
    RELATE_RELATIONS,
    UNKNOWN,
    choose,
    clock_hour,
    legal_value,
    near_hours,
)
from synergai.agent.situated import CLOCK_DIRECTIONS
from synergai.geometry.frames import Viewpoint
from synergai.scene import build
from synergai.scene.attributes import box_shape, closest_color, color_name
from synergai.scene.grounding.rooms import rooms_named
from synergai.scene.model import SUPPORT_RELATIONS, Relation, SceneGraph
from synergai.scene.relations.thresholds import RelationThresholds
from synergai.scene.serialization import graph_from_dict
from synergai.scene.vocabulary import COLOR_RGB

#: The functions programs may call, in the order the documentation lists them.
API_FUNCTIONS = ("scene", "rooms", "room", "filter", "relate_agent", "relate", "query_relation_agent",
                 "query_relation", "query_attribute", "query_state")
#: Parameters accepted only to be lenient (the documentation's signatures leave them out).
LENIENT_ONLY = MappingProxyType({"relate_agent": ("reference_object",),
                                 "query_relation_agent": ("reference_object",),
                                 "filter": ("relation", "reference_object")})
#: Keywords that name another parameter of the same role, for a function without that keyword.
KEYWORD_ALIASES = MappingProxyType({"object_set": "object", "object": "object_set",
                                    "relation": "candidate_relations", "candidate_relations": "relation"})
AROUND_M = 2.0


class ObjectAttribute:
    """One object as programs see it: ``category``, ``xyz`` (centre), ``id``; ``obj.color`` asks ``query``."""

    def __init__(self, object_id: str, category: str, xyz: list[float], rank: float = 0.0,
                 query: Callable[[ObjectAttribute, str], Any] | None = None) -> None:
        self.id = object_id
        self.category = category
        self.xyz = xyz
        self._rank = (rank, object_id)  # the order of sets: distance from the agent, then id
        self._query = query

    def __getattr__(self, name: str) -> Any:
        query = None if name.startswith("_") else self.__dict__.get("_query")
        if query is None or legal_value(name, FIELDS) is None:
            raise AttributeError(f"objects have no .{name}: their fields are {', '.join(FIELDS)}; ask for "
                                 "relations and states with query_relation() and query_state()")
        return query(self, name)

    def __repr__(self) -> str:
        return f"{self.category} (id: {self.id})"

    def __hash__(self) -> int:
        return hash(self.id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObjectAttribute) and other.id == self.id


def _keeping_type(name: str) -> Callable[..., Any]:
    """The ``set`` method ``name``, returning a set of the caller's type."""
    method = getattr(set, name)

    def keep(self: ObjectSet, *others: Any) -> ObjectSet:
        return type(self)(method(self, *others))

    return keep


class ObjectSet(set):
    """The paper's ``Set[ObjectAttribute]``, iterated (and, if ``indexable``, indexed) nearest to the agent
    first, ties by id; set operations keep the type."""

    indexable: bool = True
    _order: tuple[ObjectAttribute, ...] = ()  # an order sort() chose (nearest first until then)

    def _ordered(self) -> list[ObjectAttribute]:
        nearest = sorted(super().__iter__(), key=lambda o: o._rank)
        chosen = [o for o in self._order if set.__contains__(self, o)]
        return chosen + [o for o in nearest if o not in chosen]

    def sort(self, *, key: Any = None, reverse: bool = False) -> None:
        """Order the set (iteration, printing, indexing) as ``sorted(objects, key=..., reverse=...)``."""
        self._order = tuple(sorted(self._ordered(), key=key, reverse=reverse))

    def __iter__(self) -> Iterator[ObjectAttribute]:
        return iter(self._ordered())

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or legal_value(name, FIELDS) is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        if self.indexable and self:  # one object expected: the first, as objects[0]
            return getattr(self._ordered()[0], name)
        what = "an empty set of objects (nothing matched: check len(objects) > 0 first)" \
            if self.indexable else "a set of objects"
        raise AttributeError(f"{what} has no .{name}: take one of its objects (for obj in objects: ...) "
                             f"and read obj.{name}")

    def __repr__(self) -> str:  # as a set prints, so programs' output reads the same
        return "{" + ", ".join(map(repr, self._ordered())) + "}" if self else "set()"

    def __getitem__(self, index: object) -> Any:
        if not self.indexable:
            raise TypeError("a set of objects cannot be indexed: loop over it (for obj in objects: ...) or "
                            "take the nearest with next(iter(objects)) after checking it is not empty")
        if not isinstance(index, int | slice):
            raise TypeError(f"object sets are indexed by position (0 is the nearest), got {index!r}")
        try:
            return self._ordered()[index]
        except IndexError:
            raise IndexError(f"index {index} is out of range: the set holds {len(self)} objects; "
                             "check len(objects) first") from None

    __or__ = __ror__ = _keeping_type("__or__")
    __and__ = __rand__ = _keeping_type("__and__")
    __sub__ = _keeping_type("__sub__")
    __xor__ = __rxor__ = _keeping_type("__xor__")
    union = _keeping_type("union")
    intersection = _keeping_type("intersection")
    difference = _keeping_type("difference")
    copy = _keeping_type("copy")

    def pop(self) -> ObjectAttribute:
        """Removes and returns the nearest object (a plain set would return an arbitrary one)."""
        if not self:
            raise KeyError("pop from an empty set of objects: check len(objects) > 0 first")
        nearest = self._ordered()[0]
        self.remove(nearest)
        return nearest


class StrictObjectSet(ObjectSet):
    """LLM-TPC's contract: a set that cannot be indexed."""

    indexable = False


#: The relations of the graph that each direction, as seen by the agent, is.
_VIEW = MappingProxyType({"left": Relation.LEFT_OF, "right": Relation.RIGHT_OF, "front": Relation.IN_FRONT_OF,
                          "back": Relation.BEHIND, "behind": Relation.BEHIND})
_ON_TOP = SUPPORT_RELATIONS - {Relation.INSIDE, Relation.EMBEDDED_IN}
#: The graph's relations that make each relation of relate() hold, and those that keep it from holding.
_FACTS = MappingProxyType({
    "on": (_ON_TOP, frozenset()),
    "inside": ({Relation.INSIDE, Relation.EMBEDDED_IN}, frozenset()),
    "hanging on": ({Relation.HANGING_ON, Relation.MOUNTED_ON, Relation.AFFIXED_ON}, frozenset()),
    "supporting": ({Relation.SUPPORTS}, frozenset()),
    "above": ({Relation.ABOVE, Relation.SUPPORTED_BY, Relation.HIGHER_THAN}, {Relation.LOWER_THAN}),
    "below": ({Relation.BELOW, Relation.SUPPORTS, Relation.LOWER_THAN}, frozenset()),
    "under": ({Relation.BELOW, Relation.SUPPORTS}, frozenset()),
    "near": ({Relation.NEAR, Relation.NEXT_TO, Relation.BESIDE}, frozenset()),
    "next to": ({Relation.NEXT_TO, Relation.BESIDE, Relation.NEAR}, frozenset())})


class SceneAPI:
    """The functions a program may call, bound to one graph and the agent's pose."""

    def __init__(self, graph: SceneGraph, viewpoint: Viewpoint | None, ordered_sets: bool = True) -> None:
        self.graph = graph
        self.viewpoint = viewpoint or Viewpoint((0.0, 0.0, 0.0), (0.0, 1.0, 0.0))
        self.thresholds = dataclasses.replace(RelationThresholds(), epsilon=0.0)
        self.set_type: type[ObjectSet] = ObjectSet if ordered_sets else StrictObjectSet
        dist = self._agent_distance([o.id for o in graph])
        self.objects = {o.id: ObjectAttribute(o.id, o.category, [round(float(c), 3) for c in o.center],
                                              float(d), self.query_attribute)
                        for o, d in zip(graph, dist, strict=True)}

    # ----- argument checks
    def _obj(self, value: Any, what: str = "object") -> ObjectAttribute:
        if isinstance(value, set | frozenset | list | tuple):
            kind = "set" if isinstance(value, set | frozenset) else type(value).__name__
            items = list(value) if isinstance(value, list | tuple | ObjectSet) else sorted(
                value, key=lambda o: getattr(o, "_rank", (0.0, "")))
            if not items:
                raise ValueError(f"{what} must be one object, got an empty {kind}: nothing matched; check "
                                 "len(objects) > 0 first")
            if not self.set_type.indexable:
                raise TypeError(f"{what} must be one object, got a {kind} of {len(value)} objects: loop "
                                "over it (for obj in objects: ...) and pass each object")
            value = items[0]  # one object expected: the first (nearest), as objects[0]
        if not isinstance(value, ObjectAttribute) or value.id not in self.objects:
            raise TypeError(f"{what} must be an ObjectAttribute from scene(), got {type(value).__name__}")
        return value

    def _set(self, value: Any) -> list[ObjectAttribute]:
        if isinstance(value, ObjectAttribute):
            return [value]
        if not isinstance(value, set | frozenset | list | tuple):
            raise TypeError(f"object_set must be a set of ObjectAttribute, got {type(value).__name__}")
        # a list of sets is their union
        items = [o for v in value for o in (v if isinstance(v, set | frozenset | list | tuple) else [v])]
        return list(dict.fromkeys(self._obj(v, "every element of object_set") for v in items))

    def _wrap(self, ids: Iterable[str]) -> ObjectSet:
        return self.set_type(self.objects[i] for i in ids)

    # ----- the paper's functions
    def scene(self) -> ObjectSet:
        """Returns a set of objects in the scene."""
        return self.set_type(self.objects.values())

    def filter(self, object_set: Any, category: Any = None, relation: Any = None,
               reference_object: Any = None) -> Any:
        """Returns the objects whose category is `category` (a list of them, or a predicate); given a
        ``relation``, those so related (:meth:`relate_agent`); ``filter(function, items)`` as Python's."""
        if callable(object_set) and not callable(category):  # Python's filter(function, iterable)
            items = list(category)
            kept = [x for x in items if object_set(x)]
            return self.set_type(kept) if all(isinstance(x, ObjectAttribute) for x in items) else kept
        if category is None and relation is None:
            raise TypeError("filter() needs a category, e.g. filter(object_set=scene(), category='table')")
        found = self.set_type(self._set(object_set)) if category is None else self._of_category(
            object_set, category)
        if relation is None:
            if reference_object is not None:
                raise TypeError("filter() given a reference_object needs the relation to it, e.g. "
                                "relation='on'")
            return found
        return self.relate_agent(found, relation, reference_object)

    def _of_category(self, object_set: Any, category: Any) -> ObjectSet:
        if callable(category):
            return self.set_type(o for o in self._set(object_set) if category(o))
        wanted = list(category) if isinstance(category, list | tuple | set | frozenset) else [category]
        if not wanted or not all(isinstance(c, str) and c.strip() for c in wanted):
            raise TypeError("category must be a non-empty string, e.g. 'table', or a list of them")
        return self.set_type(o for o in self._set(object_set)
                             if any(category_matches(c, o.category) for c in wanted))

    def _agent_distance(self, ids: list[str]) -> np.ndarray:
        c = np.array([self.graph.get(i).center for i in ids], dtype=float).reshape(-1, 3)
        return np.linalg.norm(c[:, :2] - np.asarray(self.viewpoint.position[:2]), axis=1)

    def relate_agent(self, object_set: Any, relation: str, reference_object: Any = None) -> ObjectSet:
        """Returns a set of objects that are related to the agent(you) by the relation (one of
        ``AGENT_RELATIONS``, or a clock direction: within an hour of it); given a ``reference_object``
        it is :meth:`relate`."""
        if reference_object is not None:
            return self.relate(object_set, reference_object, relation)
        hour = clock_hour(relation)
        rel = "o'clock" if hour is not None else legal_value(relation, AGENT_RELATIONS)
        if rel is None and (other := legal_value(relation, RELATE_RELATIONS)) is not None:
            raise ValueError(f"relation {relation!r} holds between two objects, not an object and you: use "
                             f"relate(object_set=..., reference_object=<one object>, relation={other!r})")
        rel = rel or choose(relation, AGENT_RELATIONS, "relation")
        if not (ids := [o.id for o in self._set(object_set)]):
            return self.set_type()
        if hour is not None or rel in ("left", "right", "front", "behind"):
            hours = build.clock_direction(self.graph, ids, self.viewpoint)  # 1..12
            wanted = CLOCK_DIRECTIONS["back" if rel == "behind" else rel] if hour is None else {
                h for h in range(1, 13) if near_hours(h, hour)}
            return self._wrap(i for i in ids if hours[i] in wanted)
        dist = self._agent_distance(ids)
        if rel in ("closest", "farthest"):
            return self._wrap([ids[int(np.argmin(dist) if rel == "closest" else np.argmax(dist))]])
        if rel == "within reach":
            return self._wrap(build.within_reach(self.graph, list(self.viewpoint.position), ids))
        return self._wrap(i for i, d in zip(ids, dist, strict=True) if d <= AROUND_M)

    def relate(self, object_set: Any, reference_object: Any, relation: str) -> ObjectSet:
        """Returns a set of objects that are related to the reference_object by the relation (to any of a
        set of references, the references left out)."""
        rel = choose(relation, RELATE_RELATIONS, "relation")
        many = isinstance(reference_object, set | frozenset | list | tuple)
        refs = [r.id for r in self._set(reference_object)] if many else [
            self._obj(reference_object, "reference_object").id]
        ids = [o.id for o in self._set(object_set) if o.id not in refs]
        return self._wrap({i for ref in refs for i in self._related(ids, ref, rel)})

    def _related(self, ids: list[str], ref: str, rel: str) -> list[str]:
        """The ids among ``ids`` related to the object ``ref`` by ``rel`` (a legal relate() relation)."""
        if not ids:
            return []
        g = self.graph
        if rel in _VIEW:
            return list(build.view_relation(g, ids, ref, _VIEW[rel], self.viewpoint))
        if rel in ("closest", "farthest"):
            best = (build.closest if rel == "closest" else build.farthest)(g, ref, ids, self.thresholds)
            return [best] if best else []
        if rel == "far":
            return list(build.far(g, ref, ids))
        if rel in ("within reach", "around"):
            return list(build.within_reach(g, ref, ids))
        some, none = _FACTS[rel]
        facts = {i: {r for r, o in g.relations_of(i) if o == ref} for i in ids}
        return [i for i in ids if facts[i] & some and not facts[i] & none]

    def query_relation_agent(self, object: Any, candidate_relations: Any = DIRECTIONS,
                             reference_object: Any = None) -> list[str]:
        """Returns a list of allocentric relations between the object and the agent(you) (a clock
        direction among the candidates: when within an hour of it); given a ``reference_object`` it is
        :meth:`query_relation`."""
        if reference_object is not None:
            cands = candidate_relations if candidate_relations is not DIRECTIONS else DIRECTIONS[:4]
            return self.query_relation(object, reference_object, cands)
        oid = self._obj(object).id
        hours_said = {c: clock_hour(c) for c in _strings(candidate_relations)}
        cands = [choose(c, (*DIRECTIONS, "behind"), "candidate_relations")
                 for c, h in hours_said.items() if h is None]
        hour = build.clock_direction(self.graph, [oid], self.viewpoint)[oid]
        out = [c for c in ("left", "right", "front", "back") if c in cands and hour in CLOCK_DIRECTIONS[c]]
        if "o'clock" in cands:
            out.append(CLOCK_HOURS[hour - 1])
        asked = dict.fromkeys(h for h in hours_said.values() if h is not None)
        return out + [CLOCK_HOURS[h - 1] for h in asked
                      if near_hours(hour, h) and CLOCK_HOURS[h - 1] not in out]

    def query_relation(self, object: Any, reference_object: Any,
                       candidate_relations: Any = ("left", "right", "front", "back")) -> list[str]:
        """Returns a list of allocentric relations between the object and the reference_object; a relation
        of relate() among the candidates ("on", "near") is returned when it holds."""
        oid = self._obj(object).id
        ref = self._obj(reference_object, "reference_object").id
        cands = [choose(c, QUERY_RELATIONS, "candidate_relations") for c in _strings(candidate_relations)]
        return [c for c in cands if oid in self._related([oid], ref, c)]

    def query_attribute(self, object: Any, attribute_type: str,
                        candidate_attribute_values: Any = None) -> Any:
        """Returns the object's lwh, distance, color, shape or material (or a field: category, xyz, id)."""
        found = self._obj(object)
        if (field_ := legal_value(attribute_type, OBJECT_FIELDS)) is not None:
            return getattr(found, field_)
        obj = self.graph.get(found.id)
        kind = choose(attribute_type, ATTRIBUTE_TYPES, "attribute_type",
                      hint="a state (open, closed, on, off, ...) is read by query_state(object=..., "
                           "candidate_states=[...])")
        if kind == "lwh":
            return [round(float(v), 3) for v in obj.size]
        if kind == "distance":
            return round(float(self._agent_distance([obj.id])[0]), 3)
        cands = [c.lower() for c in _strings(candidate_attribute_values or [])]
        known = [a.lower() for a in obj.attributes if set(a.lower().split()) & ATTRIBUTE_WORDS[kind]]
        if kind == "color" and not known and obj.color is not None:
            known = [color_name(obj.color)]
        elif kind == "shape" and not known:  # the box's shape, as the agent answers "what shape"
            known = [box_shape(obj.size)]
        match = next((c for value in known for c in cands if c in value or value in c), None)
        if match is not None:
            return match
        if known and not cands:
            return known[0]
        if kind == "color" and cands:
            # the candidate nearest the colour the graph names (corrected for the scene's exposure and
            # tint), else nearest the captured colour
            named = next((COLOR_RGB[k] for k in known if k in COLOR_RGB), None)
            rgb = named if named is not None else obj.color
            if rgb is not None:
                return closest_color(rgb, cands)
        return UNKNOWN

    def query_state(self, object: Any, candidate_states: Any) -> str:
        """Returns the state of the object (from its attributes), or "unknown"."""
        obj = self.graph.get(self._obj(object).id)
        if not (states := [s.lower() for s in _strings(candidate_states)]):
            raise ValueError("candidate_states must be a non-empty list of strings, e.g. ['open', 'closed']")
        attrs = " ".join(obj.attributes).lower()
        return next((s for s in states if s in attrs), UNKNOWN)

    def rooms(self) -> list[str]:
        """Returns the names of the scene's rooms (an empty list when the scene is one room)."""
        return [r.name for r in self.graph.rooms]

    def room(self, name: Any) -> ObjectSet:
        """Returns the set of objects in the room called `name` (one of rooms(), or a close spelling)."""
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"name must be a room name (one of {self.rooms()}), got {name!r}")
        if not self.graph.rooms:
            raise ValueError("this scene has no rooms (rooms() is empty): it is one room; use scene()")
        if not (ids := {r.id for r in rooms_named(self.graph, name)}):
            raise ValueError(f"name must be one of {self.rooms()}, got {name!r}")
        return self._wrap(o.id for o in self.graph if o.room in ids)

    def names(self) -> dict[str, Any]:
        """The names a program sees."""
        # ObjectAttribute is named in the documentation: type hints and isinstance work
        return {name: _lenient_keywords(getattr(self, name)) for name in API_FUNCTIONS} | {
            "ObjectAttribute": ObjectAttribute}


@functools.cache
def api_signatures() -> Mapping[str, inspect.Signature]:
    """The API functions' signatures as programs call them (without ``self``); read once."""
    sigs = {name: inspect.signature(getattr(SceneAPI, name)) for name in API_FUNCTIONS}
    return MappingProxyType({name: sig.replace(parameters=list(sig.parameters.values())[1:])
                             for name, sig in sigs.items()})


def full_keyword(keyword: str, params: Iterable[str]) -> str:
    """The parameter a keyword names: itself, its alias (:data:`KEYWORD_ALIASES`), or the one parameter
    it begins (``obj`` -> ``object``)."""
    params = tuple(params)
    if keyword not in params and KEYWORD_ALIASES.get(keyword) in params:
        return KEYWORD_ALIASES[keyword]
    fits = [p for p in params if p.startswith(keyword)]
    return keyword if keyword in params or len(fits) != 1 else fits[0]


def full_keywords(keywords: Mapping[str, Any], params: Iterable[str]) -> dict[str, Any]:
    """``keywords`` by the parameters they name (:func:`full_keyword`); as given when two name one."""
    params = tuple(params)
    named = {full_keyword(k, params): v for k, v in keywords.items()}
    return named if len(named) == len(keywords) else dict(keywords)


def _lenient_keywords(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` taking a keyword that begins exactly one of its parameters as that parameter."""
    params = tuple(inspect.signature(function).parameters)

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **full_keywords(kwargs, params))

    return call


def _strings(value: Any) -> list[str]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list | tuple | set):
        raise TypeError(f"expected a list of strings, got {type(value).__name__}")
    if not all(isinstance(v, str) for v in items):
        raise TypeError("expected a list of strings")
    return list(items)


def sandbox_api(args: Mapping[str, Any]) -> dict[str, Any]:
    """Sandbox factory: the scene APIs for a serialized graph and an optional agent pose."""
    graph = graph_from_dict(args["graph"])
    pose = args.get("viewpoint")
    viewpoint = Viewpoint(tuple(pose["position"]), tuple(pose["forward"])) if pose else None
    return SceneAPI(graph, viewpoint, ordered_sets=bool(args.get("ordered_sets", True))).names()
