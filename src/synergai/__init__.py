"""SynergAI: human-robot collaboration grounded in 3D scene graphs.

The names a program needs, importable from here (``import synergai``); each is imported on first use, so
``import synergai`` (and ``synergai --help``) stays cheap. ``docs/python-api.md`` has a worked example.

- :class:`SceneGraph`, :class:`SceneObject`, :class:`Relation`, :class:`Edge`: the scene graph, its
  objects (id, category, box, colour, attributes), its relations and facts.
- :func:`build_graph`: a scene graph from objects (relations, support levels, a floor when none is given).
- :class:`SceneStore`: the persistent store with its edit log (SQLite file, or ``postgresql://`` URL).
- :class:`SceneCatalog`: opens scenes by id: the built-in ``demo`` and ``house``, an objects file, the store.
- :func:`import_scene`, :func:`export_scene`: scene-graph files in every format synergai speaks
  (:data:`synergai.scene.formats.FORMATS`: its own JSON, networkx, SceneVerse, ConceptGraphs, Spark-DSG).
- :class:`AgentSession`: ask the SynergAI agent about a stored scene, correct it, mark an object.
- :class:`ProgramLoop`: program mode (LLM-TPC): the model writes Python against the scene API.
- :func:`make_model`: the chat model: ``"embedded"``, ``"openai:MODEL"`` (any compatible endpoint) or
  ``"scripted:FILE"`` (replayed replies, for tests).
"""

from __future__ import annotations

import importlib
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name -> the module that defines it (imported on first access).
_PUBLIC = MappingProxyType({
    "SceneGraph": "synergai.scene.model",
    "SceneObject": "synergai.scene.model",
    "Relation": "synergai.scene.model",
    "Edge": "synergai.scene.model",
    "build_graph": "synergai.scene.building",
    "SceneStore": "synergai.scene.store",
    "SceneCatalog": "synergai.scene.catalog",
    "import_scene": "synergai.scene.formats",
    "export_scene": "synergai.scene.formats",
    "AgentSession": "synergai.agent.session",
    "ProgramLoop": "synergai.agent.program.loop",
    "make_model": "synergai.llm",
})

__all__ = [
    "AgentSession",
    "Edge",
    "ProgramLoop",
    "Relation",
    "SceneCatalog",
    "SceneGraph",
    "SceneObject",
    "SceneStore",
    "__version__",
    "build_graph",
    "export_scene",
    "import_scene",
    "make_model",
]

if TYPE_CHECKING:
    from synergai.agent.program.loop import ProgramLoop
    from synergai.agent.session import AgentSession
    from synergai.llm import make_model
    from synergai.scene.building import build_graph
    from synergai.scene.catalog import SceneCatalog
    from synergai.scene.formats import export_scene, import_scene
    from synergai.scene.model import Edge, Relation, SceneGraph, SceneObject
    from synergai.scene.store import SceneStore


def __getattr__(name: str) -> Any:
    """A public name, its module imported on first access (PEP 562; Python caches the module)."""
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'synergai' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
