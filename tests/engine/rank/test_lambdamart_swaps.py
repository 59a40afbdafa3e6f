"""LambdaMART's pair weights are the objective's own swap deltas (issues 4 and 5).

Oracle: for a ranking, swap two candidates and score both lists with ``Measure.score_ranked``
(the measure's definition: its normalisation over the judged pool, truncation at k, cost not
discounted, TERN/SENS's penalty). ``Evaluator.swap_deltas`` must give exactly these deltas for
every pair with one candidate in the top k (and list no pair both below k, whose swap changes
nothing), for every measure family; LambdaMART's lambdas are RankLib's gradient built on them.
The previous code weighted pairs by a utility 2^rel - 1 - cost with no truncation at k, the
cost discounted, its own ideal over the candidates clamped at 1, pairs ordered by utility; on
TERN@3(M=1) it trained to -0.2 where Coordinate Ascent reaches 1.0."""
from __future__ import annotations

import itertools
import zlib
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sasc_desktop.engine.evaluate import parse_measure
from sasc_desktop.engine.rank.data import Evaluator, RankData
from sasc_desktop.engine.rank.rankers import CoordinateAscent, LambdaMART

FAMILIES = ["nDCG@{k}", "nCS-DCG@{k}(cost=12)", "nCS-DCG@{k}(costs=0/2/5)", "nCS-DCG_f@{k}(cost=3)",
            "TERN@{k}(M=0)", "TERN@{k}(M=1)", "TERN@{k}(M=3)", "SENS@{k}(M=0)", "SENS@{k}(M=1)", "nDCG_f@{k}",
            "DCG@{k}", "CS-DCG@{k}(cost=12)", "ngCS-DCG@{k}(cost=2,gamma=0.5)", "gCS-DCG@{k}(cost=4,gamma=0)",
            "O-CS-DCG@{k}(ka=1,effort=0.5,cost=4)", "P@{k}", "nDCG_min@{k}", "F-docs@{k}", "Withheld@{k}", "Empty@{k}",
            "CS-DCG-sign@{k}(cost=2)"]


def one_topic(rel, sens, pool_rel=None, pool_sens=None):
    """One topic; the single feature ranks the candidates in the order given."""
    n = len(rel)
    rel, sens = np.asarray(rel), np.asarray(sens)
    return RankData(np.arange(n, 0, -1, dtype=float).reshape(n, 1), rel, sens, np.array([0, n]), ("q",),
                    tuple(f"d{i}" for i in range(n)),
                    (np.maximum(rel, 0) if pool_rel is None else np.asarray(pool_rel),),
                    (np.maximum(sens, 0) if pool_sens is None else np.asarray(pool_sens),), ("f",))


def random_data(rng, n_topics, n_max):
    sizes = rng.integers(1, n_max + 1, n_topics)
    offs = np.concatenate([[0], np.cumsum(sizes)])
    N = int(offs[-1])
    rel = rng.integers(-1, 3, N)           # -1: a junk grade (clamped at 0 by the measures)
    sens = rng.integers(-1, 3, N)          # -1: "I don't know" (level 0 for the measures)
    pool_rel, pool_sens = [], []
    for t in range(n_topics):
        extra = int(rng.integers(0, 3))    # judged documents that are not candidates
        pool_rel.append(np.concatenate([np.maximum(rel[offs[t]:offs[t + 1]], 0), rng.integers(0, 3, extra)]))
        pool_sens.append(np.concatenate([np.maximum(sens[offs[t]:offs[t + 1]], 0), rng.integers(0, 3, extra)]))
    return RankData(rng.normal(size=(N, 2)), rel, sens, offs, tuple(f"q{t}" for t in range(n_topics)),
                    tuple(f"d{i}" for i in range(N)), tuple(pool_rel), tuple(pool_sens), ("a", "b"))


