"""Hand-computed values for every measure on tiny fixtures (expected values are written as
formulas of d_i = 1/log2(i + 1), worked out by hand in the comments)."""
from __future__ import annotations

import math

import pytest

from sasc_desktop.engine.evaluate import Judgments, evaluate_run, filtering_figures, parse_measure

L3 = math.log2(3)          # d_2 = 1/L3 ~ 0.63093; d_3 = 1/2; d_4 = 1/log2(5)


def ap(x):
    return pytest.approx(x, rel=1e-12, abs=1e-12)


# Pool of topic T (grade, level):  d1 (2, 0) g=3 | d2 (1, 0) g=1 | d3 (2, 1) g=3 sensitive |
#                                   d4 (0, 1) sensitive | d5 (0, 0)
POOL = {"d1": (2, 0), "d2": (1, 0), "d3": (2, 1), "d4": (0, 1), "d5": (0, 0)}
POOL_REL = [v[0] for v in POOL.values()]
POOL_SENS = [v[1] for v in POOL.values()]


def levels(docs):
    return [POOL.get(d, (0, 0))[0] for d in docs], [POOL.get(d, (0, 0))[1] for d in docs]


def score(measure, docs):
    m = parse_measure(measure)
    r, s = levels(docs)
    return m.score_list(r, s, POOL_REL, POOL_SENS)


def test_precision():
    assert score("P@3", ["d2", "d1", "d4"]) == ap(2 / 3)
    assert score("P@3", ["d2"]) == ap(1 / 3)               # trec_eval divides by k
    assert score("P@3(rel=2)", ["d2", "d1", "d3"]) == ap(2 / 3)
    assert score("P@3", []) == ap(0.0)


def test_dcg_and_ndcg():
    # DCG@3 of (d2, d1, d4) = 1*1 + 3/L3 + 0 ; ideal = d1, d3, d2 = 3 + 3/L3 + 1/2
    assert score("DCG@3", ["d2", "d1", "d4"]) == ap(1 + 3 / L3)
    assert score("nDCG@3", ["d2", "d1", "d4"]) == ap((1 + 3 / L3) / (3 + 3 / L3 + 0.5))
    assert score("nDCG@3", ["d1", "d3", "d2"]) == ap(1.0)
    assert score("nDCG@3", ["d1", "d3", "d2", "d4"]) == ap(1.0)      # beyond k ignored
    # nothing relevant anywhere: nDCG is 0, not undefined
    m = parse_measure("nDCG@3")
    assert m.score_list([0, 0], [0, 1], [0, 0, 0], [0, 1, 0]) == 0.0


def test_cs_dcg():
    # (d3, d1, d5), cost 2: (3 - 2) + 3/L3 + 0
    assert score("CS-DCG@3(cost=2)", ["d3", "d1", "d5"]) == ap(1 + 3 / L3)
    # graded: level 1 costs 5 -> (3 - 5) + 0/L3 ... (d3, d4): 3 - 5 + 0 - 5
    assert score("CS-DCG@3(costs=0/5)", ["d3", "d4"]) == ap(-7.0)
    assert score("CS-DCG@3(cost=2)", []) == ap(0.0)


def test_ncs_dcg_by_hand():
    # n = 5, k = 3, cost 2. Best over 3-document rankings: (d1, d2, d5) = 3 + 1/L3.
    # Worst: (d4, d5, d3) = -2 + 0 + 3/2 - 2 = -2.5.   Run (d3, d1, d5) = 1 + 3/L3.
    best, worst = 3 + 1 / L3, -2.5
    m = parse_measure("nCS-DCG@3(cost=2)")
    st = m.prepare(POOL_REL, POOL_SENS)
    assert (st.hi, st.lo) == (ap(best), ap(worst))
    assert score("nCS-DCG@3(cost=2)", ["d3", "d1", "d5"]) == ap((1 + 3 / L3 - worst) / (best - worst))


