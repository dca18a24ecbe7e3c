"""Typed referring expressions: what a person means by "the white cup on the table next to the window".

An :class:`ObjectRef` names a target by category words, attribute words and an optional superlative,
and constrains it by zero or more :class:`RelationRef` to anchor expressions, which may carry relations
of their own (recursion). The models are pydantic (``extra="forbid"``) so a model's JSON reply is
validated field by field before the graph is asked anything.
"""

from __future__ import annotations

from types import MappingProxyType

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from synergai.scene.model import Relation

#: Relation names an expression may use, and the relation each one reads in the graph. "on" is any
#: holding relation (supported by, inside, hanging, mounted ...), "supporting" its inverse.
RELATION_MEANING: MappingProxyType[str, Relation] = MappingProxyType({
    "on": Relation.SUPPORTED_BY,
    "supporting": Relation.SUPPORTS,
    "inside": Relation.INSIDE,
    "under": Relation.BELOW,
    "below": Relation.BELOW,
    "above": Relation.ABOVE,
    "near": Relation.NEAR,
    "next to": Relation.NEXT_TO,
    "beside": Relation.BESIDE,
    "far from": Relation.FAR,
    "closest to": Relation.CLOSEST,
    "farthest from": Relation.FARTHEST,
    "between": Relation.BETWEEN,
    "left of": Relation.LEFT_OF,
    "right of": Relation.RIGHT_OF,
    "in front of": Relation.IN_FRONT_OF,
    "behind": Relation.BEHIND,
    "hanging on": Relation.HANGING_ON,
    "mounted on": Relation.MOUNTED_ON,
    "embedded in": Relation.EMBEDDED_IN,
    "affixed on": Relation.AFFIXED_ON,
    "higher than": Relation.HIGHER_THAN,
    "lower than": Relation.LOWER_THAN,
    "within reach of": Relation.WITHIN_REACH,
})
#: The relation names, in a stable order (JSON-schema enums are built from it).
RELATION_NAMES: tuple[str, ...] = tuple(RELATION_MEANING)
#: Superlatives over the candidates that satisfy everything else.
SUPERLATIVES: tuple[str, ...] = ("largest", "smallest", "tallest", "shortest", "highest", "lowest")
#: Where in the room an object is (from the extent of the room's objects), and each said negated.
POSITIONS: tuple[str, ...] = ("center", "corner", "wall")
POSITION_NAMES: tuple[str, ...] = (*POSITIONS, *(f"not {p}" for p in POSITIONS))
#: Order within the group of same-category candidates, seen from the viewpoint ("the middle window",
#: "second from the left", "the one at the end of the row").
ORDERS: tuple[str, ...] = ("left", "right", "middle", "second from left", "second from right", "front",
                           "back", "end")
#: Most anchors a count may ask for ("with three computers under it").
MAX_COUNT = 20
#: How many levels of anchors an expression may nest (a guard against pathological input).
MAX_DEPTH = 4


def _clean(v: str | None, legal: tuple[str, ...], what: str) -> str | None:
    if v is None or not v.strip():
        return None
    s = " ".join(v.strip().lower().replace("_", " ").split())
    if s not in legal:
        raise ValueError(f"unknown {what} {v!r}; legal: {', '.join(legal)}")
    return s


class RelationRef(BaseModel):
    """One relation the target must hold to its anchor(s): one anchor, or two for "between"."""

    model_config = ConfigDict(extra="forbid")

    relation: str
    anchors: list[ObjectRef] = Field(min_length=1, max_length=2)
    negated: bool = False  # "NOT the one next to the door"
    count: int | None = Field(default=None, ge=1, le=MAX_COUNT)  # "with three computers under it"

    @field_validator("relation")
    @classmethod
    def _known_relation(cls, v: str) -> str:
        name = " ".join(v.strip().lower().replace("_", " ").split())
        if name not in RELATION_MEANING:
            raise ValueError(f"unknown relation {v!r}; legal: {', '.join(RELATION_NAMES)}")
        return name

    @model_validator(mode="after")
    def _anchor_count(self) -> RelationRef:
        need = 2 if self.relation == "between" else 1
        if len(self.anchors) != need:
            raise ValueError(f"relation {self.relation!r} needs {need} anchor(s), got {len(self.anchors)}")
        return self

    @property
    def meaning(self) -> Relation:
        """The graph relation this name reads."""
        return RELATION_MEANING[self.relation]


