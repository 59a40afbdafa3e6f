"""Review 8: a measure where lower is better (F-docs, Withheld, Empty, O-CS-DCG's part=effort)
is refused as a training objective: the rankers maximise their objective, so a "protective"
ranker trained on F-docs@10 pushed sensitive mail UP. They stay evaluation measures."""
from __future__ import annotations

import numpy as np
import pytest

from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.evaluate import parse_measure
from sasc_desktop.engine.evaluate.registry import LOWER_IS_BETTER, higher_is_better, measure_specs
from sasc_desktop.engine.rank.data import RankData
from sasc_desktop.engine.rank.rankers import (RANKERS, AdaRank, CoordinateAscent, LambdaMART, check_objective,
                                              make_ranker)

LOWER = ["F-docs@10", "Withheld@10", "Empty@5", "f-docs@3", "O-CS-DCG@10(ka=2,effort=1,cost=12,part=effort)"]
HIGHER = ["nDCG@10", "nCS-DCG@10(cost=12)", "TERN@10(M=1)", "SENS@10(M=1)", "CS-DCG@10(cost=12)", "P@5",
          "nDCG_f@10", "O-CS-DCG@10(ka=2,effort=1,cost=12)", "O-CS-DCG@10(ka=2,effort=1,cost=12,part=gain)",
          "CS-DCG-sign@10(cost=12)"]


def test_the_registry_says_which_families_are_lower_is_better():
    flags = {name: spec.higher_is_better for name, spec in measure_specs().items()}
    assert {n for n, up in flags.items() if not up} == {"F-docs", "Withheld", "Empty"} == set(LOWER_IS_BETTER)
    assert all(not higher_is_better(parse_measure(m)) for m in LOWER)
    assert all(higher_is_better(parse_measure(m)) for m in HIGHER)


@pytest.mark.parametrize("name", list(RANKERS))
@pytest.mark.parametrize("objective", LOWER)
def test_make_ranker_refuses_a_lower_is_better_objective(name, objective):
    with pytest.raises(InputError, match=r"cannot be a training objective: lower is better"):
        make_ranker(name, objective=objective)


@pytest.mark.parametrize("objective", HIGHER)
def test_higher_is_better_objectives_are_accepted(objective):
    assert check_objective(objective).name == parse_measure(objective).name
    for name in RANKERS:
        make_ranker(name, objective=objective)


@pytest.mark.parametrize("cls", [CoordinateAscent, AdaRank, LambdaMART])
def test_a_listwise_ranker_built_directly_refuses_it_at_fit(cls):
    r = np.random.default_rng(0)
    rel, s = r.integers(0, 3, 20), r.integers(0, 2, 20)
    data = RankData(r.normal(size=(20, 2)), rel, s, np.array([0, 20]), ("a",), tuple(map(str, range(20))),
                    (rel,), (s,), ("f1", "f2"))
    with pytest.raises(InputError, match="F-docs@10 cannot be a training objective"):
        cls(objective="F-docs@10").fit(data)
