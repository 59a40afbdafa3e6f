"""A document judged sensitive for the persona (``persona docid level``, topic-independent) but
not in a topic's qrels joins that topic's pool when an evaluated run lists it.

Before, such a document was charged when shown but never entered the pool, so the worst-case
bounds ignored it: nCS-DCG_f@10(cost=12) scored -12.0 and nDCG_f@10 -1.0 for a list of that one
document. ``sasc experiment`` puts every candidate in the pool; ``sasc evaluate`` now takes in
every sensitivity-judged document any of its runs lists (the union, so compared runs share
bounds), and for the sub-list measures (nCS-DCG_f, nDCG_f) every listed document (unjudged ones
are gaps the worst case may use). Exact values by hand, a brute-force oracle over every sub-list
of the union pool, and a hypothesis property: nCS-DCG_f and nDCG_f stay in [0, 1].
"""
from __future__ import annotations

import itertools
import json
import math

import pytest
from hypothesis import given, settings, strategies as st

from sasc_desktop.cli import main
from sasc_desktop.engine.evaluate import Judgments, evaluate_run, evaluate_runs, parse_measure
from sasc_desktop.engine.evaluate.records import SensJudgment

F12 = "nCS-DCG_f@10(cost=12)"
NDCGF = "nDCG_f@10"