class ObjectRef(BaseModel):
    """A typed referring expression: category words, attribute words, a superlative, relations (AND)."""

    model_config = ConfigDict(extra="forbid")

    category: str = Field(min_length=1)
    attributes: list[str] = Field(default_factory=list)
    superlative: str | None = None
    relations: list[RelationRef] = Field(default_factory=list)
    position: str | None = None  # one of POSITION_NAMES: "in the corner", "not in the center"
    order: str | None = None  # one of ORDERS, within the same-category group
    group_size: int | None = Field(default=None, ge=2, le=MAX_COUNT)  # "the middle of the three cups"
    alone: bool = False  # "by itself", "away from the others"
    facing: ObjectRef | None = None  # the viewpoint: "facing the door"
    back_to: ObjectRef | None = None  # the viewpoint: "with your back to the window"

    @field_validator("category")
    @classmethod
    def _clean_category(cls, v: str) -> str:
        text = " ".join(v.strip().lower().split())
        if not text:
            raise ValueError("category must not be empty")
        return text

    @field_validator("attributes")
    @classmethod
    def _clean_attributes(cls, v: list[str]) -> list[str]:
        return list(dict.fromkeys(w for w in (" ".join(a.strip().lower().split()) for a in v) if w))

    @field_validator("superlative")
    @classmethod
    def _known_superlative(cls, v: str | None) -> str | None:
        if v is None or not v.strip():
            return None
        s = v.strip().lower()
        if s not in SUPERLATIVES:
            raise ValueError(f"unknown superlative {v!r}; legal: {', '.join(SUPERLATIVES)}")
        return s

    @field_validator("position")
    @classmethod
    def _known_position(cls, v: str | None) -> str | None:
        return _clean(v, POSITION_NAMES, "position")

    @field_validator("order")
    @classmethod
    def _known_order(cls, v: str | None) -> str | None:
        return _clean(v, ORDERS, "order")

    @model_validator(mode="after")
    def _not_too_deep(self) -> ObjectRef:
        if self.depth() > MAX_DEPTH:
            raise ValueError(f"expression nests anchors more than {MAX_DEPTH} levels deep")
        return self

    def parts(self) -> list[ObjectRef]:
        """The expressions one level below this one: its relations' anchors and its viewpoint's objects."""
        return [*(a for r in self.relations for a in r.anchors),
                *(v for v in (self.facing, self.back_to) if v is not None)]

    def depth(self) -> int:
        """Levels of anchors below this expression (0 = no relations)."""
        return max((1 + a.depth() for a in self.parts()), default=0)

    def describe(self) -> str:
        """The expression in words: "white cup on table next to window"."""
        head = " ".join([*(s for s in [self.superlative] if s), *(["lone"] if self.alone else []),
                         *self.attributes, self.category])
        if self.order:
            among = f" of {self.group_size}" if self.group_size else ""
            head += f" ({self.order}{among} of its kind)"
        if self.position:
            head += f" in the room's {self.position}" if not self.position.startswith("not ") else \
                f" not in the room's {self.position[4:]}"
        for r in self.relations:
            count = f"{r.count} " if r.count else ""
            head += f" {'not ' if r.negated else ''}{r.relation} {count}" + " and ".join(
                a.describe() for a in r.anchors)
        if self.facing is not None:
            head += f", facing {self.facing.describe()}"
        if self.back_to is not None:
            head += f", back to {self.back_to.describe()}"
        return head


RelationRef.model_rebuild()
