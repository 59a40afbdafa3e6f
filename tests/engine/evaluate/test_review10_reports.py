"""Experiment and evaluate reports say what was measured:

- approaches.png drew an undefined mean (no topic defined) as a 0 bar with a 0-wide interval,
  the same picture as a real score of 0;
- cutoff.png labelled its "documents shown" axis 1.0, 1.5, 2.0 ...;
- the experiment's one "significant" column was the t-test's alone (Wilcoxon p 0.038 beside
  "significant: False"); now each test is marked;
- `sasc evaluate --json` left out the n of each paired test (the table shows it);
- a run whose topic ids match no judged topic was scored as empty lists without a word.

Real experiments on a real demo project (conftest's, 150 messages)."""
from __future__ import annotations

import csv
import json
import math

import matplotlib
import pytest

matplotlib.use("Agg")

from sasc_desktop.cli import main  # noqa: E402
from sasc_desktop.engine.evaluate.experiment_report import (approaches_figure, cutoff_figure,  # noqa: E402
                                                            write_report)
from sasc_desktop.engine.session import Session  # noqa: E402

PERSONA = "john-snibert"


def _close(fig):
    import matplotlib.pyplot as plt
    plt.close(fig)


def test_an_undefined_mean_has_no_bar_but_says_undefined(zero_project, exp_project):
    """zero_project: nothing is relevant on any topic, so nCS-DCG@10(cost=0) is undefined on all
    of them; exp_project's relevance run is a real, defined mean beside it."""
    with Session.open(zero_project) as s:
        undefined = s.run_experiment(PERSONA, rankers=["bm25"], approaches=["relevance"], classifier="oracle",
                                     depth=20, eval_measures=["nCS-DCG@10(cost=0)"])
    (r,) = undefined["results"]
    assert r["mean"] is None and r["n_topics"] == 0 and r["undefined_topics"] > 0
    fig = approaches_figure(undefined)
    try:
        (ax,) = fig.axes
        (bar,) = ax.patches
        assert math.isnan(bar.get_height())                     # no bar (it was a bar of height 0)
        texts = [t.get_text() for t in ax.texts]
        assert texts == [f"undefined\n(0 of {r['undefined_topics']} topics)"]
    finally:
        _close(fig)
    with Session.open(exp_project) as s:
        defined = s.run_experiment(PERSONA, rankers=["bm25"], approaches=["relevance", "prefilter"],
                                   classifier="oracle", depth=20, eval_measures=["nCS-DCG@10(cost=12)"])
    fig = approaches_figure(defined)
    try:
        (ax,) = fig.axes
        assert [p.get_height() for p in ax.patches] == pytest.approx([r["mean"] for r in defined["results"]])
        assert all(r["mean"] is not None for r in defined["results"]) and len(ax.texts) == 0
    finally:
        _close(fig)


def test_cutoff_axis_counts_whole_documents(exp_project):
    with Session.open(exp_project) as s:
        res = s.run_experiment(PERSONA, rankers=["bm25"], approaches=["relevance"], classifier="oracle",
                               depth=20, eval_measures=["F-docs@5"])   # (undefined at 0 shown: x from 1 to 5)
    fig = cutoff_figure(res)
    try:
        fig.canvas.draw()
        (ax,) = fig.axes
        lo, hi = ax.get_xlim()
        ticks = [t for t in ax.get_xticks() if lo <= t <= hi]
        assert len(ticks) >= 2 and all(float(t).is_integer() for t in ticks), ticks
    finally:
        _close(fig)


def test_each_paired_test_is_marked_on_its_own(exp_project, tmp_path):
    with Session.open(exp_project) as s:
        res = s.run_experiment(PERSONA, rankers=["bm25"], approaches=["relevance", "postfilter", "prefilter"],
                               classifier="oracle", depth=20, eval_measures=["nCS-DCG@10(cost=12)"])
    assert res["tests"]
    for t in res["tests"]:
        assert "significant" not in t
        assert (t["t_significant"], t["wilcoxon_significant"], t["sign_significant"]) == (
            t["t_p"] < 0.05, t["wilcoxon_p"] < 0.05, t["sign_p"] < 0.05)
    write_report(res, tmp_path / "out")
    rows = list(csv.DictReader(open(tmp_path / "out" / "tests.csv", newline="")))
    assert len(rows) == len(res["tests"])
    for row, t in zip(rows, res["tests"]):
        assert row["wilcoxon_significant"] == str(t["wilcoxon_p"] < 0.05)
        assert row["t_significant"] == str(t["t_p"] < 0.05) and row["sign_significant"] == str(t["sign_p"] < 0.05)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 dA 2\n1 0 dB 1\n1 0 dC 0\n2 0 dD 1\n")
    (tmp_path / "r1.txt").write_text("1 Q0 dA 1 2.5 runA\n1 Q0 dB 2 2.5 runA\n1 Q0 dX 3 1 runA\n")
    (tmp_path / "r2.txt").write_text("1 Q0 dB 1 3 runB\n1 Q0 dA 2 1 runB\n2 Q0 dD 1 1 runB\n")
    (tmp_path / "rT.txt").write_text("T1 Q0 dB 1 3 runT\nT2 Q0 dD 1 1 runT\n")
    (tmp_path / "rHalf.txt").write_text("1 Q0 dB 1 3 half\n7 Q0 dD 1 1 half\n")
    return tmp_path


def test_evaluate_json_gives_each_tests_n(files, capsys):
    assert main(["evaluate", "--qrels", str(files / "q.txt"), "--run", str(files / "r1.txt"),
                 "--run", str(files / "r2.txt"), "--measure", "nDCG@2", "--measure", "P@2", "--json"]) == 0
    tests = json.loads(capsys.readouterr().out)["tests"]
    # both topics are defined for both runs (runA has no list for topic 2: an empty one)
    assert [(t["measure"], t["n"]) for t in tests] == [("nDCG@2", 2), ("P@2", 2)]


def test_a_run_sharing_no_topic_with_the_judgments_gets_a_note(files, capsys):
    assert main(["evaluate", "--qrels", str(files / "q.txt"), "--run", str(files / "rT.txt"),
                 "--run", str(files / "r2.txt"), "--measure", "nDCG@2"]) == 0
    err = capsys.readouterr().err
    assert err == (f"sasc: note: run runT ({files / 'rT.txt'}) shares no topic with the judgments (its topics: "
                   f"T1, T2): every judged topic scores as an empty list; are the topic ids the same?\n")
    assert main(["evaluate", "--qrels", str(files / "q.txt"), "--run", str(files / "rHalf.txt"),
                 "--measure", "nDCG@2"]) == 0
    assert capsys.readouterr().err == (f"sasc: note: run half ({files / 'rHalf.txt'}): 1 of its 2 topics have no "
                                       f"judgments and are not scored: 7\n")
    assert main(["evaluate", "--qrels", str(files / "q.txt"), "--run", str(files / "r2.txt"),
                 "--measure", "nDCG@2"]) == 0
    assert capsys.readouterr().err == ""
