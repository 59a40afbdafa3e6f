"""Review 8: the linear ranker is cost-aware. With an objective that has costs (the CS-DCG
family) it regresses on each document's gain minus its cost, so the joint approach ranks what
is likely sensitive down; otherwise on the grades, as before. ``objective_`` says what a fitted
ranker learned from (it ignored the objective while `sasc protect train --json` echoed it)."""
from __future__ import annotations

import numpy as np
import pytest

from sasc_desktop.engine.rank.data import RankData
from sasc_desktop.engine.rank.rankers import RANKERS, LinearRanker, make_ranker

FAST = {"ca": {"n_restarts": 1, "n_iter": 4, "n_jobs": 1}, "lambdamart": {"n_trees": 5},
        "adarank": {"n_rounds": 5}}


def tiny():
    rel = np.array([0, 1, 2, 2, 1, 0])
    sens = np.array([0, 0, 1, 2, -1, 3])
    X = np.array([[0.1, 0.0], [1.0, 0.2], [2.0, 0.9], [1.5, 1.0], [0.8, 0.1], [0.0, 0.7]])
    return RankData(X, rel, sens, np.array([0, 6]), ("t",), tuple(map(str, range(6))), (rel,), (sens,),
                    ("rel", "prob"))


@pytest.mark.parametrize("objective,expected", [
    # gain 2^rel - 1 minus the level's cost ("don't know", -1, is level 0; levels past costs= use its last)
    ("nCS-DCG@10(cost=12)", [0, 1, 3 - 12, 3 - 12, 1, -12]),
    ("CS-DCG@5(costs=0/6/12)", [0, 1, 3 - 6, 3 - 12, 1, -12]),
    ("ngCS-DCG@10(cost=2,gamma=0.5)", [0, 1, 1, 1, 1, -2]),
    # no cost: the grades, as before
    ("nDCG@10", [0, 1, 2, 2, 1, 0]), ("TERN@10(M=1)", [0, 1, 2, 2, 1, 0]), ("nCS-DCG@10(cost=0)", [0, 1, 2, 2, 1, 0]),
    (None, [0, 1, 2, 2, 1, 0]),
])
def test_target_is_gain_minus_cost_or_the_grades(objective, expected):
    r = LinearRanker(objective=objective)
    assert r.target(tiny()).tolist() == expected
    r.fit(tiny())
    costly = objective is not None and "cost=0" not in objective and "cost" in objective
    assert r.objective_ == (objective if costly else None)


def test_coefficients_are_the_ridge_solution_of_the_target():
    """Oracle: scikit-learn's Ridge (with intercept) on the z-scored features."""
    from sklearn.linear_model import Ridge
    d = tiny()
    r = LinearRanker(alpha=0.5, objective="nCS-DCG@10(costs=0/6/12)").fit(d)
    Z = (d.X - d.X.mean(0)) / d.X.std(0)
    ref = Ridge(alpha=0.5).fit(Z, [0, 1, -3, -9, 1, -12])
    np.testing.assert_allclose(r.coef_, ref.coef_, rtol=1e-10)
    np.testing.assert_allclose(r.predict(d.X) - r.predict(d.X).mean(), ref.predict(Z) - ref.predict(Z).mean(),
                               atol=1e-10)


def test_without_costs_the_model_is_the_one_on_the_grades():
    d = tiny()
    np.testing.assert_array_equal(LinearRanker(objective="nDCG@10").fit(d).coef_, LinearRanker().fit(d).coef_)
    np.testing.assert_array_equal(make_ranker("linear", objective="nDCG@10").fit(d).coef_,
                                  LinearRanker().fit(d).coef_)


def synthetic(n_topics=8, n=40, seed=5, sens_rate=0.4):
    rng = np.random.default_rng(seed)
    Xs, rels, senss, offs = [], [], [], [0]
    for _ in range(n_topics):
        rel = rng.choice([0, 0, 0, 1, 2], n)
        sens = (rng.random(n) < sens_rate).astype(int)
        Xs.append(np.c_[rel + rng.normal(0, 0.7, n), rng.normal(0, 1, n), sens + rng.normal(0, 0.2, n)])
        rels.append(rel)
        senss.append(sens)
        offs.append(offs[-1] + n)
    rel, sens = np.concatenate(rels), np.concatenate(senss)
    return RankData(np.vstack(Xs), rel, sens, np.array(offs), tuple(map(str, range(n_topics))),
                    tuple(f"d{i}" for i in range(len(rel))), tuple(rels), tuple(senss), ("rel", "noise", "sens"))


def test_a_cost_objective_pushes_sensitive_documents_down():
    data = synthetic()

    def sens_in_top10(model):
        s = model.predict(data.X)
        return sum(int(data.sens[data.group(t)][np.argsort(-s[data.group(t)], kind="stable")[:10]].sum())
                   for t in range(data.n_topics))
    joint = make_ranker("linear", objective="nCS-DCG@10(cost=12)").fit(data)
    plain = make_ranker("linear", objective="nDCG@10").fit(data)
    assert sens_in_top10(joint) <= 2 < 10 < sens_in_top10(plain)
    assert joint.coef_[2] < 0 < plain.coef_[0]


@pytest.mark.parametrize("name,objective,learned", [
    ("bm25", "nCS-DCG@10(cost=12)", None), ("linear", "nCS-DCG@10(cost=12)", "nCS-DCG@10(cost=12)"),
    ("linear", "TERN@10(M=1)", None), ("ca", "TERN@10(M=1)", "TERN@10(M=1)"),
    ("adarank", "nDCG@5", "nDCG@5"), ("lambdamart", "nCS-DCG@10(cost=12.0)", "nCS-DCG@10(cost=12)")])
def test_objective_says_what_each_ranker_learned_from(name, objective, learned):
    params = dict(FAST.get(name, {}))
    if name == "bm25":
        params["feature"] = "rel"
    assert make_ranker(name, objective=objective, **params).fit(synthetic(n_topics=3)).objective_ == learned
    assert set(RANKERS) == {"bm25", "linear", "ca", "adarank", "lambdamart"}