def _cli(tmp_path, capsys, qrels, sens, runs, measures):
    (tmp_path / "q").write_text(qrels)
    args = ["evaluate", "--qrels", str(tmp_path / "q")]
    if sens is not None:
        (tmp_path / "s").write_text(sens)
        args += ["--sensitivity", str(tmp_path / "s")]
    for i, text in enumerate(runs):
        (tmp_path / f"r{i}").write_text(text)
        args += ["--run", str(tmp_path / f"r{i}")]
    for m in measures:
        args += ["--measure", m]
    assert main(args + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_reviewer_repro_is_inside_bounds(tmp_path, capsys):
    # pool of topic 1: a (grade 1, level 0) and b (grade 0, level 1: joins as the run lists it)
    # nCS-DCG_f: best (a) = 1, worst (b) = -12; the list (b) = -12 -> 0
    # nDCG_f: labels a +1, b -1: I_f = 1, W_f = -1; the list (b) = -1 -> 0   (was -12.0 and -1.0)
    out = _cli(tmp_path, capsys, "1 0 a 1\n", "P b 1\n", ["1 Q0 b 1 1 r\n"], [F12, NDCGF])
    assert out["runs"]["r"][F12]["per_topic"] == {"1": 0.0}
    assert out["runs"]["r"][NDCGF]["per_topic"] == {"1": 0.0}


def test_runs_share_the_union_pool(tmp_path, capsys):
    # run 'shows' lists the sensitive b; run 'none' lists nothing for topic 1 (an empty list)
    # union pool: a (1, 0), b (0, 1). nCS-DCG_f@10(cost=2): best 1, worst -2.
    #   shows (b, a): -2 + 1/log2(3) -> (1/log2(3)) / 3 ; none (): 0 -> 2/3
    m = "nCS-DCG_f@10(cost=2)"
    out = _cli(tmp_path, capsys, "1 0 a 1\n2 0 z 1\n", "P b 1\n",
               ["1 Q0 b 1 2 shows\n1 Q0 a 2 1 shows\n", "2 Q0 z 1 1 none\n"], [m])
    assert out["runs"]["shows"][m]["per_topic"]["1"] == pytest.approx((1 / math.log2(3)) / 3, rel=1e-12)
    assert out["runs"]["none"][m]["per_topic"]["1"] == pytest.approx(2 / 3, rel=1e-12)
    # on its own, 'none' lists no sensitive document: pool (a), best 1, worst 0 (empty) -> 0
    out = _cli(tmp_path, capsys, "1 0 a 1\n2 0 z 1\n", "P b 1\n", ["2 Q0 z 1 1 none\n"], [m])
    assert out["runs"]["none"][m]["per_topic"]["1"] == 0.0


def test_pool_and_counts_take_in_listed_documents():
    j = Judgments.from_records(
        [], [SensJudgment("P", "b", 1), SensJudgment("P", "c", 0), SensJudgment("P", "d", -1),
             SensJudgment("P", "e", 2, "1")], "P")
    j = Judgments({"1": {"a": 2}}, j.sensitivity, j.topic_sensitivity)
    run = {"1": ["x", "d", "c", "b", "a", "e", "y", "z"], "9": ["b"]}
    wide = j.with_listed([run], gaps=2)
    assert wide.listed == {"1": ("c", "b")}
    assert wide.gaps == {"1": ("x", "d")}            # the first 2 unjudged ("I don't know": unjudged)
    docs, rel, sens = wide.pool("1")
    # a (qrels), e (per-topic), then the listed c and b in run order; topic 9 (no judgments)
    # gains no pool
    assert docs == ["a", "e", "c", "b"]
    assert rel.tolist() == [2, 0, 0, 0] and sens.tolist() == [0, 2, 0, 1]
    assert wide.topics == ("1",)
    assert wide.pool_counts().tolist() == [[[1, 1, 1], [0, 0, 0], [1, 0, 0]]]
    # the sub-list measures' pool: the gaps x and d too, as (0, 0)
    docs, rel, sens = wide.pool("1", unjudged=True)
    assert docs == ["a", "e", "c", "b", "x", "d"]
    assert rel.tolist() == [2, 0, 0, 0, 0, 0] and sens.tolist() == [0, 2, 0, 1, 0, 0]
    assert wide.pool_counts(unjudged=True).tolist() == [[[3, 1, 1], [0, 0, 0], [1, 0, 0]]]
    assert j.pool("1")[0] == j.pool("1", unjudged=True)[0] == ["a", "e"]     # the original is unchanged
    assert j.with_listed([{"1": ["a", "e"]}, {"2": ["x"]}], gaps=5) is j    # nothing to add: the same object
    assert wide.with_listed([run, {"1": ["b", "x"]}], gaps=2) is wide      # 2 gaps already
    more = wide.with_listed([{"1": ["x", "q"]}, run], gaps=4)               # distinct over all runs
    assert more.gaps == {"1": ("x", "d", "q", "y")} and more.listed == wide.listed


def test_evaluate_run_takes_in_its_own_run_and_matches_an_explicit_pool():
    # the value equals the measure on the explicit pool (a, b), as sasc experiment builds pools
    j = Judgments({"1": {"a": 1}}, {"b": 1})
    for name in (F12, NDCGF):
        m = parse_measure(name)
        got = evaluate_run([m], {"1": ["b"]}, j)[m.name]["1"]
        assert got == 0.0
        assert got == m.score_list([0], [1], [1, 0], [0, 1])
        assert m.score_run({"1": ["b"]}, j) == {"1": 0.0}


def test_unjudged_documents_are_gaps_the_worst_case_may_use():
    # pool: a (grade 2, sensitive, cost 1). k = 10: a at rank 1 gives 3 - 1 = 2, at rank 10
    # 3/log2(11) - 1 < 0. With nine unjudged documents above it the list is the worst of the
    # bounds: 0 (was -0.0664, the bounds ranged over the judged documents only). The pool sasc
    # experiment builds (a and the nine as candidates) gives the same value.
    j = Judgments({"t": {"a": 2}}, {"a": 1})
    m = parse_measure("nCS-DCG_f@10(cost=1)")
    run = {"t": [f"u{i}" for i in range(9)] + ["a"]}
    assert evaluate_run([m], run, j)[m.name]["t"] == 0.0
    assert m.score_list([0] * 9 + [2], [0] * 9 + [1], [2] + [0] * 9, [1] + [0] * 9) == 0.0
    # with the nine judged not relevant in the qrels, the value is the same
    jq = Judgments({"t": {"a": 2, **{f"u{i}": 0 for i in range(9)}}}, {"a": 1})
    assert evaluate_run([m], run, jq)[m.name]["t"] == 0.0
    # a, alone at rank 1, is the best list: 1
    assert evaluate_run([m], {"t": ["a"]}, j)[m.name]["t"] == 1.0


def test_other_measures_keep_bounds_over_the_judged_documents():
    # nCS-DCG (rankings of min(k, n) judged documents) does not take unjudged listed documents
    # in: pool (a grade 1, b grade 2), k = 2, cost 0: best b, a = 3 + 1/log2(3), worst a, b =
    # 1 + 3/log2(3); the list (u, b) = 3/log2(3) is below the worst, as the spec defines it
    j = Judgments({"t": {"a": 1, "b": 2}})
    m = parse_measure("nCS-DCG@2(cost=0)")
    lo, hi = 1 + 3 / math.log2(3), 3 + 1 / math.log2(3)
    got = evaluate_run([m], {"t": ["u", "b"]}, j)[m.name]["t"]
    assert got == pytest.approx((3 / math.log2(3) - lo) / (hi - lo), rel=1e-12)


# ------------------------------------------------------------------ oracle and property
def _gain(r):
    return 2.0 ** max(r, 0) - 1.0


def _cs(items, k, cost):
    return sum(_gain(r) * (1 / math.log2(i + 2)) - (cost if lvl >= 1 else 0.0)
               for i, (r, lvl) in enumerate(items[:k]))


def _brute_f(items, pool, k, cost):
    """nCS-DCG_f from every sub-list (length 0 .. min(k, n)) of the pool."""
    vals = [_cs([pool[i] for i in p], k, cost)
            for n in range(min(k, len(pool)) + 1) for p in itertools.permutations(range(len(pool)), n)]
    best, worst = max(vals), min(vals)
    if math.isclose(best, worst, rel_tol=1e-9, abs_tol=1e-9):
        return None
    return (_cs(items, k, cost) - worst) / (best - worst)


def _label(r, lvl):
    return -1.0 if lvl >= 1 else _gain(r)


def _label_dcg(labels, k):
    return sum(x / math.log2(i + 2) for i, x in enumerate(labels[:k]))


def _brute_ndcg_f(items, pool, k):
    """nDCG_f by its definition: I_f from the positive labels descending, W_f from the negative
    ones ascending."""
    labels = [_label(r, lvl) for r, lvl in pool]
    best = _label_dcg(sorted((x for x in labels if x > 0), reverse=True), k)
    worst = _label_dcg(sorted(x for x in labels if x < 0), k)
    if math.isclose(best, worst, rel_tol=1e-9, abs_tol=1e-9):
        return None
    return (_label_dcg([_label(r, lvl) for r, lvl in items], k) - worst) / (best - worst)


DOCS = ["a", "b", "c", "d", "e", "f"]


@st.composite
def cases(draw):
    qdocs = draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=3))
    qrels = {"1": {d: draw(st.integers(-1, 2)) for d in qdocs}}
    general = {d: draw(st.integers(0, 2)) for d in draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=4))}
    per_topic = {d: draw(st.integers(0, 2)) for d in draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=2))}
    if not qdocs and not per_topic:
        qrels = {"1": {"a": 1}}
    pool_docs = DOCS + ["u1", "u2"]                          # u1, u2 are never judged
    runs = [draw(st.lists(st.sampled_from(pool_docs), unique=True, max_size=5)) for _ in range(2)]
    k = draw(st.integers(1, 4))
    cost = draw(st.sampled_from([0.5, 1.0, 3.0, 12.0]))
    return qrels, general, {"1": per_topic} if per_topic else {}, runs, k, cost


