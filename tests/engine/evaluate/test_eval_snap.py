"""Measures on a [0, 1] scale give exactly 0.0 for the worst list and exactly 1.0 for the best,
not floating-point noise such as -2.96e-16 or 0.9999999999999999."""
from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings, strategies as st

from sasc_desktop.engine.evaluate import Judgments, Qrel, SensJudgment, evaluate_runs, make_measure, parse_measure
from sasc_desktop.engine.evaluate.judgments import counts_from_levels
from sasc_desktop.engine.evaluate.kernels import SNAP, snap_unit

REVIEWER = ["nCS-DCG@10(cost=0)", "nCS-DCG@10(cost=1)", "nCS-DCG@10(cost=12)", "ngCS-DCG@10(cost=3,gamma=0.5)"]


def _exact(v, expected: float) -> bool:
    """v is the float ``expected`` itself (0.0, not -0.0 or -2.96e-16)."""
    return type(v) is float and v == expected and str(v) == str(expected)


def test_reviewers_example_worst_is_exactly_0_and_best_exactly_1():
    """qrels d1 2, d2 1, d3 0; d2 sensitive. d3, d2, d1 is the worst ranking (it printed
    -2.96e-16 for nCS-DCG), d1, d2, d3 the best."""
    judgments = Judgments.from_records([Qrel("1", "d1", 2), Qrel("1", "d2", 1), Qrel("1", "d3", 0)],
                                       [SensJudgment("p", "d2", 1)], "p")
    report = evaluate_runs({"worst": {"1": ["d3", "d2", "d1"]}, "best": {"1": ["d1", "d2", "d3"]}}, judgments, REVIEWER)
    for name in REVIEWER:
        assert _exact(report.runs["worst"][name].per_topic["1"], 0.0), name
        assert _exact(report.runs["worst"][name].mean, 0.0), name
        assert _exact(report.runs["best"][name].per_topic["1"], 1.0), name
    # the scalar path too
    for name in REVIEWER:
        m = parse_measure(name)
        assert _exact(m.score_list([0, 1, 2], [0, 1, 0], [2, 1, 0], [0, 1, 0]), 0.0), name
        assert _exact(m.score_list([2, 1, 0], [0, 1, 0], [2, 1, 0], [0, 1, 0]), 1.0), name


def test_snap_unit_moves_only_values_within_snap_of_0_or_1():
    v = np.array([-2.96e-16, 1e-12, -1e-12, 1.1e-12, 0.9999999999999999, 1 + 5e-13, 1 - 1.1e-12, 0.5, -0.3, 1.7,
                  -0.0])
    out = snap_unit(v)
    assert out.tolist() == [0.0, 0.0, 0.0, 1.1e-12, 1.0, 1.0, 1 - 1.1e-12, 0.5, -0.3, 1.7, 0.0]
    assert not np.signbit(out[[0, 2, 10]]).any()          # never -0.0
    assert SNAP == 1e-12


def test_measures_outside_the_unit_scale_are_not_snapped():
    """CS-DCG is not normalised: a value of 1e-13 stays 1e-13 (here: gain only, 2^1 - 1 = 1 at
    rank 1 minus a cost of 1 - 1e-13)."""
    m = make_measure("CS-DCG", 10, cost=1 - 1e-13)
    v = m.score_list([1], [1], [1], [1])
    assert v == 1 - (1 - 1e-13) and v != 0.0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=6),
       st.integers(1, 7), st.sampled_from([0.0, 0.5, 1.0, 3.0, 12.0]), st.sampled_from([0.0, 0.5, 1.0]))
def test_over_every_ranking_the_extremes_are_exactly_0_and_1(docs, k, cost, gamma):
    """Brute force: score every permutation of a small pool; where the measure is defined, the
    lowest value is exactly 0.0 and the highest exactly 1.0 (the bounds are the exact worst and
    best rankings showing min(k, n) documents, equal costs so ngCS-DCG's are exact too)."""
    rel = np.array([r for r, _ in docs])
    lev = np.array([s for _, s in docs])
    perms = np.array(list(itertools.permutations(range(len(docs)))), dtype=np.int64)
    T = len(perms)
    for m in (make_measure("nCS-DCG", k, cost=cost), make_measure("ngCS-DCG", k, cost=cost, gamma=gamma),
              make_measure("nDCG_min", k)):
        state = m.prepare_batch(counts_from_levels([rel] * T, [lev] * T))
        vals, ok = m.score_batch(state, rel[perms], lev[perms])
        if ok.any():
            assert vals[ok].min() == 0.0 and not np.signbit(vals[ok].min()), m.name
            assert vals[ok].max() == 1.0, m.name
    ndcg = make_measure("nDCG", k)
    vals, _ = ndcg.score_batch(ndcg.prepare_batch(counts_from_levels([rel] * T, [lev] * T)), rel[perms], lev[perms])
    assert vals.max() == (1.0 if rel.max() > 0 else 0.0)