def test_ncs_dcg_f_differs_when_fewer_documents_can_be_shown():
    # Pool: a (2, 0) g=3, b (0, 1) sensitive; k = 3, cost 2.
    # nCS-DCG must show min(k, n) = 2: best (a, b) = 3 - 2 = 1, worst (b, a) = -2 + 3/L3.
    # nCS-DCG_f over sub-lists: best (a) = 3, worst (b) = -2.
    m, mf = parse_measure("nCS-DCG@3(cost=2)"), parse_measure("nCS-DCG_f@3(cost=2)")
    st, stf = m.prepare([2, 0], [0, 1]), mf.prepare([2, 0], [0, 1])
    assert (st.hi, st.lo) == (ap(1.0), ap(-2 + 3 / L3))
    assert (stf.hi, stf.lo) == (ap(3.0), ap(-2.0))
    assert mf.score_ranked(stf, [2], [0]) == ap(1.0)
    assert mf.score_ranked(stf, [], []) == ap(2 / 5)        # (0 - -2) / (3 - -2)
    assert m.score_ranked(st, [2], [0]) == ap((3 - (-2 + 3 / L3)) / (1 - (-2 + 3 / L3)))  # > 1, by definition


def test_ncs_dcg_undefined_when_nothing_relevant_or_sensitive():
    m = parse_measure("nCS-DCG@10(cost=12)")
    st = m.prepare([0, 0, 0], [0, 0, 0])
    assert m.score_ranked(st, [0, 0], [0, 0]) is None
    assert parse_measure("nCS-DCG_f@10(cost=12)").score_list([], [], [0, 0], [0, 0]) is None


def test_gamma_cs_dcg():
    # (d3, d4, d1), cost 2, gamma 0.5: (3 - 2) + (0 - 2*0.5) + 3/2 = 1.5
    assert score("gCS-DCG@3(cost=2,gamma=0.5)", ["d3", "d4", "d1"]) == ap(1.5)
    # gamma = 0 charges only the first sensitive document: 3 - 2 + 0 + 1.5 = 2.5
    assert score("gCS-DCG@3(cost=2,gamma=0)", ["d3", "d4", "d1"]) == ap(2.5)
    # gamma = 1 is CS-DCG
    assert score("gCS-DCG@3(cost=2,gamma=1)", ["d3", "d4", "d1"]) == ap(score("CS-DCG@3(cost=2)", ["d3", "d4", "d1"]))
    # normalised: best (d1, d2, d5) = 3 + 1/L3; worst (d4, d5, d3) = -2 + 0 + (1.5 - 2*0.5) = -1.5
    best, worst = 3 + 1 / L3, -1.5
    assert score("ngCS-DCG@3(cost=2,gamma=0.5)", ["d3", "d4", "d1"]) == ap((1.5 - worst) / (best - worst))


def test_tern():
    assert score("TERN@3(M=1)", ["d3", "d1"]) == -1.0
    assert score("TERN@3(M=3)", ["d5", "d4"]) == -3.0
    assert score("TERN@3(M=1)", ["d2", "d5"]) == 1.0
    assert score("TERN@3(M=1)", ["d5"]) == 0.0
    assert score("TERN@3(M=1)", []) == 0.0
    assert score("TERN@2(M=1)", ["d5", "d1", "d4"]) == 1.0        # d4 is beyond k


def test_sens():
    # no sensitive shown: nDCG with ideal from non-sensitive (d1, d2, d5) = 3 + 1/L3
    assert score("SENS@3(M=3)", ["d2", "d1"]) == ap((1 + 3 / L3) / (3 + 1 / L3))
    assert score("SENS@3(M=3)", ["d1", "d2"]) == ap(1.0)
    assert score("SENS@3(M=3)", ["d4"]) == -3.0
    assert score("SENS@3(M=0)", ["d1", "d3"]) == 0.0
    assert score("SENS@3(M=1)", []) == 0.0