def brute_deltas(m, data, scores):
    """{(upper row, lower row): score_ranked(swapped) - score_ranked(ranking)} for every pair of
    every topic where the measure is defined (the ranking: scores descending, ties by position)."""
    out = {}
    for t in range(data.n_topics):
        g = data.group(t)
        state = m.prepare(data.pool_rel[t], data.pool_sens[t])
        order = np.argsort(-scores[g], kind="stable") + g.start
        base = m.score_ranked(state, data.rel[order], data.sens[order])
        if base is None:
            continue
        for p, q in itertools.combinations(range(len(order)), 2):
            o = order.copy()
            o[p], o[q] = o[q], o[p]
            out[(int(order[p]), int(order[q]))] = (m.score_ranked(state, data.rel[o], data.sens[o]) - base, p)
    return out


def check_against_brute_force(m, data, scores):
    up, lo, delta = Evaluator(m, data).swap_deltas(scores)
    got = {(int(a), int(b)): float(d) for a, b, d in zip(up, lo, delta)}
    assert len(got) == len(up)                             # each pair once
    for key, (want, p) in brute_deltas(m, data, scores).items():
        if p >= m.k:                                       # both below k: not listed, and indeed 0
            assert key not in got and want == 0.0
        else:
            assert got.pop(key) == pytest.approx(want, rel=1e-12, abs=1e-12), (m.name, key)
    assert not got, f"{m.name}: pairs of undefined topics or unknown pairs listed: {got}"


@pytest.mark.parametrize("family", FAMILIES)
def test_swap_deltas_equal_brute_force_swaps_for_every_family(family):
    rng = np.random.default_rng(zlib.crc32(family.encode()))
    for _ in range(25):
        k = int(rng.integers(1, 6))
        data = random_data(rng, int(rng.integers(1, 4)), 8)
        scores = rng.integers(0, 4, len(data.rel)).astype(float)   # ties on purpose
        check_against_brute_force(parse_measure(family.format(k=k)), data, scores)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 5), family=st.sampled_from(FAMILIES))
def test_swap_deltas_property(seed, k, family):
    rng = np.random.default_rng(seed)
    data = random_data(rng, int(rng.integers(1, 4)), 9)
    check_against_brute_force(parse_measure(family.format(k=k)), data, rng.normal(size=len(data.rel)))


@pytest.mark.parametrize("objective", ["nCS-DCG@5(cost=12)", "SENS@4(M=1)", "ngCS-DCG@5(cost=2,gamma=0.5)"])
def test_swap_deltas_in_batches_equal_one_batch(objective):
    rng = np.random.default_rng(5)
    data = random_data(rng, 7, 30)
    ev = Evaluator(parse_measure(objective), data)
    s = rng.normal(size=len(data.rel))
    whole, small = ev.swap_deltas(s), ev.swap_deltas(s, max_cells=1)
    for a, b in zip(whole, small):
        np.testing.assert_array_equal(a, b)


def test_large_k_against_brute_force():
    """k larger than a few: the additive families' inside-top-k swaps are sums of two
    one-rank changes; SENS's are 0 under a penalty; checked on 40 candidates at k = 25."""
    rng = np.random.default_rng(11)
    data = random_data(rng, 2, 40)
    s = rng.normal(size=len(data.rel))
    for objective in ("nDCG@25", "nCS-DCG@25(cost=3)", "SENS@25(M=1)", "nDCG_f@25", "TERN@25(M=1)"):
        check_against_brute_force(parse_measure(objective), data, s)


def test_no_candidates():
    empty = RankData(np.zeros((0, 1)), np.zeros(0, int), np.zeros(0, int), np.array([0, 0]), ("q",), (),
                     (np.array([1]),), (np.array([0]),), ("f",))
    assert all(len(a) == 0 for a in Evaluator(parse_measure("nDCG@5"), empty).swap_deltas(np.zeros(0)))


def brute_lambdas(m, data, scores):
    """RankLib's lambdas from brute-force swap deltas: the pair is pulled towards the order the
    measure prefers, weight |delta| / (1 + exp(s_winner - s_loser))."""
    lam, hess = np.zeros(len(scores)), np.zeros(len(scores))
    for (a, b), (delta, _) in brute_deltas(m, data, scores).items():
        if delta == 0:
            continue
        win, lose = (b, a) if delta > 0 else (a, b)
        rho = 1.0 / (1.0 + np.exp(scores[win] - scores[lose]))
        lam[win] += abs(delta) * rho
        lam[lose] -= abs(delta) * rho
        hess[[win, lose]] += abs(delta) * rho * (1 - rho)
    return lam, hess


