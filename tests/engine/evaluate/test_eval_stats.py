from __future__ import annotations

import math

import pytest
from scipy import stats

from sasc_desktop.engine.evaluate import mean_ci, paired_tests, sign_test_p, t_test_p, wilcoxon_p

A = [0.5, 0.7, 0.2, 0.9, 0.4, 0.6, 0.8, 0.3]
B = [0.4, 0.5, 0.25, 0.6, 0.1, 0.55, 0.45, 0.35]


def test_paired_tests_match_scipy_and_hand_values():
    pt = paired_tests(A, B)
    d = [a - b for a, b in zip(A, B)]
    assert pt.t_p == pytest.approx(stats.ttest_rel(A, B).pvalue, rel=1e-12)
    assert pt.wilcoxon_p == pytest.approx(stats.wilcoxon(d).pvalue, rel=1e-12)
    # 6 wins, 2 losses: two-tailed binomial p = 2 * P(X <= 2 | n = 8) = 2 * (1 + 8 + 28) / 256
    assert (pt.wins, pt.losses) == (6, 2)
    assert pt.sign_p == pytest.approx(2 * 37 / 256, rel=1e-12)
    assert pt.n == 8 and pt.mean_diff == pytest.approx(sum(d) / 8, rel=1e-12)
    # t by hand: mean / (sd / sqrt(n))
    mean = sum(d) / 8
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / 7)
    t = mean / (sd / math.sqrt(8))
    assert pt.t_p == pytest.approx(2 * stats.t.sf(abs(t), 7), rel=1e-10)


@pytest.mark.parametrize("a, b", [([], []), ([0.3], [0.1]), ([0.2, 0.4], [0.2, 0.4]), ([1, 1, 1], [1, 1, 1]),
                                  ([0.1 + 0.2, 0.5], [0.3, 0.5])])
def test_degenerate_inputs_give_p_one(a, b):
    pt = paired_tests(a, b)
    for p in (pt.t_p, pt.wilcoxon_p, pt.sign_p):
        assert math.isfinite(p)
    if len(a) < 2 or all(abs(x - y) < 1e-12 for x, y in zip(a, b)):
        assert pt.t_p == 1.0
    if all(abs(x - y) < 1e-12 for x, y in zip(a, b)):
        assert (pt.t_p, pt.wilcoxon_p, pt.sign_p) == (1.0, 1.0, 1.0)


def test_constant_non_zero_differences():
    a, b = [0.5, 0.6, 0.7, 0.8], [0.4, 0.5, 0.6, 0.7]
    assert t_test_p(a, b) == 0.0                     # zero spread: t is infinite
    assert sign_test_p(a, b) == pytest.approx(2 / 16)
    assert wilcoxon_p(a, b) == pytest.approx(stats.wilcoxon([0.1, 0.2, 0.3, 0.4]).pvalue)


def test_mean_ci():
    ci = mean_ci([1.0, 2.0, 3.0, 4.0])
    h = stats.t.ppf(0.975, 3) * math.sqrt(5 / 3) / 2      # sd = sqrt(5/3), se = sd / sqrt(4)
    assert (ci.mean, ci.low, ci.high) == (pytest.approx(2.5), pytest.approx(2.5 - h), pytest.approx(2.5 + h))
    assert mean_ci([3.0]) .low == mean_ci([3.0]).high == 3.0
    assert mean_ci([]).n == 0 and mean_ci([2.0, 2.0]).low == 2.0