def test_ndcg_min_and_f_on_fixture():
    # labels (exp gains, forbidden -1): d1 3, d2 1, d3 -1, d4 -1, d5 0.
    # ideal@3 = 3 + 1/L3 + 0; worst@3 = -1 - 1/L3 + 0;  run (d2, d1, d4) = 1 + 3/L3 - 1/2
    ideal, worst, dcg = 3 + 1 / L3, -1 - 1 / L3, 1 + 3 / L3 - 0.5
    assert score("nDCG_min@3", ["d2", "d1", "d4"]) == ap((dcg - worst) / (ideal - worst))
    # I_f = positives only (d1, d2) = 3 + 1/L3 ; W_f = negatives only (d3, d4) = -1 - 1/L3
    assert score("nDCG_f@3", ["d2", "d1", "d4"]) == ap((dcg - worst) / (ideal - worst))
    # forbidden = -10: W_f = -10 - 10/L3
    wf = -10 - 10 / L3
    assert score("nDCG_f@3(forbidden=-10)", ["d2", "d1", "d4"]) == ap((1 + 3 / L3 - 5 - wf) / (ideal - wf))


def test_carmel_worked_example():
    """Carmel et al.: label scores -1 and +2, k = 2 (gain=linear gives labels = grades)."""
    pool_rel, pool_sens = [0, 2], [1, 0]          # d1: forbidden (-1), d2: label +2
    mmin = parse_measure("nDCG_min@2(forbidden=-1,gain=linear)")
    st = mmin.prepare(pool_rel, pool_sens)
    assert st.lo == pytest.approx(0.262, abs=5e-4) and st.lo == ap(-1 + 2 / L3)     # W_2
    assert st.hi == pytest.approx(1.369, abs=5e-4) and st.hi == ap(2 - 1 / L3)      # I_2
    assert mmin.score_ranked(st, [2], [0]) == ap((2 - (-1 + 2 / L3)) / (1 - 3 / L3 + 2))  # unbounded: > 1
    assert mmin.score_ranked(st, [2], [0]) > 1
    mf = parse_measure("nDCG_f@2(forbidden=-1,gain=linear)")
    stf = mf.prepare(pool_rel, pool_sens)
    assert (stf.lo, stf.hi) == (ap(-1.0), ap(2.0))                                  # W_f, I_f
    assert mf.score_ranked(stf, [2], [0]) == ap(1.0)                                 # sub-list (d2)
    assert mf.score_ranked(stf, [], []) == ap(1 / 3)                                 # empty list
    assert mf.score_ranked(stf, [0, 2], [1, 0]) == ap((-1 + 2 / L3 + 1) / 3)         # (d1, d2)


def test_ranklib_ndcg():
    """RankLib NDCG@k: gain 2^rel - 1, discount 1/log2(i+1), ideal from the query's own
    documents, 0 when the ideal is 0."""
    m3, m5, m10 = parse_measure("nDCG@3"), parse_measure("nDCG@5"), parse_measure("nDCG@10")
    ranked = [2, 0, 1, 2, 0]
    # DCG@3 = 3 + 0 + 1/2 ; ideal (2, 2, 1) = 3 + 3/L3 + 1/2
    assert m3.score_list(ranked, None, ranked, None) == ap(3.5 / (3.5 + 3 / L3))
    # DCG@5 = 3.5 + 3/log2(5) ; ideal@5 = 3.5 + 3/L3
    assert m5.score_list(ranked, None, ranked, None) == ap((3.5 + 3 / math.log2(5)) / (3.5 + 3 / L3))
    assert m10.score_list(ranked, None, ranked, None) == ap((3.5 + 3 / math.log2(5)) / (3.5 + 3 / L3))
    assert m5.score_list([0, 0, 0], None, [0, 0, 0], None) == 0.0
    assert m3.score_list([1, 2], None, [1, 2], None) == ap((1 + 3 / L3) / (3 + 1 / L3))