@pytest.mark.parametrize("family", FAMILIES)
def test_lambdas_are_ranklib_gradients_of_the_swap_deltas(family):
    rng = np.random.default_rng(7)
    for _ in range(10):
        data = random_data(rng, 3, 8)
        m = parse_measure(family.format(k=int(rng.integers(1, 5))))
        s = rng.normal(size=len(data.rel))
        lam, hess = LambdaMART.lambdas(Evaluator(m, data), s)
        want_lam, want_hess = brute_lambdas(m, data, s)
        np.testing.assert_allclose(lam, want_lam, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(hess, want_hess, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("objective, rel, sens", [
    ("nDCG@2", [0, 0, 2, 1], [0, 0, 0, 0]),                    # the d2/d3 pair is below k: weight 0
    ("nCS-DCG@2(cost=12)", [2, 0, 0, 1], [1, 0, 0, 0]),        # d1 over d0 lowers the measure
    ("TERN@3(M=1)", [2, 0, 1, 0, 2], [1, 0, 1, 0, 0]),
    ("SENS@2(M=1)", [2, 1, 0, 2], [1, 0, 0, 0]),
    ("nDCG_f@2", [0, 2, 1, 1], [0, 1, 0, 0]),
])
def test_first_tree_is_the_newton_step_on_brute_force_lambdas(objective, rel, sens):
    """The reviewer's iteration-0 cases, end to end: one tree, one document per leaf possible,
    learning rate 1: every leaf holds sum(lambda) / sum(hessian) of its documents, with lambdas
    from brute-force swaps of the first ranking (all scores 0: candidate order, rho = 1/2)."""
    data = one_topic(rel, sens)
    m = parse_measure(objective)
    lm = LambdaMART(objective=objective, n_trees=1, learning_rate=1.0, max_leaf_nodes=len(rel),
                    min_samples_leaf=1).fit(data)
    lam, hess = brute_lambdas(m, data, np.zeros(len(rel)))
    leaves = lm.trees_[0][0].apply(data.X)
    want = np.array([lam[leaves == leaf].sum() / max(hess[leaves == leaf].sum(), 1e-9) for leaf in leaves])
    np.testing.assert_allclose(lm.predict(data.X), want, rtol=1e-12, atol=1e-12)


def test_reviewer_examples_exact_lambdas():
    # nDCG@2, rel 0 0 2 1 in that order: ideal 3 + 1/log2(3); swaps d0<->d2 +3/ideal, d1<->d2
    # +3(1/log2(3))/ideal, d0<->d3 +1/ideal, d1<->d3 +(1/log2(3))/ideal; d2<->d3 (ranks 3, 4) 0
    data = one_topic([0, 0, 2, 1], [0, 0, 0, 0])
    L3 = 1 / np.log2(3)
    ideal = 3 + L3
    lam, hess = LambdaMART.lambdas(Evaluator(parse_measure("nDCG@2"), data), np.zeros(4))
    np.testing.assert_allclose(lam, 0.5 * np.array([-4, -4 * L3, 3 + 3 * L3, 1 + L3]) / ideal, rtol=1e-13)
    np.testing.assert_allclose(hess, 0.25 * np.array([4, 4 * L3, 3 + 3 * L3, 1 + L3]) / ideal, rtol=1e-13)
    # nCS-DCG@2(cost=12), rel 2 0 0 1, d0 sensitive: showing d0 first is worth keeping over d1
    # (the swap d0<->d1 lowers the measure), so d1 is pushed down by that pair, not up
    data = one_topic([2, 0, 0, 1], [1, 0, 0, 0])
    up, lo, delta = Evaluator(parse_measure("nCS-DCG@2(cost=12)"), data).swap_deltas(np.zeros(4))
    d01 = float(delta[(up == 0) & (lo == 1)][0])
    assert d01 < 0
    lam, _ = LambdaMART.lambdas(Evaluator(parse_measure("nCS-DCG@2(cost=12)"), data), np.zeros(4))
    assert lam[1] < 0


def test_dont_know_and_junk_grades_count_as_level_zero():
    """A "don't know" (-1) candidate swaps like a level-0 one, a junk grade (-2) like grade 0."""
    m = parse_measure("nCS-DCG@3(cost=12)")
    a = one_topic([2, -2, 1, 0, 2], [-1, 0, 1, -1, 0])
    b = one_topic([2, 0, 1, 0, 2], [0, 0, 1, 0, 0])
    for x, y in zip(Evaluator(m, a).swap_deltas(np.zeros(5)), Evaluator(m, b).swap_deltas(np.zeros(5))):
        np.testing.assert_array_equal(x, y)


def reviewer_tern_data():
    """The reviewer's data: 10 topics of 8 candidates, 3 features, feature 2 reveals sensitivity."""
    rng = np.random.default_rng(7)
    Xs, rels, senss = [], [], []
    for _ in range(10):
        Xs.append(rng.normal(size=(8, 3)))
        rels.append(rng.integers(0, 3, 8))
        senss.append((rng.random(8) < 0.3).astype(int))
    X, rel, sens = np.vstack(Xs), np.concatenate(rels), np.concatenate(senss)
    X[:, 2] = sens + 0.01 * np.arange(len(X)) % 3
    return RankData(X, rel, sens, np.arange(0, 81, 8), tuple(f"q{t}" for t in range(10)),
                    tuple(f"t{t}d{i}" for t in range(10) for i in range(8)), tuple(rels), tuple(senss),
                    ("f0", "f1", "f2"))


@pytest.mark.parametrize("objective", ["TERN@3(M=1)", "SENS@3(M=0)", "SENS@3(M=1)", "nCS-DCG@3(cost=12)"])
def test_lambdamart_trains_as_well_as_coordinate_ascent(objective):
    """On the reviewer's data LambdaMART (30 trees) reaches at least Coordinate Ascent's training
    score (previous code: TERN@3(M=1) -0.2, SENS@3(M=0) 0.3, CA 1.0 and 0.7621). Both are
    deterministic (fixed seeds); the assertion is on training data, where CA's restart best on
    training is a fair reference."""
    data = reviewer_tern_data()
    ev = Evaluator(parse_measure(objective), data)
    lm = LambdaMART(objective=objective, n_trees=30, min_samples_leaf=1).fit(data)
    ca = CoordinateAscent(objective=objective, n_jobs=1).fit(data)
    assert ev.mean(lm.predict(data.X)) >= ev.mean(ca.predict(data.X)) - 1e-12
    if objective.startswith("TERN"):
        assert ev.mean(lm.predict(data.X)) == 1.0   # the most TERN can give: no topic shows a sensitive one


def test_undefined_topics_teach_nothing():
    """A topic where the objective is undefined gives no pairs and no lambdas."""
    d = one_topic([0, 0, 0], [0, 0, 0])
    for obj in ("nCS-DCG@2(cost=12)", "nDCG_f@2"):
        ev = Evaluator(parse_measure(obj), d)
        assert not ev.defined[0]
        assert all(len(a) == 0 for a in ev.swap_deltas(np.zeros(3)))
        lam, hess = LambdaMART.lambdas(ev, np.zeros(3))
        assert not lam.any() and not hess.any()


def test_validation_history_and_pickled_predict_unchanged_shape():
    data = reviewer_tern_data()
    valid = replace(data, X=data.X + 0.1)
    lm = LambdaMART(objective="nDCG@3", n_trees=5, min_samples_leaf=1).fit(data, valid)
    assert len(lm.history_) == 5 and 1 <= lm.n_used_ <= 5
    assert lm.history_[lm.n_used_ - 1] == max(lm.history_)
    ev = Evaluator(parse_measure("nDCG@3"), valid)
    assert ev.mean(lm.predict(valid.X)) == pytest.approx(lm.history_[lm.n_used_ - 1], abs=1e-12)
