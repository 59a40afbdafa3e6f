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


class _LazyStats:
    """scipy.stats, imported when a test first needs it: at module level it cost every sasc
    command about 0.6 s at start-up (the CLI's parser imports every command module)."""

    def __getattr__(self, name):
        from scipy import stats as _stats
        return getattr(_stats, name)


stats = _LazyStats()

TIE = 1e-12


@dataclass(frozen=True)
class PairedTest:
    """Two-tailed paired tests of a against b on the same n topics."""

    n: int
    mean_a: float
    mean_b: float
    mean_diff: float          # mean of a - b
    t_p: float                # paired t-test
    wilcoxon_p: float         # Wilcoxon signed rank: scipy.stats.wilcoxon(a, b) (see wilcoxon_p)
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


# scipy.stats.wilcoxon (method "auto") runs an exhaustive permutation test when there are at
# most this many pairs and some differences are zero or tied.
_PERMUTATION_MAX_N = 13


def _sign_flip_p(d: np.ndarray) -> float:
    """The two-sided p-value scipy's exhaustive permutation test gives the Wilcoxon statistic
    (``stats.wilcoxon(d, method=stats.PermutationMethod())`` for len(d) <= 13): the sum of the
    ranks of the positive differences (zeros left out of the ranking), against its value
    under all 2^n sign flips of d (a zero's two flips counted apart, as scipy enumerates them),
    with scipy's relative tolerance for equal values. Vectorised: 8192 x 13 at most; scipy
    evaluates the statistic flip by flip (about a second at n = 13)."""
    n = len(d)
    nonzero = d != 0
    ranks = np.zeros(n)
    ranks[nonzero] = stats.rankdata(np.abs(d[nonzero]))          # average ranks for ties
    observed = float(ranks[d > 0].sum())
    flipped = ((np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
    positive = np.where(flipped, d < 0, d > 0)
    null = positive.astype(np.float64) @ ranks
    gamma = abs(np.finfo(np.float64).eps * 100 * observed)
    less = np.count_nonzero(null <= observed + gamma) / 2 ** n
    greater = np.count_nonzero(null >= observed - gamma) / 2 ** n
    return min(1.0, 2.0 * min(less, greater))


def wilcoxon_p(a, b) -> float:
    """Two-tailed Wilcoxon signed-rank p-value: ``scipy.stats.wilcoxon(a, b).pvalue`` with its
    defaults, on the paired differences with those below :data:`TIE` set to exactly 0 first.

    scipy itself leaves zero differences out of the ranks (``zero_method="wilcox"``) and
    chooses how to get p seeing all n pairs, zeros included: the exact distribution when no
    difference is zero or tied, an exhaustive permutation test when some are and n <= 13, else
    the normal approximation. Dropping the zeros here first changed that choice (0.0649
    instead of scipy's 0.0478 on 14 topics with 2 ties, flipping the p < 0.05 mark). The
    permutation case is computed here (:func:`_sign_flip_p`, equal to scipy's; a test checks
    it against scipy), the others by scipy. 1.0 when there is no pair or every difference is
    zero."""
    _, _, d = _diffs(a, b)
    if len(d) == 0 or not np.any(d):
        return 1.0
    nonzero = d[d != 0]
    if len(d) <= _PERMUTATION_MAX_N and (len(nonzero) < len(d) or len(np.unique(np.abs(nonzero))) < len(nonzero)):
        return _finite_p(_sign_flip_p(d))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _finite_p(stats.wilcoxon(d).pvalue)
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
