"""A NaN or infinite feature value is refused with a message naming it (issue 7).

The previous code took it silently: one NaN made the z-score mean and scale NaN, so the linear
ranker, AdaRank and Coordinate Ascent scored every document NaN (on clean data too), and
LambdaMART failed inside scikit-learn ('Input X contains infinity ...'). Now RankData refuses
it when built, every ranker's fit checks its training and validation data again (arrays can be
changed in place) and predict checks what it scores: an InputError naming the feature (number
from 1 and name), the document and the topic."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.rank import data as D
from sasc_desktop.engine.rank.data import RankData
from sasc_desktop.engine.rank.rankers import RANKERS, make_ranker

FAST = {"ca": {"n_restarts": 2, "n_iter": 4, "n_jobs": 1}, "lambdamart": {"n_trees": 3},
        "adarank": {"n_rounds": 5}, "bm25": {"feature": "f0"}}
BAD = [(np.nan, "NaN"), (np.inf, "inf"), (-np.inf, "-inf")]


def data(seed=1, T=3, n=6, F=4):
    rng = np.random.default_rng(seed)
    rel = rng.integers(0, 3, T * n)
    sens = (rng.random(T * n) < 0.3).astype(int)
    offs = np.arange(0, T * n + 1, n)
    return RankData(rng.normal(size=(T * n, F)), rel, sens, offs, ("alpha", "beta", "gamma"),
                    tuple(f"d{i}" for i in range(T * n)), tuple(rel[offs[t]:offs[t + 1]] for t in range(T)),
                    tuple(sens[offs[t]:offs[t + 1]] for t in range(T)), tuple(f"f{j}" for j in range(F)))


@pytest.mark.parametrize("value, shown", BAD)
def test_rankdata_refuses_a_non_finite_feature_naming_it(value, shown):
    d = data()
    X = d.X.copy()
    X[8, 2] = value                        # row 9: document d8, the second topic (rows 6-11)
    with pytest.raises(InputError, match=rf"feature 3 of 4 \('f2'\) is {shown} for document 'd8' \(row 9\) "
                                         rf"of topic 'beta'; every feature value must be a finite number"):
        replace(d, X=X)
    X[0, 0] = value
    X[17, 3] = value
    with pytest.raises(InputError, match=r"feature 1 of 4 \('f0'\) .* document 'd0' \(row 1\) of topic 'alpha'; "
                                         r"2 more non-finite value\(s\) in feature\(s\) 1, 3, 4"):
        replace(d, X=X)


def test_rankdata_refuses_a_non_finite_probability():
    d = data()
    p = np.zeros(len(d.rel))
    p[4] = np.nan
    with pytest.raises(InputError, match="sensitivity probability of document 'd4' is nan"):
        replace(d, prob=p)


@pytest.mark.parametrize("name", list(RANKERS))
@pytest.mark.parametrize("value, shown", BAD)
def test_fit_refuses_training_and_validation_data_changed_in_place(name, value, shown):
    d = data()
    d.X[13, 1] = value                     # after RankData was built (its arrays are not frozen)
    with pytest.raises(InputError, match=rf"training data: feature 2 of 4 \('f1'\) is {shown} for "
                                         rf"document 'd13' \(row 14\) of topic 'gamma'"):
        make_ranker(name, objective="nCS-DCG@5(cost=12)", **FAST.get(name, {})).fit(d)
    v = data(seed=2)
    v.X[0, 3] = value
    with pytest.raises(InputError, match=rf"validation data: feature 4 of 4 \('f3'\) is {shown}"):
        make_ranker(name, objective="nCS-DCG@5(cost=12)", **FAST.get(name, {})).fit(data(), v)


@pytest.mark.parametrize("name", list(RANKERS))
@pytest.mark.parametrize("value, shown", BAD)
def test_predict_refuses_a_non_finite_feature(name, value, shown):
    d = data()
    r = make_ranker(name, objective="nCS-DCG@5(cost=12)", **FAST.get(name, {})).fit(d)
    clean = r.predict(d.X)
    assert np.isfinite(clean).all()
    X = d.X.copy()
    X[5, 0] = value
    with pytest.raises(InputError, match=rf"features to score: feature 1 of 4 \('f0'\) is {shown} for row 6"):
        r.predict(X)
    np.testing.assert_array_equal(r.predict(d.X), clean)


def test_check_without_names_and_bad_shapes():
    with pytest.raises(InputError, match=r"feature 2 of 2 is NaN for row 1;"):
        D.check_finite_features(np.array([[0.0, np.nan]]))
    with pytest.raises(InputError, match="must be numbers"):
        D.check_finite_features([["a", "b"]])
    with pytest.raises(InputError, match=r"\[documents, features\] table"):
        D.check_finite_features(np.zeros(3))
    D.check_finite_features(np.zeros((0, 4)))   # no rows: fine


@pytest.mark.parametrize("name", list(RANKERS))
def test_fit_without_any_candidate_is_refused(name):
    """Training data without a single candidate row (every candidate filtered out) gave NaN
    scores (the mean of no rows) or a raw scikit-learn error."""
    z = np.zeros(0, int)
    empty = RankData(np.zeros((0, 4)), z, z, np.array([0, 0, 0]), ("a", "b"), (), (np.array([1]), np.array([0])),
                     (np.array([0]), np.array([0])), tuple(f"f{j}" for j in range(4)))
    with pytest.raises(InputError, match=r"training data: no topic has a candidate document \(2 topic\(s\)\)"):
        make_ranker(name, objective="nDCG@5", **FAST.get(name, {})).fit(empty)
