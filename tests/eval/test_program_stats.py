"""Program mode's benchmark figures: repair passes and lenient API forms counted from run records."""

from __future__ import annotations

from synergai.eval.program_stats import lenient_counts, repair_counts


def _run(program: str, repairs: list[str], carried: tuple[str, ...] = ()) -> dict:
    return {"trace": [{"type": "program", "stage": "sandbox", "program": program, "repairs": repairs,
                       "carried": list(carried), "defined": [], "ok": True, "stdout": "1"}], "llm_calls": 2}


def test_repairs_and_lenient_forms_are_counted_per_program() -> None:
    rows = [
        _run("t = filter(scene(), 'table')[0]\n"
             "x = relate_agent(object_set=scene(), relation='on', reference_object=t)\n"
             "print(query_attribute(obj=t, attribute_type='category'))", ["requote-fstrings"]),
        _run("objs = scene()\nobjs.sort(key=lambda o: o.xyz[2])\n"
             "print(list(filter(lambda o: o.category == 'cup', objs)))\n"
             "print(filter(scene(), category=lambda o: True), objs[0].color, objs[0].size)\n"
             "print(query_relation(objs[0], objs[1], ['on', 'left']), query_relation(objs[0], objs[1]))",
             ["requote-fstrings", "close-fields"],
             carried=("objs",)),
        {"trace": [{"type": "program", "stage": "check", "program": "x = relate_agent(scene(), "
                    "relation='on', reference_object=t)", "repairs": []}], "llm_calls": 1},
    ]
    assert repair_counts(rows) == {"requote-fstrings": 2, "close-fields": 1, "carry-definitions": 1}
    assert lenient_counts(rows) == {"relate_agent-reference-object": 1, "query-attribute-field": 1,
                                    "keyword-prefix": 1, "sort": 1, "filter-function-first": 1,
                                    "filter-predicate": 1, "object-attribute-field": 2,
                                    "query-relation-relate-relation": 1}


def test_the_lenient_forms_of_sets_relations_and_keyword_aliases_are_counted() -> None:
    rows = [_run("desks = filter(scene(), 'desk')\n"
                 "under = relate(object_set=scene(), reference_object=desks, relation='under')\n"
                 "print(query_attribute(under, 'color'), desks.category)\n"
                 "print(filter(object_set=scene(), category='cup', relation='on', reference_object=desks))\n"
                 "print(query_relation_agent(object_set=desks, relation='left'))", [])]
    assert lenient_counts(rows) == {"set-as-one-object": 3, "filter-relation": 1, "keyword-alias": 1}
