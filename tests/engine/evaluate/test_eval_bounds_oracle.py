"""Exact bounds against brute force over every ranking (and every sub-list) of small topics.

2,000 random topics per family: n <= 7 judged documents, grades 0-2, sensitivity levels 0-2 with
a cost per level, k from 1 to 8. The oracle enumerates itertools.permutations of the pool
(vectorised with numpy), so it is independent of the dynamic programme it checks.
"""
from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
import pytest

from sasc_desktop.engine.evaluate import make_measure

N_TOPICS = 2000
COST_CHOICES = (0.0, 0.5, 1.0, 2.0, 3.5, 6.0, 12.0)
GAMMAS = (0.0, 0.25, 0.5, 0.9, 1.0)


@lru_cache(maxsize=None)
def perms(n: int, m: int) -> np.ndarray:
    return np.array(list(itertools.permutations(range(n), m)), dtype=np.int64).reshape(-1, m) if m else np.zeros((1, 0), np.int64)


def disc(m: int) -> np.ndarray:
    return np.array([1.0 / math.log2(i + 1) for i in range(1, m + 1)])


def brute_values(g, c, sens, m, gamma=1.0):
    """Values of every ranking that shows exactly m pool documents."""
    P = perms(len(g), m)
    if m == 0:
        return np.zeros(1)
    gd = g[P] @ disc(m)
    flags = sens[P]
    above = np.cumsum(flags, axis=1) - flags
    pen = (c[P] * np.power(gamma, above)).sum(axis=1)
    return gd - pen


def random_topic(rng):
    n = int(rng.integers(1, 8))
    rel = rng.integers(0, 3, size=n)
    lev = rng.integers(0, 3, size=n)
    k = int(rng.integers(1, 9))
    costs = (0.0, float(rng.choice(COST_CHOICES)), float(rng.choice(COST_CHOICES)))
    return rel, lev, k, costs


def arrays(rel, lev, costs):
    g = np.exp2(rel) - 1.0
    c = np.asarray(costs)[lev]
    return g, c, (lev >= 1).astype(np.int64)


def approx(x):
    return pytest.approx(x, rel=1e-9, abs=1e-9)


def test_ncs_dcg_bounds_are_exact_over_all_rankings():
    rng = np.random.default_rng(20190721)
    for _ in range(N_TOPICS):
        rel, lev, k, costs = random_topic(rng)
        m = make_measure("nCS-DCG", k, costs=costs)
        st = m.prepare(rel, lev)
        g, c, s = arrays(rel, lev, costs)
        vals = brute_values(g, c, s, min(k, len(rel)))
        assert st.hi == approx(vals.max())
        assert st.lo == approx(vals.min())
        # realisability: the best ranking scores 1, the worst 0 (when defined)
        P = perms(len(rel), min(k, len(rel)))
        best, worst = P[int(vals.argmax())], P[int(vals.argmin())]
        top = m.score_ranked(st, rel[best], lev[best])
        bottom = m.score_ranked(st, rel[worst], lev[worst])
        if math.isclose(vals.max(), vals.min(), rel_tol=1e-9, abs_tol=1e-9):
            assert top is None and bottom is None
        else:
            assert top == approx(1.0) and bottom == approx(0.0)
            every = [m.score_ranked(st, rel[p], lev[p]) for p in P[:: max(1, len(P) // 20)]]
            assert all(-1e-9 <= v <= 1 + 1e-9 for v in every)


def test_ncs_dcg_f_bounds_are_exact_over_all_sublists():
    rng = np.random.default_rng(2022)
    for _ in range(N_TOPICS):
        rel, lev, k, costs = random_topic(rng)
        m = make_measure("nCS-DCG_f", k, costs=costs)
        st = m.prepare(rel, lev)
        g, c, s = arrays(rel, lev, costs)
        allv = np.concatenate([brute_values(g, c, s, j) for j in range(0, min(k, len(rel)) + 1)])
        assert st.hi == approx(allv.max())
        assert st.lo == approx(allv.min())


def test_ngamma_cs_dcg_bounds_are_exact_with_equal_costs():
    rng = np.random.default_rng(7)
    for _ in range(N_TOPICS):
        rel, lev, k, _ = random_topic(rng)
        cost = float(rng.choice(COST_CHOICES))
        gamma = float(rng.choice(GAMMAS))
        m = make_measure("ngCS-DCG", k, costs=(0.0, cost, cost), gamma=gamma)
        assert m.bounds_exact
        st = m.prepare(rel, lev)
        g, c, s = arrays(rel, lev, (0.0, cost, cost))
        vals = brute_values(g, c, s, min(k, len(rel)), gamma)
        assert st.hi == approx(vals.max())
        assert st.lo == approx(vals.min())


def test_ngamma_cs_dcg_bounds_with_unequal_costs_are_realisable_and_inside():
    """With unequal costs the bounds are rankings in gain order: attained by some ranking,
    never beyond the true extremes."""
    rng = np.random.default_rng(11)
    strict = 0
    for _ in range(N_TOPICS):
        rel, lev, k, _ = random_topic(rng)
        costs = (0.0, 1.0, 6.0)
        gamma = float(rng.choice((0.0, 0.5)))
        m = make_measure("ngCS-DCG", k, costs=costs, gamma=gamma)
        assert not m.bounds_exact
        st = m.prepare(rel, lev)
        g, c, s = arrays(rel, lev, costs)
        vals = brute_values(g, c, s, min(k, len(rel)), gamma)
        assert st.hi <= vals.max() + 1e-9 and st.lo >= vals.min() - 1e-9
        assert np.isclose(vals, st.hi, rtol=1e-9, atol=1e-9).any()
        assert np.isclose(vals, st.lo, rtol=1e-9, atol=1e-9).any()
        strict += st.hi < vals.max() - 1e-9
    assert strict > 0   # the approximation really differs somewhere (documented behaviour)


def test_gamma_one_equals_cs_dcg_bounds():
    rng = np.random.default_rng(3)
    for _ in range(300):
        rel, lev, k, _ = random_topic(rng)
        a = make_measure("ngCS-DCG", k, cost=5.0, gamma=1.0).prepare(rel, lev)
        b = make_measure("nCS-DCG", k, cost=5.0).prepare(rel, lev)
        assert (a.lo, a.hi) == (approx(b.lo), approx(b.hi))


def test_batch_bounds_match_scalar_bounds():
    from sasc_desktop.engine.evaluate import counts_from_levels
    rng = np.random.default_rng(5)
    topics = [random_topic(rng) for _ in range(200)]
    k = 5
    m = make_measure("nCS-DCG", k, costs=(0.0, 2.0, 7.0))
    state = m.prepare_batch(counts_from_levels([t[0] for t in topics], [t[1] for t in topics]))
    for i, (rel, lev, _, _) in enumerate(topics):
        one = m.prepare(rel, lev)
        assert (state.lo[i], state.hi[i]) == (approx(one.lo), approx(one.hi))
