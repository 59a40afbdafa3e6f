"""Review 8: no candidate rows. Every ranker predicts 0 rows as an empty array; a validation set
without a candidate row (a topic whose query found nothing, or a prefilter that predicted every
validation candidate sensitive) is treated as no validation (LambdaMART failed in scikit-learn
with "Found array with 0 sample(s)")."""
from __future__ import annotations

import numpy as np
import pytest

from sasc_desktop.engine.evaluate.experiment import approach_lists
from sasc_desktop.engine.rank.data import RankData
from sasc_desktop.engine.rank.rankers import RANKERS, make_ranker

FAST = {"ca": {"n_restarts": 2, "n_iter": 5, "n_jobs": 1}, "lambdamart": {"n_trees": 8},
        "adarank": {"n_rounds": 10}}
NAMES = ("f1", "f2", "f3")


def _train():
    r = np.random.default_rng(0)
    X, rel, s = r.normal(size=(40, 3)), r.integers(0, 3, 40), r.integers(0, 2, 40)
    return RankData(X, rel, s, np.array([0, 20, 40]), ("a", "b"), tuple(map(str, range(40))),
                    (rel[:20], rel[20:]), (s[:20], s[20:]), NAMES)


def _empty_valid():
    """One validation topic (judged: one relevant document) whose query found no candidate."""
    return RankData(np.zeros((0, 3)), np.zeros(0, int), np.zeros(0, int), np.array([0, 0]), ("e",), (),
                    (np.array([1]),), (np.array([0]),), NAMES)


def _ranker(name):
    params = dict(FAST.get(name, {}))
    if name == "bm25":
        params["feature"] = "f1"
    return make_ranker(name, objective="nDCG@10", **params)


@pytest.mark.parametrize("name", list(RANKERS))
def test_every_ranker_predicts_zero_rows_as_an_empty_array(name):
    model = _ranker(name).fit(_train())
    out = model.predict(np.zeros((0, 3)))
    assert isinstance(out, np.ndarray) and out.shape == (0,)


@pytest.mark.parametrize("name", list(RANKERS))
def test_a_validation_set_without_rows_is_no_validation(name):
    """The model is the one trained without validation data (same scores)."""
    tr = _train()
    with_empty = _ranker(name).fit(tr, _empty_valid())
    without = _ranker(name).fit(tr)
    np.testing.assert_array_equal(with_empty.predict(tr.X), without.predict(tr.X))
    assert with_empty.predict(np.zeros((0, 3))).shape == (0,)


def test_lambdamart_without_validation_uses_every_tree():
    model = make_ranker("lambdamart", objective="nDCG@10", n_trees=6).fit(_train(), _empty_valid())
    assert model.n_used_ == 6 == len(model.trees_)


@pytest.mark.parametrize("name", ["lambdamart", "ca", "adarank"])
def test_prefilter_when_every_validation_candidate_is_predicted_sensitive(name):
    """valid.select_rows(prob < 0.5) leaves no row: the ranker trains without validation, and
    the test lists are the test topics' candidates predicted not sensitive."""
    tr = _train()
    tr = RankData(tr.X, tr.rel, tr.sens, tr.offsets, tr.topics, tr.doc_ids, tr.pool_rel, tr.pool_sens, NAMES,
                  prob=np.zeros(40))
    r = np.random.default_rng(1)
    Xv = r.normal(size=(10, 3))
    valid = RankData(Xv, r.integers(0, 3, 10), np.ones(10, int), np.array([0, 10]), ("v",),
                     tuple(f"v{i}" for i in range(10)), (np.array([1, 2]),), (np.array([1, 1]),), NAMES,
                     prob=np.ones(10))                                 # every candidate predicted sensitive
    test_prob = np.array([0.1, 0.9, 0.2, 0.8, 0.3])
    test = RankData(r.normal(size=(5, 3)), np.array([1, 0, 2, 0, 1]), np.zeros(5, int), np.array([0, 5]), ("t",),
                    tuple(f"t{i}" for i in range(5)), (np.array([1, 0, 2, 0, 1]),), (np.zeros(5, int),), NAMES,
                    prob=test_prob)

    def factory(obj):
        return make_ranker(name, objective=obj, **FAST[name])
    lists, scores, model, cols = approach_lists("prefilter", factory, tr, valid, test, [0, 1, 2], "nDCG@10",
                                                "nDCG@10", {})
    assert scores.shape == (5,)
    assert sorted(lists[0].tolist()) == [0, 2, 4]
    # the validation lists (as a static or threshold cutoff learns them) are empty, not a crash
    vlists, vscores, _, _ = approach_lists("prefilter", factory, tr, valid, valid, [0, 1, 2], "nDCG@10",
                                           "nDCG@10", {})
    assert [v.tolist() for v in vlists] == [[]] and vscores.shape == (10,)
