"""Every scene-graph file format synergai reads or writes, in one registry (:data:`FORMATS`): the CLI's
``scene import`` / ``scene export`` and the Python API (:func:`import_scene`, :func:`export_scene`) go
through it, and its summaries are what ``--help`` says.

An import is made ready to ask: when the file brings no relations, ours are computed over its boxes
(:func:`synergai.scene.building.build_graph`; ``relations=False`` keeps the file as it is), and a colour
given without a colour name gets one (:func:`synergai.scene.attributes.color_name`, in each reader).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from synergai.scene.model import SceneError, SceneGraph
from synergai.scene.serialization import parse_json


@dataclass(frozen=True)
class Imported:
    """A graph read from a file: ``notes`` (one line each: what was left out, what the reader's library
    said) and ``computed_relations`` (how many relations were computed because the file brought none;
    None when the file's own were kept)."""

    graph: SceneGraph
    notes: tuple[str, ...] = ()
    computed_relations: int | None = None


#: A reader: (file, scene id or None for the file's own) -> the graph and its notes.
Reader = Callable[[Path, "str | None"], Imported]
#: A text writer: graph -> the file's text. A binary writer: (graph, file) -> None.
TextWriter = Callable[[SceneGraph], str]
FileWriter = Callable[[SceneGraph, Path], None]


@dataclass(frozen=True)
class SceneFormat:
    """One file format: its name (``--format``), a one-line summary for help texts, its reader and its
    writer: ``dumps`` for text formats (they may go to stdout), ``save`` for formats that need a file
    (None when synergai only writes or only reads it)."""

    name: str
    summary: str
    read: Reader | None
    dumps: TextWriter | None = None
    save: FileWriter | None = None

    @property
    def writable(self) -> bool:
        return self.dumps is not None or self.save is not None


def _json_data(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SceneError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise SceneError(f"{path}: not UTF-8 text") from None
    return parse_json(text, f"scene graph {path}")


# ----- synergai's own JSON
def _read_own(path: Path, scene_id: str | None) -> Imported:
    from synergai.scene.rooms import fill_graph_rooms
    from synergai.scene.serialization import graph_from_dict

    data = _json_data(path)
    if scene_id is not None and isinstance(data, dict):
        data["scene"] = scene_id
    # objects that name no room go to the room holding them, as a Spark-DSG import does
    return Imported(fill_graph_rooms(graph_from_dict(data)))


def _own_text(graph: SceneGraph) -> str:
    from synergai.scene.serialization import dumps

    return dumps(graph)


# ----- networkx node-link JSON
def _read_networkx(path: Path, scene_id: str | None) -> Imported:
    import networkx as nx

    from synergai.scene.export import from_networkx

    data = _json_data(path)
    if isinstance(data, dict) and isinstance(data.get("nodes"), list) and isinstance(data.get("edges"), list):
        known = {n.get("id") for n in data["nodes"] if isinstance(n, dict)}
        for k, e in enumerate(data["edges"]):  # networkx would add a bare node for a missing end
            ends = [(end, e.get(end)) for end in ("source", "target")] if isinstance(e, dict) else []
            missing = [(end, oid) for end, oid in ends if oid not in known]
            if missing:
                end, oid = missing[0]
                raise SceneError(f"{path}: edges[{k}] names no object: {end} {oid!r}"[:300])
    try:
        g = nx.node_link_graph(data, edges="edges", multigraph=True, directed=True)
    except (KeyError, TypeError, AttributeError, ValueError, nx.NetworkXError) as exc:
        raise SceneError(f"{path}: not networkx node-link JSON ({str(exc)[:100]})") from None
    return Imported(from_networkx(g, scene_id))


def _networkx_text(graph: SceneGraph) -> str:
    import networkx as nx

    from synergai.scene.export import to_networkx

    return json.dumps(nx.node_link_data(to_networkx(graph), edges="edges"), indent=2, default=list)


# ----- SceneVerse, ConceptGraphs
def _read_sceneverse(path: Path, scene_id: str | None) -> Imported:
    from synergai.scene.export import from_sceneverse

    data = _json_data(path)
    if not isinstance(data, dict):
        raise SceneError(f"{path}: a SceneVerse scene graph is a JSON object")
    return Imported(from_sceneverse(data, scene_id=scene_id))


def _sceneverse_text(graph: SceneGraph) -> str:
    from synergai.scene.export import to_sceneverse

    return json.dumps(to_sceneverse(graph), indent=2)


def _read_conceptgraphs(path: Path, scene_id: str | None) -> Imported:
    from synergai.scene.export import from_conceptgraphs

    return Imported(from_conceptgraphs(_json_data(path), scene_id or path.stem))


def _conceptgraphs_text(graph: SceneGraph) -> str:
    from synergai.scene.export import to_conceptgraphs

    return json.dumps(to_conceptgraphs(graph), indent=2)


# ----- Spark-DSG (Hydra)
def _read_spark_dsg(path: Path, scene_id: str | None) -> Imported:
    from synergai.scene.sparkdsg import load_spark_dsg

    result = load_spark_dsg(path, scene_id)
    return Imported(result.graph, tuple(n for n in (result.library_notes, result.left_out) if n))


def _write_spark_dsg(graph: SceneGraph, path: Path) -> None:
    from synergai.scene.sparkdsg import save_spark_dsg

    save_spark_dsg(graph, path)


#: name -> format, in the order help texts list them.
FORMATS: Mapping[str, SceneFormat] = MappingProxyType({f.name: f for f in (
    SceneFormat("json", "synergai's own JSON (lossless)", _read_own, _own_text),
    SceneFormat("networkx", "networkx node-link JSON", _read_networkx, _networkx_text),
    SceneFormat("sceneverse", "SceneVerse objects and relationships", _read_sceneverse, _sceneverse_text),
    SceneFormat("conceptgraphs", "ConceptGraphs scene_graph.json (+ object relations)", _read_conceptgraphs,
                _conceptgraphs_text),
    SceneFormat("spark-dsg", "Spark-DSG, Hydra's graphs (.json or binary .sparkdsg)", _read_spark_dsg,
                save=_write_spark_dsg),
)})
#: Formats ``scene import`` reads and ``scene export`` writes.
READ_FORMATS = tuple(n for n, f in FORMATS.items() if f.read is not None)
WRITE_FORMATS = tuple(n for n, f in FORMATS.items() if f.writable)


def describe_formats(names: tuple[str, ...]) -> str:
    """``name (summary), ...`` for help texts."""
    return "; ".join(f"{n}: {FORMATS[n].summary}" for n in names)


def _format(name: str) -> SceneFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise SceneError(f"unknown scene-graph format {name!r} (known: {', '.join(FORMATS)})") from None


def import_scene(path: str | Path, fmt: str = "json", scene_id: str | None = None, *,
                 relations: bool = True) -> Imported:
    """Read a scene-graph file (``fmt``: one of :data:`READ_FORMATS`) into a :class:`SceneGraph`.

    ``scene_id`` overrides the file's own id (files without one: the file name). When the file brings no
    relations and ``relations`` is true, ours are computed over its boxes (support, proximity, levels;
    a floor is added under everything when none is labelled); ``computed_relations`` says how many.
    Bad input (unreadable, another format, boxes that are not boxes, relations naming missing objects)
    raises a one-line :class:`SceneError`.
    """
    reader = _format(fmt).read
    if reader is None:
        raise SceneError(f"synergai writes {fmt} but does not read it")
    result = reader(Path(path).expanduser(), scene_id)
    graph = result.graph
    if not relations or graph.edges or len(graph) == 0:
        return result
    from synergai.scene.building import build_graph

    built = build_graph(graph.scene_id, graph.objects, scene_type=graph.scene_type, rooms=graph.rooms)
    return Imported(built, result.notes, len(built.edges))


def export_scene(graph: SceneGraph, fmt: str = "json", path: str | Path | None = None) -> str | None:
    """Write ``graph`` in ``fmt`` (one of :data:`WRITE_FORMATS`) to ``path``; without a path, return the
    text instead (spark-dsg needs a path: ``.json`` is JSON, ``.sparkdsg`` binary)."""
    writer = _format(fmt)
    if writer.dumps is None:
        if writer.save is None:
            raise SceneError(f"synergai reads {fmt} but does not write it")
        if path is None:
            raise SceneError(f"{fmt} needs an output file (.json for JSON, .sparkdsg for the binary form)")
        writer.save(graph, Path(path).expanduser())
        return None
    text = writer.dumps(graph)
    if path is None:
        return text
    try:
        Path(path).expanduser().write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise SceneError(f"cannot write {path}: {exc.strerror or exc}") from None
    return None
