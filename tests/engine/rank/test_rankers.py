"""Rankers: one fit/predict contract; each improves its objective over a random ranking on
training data; a joint ranker with a huge cost pushes sensitive documents down."""
from __future__ import annotations

import numpy as np
import pytest

from sasc_desktop.engine.rank.data import Evaluator, RankData
from sasc_desktop.engine.rank.features import CollectionStats, field_features, min_span, PER_FIELD
from sasc_desktop.engine.rank.rankers import RANKERS, make_ranker
from sasc_desktop.engine.evaluate import parse_measure


def synthetic(n_topics=8, n=40, seed=0, sens_rate=0.3):
    rng = np.random.default_rng(seed)
    Xs, rels, senss, offs = [], [], [], [0]
    for t in range(n_topics):
        rel = rng.choice([0, 0, 0, 1, 2], n)
        sens = (rng.random(n) < sens_rate).astype(int)
        f0 = rel + rng.normal(0, 0.7, n)               # noisy relevance signal
        f1 = rng.normal(0, 1, n)                        # noise
        f2 = sens + rng.normal(0, 0.2, n)               # sensitivity signal (a "probability")
        f3 = rel * 0.5 + rng.normal(0, 1.0, n)
        Xs.append(np.c_[f0, f1, f2, f3])
        rels.append(rel)
        senss.append(sens)
        offs.append(offs[-1] + n)
    rel, sens = np.concatenate(rels), np.concatenate(senss)
    return RankData(np.vstack(Xs), rel, sens, np.array(offs), tuple(str(t) for t in range(n_topics)),
                    tuple(f"d{i}" for i in range(len(rel))), tuple(rels), tuple(senss),
                    ("titledesc:all:bm25", "noise", "sens", "weak"))


FAST = {"ca": {"n_restarts": 2, "n_iter": 8, "n_jobs": 1}, "lambdamart": {"n_trees": 15},
        "adarank": {"n_rounds": 20}}


@pytest.mark.parametrize("name", list(RANKERS))
def test_contract_and_improves_over_random(name):
    data = synthetic()
    r = make_ranker(name, objective="nDCG@10", **FAST.get(name, {}))
    assert r.fit(data, data) is r
    s = r.predict(data.X)
    assert s.shape == (len(data.rel),) and np.isfinite(s).all()
    ev = Evaluator(parse_measure("nDCG@10"), data)
    rng = np.random.default_rng(1)
    random_mean = np.mean([ev.mean(rng.random(len(s))) for _ in range(20)])
    assert ev.mean(s) > random_mean + 0.1
    assert all(not k.endswith("_") for k in r.get_params())


@pytest.mark.parametrize("name,objective", [("ca", "nCS-DCG@10(cost=12)"), ("adarank", "TERN@10(M=1)"),
                                            ("lambdamart", "nCS-DCG@10(cost=12)")])
def test_listwise_any_measure_improves(name, objective):
    data = synthetic(seed=3)
    r = make_ranker(name, objective=objective, **FAST.get(name, {})).fit(data, data)
    ev = Evaluator(parse_measure(objective), data)
    rng = np.random.default_rng(2)
    assert ev.mean(r.predict(data.X)) > np.mean([ev.mean(rng.random(len(data.rel))) for _ in range(20)])


@pytest.mark.parametrize("name", ["ca", "lambdamart"])
def test_huge_cost_pushes_sensitive_down(name):
    data = synthetic(seed=5, sens_rate=0.4)
    joint = make_ranker(name, objective="CS-DCG@10(cost=1000)", **FAST.get(name, {})).fit(data, data)
    plain = make_ranker(name, objective="nDCG@10", **FAST.get(name, {})).fit(data, data)

    def sens_in_top10(model):
        s = model.predict(data.X)
        n = 0
        for t in range(data.n_topics):
            g = data.group(t)
            n += int(data.sens[g][np.argsort(-s[g], kind="stable")[:10]].sum())
        return n
    assert sens_in_top10(joint) <= 1
    assert sens_in_top10(plain) > 10


def test_ca_restarts_in_parallel_give_same_result_as_serial():
    data = synthetic(n_topics=4, seed=7)
    a = make_ranker("ca", objective="nDCG@10", n_restarts=2, n_iter=5, n_jobs=2).fit(data, data)
    b = make_ranker("ca", objective="nDCG@10", n_restarts=2, n_iter=5, n_jobs=1).fit(data, data)
    np.testing.assert_allclose(a.coef_, b.coef_)


def test_unknown_ranker_and_measure():
    from sasc_desktop.engine.errors import SascError
    with pytest.raises(SascError, match="rankers are"):
        make_ranker("svm")
    with pytest.raises(SascError):
        make_ranker("ca", objective="nope@10").fit(synthetic(n_topics=2), None)


def test_min_span_exact():
    assert min_span("a x b y a b c".split(), ["a", "b", "c"]) == 3      # "a b c" at positions 4-6
    assert min_span("a x x x b".split(), ["a", "b"]) == 5
    assert min_span("x y".split(), ["a"]) == 0
    assert min_span("x a y".split(), ["a", "b"]) == 1


def test_field_features_exact_bm25_and_lm():
    TF = np.array([[2, 0], [1, 1]])
    dl = np.array([10.0, 5.0])
    st = CollectionStats(n_docs=100, avg_len=10.0, total_len=1000.0, df=np.array([10.0, 1.0]), cf=np.array([20.0, 1.0]))
    out = field_features(TF, np.array([1.0, 1.0]), dl, st, np.array([1, 2]))
    col = {n: out[:, i] for i, n in enumerate(PER_FIELD)}
    idf = np.log(1 + (100 - np.array([10, 1]) + 0.5) / (np.array([10, 1]) + 0.5))
    bm25_0 = idf[0] * 2 * 2.2 / (2 + 1.2)
    norm1 = 1.2 * (0.25 + 0.75 * 0.5)
    bm25_1 = idf[0] * 2.2 / (1 + norm1) + idf[1] * 2.2 / (1 + norm1)
    np.testing.assert_allclose(col["bm25"], [bm25_0, bm25_1])
    pc = np.array([21, 2]) / 1001
    np.testing.assert_allclose(col["lm_dir"][0], np.log((2 + 1000 * pc[0]) / 1010) + np.log(1000 * pc[1] / 1010))
    np.testing.assert_allclose(col["coverage"], [0.5, 1.0])
    np.testing.assert_allclose(col["proximity"], [1.0, 1.0])
    np.testing.assert_allclose(col["tfidf_max"], [2 * idf[0], idf[1]])
