"""Graph interchange: networkx, SceneVerse-style relationships, ConceptGraphs-style scene graphs.

The project's own versioned JSON lives in ``synergai.scene.serialization``; this module maps a
:class:`SceneGraph` to and from other tools' shapes.

- networkx: a ``MultiDiGraph`` (a ``DiGraph`` subclass; several relations may join one ordered pair),
  edge key = relation value, edge attribute ``relation``; every object field is a node attribute, the
  rooms a graph attribute (``rooms``: their documents). Lossless.
- SceneVerse (``preprocess/ssg`` of scene-verse/SceneVerse): ``relationships`` is a list of
  ``[subject_id, object_id, "words"]`` read "subject words object" (``[3, 1, "support"]``: 3 supports 1;
  ``[1, 3, "on"]``: 1 is on 3), objects as in its ``objects.json`` (id, label, position, size).
- ConceptGraphs (``scene_graph.json`` + ``cfslam_object_relations.json``): objects with ``id``,
  ``object_tag``, ``caption``, ``bbox_center``, ``bbox_extent``; relations between ``object1`` and
  ``object2`` as ``"a on b"``, ``"b on a"``, ``"a in b"``, ``"b in a"``. Only support and containment exist
  there, so other relations are not exported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

import networkx as nx

from synergai.scene.attributes import color_name
from synergai.scene.model import (
    INVERSE,
    WORDING,
    Edge,
    ObjectKind,
    OrientedBox,
    Relation,
    SceneError,
    SceneGraph,
    SceneObject,
    is_stored,
    parse_relation,
)
from synergai.scene.serialization import object_from_dict, room_to_dict, rooms_from_list

# ----- networkx ----------------------------------------------------------------------------------


def to_networkx(graph: SceneGraph) -> nx.MultiDiGraph:
    """A networkx multi-digraph: nodes = objects (every field an attribute), edges = relations."""
    g = nx.MultiDiGraph(scene_id=graph.scene_id, scene_type=graph.scene_type,
                        rooms=[room_to_dict(r) for r in graph.rooms])
    for o in graph:
        g.add_node(
            o.id, category=o.category, center=tuple(o.center), size=tuple(o.size),
            color=tuple(o.color) if o.color is not None else None, attributes=tuple(o.attributes),
            confidence=o.confidence, provenance=o.provenance, kind=o.kind.value,
            front=tuple(o.front) if o.front is not None else None,
            obb=None if o.obb is None else {"center": tuple(o.obb.center), "size": tuple(o.obb.size),
                                            "yaw": o.obb.yaw},
            level=graph.levels.get(o.id), room=o.room,
        )
    for e in graph.edges:
        rel = e.relation.value
        g.add_edge(e.subject, e.object, key=rel, relation=rel, provenance=e.provenance)
    return g


#: Optional object fields a reader passes on when the source gives them (null means "not given").
_OPTIONAL_FIELDS = ("color", "attributes", "confidence", "provenance", "kind", "front", "obb", "room")


def _object(oid: str, a: Mapping[str, Any], where: str | None = None) -> SceneObject:
    """A SceneObject from a mapping of its fields (networkx node attributes, a SceneVerse or ConceptGraphs
    object), each field's type checked by :func:`~synergai.scene.serialization.object_from_dict`: a
    number where a list belongs, or ``attributes: "red"``, is an error, never coerced. A colour given
    without attributes gets its colour name."""
    where = where or f"object {oid}"
    for key in ("category", "center", "size"):
        if a.get(key) is None:
            raise SceneError(f"{where}: missing {key!r}")
    fields: dict[str, Any] = {"id": oid, "category": a["category"], "center": a["center"], "size": a["size"],
                              "provenance": "import"}
    fields.update({k: a[k] for k in _OPTIONAL_FIELDS if a.get(k) is not None})
    obb = fields.get("obb")
    if isinstance(obb, OrientedBox):
        fields["obb"] = {"center": obb.center, "size": obb.size, "yaw": obb.yaw}
    if isinstance(fields.get("kind"), ObjectKind):
        fields["kind"] = fields["kind"].value
    obj = object_from_dict(fields, where=where)
    if "attributes" not in fields and obj.color is not None:  # as every other source names a colour
        obj = obj.with_changes(attributes=(color_name(obj.color),))
    return obj


def _source_id(value: Any, where: str) -> str:
    """An object id as a source writes it: a whole number or a non-empty string (null, a boolean, a
    fraction or a list is no id)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value
    raise SceneError(f"{where}: expected a whole number or a non-empty string, got {value!r}"[:200])


