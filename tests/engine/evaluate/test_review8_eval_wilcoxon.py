"""The Wilcoxon p-value is scipy.stats.wilcoxon(a, b)'s on the paired vectors (differences below
the TIE tolerance set to 0 first). It dropped zero differences itself before calling scipy, which
changed scipy's choice between the exact and the normal distribution when some topics tie:
0.0649 instead of 0.0478 on the reviewer's 14 topics, and the p < 0.05 mark flipped."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy import stats

from sasc_desktop.cli import main
from sasc_desktop.engine.evaluate import paired_tests, wilcoxon_p
from sasc_desktop.engine.evaluate.stats import TIE

A = [0, -1, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1]
B = [0, 0, -1, 1, -1, 0, -1, 1, -1, 0, 0, 0, -1, 1]


def scipy_p(a, b) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.wilcoxon(a, b).pvalue)


def test_reviewer_vectors_match_scipy_and_are_significant():
    p = wilcoxon_p(A, B)
    assert p == pytest.approx(0.04776124267510367, rel=1e-12)
    assert p == scipy_p(A, B)
    assert paired_tests(A, B).significant()["wilcoxon"] is True      # was 0.0649, not marked


def _random_pair(rng, n):
    values = [[-1.0, 0.0, 1.0], [-1.0, 0.0, 0.5, 1.0], [0.1, 0.2, 0.3, 0.7]][int(rng.integers(0, 3))]
    a, b = rng.choice(values, (2, n))
    if rng.random() < 0.3:                               # some continuous scores too
        a = a + rng.normal(0, 0.1, n) * (rng.random(n) < 0.5)
    return a, b


@pytest.mark.parametrize("sizes", [
    # scipy's exhaustive permutation branch (ties or zeros, n <= 13; computed here, not by
    # scipy: scipy takes about a second per call at 13, so few of the largest)
    [int(n) for n in np.random.default_rng(1).integers(1, 12, 40)] + [12, 13, 13],
    # the exact and the normal branches
    [int(n) for n in np.random.default_rng(2).integers(14, 46, 150)],
])
def test_random_vectors_with_ties_match_scipy(sizes):
    rng = np.random.default_rng(len(sizes))
    checked = 0
    for n in sizes:
        a, b = _random_pair(rng, n)
        if not np.any(a != b):
            assert wilcoxon_p(a, b) == 1.0
            continue
        assert wilcoxon_p(a, b) == scipy_p(a, b), (a - b).tolist()
        checked += 1
    assert checked >= len(sizes) - 5


def test_differences_below_the_tie_tolerance_are_ties_as_scipy_sees_exact_ties():
    rng = np.random.default_rng(3)
    a = rng.choice([0.0, 0.25, 0.5, 1.0], 20)
    b = rng.choice([0.0, 0.25, 0.5, 1.0], 20)
    noisy = b.copy()
    tied = a == b
    noisy[tied] = a[tied] + TIE / 4                    # floating-point noise on the tied topics
    assert tied.sum() >= 2
    assert wilcoxon_p(a, noisy) == scipy_p(a, b)


def test_sasc_evaluate_reports_scipys_p(tmp_path, capsys):
    # P@1 per topic: 1 when the run shows the relevant document, 0 otherwise; 4 of 14 topics tie
    topics = range(1, 15)
    (tmp_path / "q").write_text("".join(f"{t} 0 r{t} 1\n{t} 0 n{t} 0\n" for t in topics))
    xa = [1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1]
    xb = [1, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1]
    for name, bits in (("x", xa), ("y", xb)):
        (tmp_path / name).write_text("".join(f"{t} Q0 {'r' if bit else 'n'}{t} 1 1.0 {name}\n"
                                             for t, bit in zip(topics, bits)))
    assert main(["evaluate", "--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "x"), "--run",
                 str(tmp_path / "y"), "--measure", "P@1", "--json"]) == 0
    test = json.loads(capsys.readouterr().out)["tests"][0]
    assert test["wilcoxon_p"] == scipy_p(xa, xb)
