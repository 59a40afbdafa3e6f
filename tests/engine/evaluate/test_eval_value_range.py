"""Measure.value_range: per topic, an interval holding the value of every list of at most k
judged documents (what AdaRank rescales to). Brute force over every sub-list of small random
topics: all values inside, and for DCG, CS-DCG and gCS-DCG (equal costs) both ends attained."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from sasc_desktop.engine.evaluate import counts_from_levels, parse_measure

FAMILIES = {
    "DCG@{k}": True, "CS-DCG@{k}(costs=0/2/5)": True, "gCS-DCG@{k}(cost=3,gamma=0.5)": True,
    "gCS-DCG@{k}(cost=3,gamma=0)": True, "TERN@{k}(M=2)": False, "SENS@{k}(M=3)": False, "P@{k}": False,
    "nDCG@{k}": False, "CS-DCG-sign@{k}(cost=1)": False, "Empty@{k}": False,
}


def sublists(n, k):
    for m in range(0, min(k, n) + 1):
        yield from itertools.permutations(range(n), m)


@pytest.mark.parametrize("family, attained", list(FAMILIES.items()))
def test_every_sub_list_lies_in_the_range(family, attained):
    rng = np.random.default_rng(len(family))
    for _ in range(150):
        n = int(rng.integers(1, 6))
        rel, lev = rng.integers(0, 3, n), rng.integers(0, 3, n)
        k = int(rng.integers(1, 6))
        m = parse_measure(family.format(k=k))
        lo, hi = m.value_range(counts_from_levels([rel], [lev]))
        state = m.prepare(rel, lev) if m.SPEC.needs_pool else None
        vals = [m.score_ranked(state, rel[list(p)], lev[list(p)]) for p in sublists(n, k)]
        vals = np.array([v for v in vals if v is not None])
        assert (vals >= lo[0] - 1e-9).all() and (vals <= hi[0] + 1e-9).all(), (family, rel, lev, k)
        if attained:
            assert vals.min() == pytest.approx(lo[0], abs=1e-9) and vals.max() == pytest.approx(hi[0], abs=1e-9)


def test_fixed_ranges_and_none():
    counts = counts_from_levels([np.array([2, 0])], [np.array([0, 1])])
    for name, rng in [("nDCG@3", (0, 1)), ("nCS-DCG@3(cost=2)", (0, 1)), ("nDCG_f@3", (0, 1)), ("TERN@3(M=3)", (-3, 1)),
                      ("CS-DCG-sign@3(cost=1)", (-1, 1)), ("F-docs@3", (0, 1))]:
        lo, hi = parse_measure(name).value_range(counts)
        assert (lo.tolist(), hi.tolist()) == ([rng[0]], [rng[1]])
    assert parse_measure("O-CS-DCG@3(ka=1,effort=1,cost=2)").value_range(counts) is None
    lo, hi = parse_measure("CS-DCG@2(cost=12)").value_range(counts)
    assert (lo[0], hi[0]) == (-12.0, 3.0)              # (b) alone; (a) alone
