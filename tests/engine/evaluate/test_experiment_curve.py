"""The score-against-cutoff curve of `run_experiment` when some topics are undefined."""
from __future__ import annotations

import pytest

from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.session import Session

PERSONA = "john-snibert"
QUICK = dict(rankers=["linear"], approaches=["relevance"], classifier="oracle", depth=20)


# ---------------------------------------------------------------------------------- 1. the curve
def test_cutoff_curve_at_k_is_the_mean_over_defined_topics(half_project):
    """Reviewer's reproduction: topics 19-36 have nothing relevant, so nCS-DCG@10(cost=0) is
    undefined on them. The curve at c = 10 (fixed cutoff 10: the same lists) must equal the
    reported mean over the 18 defined topics (it was 0.5333 against a mean of 0.6377: each
    fold's mean weighted by all its test topics, and a fold of undefined topics adding 0s)."""
    with Session.open(half_project) as s:
        res = s.run_experiment(PERSONA, eval_measures=["nCS-DCG@10(cost=0)"], **QUICK)
        q = J.qrels(s.store)
    nothing_relevant = sorted((t for t, docs in q.items() if max(docs.values()) <= 0), key=int)
    assert nothing_relevant == [str(t) for t in range(19, 37)]
    (r,) = res["results"]
    assert (r["n_topics"], r["undefined_topics"]) == (len(q) - 18, 18)
    assert sorted((t for t, v in r["per_topic"].items() if v is None), key=int) == nothing_relevant
    # the case of a fold whose test topics are all undefined is exercised
    assert any(all(int(t) > 18 for t in fold) for fold in res["folds"])
    defined = [v for v in r["per_topic"].values() if v is not None]
    (curve,) = res["cutoff_curves"]
    values = curve["values"]
    assert len(values) == 11
    assert values[10] == pytest.approx(r["mean"], abs=1e-12)
    assert values[10] == pytest.approx(sum(defined) / len(defined), abs=1e-12)
    assert all(v is not None for v in values)


def test_cutoff_curve_is_none_where_no_topic_is_defined_and_the_report_draws_it(zero_project, tmp_path):
    from sasc_desktop.engine.evaluate.experiment_report import write_report
    with Session.open(zero_project) as s:
        res = s.run_experiment(PERSONA, eval_measures=["nCS-DCG@10(cost=0)"], **QUICK)
        n_topics = len(J.qrels(s.store))
    (r,) = res["results"]
    assert (r["mean"], r["n_topics"], r["undefined_topics"]) == (None, 0, n_topics)
    assert res["cutoff_curves"][0]["values"] == [None] * 11
    files = write_report(res, tmp_path / "rep")
    assert "cutoff.png" in files and (tmp_path / "rep" / "cutoff.png").stat().st_size > 0



def test_cutoff_chart_has_a_panel_per_ranker_with_each_approach_curve(exp_project):
    """cutoff.png drew only ca (or the last ranker): with --rankers bm25 linear, bm25's curves were
    computed and never shown."""
    import math
    from sasc_desktop.engine.evaluate.experiment_report import cutoff_figure
    import matplotlib.pyplot as plt
    with Session.open(exp_project) as s:
        res = s.run_experiment(PERSONA, rankers=["bm25", "linear"], approaches=["relevance", "prefilter"],
                               classifier="oracle", depth=20, eval_measures=["nCS-DCG@10(cost=12)"])
    fig = cutoff_figure(res)
    try:
        assert [ax.get_title() for ax in fig.axes] == ["bm25", "linear"]
        for ax, rk in zip(fig.axes, ["bm25", "linear"]):
            want = {c["approach"]: c["values"] for c in res["cutoff_curves"] if c["ranker"] == rk}
            got = {ln.get_label(): [None if math.isnan(y) else float(y) for y in ln.get_ydata()] for ln in ax.lines}
            assert set(got) == {"relevance", "prefilter"} and got == want
    finally:
        plt.close(fig)
