"""AdaRank ignores training topics where its objective is undefined (issue 6).

``Evaluator.per_topic`` reports 0 for such a topic (e.g. nCS-DCG with nothing relevant and
nothing sensitive: best equals worst); the previous code counted that 0 as a real score in the
weak rankers' performance, the topic weights and the re-weighting, so appending such a topic
changed the model (the reviewer: 40 of 40 datasets for nCS-DCG@5(cost=12))."""
from __future__ import annotations

import numpy as np
import pytest

from sasc_desktop.engine.evaluate import parse_measure
from sasc_desktop.engine.rank.data import Evaluator, RankData
from sasc_desktop.engine.rank.rankers import make_ranker


def dataset(seed, T=3, n=8, F=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T * n, F))
    rel = rng.integers(0, 3, T * n)
    sens = (rng.random(T * n) < 0.3).astype(int)
    offs = np.arange(0, T * n + 1, n)
    return RankData(X, rel, sens, offs, tuple(f"q{t}" for t in range(T)), tuple(f"d{i}" for i in range(T * n)),
                    tuple(rel[offs[t]:offs[t + 1]] for t in range(T)), tuple(sens[offs[t]:offs[t + 1]] for t in range(T)),
                    tuple(f"f{j}" for j in range(F)))


def with_undefined_topic(d):
    """One more topic, nothing relevant and nothing sensitive, whose rows copy every training row
    (so the z-score normalisation is the same)."""
    N = len(d.rel)
    z = np.zeros(N, int)
    return RankData(np.vstack([d.X, d.X]), np.concatenate([d.rel, z]), np.concatenate([d.sens, z]),
                    np.append(d.offsets, 2 * N), d.topics + ("empty",), d.doc_ids + tuple(f"x{i}" for i in range(N)),
                    d.pool_rel + (z,), d.pool_sens + (z,), d.feature_names)


@pytest.mark.parametrize("objective", ["nCS-DCG@5(cost=12)", "nCS-DCG_f@5(cost=12)", "nDCG_f@5",
                                       "ngCS-DCG@5(cost=2,gamma=0.5)"])   # (Withheld: lower is better, no objective)
def test_an_undefined_topic_leaves_the_model_unchanged(objective):
    for seed in range(15):
        d = dataset(seed)
        e = with_undefined_topic(d)
        ev = Evaluator(parse_measure(objective), e)
        assert not ev.defined[-1]
        a = make_ranker("adarank", objective=objective).fit(d)
        b = make_ranker("adarank", objective=objective).fit(e)
        np.testing.assert_allclose(b.mean_, a.mean_, rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(b.scale_, a.scale_, rtol=1e-14)
        np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-12, atol=1e-12, err_msg=f"{objective} seed {seed}")
        assert len(b.history_) == len(a.history_)
        np.testing.assert_allclose(b.history_, a.history_, rtol=1e-12, atol=1e-12)


def test_no_defined_topic_learns_nothing():
    d = dataset(0)
    z = np.zeros(len(d.rel), int)
    empty = RankData(d.X, z, z, d.offsets, d.topics, d.doc_ids, tuple(z[:8] for _ in range(3)),
                     tuple(z[:8] for _ in range(3)), d.feature_names)
    ada = make_ranker("adarank", objective="nCS-DCG@5(cost=12)").fit(empty)
    assert not ada.coef_.any()
    assert np.isfinite(ada.predict(d.X)).all()
