"""A cutoff far past every list and pool (nDCG@100000000000) is evaluated, not a MemoryError:
work arrays follow min(k, longest list / largest pool). The values equal those at any cutoff
at least as long as every list and pool (P@k divides by k itself). Cutoffs past 10^15 are a
clear MeasureError."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sasc_desktop.cli import main
from sasc_desktop.engine.evaluate import Judgments, MeasureError, evaluate_run, parse_measure
from sasc_desktop.engine.evaluate import kernels

WIDTH_FLOOR = getattr(kernels, "WIDTH_FLOOR", 1024)

HUGE = 100_000_000_000
FAMILIES = ["DCG@{k}", "nDCG@{k}", "CS-DCG@{k}(cost=2)", "nCS-DCG@{k}(costs=0/1/3)", "nCS-DCG_f@{k}(cost=2)",
            "gCS-DCG@{k}(cost=2,gamma=0.5)", "ngCS-DCG@{k}(cost=2,gamma=0.5)", "TERN@{k}(M=1)", "SENS@{k}(M=3)",
            "nDCG_min@{k}", "nDCG_f@{k}", "O-CS-DCG@{k}(ka=0,effort=1,cost=2)", "F-docs@{k}", "Withheld@{k}",
            "Empty@{k}", "CS-DCG-sign@{k}(cost=1)"]


def test_reviewer_cli_case(tmp_path, capsys):
    (tmp_path / "q").write_text("t 0 a 2\nt 0 b 0\nt 0 c 1\n")
    (tmp_path / "r").write_text("t Q0 c 1 2 R\nt Q0 a 2 1 R\n")
    rc = main(["evaluate", "--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "r"),
               "--measure", f"nDCG@{HUGE}", "--measure", f"P@{HUGE}", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)["runs"]["R"]
    L3 = math.log2(3)
    assert out[f"nDCG@{HUGE}"]["per_topic"]["t"] == pytest.approx((1 + 3 / L3) / (3 + 1 / L3), rel=1e-12)
    assert out[f"P@{HUGE}"]["per_topic"]["t"] == 2 / HUGE


def test_scalar_and_batch_paths_with_a_huge_k():
    for fam in FAMILIES:
        big, small = parse_measure(fam.format(k=HUGE)), parse_measure(fam.format(k=4))
        args = ([2, 0, 1], [0, 1, 0], [2, 0, 1, 0], [0, 1, 0, 2])
        assert big.score_list(*args) == small.score_list(*args), fam
    m = parse_measure(f"O-CS-DCG@{HUGE}(ka={HUGE - 1},effort=1,cost=2)")   # searcher sees rank 1 only
    assert m.score_list([2, 1, 0], [0, 0, 1], [2, 1, 0], [0, 0, 1]) == pytest.approx(3 + 1 / math.log2(3) - 2, rel=1e-12)   # 3 + released gain - 2 reviews
    assert parse_measure(f"nDCG@{HUGE}").score_list([], [], [2], [0]) == 0.0


DOCS = [f"d{i}" for i in range(6)]


@st.composite
def case(draw):
    qrels, per_topic, runs = {}, {}, {}
    for t in ("t1", "t2", "t3"):
        qrels[t] = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(0, 2), max_size=6))
        per_topic[t] = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(0, 2), max_size=3))
        runs[t] = draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=6))
    return Judgments(qrels, topic_sensitivity=per_topic), runs


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(case())
def test_huge_k_equals_a_cutoff_past_every_list_and_pool(c):
    j, runs = c
    for fam in FAMILIES:
        big = parse_measure(fam.format(k=HUGE))
        got = evaluate_run([big], runs, j)[big.name]
        # bit for bit at k = WIDTH_FLOOR (same array widths), to the last bits at k = 12
        same = parse_measure(fam.format(k=WIDTH_FLOOR))
        assert got == evaluate_run([same], runs, j)[same.name], fam
        enough = parse_measure(fam.format(k=12))
        want = evaluate_run([enough], runs, j)[enough.name]
        assert got.keys() == want.keys()
        for t in got:
            assert (got[t] is None) == (want[t] is None), fam
            if got[t] is not None:
                assert got[t] == pytest.approx(want[t], rel=1e-12, abs=1e-12), fam
    p_big = evaluate_run([parse_measure(f"P@{HUGE}")], runs, j)[f"P@{HUGE}"]
    p_12 = evaluate_run([parse_measure("P@12")], runs, j)["P@12"]
    assert p_big == {t: round(v * 12) / HUGE for t, v in p_12.items()}


def test_cutoff_limits_are_clear_errors():
    assert parse_measure("nDCG@1000000000000000").k == 10**15
    with pytest.raises(MeasureError, match=r"at most 1,000,000,000,000,000 \(10\^15\), got 1000000000000001"):
        parse_measure("nDCG@1000000000000001")
    with pytest.raises(MeasureError, match=r"at most .*got 9{40}\.\.\."):
        parse_measure("nDCG@" + "9" * 5000)                     # int() of 5000 digits would raise ValueError
    with pytest.raises(MeasureError, match="positive integer"):
        parse_measure("nDCG@\u00b2")                             # '²'.isdigit() is True, int('²') fails
    with pytest.raises(MeasureError, match="positive integer"):
        parse_measure("nDCG@000")
    assert parse_measure("nDCG@0010").k == 10
    from sasc_desktop.engine.evaluate import make_measure
    with pytest.raises(MeasureError, match="at most"):
        make_measure("nDCG", 10**16)


def test_experiment_score_lists_with_a_huge_k():
    from sasc_desktop.engine.evaluate.experiment import score_lists
    from sasc_desktop.engine.rank.data import RankData
    rel, sens = np.array([2, 0, 1]), np.array([0, 1, 0])
    data = RankData(np.zeros((3, 1)), rel, sens, np.array([0, 3]), ("t",), ("a", "b", "c"), (rel,), (sens,))
    lists = [np.array([2, 0])]
    for fam in ("nDCG@{k}", "nCS-DCG@{k}(cost=2)"):
        big, small = score_lists(parse_measure(fam.format(k=HUGE)), data, lists), \
            score_lists(parse_measure(fam.format(k=3)), data, lists)
        np.testing.assert_array_equal(big[0], small[0])
        np.testing.assert_array_equal(big[1], small[1])
