"""dynamic_cutoff(k, p, n) = floor(k * (1 - p / n)) exactly: an exhaustive oracle in rational
arithmetic (fractions.Fraction) over k <= 50, n <= 300, every p in 0..n, plus the edge cases."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from sasc_desktop.engine.protect.policies import dynamic_cutoff


def test_reviewer_cases():
    assert dynamic_cutoff(10, 180, 200) == 1      # float: floor(0.9999999999999998) = 0
    assert dynamic_cutoff(10, 160, 200) == 2      # float: 1
    assert dynamic_cutoff(10, 9, 10) == 1         # float: 0


def test_exhaustive_against_fractions():
    wrong = []
    ks = range(0, 51)
    for n in range(1, 301):
        for p in range(0, n + 1):
            share = 1 - Fraction(p, n)                     # exact rational 1 - p/n
            oracle = [math.floor(k * share) for k in ks]
            got = [dynamic_cutoff(k, p, n) for k in ks]
            if got != oracle:
                wrong.append((n, p, [k for k, a, b in zip(ks, got, oracle) if a != b][:3]))
    assert wrong == []


def test_edges():
    assert dynamic_cutoff(10, 5, 0) == 10          # no candidates: k (as before)
    assert dynamic_cutoff(10, 0, 0) == 10
    assert dynamic_cutoff(0, 3, 7) == 0
    assert dynamic_cutoff(10, 0, 200) == 10
    assert dynamic_cutoff(10, 200, 200) == 0
    assert dynamic_cutoff(10, 300, 200) == 0       # more predicted than candidates: nothing, never negative
    assert dynamic_cutoff(10, -3, 200) == 10       # a negative count is no count
    assert isinstance(dynamic_cutoff(10, np.int64(50), np.int64(200)), int)
    assert dynamic_cutoff(10, np.int64(50), np.int64(200)) == 7
