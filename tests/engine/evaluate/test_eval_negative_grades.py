"""Negative qrels grades (TREC's -1/-2 junk grades; GRADES = (-9, 99) in formats.py) are valid
qrels entries: a document with one is in the judged pool exactly once, is not relevant (gain 0),
and "not in the qrels" must never be inferred from its grade. Likewise a sensitivity level of -1
("I don't know") passed through the API counts as level 0.

Oracle: the pool class counts are rebuilt by brute force from ``Judgments.pool`` (one entry per
pool document, by definition) and compared with the vectorised ``pool_counts``; property: any
negative grade replaced by 0 changes no measure's output (bit for bit).
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sasc_desktop.cli import main
from sasc_desktop.engine.evaluate import Judgments, evaluate_run, parse_measure

L3 = math.log2(3)
SETTINGS = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

MEASURES = [parse_measure(m) for m in (
    "P@3", "DCG@3", "nDCG@3", "CS-DCG@3(cost=12)", "nCS-DCG@2(cost=12)", "nCS-DCG@4(costs=0/5/12)",
    "nCS-DCG_f@3(cost=2)", "gCS-DCG@3(cost=4,gamma=0.5)", "ngCS-DCG@3(cost=4,gamma=0.5)", "TERN@3(M=1)",
    "SENS@3(M=3)", "nDCG_min@2", "nDCG_min@3(gain=linear)", "nDCG_f@3", "nDCG_f@2(forbidden=-10)",
    "O-CS-DCG@3(ka=1,effort=0.5,cost=3)", "F-docs@3", "Withheld@2", "Empty@3", "CS-DCG-sign@3(cost=1)")]


def test_reviewer_case_negative_grade_with_sensitivity_judgment_exact():
    # qrels: a 2, b -1; sensitivity: b 1; run shows only a. The pool is {a (2, 0), b (0, 1)}.
    for grade_b in (-1, 0, -2, -9):
        j = Judgments(qrels={"t": {"a": 2, "b": grade_b}}, sensitivity={"b": 1})
        assert j.pool_counts().tolist() == [[[0, 1], [0, 0], [1, 0]]]
        out = evaluate_run([parse_measure("nCS-DCG@2(cost=12)"), parse_measure("nDCG_min@2")], {"t": ["a"]}, j)
        best, worst = 3 - 12, -12 + 3 / L3            # (a, b) and (b, a)
        assert out["nCS-DCG@2(cost=12)"]["t"] == approx_exact((3 - worst) / (best - worst))
        hi, lo = 3 - 1 / L3, -1 + 3 / L3              # labels 3 and forbidden -1
        assert out["nDCG_min@2"]["t"] == approx_exact((3 - lo) / (hi - lo))


def approx_exact(x: float):
    return pytest.approx(x, rel=1e-12, abs=1e-12)


def test_reviewer_cli_case(tmp_path, capsys):
    (tmp_path / "q").write_text("t 0 a 2\nt 0 b -1\n")
    (tmp_path / "s").write_text("p b 1\n")
    (tmp_path / "r").write_text("t Q0 a 1 2 R\n")
    rc = main(["evaluate", "--qrels", str(tmp_path / "q"), "--sensitivity", str(tmp_path / "s"),
               "--run", str(tmp_path / "r"), "--measure", "nCS-DCG@2(cost=12)", "--measure", "nDCG_min@2", "--json"])
    assert rc == 0
    runs = json.loads(capsys.readouterr().out)["runs"]["R"]
    best, worst = -9.0, -12 + 3 / L3
    assert runs["nCS-DCG@2(cost=12)"]["mean"] == approx_exact((3 - worst) / (best - worst))   # 11.838...
    hi, lo = 3 - 1 / L3, -1 + 3 / L3
    assert runs["nDCG_min@2"]["mean"] == approx_exact((3 - lo) / (hi - lo))                  # 1.427...


def test_unknown_level_minus_one_through_the_api_is_level_zero():
    j = Judgments(qrels={"t": {"a": 2, "b": 1}}, sensitivity={"a": -1}, topic_sensitivity={"t": {"c": -1}})
    ref = Judgments(qrels={"t": {"a": 2, "b": 1}}, topic_sensitivity={"t": {"c": 0}})
    assert j.pool_counts().tolist() == ref.pool_counts().tolist() == [[[1, ], [1, ], [1, ]]]


# ------------------------------------------------------------------------- hypothesis oracle
DOCS = [f"d{i}" for i in range(7)]


@st.composite
def judgments_and_run(draw):
    topics = ["t1", "t2", "t3"][: draw(st.integers(1, 3))]
    qrels, per_topic, runs = {}, {}, {}
    for t in topics:
        qrels[t] = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-9, 2), max_size=6))
        per_topic[t] = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 2), max_size=4))
        if draw(st.booleans()):
            runs[t] = draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=5))
    general = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 2), max_size=5))
    if not draw(st.booleans()):
        per_topic = {}
    return qrels, general, per_topic, runs


def brute_counts(j: Judgments) -> np.ndarray:
    """[T, G, L] by definition: one entry per document of each topic's pool."""
    entries = []
    for ti, t in enumerate(j.topics):
        docs, rel, sens = j.pool(t)
        assert len(docs) == len(set(docs))
        entries += [(ti, max(int(g), 0), max(int(s), 0)) for g, s in zip(rel, sens)]
    G = max([g for _, g, _ in entries], default=0) + 1
    L = max([s for _, _, s in entries], default=0) + 1
    out = np.zeros((len(j.topics), G, L), dtype=np.int64)
    for ti, g, s in entries:
        out[ti, g, s] += 1
    return out


def trimmed(c: np.ndarray) -> np.ndarray:
    """Drop all-zero trailing grade/level planes (their number is not significant)."""
    G = max((g + 1 for g in range(c.shape[1]) if c[:, g, :].any()), default=1)
    L = max((s + 1 for s in range(c.shape[2]) if c[:, :, s].any()), default=1)
    return c[:, :G, :L]


@SETTINGS
@given(judgments_and_run())
def test_pool_counts_equal_the_brute_force_pool(case):
    qrels, general, per_topic, _ = case
    j = Judgments(qrels, general, per_topic)
    np.testing.assert_array_equal(trimmed(j.pool_counts()), trimmed(brute_counts(j)))


@SETTINGS
@given(judgments_and_run())
def test_negative_grades_and_unknown_levels_change_no_measure(case):
    qrels, general, per_topic, runs = case
    j = Judgments(qrels, general, per_topic)
    zeroed = Judgments({t: {d: max(g, 0) for d, g in q.items()} for t, q in qrels.items()},
                       {d: max(s, 0) for d, s in general.items()},
                       {t: {d: max(s, 0) for d, s in m.items()} for t, m in per_topic.items()})
    assert evaluate_run(MEASURES, runs, j) == evaluate_run(MEASURES, runs, zeroed)