@settings(max_examples=300, deadline=None)
@given(cases())
def test_f_measures_stay_in_unit_interval_and_match_brute_force(case):
    qrels, general, per_topic, runs, k, cost = case
    j = Judgments(qrels, general, per_topic)
    f = parse_measure(f"nCS-DCG_f@{k}(cost={cost})")
    nf = parse_measure(f"nDCG_f@{k}")
    report = evaluate_runs({f"r{i}": {"1": r} for i, r in enumerate(runs)}, j, [f, nf])
    # the union pool, by hand: qrels, per-topic, then every document any run lists (unjudged
    # ones as grade 0, level 0)
    q, ts = qrels["1"], per_topic.get("1", {})
    union = list(q) + [d for d in ts if d not in q]
    union += [d for d in dict.fromkeys(runs[0] + runs[1]) if d not in union]

    def levels(d):
        return q.get(d, 0), ts.get(d, general.get(d, 0))
    pool = [levels(d) for d in union]
    for i, run in enumerate(runs):
        for name in (f.name, nf.name):
            v = report.runs[f"r{i}"][name].per_topic["1"]
            assert v is None or 0.0 <= v <= 1.0, (name, v)
            alone = evaluate_run([parse_measure(name)], {"1": run}, j)[name]["1"]
            assert alone is None or 0.0 <= alone <= 1.0, (name, alone)
        items = [levels(d) for d in run]
        for name, want in ((f.name, _brute_f(items, pool, k, cost)), (nf.name, _brute_ndcg_f(items, pool, k))):
            got = report.runs[f"r{i}"][name].per_topic["1"]
            if want is None:
                assert got is None
            else:
                assert got == pytest.approx(want, rel=1e-9, abs=1e-9)
