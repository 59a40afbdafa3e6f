"""Significance tests and confidence intervals over per-topic score vectors (scipy.stats).

Every function returns finite numbers: degenerate inputs (fewer than 2 paired topics, every
difference zero) give p = 1.0 rather than NaN. Differences smaller than 1e-12 in absolute value
are treated as ties (zero), so floating-point noise between equivalent runs is never
"significant".
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from scipy import stats

TIE = 1e-12


@dataclass(frozen=True)
class PairedTest:
    """Two-tailed paired tests of a against b on the same n topics."""

    n: int
    mean_a: float
    mean_b: float
    mean_diff: float          # mean of a - b
    t_p: float                # paired t-test
    wilcoxon_p: float         # Wilcoxon signed rank (zero differences dropped)
    sign_p: float             # sign test (exact binomial, ties dropped)
    wins: int                 # topics with a > b
    losses: int               # topics with a < b

    def significant(self, alpha: float = 0.05) -> dict[str, bool]:
        return {"t": self.t_p < alpha, "wilcoxon": self.wilcoxon_p < alpha, "sign": self.sign_p < alpha}


@dataclass(frozen=True)
class MeanCI:
    n: int
    mean: float
    low: float
    high: float
    level: float = 0.95


def _finite_p(p) -> float:
    p = float(p)
    if not math.isfinite(p):
        return 1.0
    return min(1.0, max(0.0, p))


def _diffs(a, b) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError("paired tests need vectors of the same length")
    d = a - b
    d[np.abs(d) < TIE] = 0.0
    return a, b, d


def t_test_p(a, b) -> float:
    """Two-tailed paired t-test p-value."""
    _, _, d = _diffs(a, b)
    n = len(d)
    if n < 2 or not np.any(d):
        return 1.0
    if np.ptp(d) < TIE:       # all differences equal and non-zero: t is infinite
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _finite_p(stats.ttest_1samp(d, 0.0).pvalue)


def wilcoxon_p(a, b) -> float:
    """Two-tailed Wilcoxon signed-rank p-value (zero differences dropped, scipy's default
    exact/normal choice)."""
    _, _, d = _diffs(a, b)
    d = d[d != 0]
    if len(d) == 0:
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _finite_p(stats.wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue)
        except ValueError:
            return 1.0


def sign_test_p(a, b) -> float:
    """Two-tailed sign test p-value (exact binomial on wins vs losses, ties dropped)."""
    _, _, d = _diffs(a, b)
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    if wins + losses == 0:
        return 1.0
    return _finite_p(stats.binomtest(wins, wins + losses, 0.5, alternative="two-sided").pvalue)


def paired_tests(a: Sequence[float], b: Sequence[float]) -> PairedTest:
    """All three two-tailed paired tests of a against b (same topics, same order)."""
    a_, b_, d = _diffs(a, b)
    n = len(d)
    return PairedTest(
        n=n,
        mean_a=float(a_.mean()) if n else 0.0,
        mean_b=float(b_.mean()) if n else 0.0,
        mean_diff=float(d.mean()) if n else 0.0,
        t_p=t_test_p(a_, b_),
        wilcoxon_p=wilcoxon_p(a_, b_),
        sign_p=sign_test_p(a_, b_),
        wins=int((d > 0).sum()),
        losses=int((d < 0).sum()),
    )


def paired_on_common(a: Mapping[str, float | None], b: Mapping[str, float | None]) -> tuple[list[str], PairedTest]:
    """Paired tests on the topics where both per-topic maps have a defined (non-None) value."""
    topics = [t for t in a if t in b and a[t] is not None and b[t] is not None]
    return topics, paired_tests([a[t] for t in topics], [b[t] for t in topics])


def mean_ci(values: Sequence[float], level: float = 0.95) -> MeanCI:
    """Mean with a two-sided t-distribution confidence interval. With fewer than 2 values, or
    no spread, the interval collapses to the mean (an empty input gives mean 0, n 0)."""
    v = np.asarray(values, dtype=np.float64).ravel()
    n = len(v)
    if n == 0:
        return MeanCI(0, 0.0, 0.0, 0.0, level)
    m = float(v.mean())
    if n < 2:
        return MeanCI(n, m, m, m, level)
    se = float(v.std(ddof=1)) / math.sqrt(n)
    if not math.isfinite(se) or se == 0.0:
        return MeanCI(n, m, m, m, level)
    h = float(stats.t.ppf(0.5 + level / 2.0, n - 1)) * se
    return MeanCI(n, m, m - h, m + h, level)


__all__ = ["PairedTest", "MeanCI", "paired_tests", "paired_on_common", "t_test_p", "wilcoxon_p",
           "sign_test_p", "mean_ci"]
