from __future__ import annotations

import dataclasses

import pytest

from sasc_desktop.engine.errors import SascError
from sasc_desktop.engine.evaluate import MeasureError, make_measure, measure_names, measure_specs, parse_measure

ISSUE_NAMES = ["P@10", "nDCG@10", "DCG@10", "CS-DCG@10(cost=12)", "nCS-DCG@10(cost=12)", "nCS-DCG_f@10(cost=12)",
               "gCS-DCG@10(cost=12,gamma=0.5)", "ngCS-DCG@10(cost=12,gamma=0.5)", "TERN@10(M=1)", "SENS@10(M=3)",
               "nDCG_min@10", "nDCG_f@3(forbidden=-10)", "O-CS-DCG@10(ka=3,effort=0.5,cost=12,gamma=0.5)",
               "nCS-DCG@10(costs=0/6/12)", "F-docs@10", "Withheld@10", "Empty@10", "CS-DCG-sign@10(cost=12)"]


@pytest.mark.parametrize("text", ISSUE_NAMES)
def test_issue_names_parse_and_round_trip(text):
    m = parse_measure(text)
    assert m.name == text                       # these are already canonical
    assert parse_measure(m.name) == m
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.k = 5


def test_canonical_form_normalises_spelling_and_defaults():
    m = parse_measure(" ncs-dcg @ 10 ( COST = 12.0 ) ")
    assert m.name == "nCS-DCG@10(cost=12)"
    assert parse_measure("nDCG_f@3(forbidden=-1)").name == "nDCG_f@3"       # the default is dropped
    assert parse_measure("nDCG_f@3(forbidden=-1)") == parse_measure("nDCG_f@3")
    assert parse_measure("tern@5(m=3)").name == "TERN@5(M=3)"
    assert parse_measure("gCS-DCG@10(gamma=0.50,cost=12)").name == "gCS-DCG@10(cost=12,gamma=0.5)"


def test_params_and_costs():
    m = parse_measure("nCS-DCG@10(costs=0/6/12)")
    assert m.k == 10 and m.get("costs") == (0.0, 6.0, 12.0) and m.costs == (0.0, 6.0, 12.0)
    assert parse_measure("CS-DCG@10(cost=12)").costs == (0.0, 12.0)
    assert parse_measure("TERN@10(M=1)").param_dict == {"M": 1.0}
    assert make_measure("TERN", 10, M=1) == parse_measure("TERN@10(M=1)")
    assert parse_measure("ngCS-DCG@10(cost=12,gamma=0.5)").bounds_exact
    assert not parse_measure("ngCS-DCG@10(costs=0/6/12,gamma=0.5)").bounds_exact
    assert parse_measure("ngCS-DCG@10(costs=0/12/12,gamma=0.5)").bounds_exact


@pytest.mark.parametrize("text, fragment", [
    ("foo@10", "known measures: P, DCG, nDCG"),
    ("nDGC@10", "did you mean nDCG"),
    ("nDCG", "needs a cutoff"),
    ("P@0", "positive integer"),
    ("P@x", "positive integer"),
    ("TERN@10", "parameter M is required, e.g. M=1"),
    ("TERN@10(Q=1)", "unknown parameter 'Q'; TERN takes M"),
    ("TERN@10(M=-1)", "must be >= 0"),
    ("TERN@10(M=abc)", "must be a number"),
    ("TERN@10(M=1,M=2)", "given twice"),
    ("TERN@10(M)", "name=value"),
    ("nCS-DCG@10", "exactly one of cost="),
    ("nCS-DCG@10(cost=1,costs=0/1)", "exactly one of cost="),
    ("nCS-DCG@10(costs=3/6)", "level 0"),
    ("nCS-DCG@10(costs=0//6)", "separated by '/'"),
    ("nCS-DCG@10(cost=nan)", "finite"),
    ("gCS-DCG@10(cost=1,gamma=1.5)", "must be <= 1"),
    ("nDCG_f@3(forbidden=2)", "must be <= 0"),
    ("nDCG_f@3(gain=cubic)", "one of exp, linear"),
    ("P@10(rel=1.5)", "integer"),
    ("O-CS-DCG@3(ka=4,effort=1,cost=1)", "exceeds the cutoff"),
    ("nCS-DCG@10(cost=12", "cannot parse"),
])
def test_bad_names_and_parameters_raise_clear_errors(text, fragment):
    with pytest.raises(MeasureError) as info:
        parse_measure(text)
    assert isinstance(info.value, SascError)
    assert fragment in str(info.value)


def test_registry_exposes_typed_parameters_for_forms():
    specs = measure_specs()
    assert list(specs) == measure_names()
    assert {"P", "DCG", "nDCG", "CS-DCG", "nCS-DCG", "nCS-DCG_f", "gCS-DCG", "ngCS-DCG", "TERN", "SENS", "nDCG_min",
            "nDCG_f", "O-CS-DCG", "F-docs", "Withheld", "Empty", "CS-DCG-sign"} == set(specs)
    tern = specs["TERN"].param("M")
    assert (tern.type, tern.required, tern.default, tern.minimum, tern.example) == ("float", True, None, 0.0, 1.0)
    gamma = specs["ngCS-DCG"].param("gamma")
    assert (gamma.type, gamma.minimum, gamma.maximum) == ("float", 0.0, 1.0)
    costs = specs["nCS-DCG"].param("costs")
    assert costs.type == "levels" and specs["nCS-DCG"].cost_params
    part = specs["O-CS-DCG"].param("part")
    assert (part.type, part.default, part.choices) == ("choice", "total", ("total", "searcher", "gain", "effort"))
    assert specs["P"].param("rel").default == 1 and specs["P"].param("rel").type == "int"
    assert specs["nCS-DCG"].normalised and specs["nCS-DCG"].needs_pool and not specs["TERN"].needs_pool
    for spec in specs.values():
        assert spec.description
        for p in spec.params:
            assert p.type in ("int", "float", "levels", "choice") and p.description