def test_o_cs_dcg_parts():
    # k = 4, ka = 2, effort 0.5, cost 2: searcher (d1, d3) = 3 + 3/L3 - 2;
    # archivist: d2 at rank 3 released -> 1 * 1/2; d4 at rank 4 sensitive -> withheld. effort = 2 * 0.5
    base = "O-CS-DCG@4(ka=2,effort=0.5,cost=2{})"
    run = ["d1", "d3", "d2", "d4"]
    assert score(base.format(",part=searcher"), run) == ap(1 + 3 / L3)
    assert score(base.format(",part=gain"), run) == ap(0.5)
    assert score(base.format(",part=effort"), run) == ap(1.0)
    assert score(base.format(""), run) == ap(1 + 3 / L3 + 0.5 - 1.0)
    # gamma applies to the searcher's list: (d3, d4 | d2), gamma 0.5 -> (3-2) + (0-1) ; archivist d2 at rank 3
    assert score("O-CS-DCG@3(ka=1,effort=0.25,cost=2,gamma=0.5)", ["d3", "d4", "d2"]) == ap(0.0 + 0.5 - 0.25)
    # ka = 0 is gamma-CS-DCG
    assert score("O-CS-DCG@3(ka=0,effort=1,cost=2,gamma=0.5)", ["d3", "d4", "d1"]) == ap(1.5)
    # a short list: nothing reaches the archivist, no effort
    assert score(base.format(",part=effort"), ["d1"]) == 0.0


def test_filtering_measures():
    assert score("F-docs@3", ["d3", "d4", "d1"]) == ap(2 / 3)
    assert score("F-docs@3", []) is None
    # non-sensitive relevant in the pool: d1, d2 -> min(k, 2) = 2; (d3, d4, d1) shows d1 -> 1/2 withheld
    assert score("Withheld@3", ["d3", "d4", "d1"]) == ap(0.5)
    assert score("Withheld@1", ["d1"]) == ap(0.0)          # min(k, 2) = 1
    assert score("Withheld@3", []) == ap(1.0)
    assert score("Empty@3", []) == 1.0 and score("Empty@3", ["d5"]) == 0.0
    assert score("CS-DCG-sign@3(cost=2)", ["d3", "d4"]) == -1.0
    assert score("CS-DCG-sign@3(cost=2)", ["d5"]) == 0.0
    assert score("CS-DCG-sign@3(cost=2)", ["d2"]) == 1.0


def test_run_level_evaluation_and_figures():
    j = Judgments(
        qrels={"1": {"d1": 2, "d2": 1, "d3": 2, "d4": 0}, "2": {"e1": 1, "e2": 0}, "3": {"f1": 0}},
        sensitivity={"d3": 1, "d4": 1, "e2": 1},
    )
    run = {"1": ["d3", "d1", "x9"], "2": ["e1"], "99": ["zz"]}    # topic 3 missing: empty list; 99 ignored
    res = evaluate_run([parse_measure("TERN@3(M=1)"), parse_measure("nCS-DCG_f@3(cost=2)")], run, j)
    assert res["TERN@3(M=1)"] == {"1": -1.0, "2": 1.0, "3": 0.0}
    f = res["nCS-DCG_f@3(cost=2)"]
    assert f["3"] is None                                          # nothing relevant or sensitive
    # topic 2: pool e1 (1, 0), e2 (0, 1); best (e1) = 1, worst (e2) = -2; run (e1) -> 1.0
    assert f["2"] == ap(1.0)
    # topic 1: pool d1 g3, d2 g1, d3 g3 s, d4 s, and x9 (unjudged, listed by the run: nCS-DCG_f's
    # pool takes in every listed document). best (d1, d2) = 3 + 1/L3 ; worst: sub-lists of <= 3
    #   ordered by gain ascending: (d4) = -2, (d4, d3) = -2 + 3/L3 - 2 = -2.107,
    #   (d4, d2, d3) = -2 + 1/L3 + 1.5 - 2 = -1.869, (d4, x9, d3) = -2 + 0 + 1.5 - 2 = -2.5
    #   -> worst = -4 + 3/2 (was -4 + 3/L3 when x9 could not be a gap in the worst list)
    best, worst = 3 + 1 / L3, -4 + 3 / 2
    assert f["1"] == ap((3 - 2 + 3 / L3 - worst) / (best - worst))
    ff = filtering_figures(run, j, k=3, cost=2)
    assert (ff.topics, ff.f_docs_topics, ff.withheld_topics) == (3, 2, 2)
    assert ff.f_docs == ap((1 / 3 + 0) / 2)
    assert ff.withheld == ap((0.5 + 0.0) / 2)     # topic 1: d1 shown of (d1, d2); topic 2: e1 shown
    assert ff.share_empty == ap(1 / 3)
    assert (ff.positive, ff.zero, ff.negative) == (2, 1, 0)
