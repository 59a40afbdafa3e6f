"""Properties of Table 4.1 (Sayed's dissertation), checked with hypothesis, and explicit
counter-examples for the properties a measure does not have.

Operational definitions used here:
P1 bounded       -- normalised CS-DCG variants lie in [0, 1] over the rankings their bounds range
                    over; TERN and SENS lie in [-M, 1].
P2 reference pt  -- a fixed value means "no better than showing nothing", on every topic
                    (TERN, SENS, CS-DCG: 0 for the empty list and for lists of non-relevant,
                    non-sensitive documents).
P3 convergence   -- relevance: moving a more relevant document above a less relevant one of the
                    same sensitivity strictly improves the score; sensitivity: replacing a
                    shown sensitive document by a non-sensitive one of the same grade strictly
                    improves it.
P4 head-weighted -- a relevant document scores more at a higher rank (fillers elsewhere).
P5 localisation  -- the score depends only on the judgments of the shown documents (not on
                    unshown judged documents).
P6 realisable    -- the bounds 0 and 1 are attained by some ranking.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sasc_desktop.engine.evaluate import make_measure, parse_measure

SETTINGS = settings(max_examples=250, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
EPS = 1e-9

doc = st.tuples(st.integers(0, 2), st.integers(0, 2))
costs_st = st.tuples(st.just(0.0), st.sampled_from([0.5, 1.0, 2.0, 6.0, 12.0]), st.sampled_from([0.5, 1.0, 2.0, 6.0, 12.0]))


@st.composite
def topic_and_ranking(draw, sublist: bool):
    pool = draw(st.lists(doc, min_size=1, max_size=7))
    k = draw(st.integers(1, 8))
    n = len(pool)
    order = draw(st.permutations(list(range(n))))
    length = draw(st.integers(0, min(k, n))) if sublist else min(k, n)
    shown = order[:length]
    rel = np.array([d[0] for d in pool])
    sens = np.array([d[1] for d in pool])
    return rel, sens, k, rel[shown], sens[shown]


NORMALISED_FULL = ["nCS-DCG", "ngCS-DCG"]


def normalised(family: str, k: int, costs, gamma: float = 0.5):
    if family == "ngCS-DCG":
        return make_measure(family, k, cost=costs[1], gamma=gamma)   # equal costs: exact bounds
    return make_measure(family, k, costs=costs)


# ------------------------------------------------------------------------------- P1 bounded
@SETTINGS
@given(topic_and_ranking(sublist=False), costs_st, st.sampled_from(NORMALISED_FULL), st.sampled_from([0.0, 0.5, 1.0]))
def test_p1_normalised_cs_dcg_bounded_on_full_rankings(t, costs, family, gamma):
    rel, sens, k, r, s = t
    m = normalised(family, k, costs, gamma)
    v = m.score_list(r, s, rel, sens)
    assert v is None or -EPS <= v <= 1 + EPS


@SETTINGS
@given(topic_and_ranking(sublist=True), costs_st, st.sampled_from([-1.0, -3.0, -10.0]))
def test_p1_sublist_measures_bounded_on_any_sublist(t, costs, forbidden):
    rel, sens, k, r, s = t
    v = make_measure("nCS-DCG_f", k, costs=costs).score_list(r, s, rel, sens)
    assert v is None or -EPS <= v <= 1 + EPS
    w = make_measure("nDCG_f", k, forbidden=forbidden).score_list(r, s, rel, sens)
    assert w is None or -EPS <= w <= 1 + EPS


@SETTINGS
@given(topic_and_ranking(sublist=True), st.sampled_from([0.0, 1.0, 3.0]))
def test_p1_tern_sens_bounded(t, M):
    rel, sens, k, r, s = t
    for fam in ("TERN", "SENS"):
        v = make_measure(fam, k, M=M).score_list(r, s, rel, sens)
        assert v is not None and -M - EPS <= v <= 1 + EPS


def test_p1_counterexample_ndcg_min_and_ncs_dcg_on_sublists_exceed_one():
    # nDCG_min is not bounded for sub-lists (Carmel et al.'s point); nor is nCS-DCG for lists
    # shorter than min(k, n) -- that is why the _f variants exist.
    assert parse_measure("nDCG_min@2(gain=linear)").score_list([2], [0], [0, 2], [1, 0]) > 1
    assert parse_measure("nCS-DCG@3(cost=2)").score_list([2], [0], [2, 0], [0, 1]) > 1


# -------------------------------------------------------------------------- P2 reference point
@SETTINGS
@given(topic_and_ranking(sublist=True), st.sampled_from([0.0, 1.0, 3.0]), costs_st)
def test_p2_tern_sens_cs_dcg_have_reference_point_zero(t, M, costs):
    rel, sens, k, _, _ = t
    fillers = [np.zeros(j, dtype=int) for j in range(0, k + 1)]     # nothing relevant or sensitive
    for f in fillers:
        assert make_measure("TERN", k, M=M).score_list(f, f, rel, sens) == 0.0
        assert make_measure("SENS", k, M=M).score_list(f, f, rel, sens) == 0.0
        assert make_measure("CS-DCG", k, costs=costs).score_list(f, f, rel, sens) == 0.0


def test_p2_counterexample_normalised_cs_dcg_has_no_fixed_reference_point():
    m = parse_measure("nCS-DCG_f@3(cost=2)")
    empty_a = m.score_list([], [], [2, 0], [0, 1])     # (0 + 2) / (3 + 2) = 0.4
    empty_b = m.score_list([], [], [1, 0], [0, 1])     # (0 + 2) / (1 + 2) = 2/3
    assert empty_a == pytest.approx(0.4, abs=1e-12)
    assert empty_b == pytest.approx(2 / 3, abs=1e-12)
    assert empty_a != empty_b


# ----------------------------------------------------------------------------- P3 convergence
@SETTINGS
@given(topic_and_ranking(sublist=False), costs_st, st.sampled_from(NORMALISED_FULL + ["nCS-DCG_f"]),
       st.data())
def test_p3_relevance_convergence(t, costs, family, data):
    rel, sens, k, r, s = t
    pairs = [(i, j) for i in range(len(r)) for j in range(i + 1, len(r)) if s[i] == s[j] and r[j] > r[i]]
    assume(pairs)
    i, j = data.draw(st.sampled_from(pairs))
    m = normalised(family, k, costs) if family != "nCS-DCG_f" else make_measure(family, k, costs=costs)
    state = m.prepare(rel, sens)
    before = m.score_ranked(state, r, s)
    r2 = r.copy()
    r2[i], r2[j] = r[j], r[i]
    after = m.score_ranked(state, r2, s)
    assume(before is not None)
    assert after > before + 1e-12


@SETTINGS
@given(topic_and_ranking(sublist=False), costs_st, st.sampled_from(NORMALISED_FULL + ["nCS-DCG_f"]), st.data())
def test_p3_sensitivity_convergence(t, costs, family, data):
    rel, sens, k, r, s = t
    idx = [i for i in range(len(s)) if s[i] >= 1]
    assume(idx)
    i = data.draw(st.sampled_from(idx))
    # the pool also holds a non-sensitive twin of the shown sensitive document
    rel_p, sens_p = np.append(rel, r[i]), np.append(sens, 0)
    m = normalised(family, k, costs) if family != "nCS-DCG_f" else make_measure(family, k, costs=costs)
    state = m.prepare(rel_p, sens_p)
    before = m.score_ranked(state, r, s)
    s2 = s.copy()
    s2[i] = 0
    after = m.score_ranked(state, r, s2)
    assume(before is not None)    # e.g. nCS-DCG when every ranking must show the whole pool
    assert after > before + 1e-12


def test_p3_counterexamples_tern_and_sens_not_convergent():
    pool_r, pool_s = [1, 2, 0, 0], [0, 0, 1, 1]
    tern, sens, ndcg = parse_measure("TERN@3(M=1)"), parse_measure("SENS@3(M=1)"), parse_measure("nDCG@3")
    # relevance: swapping two relevant documents changes nDCG but not TERN
    a, b = ([1, 2], [0, 0]), ([2, 1], [0, 0])
    assert ndcg.score_list(*a, pool_r, pool_s) != pytest.approx(ndcg.score_list(*b, pool_r, pool_s))
    assert tern.score_list(*a, pool_r, pool_s) == tern.score_list(*b, pool_r, pool_s) == 1.0
    # ... nor SENS once a sensitive document is shown
    a, b = ([1, 2, 0], [0, 0, 1]), ([2, 1, 0], [0, 0, 1])
    assert sens.score_list(*a, pool_r, pool_s) == sens.score_list(*b, pool_r, pool_s) == -1.0
    # sensitivity: removing one of two shown sensitive documents changes neither
    a, b = ([1, 0, 0], [0, 1, 1]), ([1, 0, 0], [0, 1, 0])
    assert tern.score_list(*a, pool_r, pool_s) == tern.score_list(*b, pool_r, pool_s) == -1.0
    assert sens.score_list(*a, pool_r, pool_s) == sens.score_list(*b, pool_r, pool_s) == -1.0
    # whereas nCS-DCG improves
    n = parse_measure("nCS-DCG@3(cost=2)")
    assert n.score_list(*b, pool_r, pool_s) > n.score_list(*a, pool_r, pool_s)


# ---------------------------------------------------------------------------- P4 head-weighted
@SETTINGS
@given(st.integers(1, 2), st.integers(0, 2), st.integers(2, 8), costs_st,
       st.sampled_from(NORMALISED_FULL + ["nCS-DCG_f"]), st.data())
def test_p4_relevance_head_weighted(grade, level, k, costs, family, data):
    # pool: one relevant document (grade, level) and k - 1 fillers; it scores more higher up
    rel = np.array([grade] + [0] * (k - 1))
    sens = np.array([level] + [0] * (k - 1))
    m = normalised(family, k, costs) if family != "nCS-DCG_f" else make_measure(family, k, costs=costs)
    state = m.prepare(rel, sens)
    i = data.draw(st.integers(0, k - 2))
    j = data.draw(st.integers(i + 1, k - 1))
    at = lambda p: m.score_ranked(state, np.eye(k, dtype=int)[p] * grade, np.eye(k, dtype=int)[p] * level)
    hi, lo = at(i), at(j)
    assert hi is not None and hi > lo + 1e-12


def test_p4_cost_is_not_head_weighted_and_tern_sens_not_at_all():
    n = parse_measure("nCS-DCG@3(cost=2)")
    pool_r, pool_s = [0, 0, 0, 1], [1, 0, 0, 0]
    # a sensitive non-relevant document costs the same at rank 1 and rank 3
    assert n.score_list([0, 0, 0], [1, 0, 0], pool_r, pool_s) == pytest.approx(n.score_list([0, 0, 0], [0, 0, 1], pool_r, pool_s), abs=1e-12)
    tern, sens = parse_measure("TERN@3(M=1)"), parse_measure("SENS@3(M=3)")
    assert tern.score_list([1, 0], [0, 0], pool_r, pool_s) == tern.score_list([0, 1], [0, 0], pool_r, pool_s) == 1.0
    assert sens.score_list([1, 0, 0], [0, 0, 1], pool_r, pool_s) == sens.score_list([0, 1, 0], [0, 0, 1], pool_r, pool_s) == -3.0


# ------------------------------------------------------------------------------ P5 localisation
@SETTINGS
@given(topic_and_ranking(sublist=True), costs_st, st.lists(doc, min_size=1, max_size=3))
def test_p5_tern_and_cs_dcg_are_localised(t, costs, extra):
    rel, sens, k, r, s = t
    rel2 = np.concatenate([rel, [d[0] for d in extra]])
    sens2 = np.concatenate([sens, [d[1] for d in extra]])
    for m in (make_measure("TERN", k, M=1), make_measure("CS-DCG", k, costs=costs)):
        assert m.score_list(r, s, rel, sens) == m.score_list(r, s, rel2, sens2)


def test_p5_counterexample_normalised_and_sens_depend_on_unshown_documents():
    run = ([1], [0])
    for text in ("nCS-DCG@3(cost=2)", "nCS-DCG_f@3(cost=2)", "SENS@3(M=1)"):
        m = parse_measure(text)
        small = m.score_list(*run, [1, 0], [0, 1])
        larger = m.score_list(*run, [1, 0, 2], [0, 1, 0])      # an unshown highly relevant document
        assert small is not None and larger is not None and larger < small


# ------------------------------------------------------------------------------ P6 realisable
@SETTINGS
@given(st.lists(doc, min_size=1, max_size=7), st.integers(1, 8), st.sampled_from([-1.0, -5.0]))
def test_p6_ndcg_f_bounds_realised(pool, k, forbidden):
    rel = np.array([d[0] for d in pool])
    sens = np.array([d[1] for d in pool])
    m = make_measure("nDCG_f", k, forbidden=forbidden)
    state = m.prepare(rel, sens)
    labels = np.where(sens >= 1, forbidden, np.exp2(rel) - 1)
    pos = np.argsort(-labels, kind="stable")
    pos = pos[labels[pos] > 0][:k]
    neg = np.argsort(labels, kind="stable")
    neg = neg[labels[neg] < 0][:k]
    top, bottom = m.score_ranked(state, rel[pos], sens[pos]), m.score_ranked(state, rel[neg], sens[neg])
    if top is None:
        assert len(pos) == 0 and len(neg) == 0
    else:
        assert top == pytest.approx(1.0, abs=1e-12) and bottom == pytest.approx(0.0, abs=1e-12)


@SETTINGS
@given(st.lists(doc, min_size=1, max_size=7), st.integers(1, 8), st.sampled_from([0.0, 1.0, 3.0]))
def test_p6_tern_extremes_realised(pool, k, M):
    rel = np.array([d[0] for d in pool])
    sens = np.array([d[1] for d in pool])
    m = make_measure("TERN", k, M=M)
    if (sens >= 1).any():
        i = int(np.argmax(sens >= 1))
        assert m.score_list(rel[[i]], sens[[i]], rel, sens) == -M
    ok = np.flatnonzero((rel >= 1) & (sens == 0))
    if len(ok):
        assert m.score_list(rel[ok[:1]], sens[ok[:1]], rel, sens) == 1.0


# --------------------------------------------------------------------------- no NaN anywhere
@SETTINGS
@given(topic_and_ranking(sublist=True), costs_st, st.data())
def test_no_nan_or_infinity_from_any_measure(t, costs, data):
    rel, sens, k, r, s = t
    cost_txt = "/".join(str(c) for c in costs)
    texts = [f"P@{k}", f"DCG@{k}", f"nDCG@{k}", f"CS-DCG@{k}(costs={cost_txt})", f"nCS-DCG@{k}(costs={cost_txt})",
             f"nCS-DCG_f@{k}(costs={cost_txt})", f"gCS-DCG@{k}(costs={cost_txt},gamma=0.5)",
             f"ngCS-DCG@{k}(costs={cost_txt},gamma=0)", f"TERN@{k}(M=1)", f"SENS@{k}(M=3)", f"nDCG_min@{k}",
             f"nDCG_f@{k}(forbidden=-10)", f"O-CS-DCG@{k}(ka={data.draw(st.integers(0, k))},effort=0.5,costs={cost_txt})",
             f"F-docs@{k}", f"Withheld@{k}", f"Empty@{k}", f"CS-DCG-sign@{k}(costs={cost_txt})"]
    for text in texts:
        v = parse_measure(text).score_list(r, s, rel, sens)
        assert v is None or math.isfinite(v)
