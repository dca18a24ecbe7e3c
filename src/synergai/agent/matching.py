"""Finding the objects a phrase refers to: categories, plurals, common synonyms, attribute words."""

from __future__ import annotations

import re

from synergai.scene.model import SceneGraph, SceneObject

#: Everyday words -> the category words scene graphs use (ScanNet labels, the demo's categories).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "couch": ("sofa", "couch"),
    "sofa": ("sofa", "couch"),
    "tv": ("tv", "television"),
    "television": ("tv", "television"),
    "fridge": ("refrigerator", "fridge", "mini fridge"),
    "refrigerator": ("refrigerator", "fridge"),
    "bin": ("trash can", "trash bin", "recycling bin", "garbage bin", "wastebasket"),
    "trash": ("trash can", "trash bin", "recycling bin", "garbage bin"),
    "garbage": ("trash can", "trash bin", "garbage bin"),
    "wastebasket": ("trash can", "trash bin", "wastebasket"),
    "nightstand": ("nightstand", "night stand", "bedside table"),
    "bookcase": ("bookshelf", "bookcase", "shelf"),
    "bookshelf": ("bookshelf", "bookcase", "shelf"),
    "cupboard": ("cabinet", "cupboard", "kitchen cabinet"),
    "monitor": ("monitor", "computer monitor", "screen"),
    "screen": ("monitor", "screen", "tv"),
    "painting": ("picture", "painting", "poster"),
    "picture": ("picture", "painting", "poster", "photo"),
    "armchair": ("armchair", "chair"),
    "seat": ("chair", "stool", "sofa", "bench", "armchair"),
    "lamp": ("lamp", "desk lamp", "floor lamp", "table lamp"),
    "desk": ("desk", "table"),
    "table": ("table", "desk", "coffee table", "dining table", "end table"),
    "rug": ("rug", "carpet", "mat"),
    "carpet": ("carpet", "rug", "mat"),
    "pc": ("computer tower", "computer", "pc"),
    "laptop": ("laptop", "computer"),
}

_COLOR_WORDS = frozenset({
    "black", "white", "gray", "grey", "red", "orange", "yellow", "beige", "brown", "green", "blue",
    "purple", "pink", "dark", "light", "silver", "gold",
})


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9 ]+", " ", text.lower()).strip()


def singular(word: str) -> str:
    """Crude English singular (chairs -> chair, shelves -> shelf, boxes -> box)."""
    if len(word) > 4 and word.endswith("ves"):
        return word[:-3] + "f"
    if len(word) > 3 and word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 2 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _phrase(text: str) -> str:
    return " ".join(singular(w) for w in _norm(text).split())


def category_matches(query: str, category: str) -> bool:
    """Whether a query phrase names this category (whole words, plural-insensitive, synonyms)."""
    q = f" {_phrase(query)} "
    cat = _phrase(category)
    if not cat:
        return False
    if f" {cat} " in q:
        return True
    words = q.split()
    for w in words:
        for alt in SYNONYMS.get(w, ()):
            if _phrase(alt) == cat:
                return True
    # "chair" matches the categories "office chair" / "armchair" (same head noun)
    head = cat.split()[-1]
    return any(w == head for w in words) and len(cat.split()) > 1


def find_objects(graph: SceneGraph, query: str) -> list[SceneObject]:
    """Objects the phrase names, narrowed by any colour / attribute words it also contains.

    An attribute filter that would remove every candidate is ignored (perception may have the colour
    wrong), so "the blue box" still finds the boxes when none is recorded as blue.
    """
    q = _norm(query)
    direct = [o for o in graph if o.id == q.strip() or f"id {o.id}" in q]
    if direct:
        return direct
    cands = [o for o in graph if category_matches(q, o.category)]
    if not cands:
        return []
    # prefer the most specific category named verbatim ("coffee table" over "table")
    exact = [o for o in cands if f" {_phrase(o.category)} " in f" {_phrase(q)} "]
    if exact:
        longest = max(len(_phrase(o.category).split()) for o in exact)
        if longest > 1:
            cands = [o for o in exact if len(_phrase(o.category).split()) == longest]
    attr_words = {w for w in q.split() if w in _COLOR_WORDS or w.endswith(("en", "ic", "al"))}
    attr_words -= {w for o in cands for w in _phrase(o.category).split()}
    if attr_words:
        narrowed = [o for o in cands if attr_words & {w for a in o.attributes for w in _norm(a).split()}]
        if narrowed:
            cands = narrowed
    return cands
