"""The three paths (scalar fast path, batch arrays, run dicts) agree exactly."""
from __future__ import annotations

import math

import numpy as np
import pytest

from sasc_desktop.engine.evaluate import (Judgments, MeasureError, counts_from_levels, evaluate_run,
                                          parse_measure)
from sasc_desktop.engine.evaluate.measures import listed_gaps

MEASURES = ["P@5", "DCG@5", "nDCG@5", "CS-DCG@5(cost=3)", "nCS-DCG@5(costs=0/2/6)", "nCS-DCG_f@5(cost=3)",
            "gCS-DCG@5(cost=3,gamma=0.5)", "ngCS-DCG@5(cost=3,gamma=0.5)", "TERN@5(M=1)", "SENS@5(M=3)",
            "nDCG_min@5", "nDCG_f@5(forbidden=-4)", "O-CS-DCG@5(ka=2,effort=0.3,cost=3)", "F-docs@5", "Withheld@5",
            "Empty@5", "CS-DCG-sign@5(cost=3)", "nDCG@3"]


def random_judgments(seed=1, topics=60):
    rng = np.random.default_rng(seed)
    qrels, sens, runs = {}, {}, {}
    for t in range(topics):
        n = int(rng.integers(0, 12))
        docs = [f"t{t}d{i}" for i in range(n)]
        qrels[str(t)] = {d: int(rng.integers(0, 3)) for d in docs}
        for d in docs:
            if rng.random() < 0.3:
                sens[d] = int(rng.integers(1, 3))
        cand = docs + [f"unjudged{t}_{i}" for i in range(3)]
        if rng.random() < 0.15:
            continue                      # topic missing from the run: empty list
        length = int(rng.integers(0, len(cand) + 1))
        runs[str(t)] = list(rng.permutation(cand)[:length])
    return Judgments(qrels, sens), runs


def test_run_batch_and_scalar_paths_agree():
    j, run = random_judgments()
    ms = [parse_measure(m) for m in MEASURES]
    res = evaluate_run(ms, run, j)
    assert set(res) == {m.name for m in ms}
    for m in ms:
        assert m.score_run(run, j) == res[m.name]
        for t in j.topics:
            # the pool evaluate_run scores on: the judged documents the run lists join it, and
            # for nCS-DCG_f / nDCG_f the unjudged listed documents (review 8)
            _, pool_r, pool_s = j.with_listed([run], listed_gaps(ms)).pool(t, m.LISTED_POOL)
            r, s = j.levels(t, run.get(t, []))
            expected = m.score_list(r, s, pool_r, pool_s)
            got = res[m.name][t]
            if expected is None:
                assert got is None
            else:
                assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
                assert math.isfinite(got)


def test_prepare_batch_and_score_batch_for_learning_to_rank():
    rng = np.random.default_rng(3)
    m = parse_measure("nCS-DCG@10(cost=12)")
    pools = [(rng.integers(0, 3, 30), (rng.random(30) < 0.2).astype(int)) for _ in range(25)]
    state = m.prepare_batch(counts_from_levels([p[0] for p in pools], [p[1] for p in pools]))
    orders = [rng.permutation(30) for _ in pools]
    R = np.array([p[0][o] for p, o in zip(pools, orders)])
    S = np.array([p[1][o] for p, o in zip(pools, orders)])
    lengths = rng.integers(0, 31, size=25)
    vals, defined = m.score_batch(state, R, S, lengths)
    for i, (p, o) in enumerate(zip(pools, orders)):
        ts = m.prepare(*p)
        one = m.score_ranked(ts, p[0][o][: lengths[i]], p[1][o][: lengths[i]])
        assert (one is None) == (not defined[i])
        if one is not None:
            assert vals[i] == pytest.approx(one, rel=1e-12, abs=1e-12)


def test_score_ranked_contract():
    m = parse_measure("nDCG@3")
    st = m.prepare(np.array([2, 1, 0, 0]), None)
    assert st.n_pool == 4 and st.hi == pytest.approx(3 + 1 / math.log2(3))
    # shorter than k, longer than k (extra ignored), plain lists and numpy arrays
    assert m.score_ranked(st, [1]) == pytest.approx(1 / st.hi)
    assert m.score_ranked(st, np.array([2, 1, 0, 2, 2])) == pytest.approx(1.0)
    with pytest.raises(MeasureError):
        m.score_ranked(st, [1, 2], [0])
    with pytest.raises(MeasureError):
        m.score_ranked(None, [1, 2])               # nDCG needs the pool
    assert parse_measure("TERN@3(M=1)").score_ranked(None, [1, 0], [0, 0]) == 1.0


def test_undefined_topics_are_none_and_no_nan():
    j = Judgments({"1": {"a": 0}, "2": {"b": 1}})
    ms = [parse_measure("nCS-DCG@5(cost=1)"), parse_measure("nCS-DCG_f@5(cost=1)"), parse_measure("F-docs@5")]
    res = evaluate_run(ms, {"2": ["b"]}, j)
    # topic 2 has one judged document: every full-length ranking shows it, best == worst
    assert res["nCS-DCG@5(cost=1)"] == {"1": None, "2": None}
    assert res["nCS-DCG_f@5(cost=1)"] == {"1": None, "2": 1.0}       # sub-lists: empty (0) .. (b) (1)
    assert res["F-docs@5"] == {"1": None, "2": 0.0}


def test_chunked_kernels_give_the_same_bounds(monkeypatch):
    from sasc_desktop.engine.evaluate import kernels
    rng = np.random.default_rng(9)
    pools = [(rng.integers(0, 3, n), rng.integers(0, 3, n)) for n in rng.integers(0, 15, 40)]
    counts = counts_from_levels([p[0] for p in pools], [p[1] for p in pools])
    ms = [parse_measure(t) for t in ("nCS-DCG@6(costs=0/1/4)", "nCS-DCG_f@6(cost=2)",
                                     "ngCS-DCG@6(cost=2,gamma=0.5)", "nDCG_min@6", "SENS@6(M=1)")]
    whole = [m.prepare_batch(counts) for m in ms]
    monkeypatch.setattr(kernels, "CHUNK_CELLS", 7)         # one topic at a time
    for m, ref in zip(ms, whole):
        got = m.prepare_batch(counts)
        np.testing.assert_array_equal(got.lo, ref.lo)
        np.testing.assert_array_equal(got.hi, ref.hi)
