"""A document ranked twice in a topic's evaluated list is an error through the API too (the
run-file reader already rejects it): it used to be counted twice (nDCG@3 1.76, P@3 1.0 for
['a', 'a', 'a'])."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sasc_desktop.engine.evaluate import Judgments, MeasureError, evaluate_run, parse_measure

J = Judgments(qrels={"t": {"a": 2, "b": 0, "s": 1}}, sensitivity={"s": 1})
MS = [parse_measure(x) for x in ("DCG@3", "nDCG@3", "CS-DCG@3(cost=12)", "nCS-DCG@3(cost=12)", "P@3")]


def test_reviewer_case_raises_naming_topic_and_document():
    with pytest.raises(MeasureError) as e:
        evaluate_run([parse_measure("nDCG@3")], {"t": ["a", "a", "a"]}, J)
    msg = str(e.value)
    assert "document a appears twice in the ranked list for topic t (ranks 1 and 2)" in msg
    with pytest.raises(MeasureError, match="document s appears twice .* topic t .*ranks 1 and 3"):
        parse_measure("P@3").score_run({"t": ["s", "b", "s"]}, J)
    with pytest.raises(MeasureError, match="topic t"):
        evaluate_run(MS, {"t": ("b", "a", "b")}, J)


def test_single_a_is_exact():
    out = evaluate_run(MS, {"t": ["a"]}, J)
    assert out["DCG@3"]["t"] == 3.0
    assert out["nDCG@3"]["t"] == pytest.approx(3.0 / (3.0 + 1.0 / 1.584962500721156), rel=1e-12)
    assert out["P@3"]["t"] == pytest.approx(1 / 3)
    assert out["CS-DCG@3(cost=12)"]["t"] == 3.0


def test_a_duplicate_past_the_deepest_cutoff_cannot_change_a_score():
    # only the evaluated top k is looked at (what can be counted twice)
    out = evaluate_run(MS, {"t": ["a", "b", "s", "a"]}, J)
    ref = evaluate_run(MS, {"t": ["a", "b", "s"]}, J)
    assert out == ref


DOCS = ["a", "b", "s", "u", "v"]


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(DOCS), max_size=6), st.integers(1, 5))
def test_duplicates_in_the_top_k_raise_else_the_scalar_path_agrees(lst, k):
    ms = [parse_measure(f"nDCG@{k}"), parse_measure(f"nCS-DCG@{k}(cost=2)"), parse_measure(f"P@{k}")]
    top = lst[:k]
    if len(set(top)) < len(top):
        with pytest.raises(MeasureError, match="topic t"):
            evaluate_run(ms, {"t": lst}, J)
        return
    out = evaluate_run(ms, {"t": lst}, J)
    pool_docs, prel, psens = J.pool("t")
    rel, sens = J.levels("t", top)
    for m in ms:
        want = m.score_list(rel, sens, prel, psens)
        got = out[m.name]["t"]
        assert (got is None) == (want is None)
        if want is not None:
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