def _level(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SceneError(f"{where}: expected a non-negative whole number, got {value!r}"[:200])
    return value


def _scene_type(value: Any, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise SceneError(f"{where}: expected a string or null, got {value!r}"[:200])
    return value


def _relation(value: Any, where: str) -> Relation:
    if isinstance(value, Relation):
        return value
    if not isinstance(value, str):
        raise SceneError(f"{where}: missing relation")
    return parse_relation(value)


def from_networkx(g: nx.DiGraph, scene_id: str | None = None) -> SceneGraph:
    """The :class:`SceneGraph` of a (multi-)digraph made by :func:`to_networkx` or by hand.

    Nodes need ``category``, ``center`` and ``size``; edges need ``relation`` (an enum value or a
    phrase such as "on top of"). ``scene_id`` defaults to the graph attribute of that name.
    """
    sid = scene_id or g.graph.get("scene_id")
    if not sid:
        raise SceneError("from_networkx: no scene_id given and none in the graph attributes")
    objects = [_object(str(n), a) for n, a in g.nodes(data=True)]
    levels = {str(n): _level(a["level"], f"object {n} level") for n, a in g.nodes(data=True)
              if a.get("level") is not None}
    scene_type = _scene_type(g.graph.get("scene_type"), "scene_type")
    rooms = rooms_from_list(g.graph.get("rooms") or [], "networkx graph attribute rooms")
    graph = SceneGraph(str(sid), objects, scene_type=scene_type, levels=levels, rooms=rooms)
    for u, v, a in g.edges(data=True):
        rel = _relation(a.get("relation"), f"edge {u} -> {v}")
        graph.add_edge(Edge(str(u), rel, str(v), provenance=str(a.get("provenance", "import"))))
    return graph


# ----- SceneVerse --------------------------------------------------------------------------------

#: Our relation -> SceneVerse's words (its ``ssg_data/dictionary.py`` vocabulary where it has one).
SCENEVERSE_WORDS: Mapping[Relation, str] = MappingProxyType({
    Relation.SUPPORTED_BY: "on",
    Relation.SUPPORTS: "support",
    Relation.EMBEDDED_IN: "embedded into",
    Relation.INSIDE: "inside",
    Relation.HANGING_ON: "hanging on",
    Relation.NEAR: "close to",
    Relation.NEXT_TO: "next to",
    Relation.BESIDE: "beside",
    Relation.ABOVE: "above",
    Relation.BELOW: "below",
    Relation.HIGHER_THAN: "higher than",
    Relation.LOWER_THAN: "lower than",
})

#: SceneVerse's words (all its variants) -> our relation; anything else goes through ``parse_relation``.
_FROM_SCENEVERSE: Mapping[str, Relation] = MappingProxyType({
    "support": Relation.SUPPORTS, "resting on": Relation.SUPPORTED_BY, "placed on": Relation.SUPPORTED_BY,
    "on": Relation.SUPPORTED_BY, "supported by": Relation.SUPPORTED_BY,
    "on the top of": Relation.SUPPORTED_BY,
    "embedded into": Relation.EMBEDDED_IN, "placed within the area of": Relation.INSIDE,
    "inside": Relation.INSIDE, "hanging on": Relation.HANGING_ON, "hung on": Relation.HANGING_ON,
    "close to": Relation.NEAR, "adjacent to": Relation.NEXT_TO, "beside": Relation.BESIDE,
    "next to": Relation.NEXT_TO, "above": Relation.ABOVE, "higher than": Relation.HIGHER_THAN,
    "below": Relation.BELOW, "lower than": Relation.LOWER_THAN,
})
#: SceneVerse's ids of nodes that are not objects (camera -1, wall -2, floor -3): relations to them are
#: not stored.
SCENEVERSE_SPECIAL_IDS = frozenset({"-1", "-2", "-3"})
# SceneVerse's proximity phrase, e.g. "10 o‘clock direction far from" (the clock part is view-dependent)
_CLOCK = re.compile(r"^\d{1,2}\s*o\S?clock direction (near|far from)$")
# relations stored in the other direction (the store keeps SUPPORTED_BY, ABOVE, HIGHER_THAN)
_FLIP = frozenset({Relation.SUPPORTS, Relation.BELOW, Relation.LOWER_THAN})


def _out_id(oid: str) -> int | str:
    """Numeric ids become ints (SceneVerse / ConceptGraphs use ints) when that is lossless."""
    return int(oid) if re.fullmatch(r"-?(0|[1-9]\d*)", oid) else oid


def to_sceneverse(graph: SceneGraph) -> dict[str, Any]:
    """A SceneVerse-style dict: ``scan_id``, ``objects`` (objects.json fields plus ours) and
    ``relationships`` ``[[subject_id, object_id, "words"], ...]`` for every stored edge."""
    objects = []
    for o in graph:
        objects.append({
            "id": _out_id(o.id), "label": o.category, "position": list(o.center), "size": list(o.size),
            "color": list(o.color) if o.color is not None else None, "attributes": list(o.attributes),
            "kind": o.kind.value, "confidence": o.confidence, "provenance": o.provenance,
            "front": list(o.front) if o.front is not None else None, "level": graph.levels.get(o.id),
        })
    rels = [[_out_id(e.subject), _out_id(e.object), SCENEVERSE_WORDS.get(e.relation, WORDING[e.relation])]
            for e in graph.edges]
    return {
        "scan_id": graph.scene_id, "scan": graph.scene_id, "scene_type": graph.scene_type,
        "objects": objects, "relationships": rels, "multi_objs_relationships": [],
        "inst_to_label": {str(_out_id(o.id)): o.category for o in graph},
    }


def sceneverse_relation(words: str) -> Relation | None:
    """Our relation for a SceneVerse phrase; None for view-dependent ones (left, behind, ...)."""
    t = re.sub(r"\s+", " ", words.strip().lower())
    m = _CLOCK.match(t)
    if m:
        return Relation.NEAR if m.group(1) == "near" else Relation.FAR
    if t in _FROM_SCENEVERSE:
        return _FROM_SCENEVERSE[t]
    rel = parse_relation(t)
    return rel if is_stored(rel) else None


def _sceneverse_object(k: int, item: Any) -> SceneObject:
    if not isinstance(item, Mapping) or "id" not in item:
        raise SceneError(f"SceneVerse object without an id: {item!r}"[:200])
    oid = _source_id(item["id"], f"SceneVerse objects[{k}].id")
    fields = dict(item)
    fields["category"] = item.get("label", item.get("category"))
    fields["center"] = item.get("position", item.get("center"))
    return _object(oid, fields, f"SceneVerse objects[{k}]")


def from_sceneverse(
    data: Mapping[str, Any], *, scene_id: str | None = None, strict: bool = False
) -> SceneGraph:
    """A :class:`SceneGraph` from a SceneVerse-style dict (:func:`to_sceneverse`'s shape; objects under
    ``objects`` or ``objects_info``).

    Facts are stored once, in the store's direction: ``[a, b, "support"]`` becomes ``b SUPPORTED_BY a``
    and a repeated or inverse fact is kept once. View-dependent phrases ("to the left of", "behind")
    and relations to SceneVerse's camera / wall / floor nodes (:data:`SCENEVERSE_SPECIAL_IDS`) are
    skipped, or raise :class:`SceneError` with ``strict``; unknown phrases and relations naming any other
    missing object always raise.
    """
    if not isinstance(data, Mapping):
        raise SceneError("SceneVerse data must be a JSON object")
    items = data.get("objects", data.get("objects_info"))
    if not isinstance(items, list):
        raise SceneError("SceneVerse data has no 'objects' list")
    sid = scene_id or data.get("scan_id") or data.get("scan")
    if not sid:
        raise SceneError("SceneVerse data has no scan_id and none was given")
    if not isinstance(sid, str):
        raise SceneError(f"SceneVerse scan_id: expected a string, got {sid!r}"[:200])
    objects = [_sceneverse_object(k, item) for k, item in enumerate(items)]
    levels = {o.id: _level(it["level"], f"SceneVerse objects[{k}].level")
              for k, (o, it) in enumerate(zip(objects, items, strict=True)) if it.get("level") is not None}
    graph = SceneGraph(sid, objects, scene_type=_scene_type(data.get("scene_type"), "SceneVerse scene_type"),
                       levels=levels)
    relationships = data.get("relationships")
    if relationships is not None and not isinstance(relationships, list):
        raise SceneError(f"SceneVerse relationships: expected a list, got {relationships!r}"[:200])
    for k, rel_item in enumerate(relationships or []):
        if not isinstance(rel_item, list | tuple) or len(rel_item) != 3 or not isinstance(rel_item[2], str):
            raise SceneError(f"SceneVerse relationship {k} must be [subject_id, object_id, words]")
        s, o, words = str(rel_item[0]), str(rel_item[1]), rel_item[2]
        missing = [i for i in (s, o) if i not in graph and i not in SCENEVERSE_SPECIAL_IDS]
        if missing:
            raise SceneError(f"SceneVerse relationship {k} {rel_item!r}: no object {missing[0]}"[:200])
        rel = sceneverse_relation(words)
        if rel is None or s not in graph or o not in graph:
            if strict:
                raise SceneError(f"SceneVerse relationship {k} {rel_item!r} cannot be stored")
            continue
        if rel in _FLIP:
            s, rel, o = o, INVERSE[rel], s
        if not graph.has_edge(s, rel, o):
            graph.add_edge(Edge(s, rel, o, provenance="sceneverse"))
    return graph


# ----- ConceptGraphs -----------------------------------------------------------------------------

_CG_WORDS = MappingProxyType({Relation.SUPPORTED_BY: "a on b", Relation.SUPPORTS: "b on a",
                              Relation.INSIDE: "a in b", Relation.EMBEDDED_IN: "a in b"})


def _cg_node(o: SceneObject) -> dict[str, Any]:
    return {"id": _out_id(o.id), "bbox_extent": list(o.size), "bbox_center": list(o.center),
            "object_tag": o.category}


def to_conceptgraphs(graph: SceneGraph) -> dict[str, list[dict[str, Any]]]:
    """ConceptGraphs-style output: ``scene_graph`` (its scene_graph.json list) and ``object_relations``
    (its cfslam_object_relations.json list; only "on" and "in" facts, which is all ConceptGraphs has)."""
    nodes = []
    for o in graph:
        nodes.append({**_cg_node(o), "possible_tags": [o.category],
                      "caption": " ".join([*o.attributes, o.category])})
    rels = []
    for e in graph.edges:
        words = _CG_WORDS.get(e.relation)
        if words is not None:
            rels.append({"object1": _cg_node(graph.get(e.subject)), "object2": _cg_node(graph.get(e.object)),
                         "object_relation": words, "reason": f"synergai {e.relation.value}"})
    return {"scene_graph": nodes, "object_relations": rels}


def _cg_items(value: Any, what: str) -> Iterable[Mapping[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise SceneError(f"ConceptGraphs {what} must be a list of objects")
    return value


def from_conceptgraphs(data: Mapping[str, Any] | list[Any], scene_id: str) -> SceneGraph:
    """A :class:`SceneGraph` from ConceptGraphs output: the dict of :func:`to_conceptgraphs`, or just its
    ``scene_graph.json`` list. Boxes are taken as axis-aligned; "none of these" / "FAIL" are skipped."""
    if not isinstance(data, list | Mapping):
        raise SceneError(f"ConceptGraphs data must be a list or an object, got {data!r}"[:200])
    nodes = data if isinstance(data, list) else data.get("scene_graph")
    rels = [] if isinstance(data, list) else data.get("object_relations") or []
    objects: list[SceneObject] = []
    for n in _cg_items(nodes, "scene_graph"):
        if "id" not in n:
            raise SceneError("ConceptGraphs object without an id")
        oid = _source_id(n["id"], f"ConceptGraphs scene_graph[{len(objects)}].id")
        objects.append(_object(oid, {"category": n.get("object_tag"), "center": n.get("bbox_center"),
                                     "size": n.get("bbox_extent"), "provenance": "conceptgraphs"},
                               f"ConceptGraphs scene_graph[{len(objects)}]"))
    graph = SceneGraph(scene_id, objects)
    for r in _cg_items(rels, "object_relations"):
        try:
            a = _source_id(r["object1"]["id"], "ConceptGraphs relation object1.id")
            b = _source_id(r["object2"]["id"], "ConceptGraphs relation object2.id")
        except (KeyError, TypeError):
            raise SceneError("ConceptGraphs relation without object1.id / object2.id") from None
        words = str(r.get("object_relation", "")).strip().lower()
        fact = {"a on b": (a, Relation.SUPPORTED_BY, b), "b on a": (b, Relation.SUPPORTED_BY, a),
                "a in b": (a, Relation.INSIDE, b), "b in a": (b, Relation.INSIDE, a)}.get(words)
        if fact is None:
            continue
        graph.add_edge(Edge(fact[0], fact[1], fact[2], provenance="conceptgraphs"))
    return graph
