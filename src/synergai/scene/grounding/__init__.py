"""Grounding of typed referring expressions in a scene graph (pure: no language model).

:class:`ObjectRef` / :class:`RelationRef` say what a person means; :func:`ground` resolves them into
ranked, explained candidates; :func:`scene_vocabulary` gives the words a query about a scene may use.
"""

from synergai.scene.grounding.expression import (
    RELATION_MEANING,
    RELATION_NAMES,
    SUPERLATIVES,
    ObjectRef,
    RelationRef,
)
from synergai.scene.grounding.resolve import Candidate, Grounding, ground
from synergai.scene.grounding.vocabulary import (
    SceneVocabulary,
    map_word_to,
    nearest_categories,
    scene_vocabulary,
)

__all__ = [
    "RELATION_MEANING", "RELATION_NAMES", "SUPERLATIVES", "Candidate", "Grounding", "ObjectRef",
    "RelationRef", "SceneVocabulary", "ground", "map_word_to", "nearest_categories", "scene_vocabulary",
]
