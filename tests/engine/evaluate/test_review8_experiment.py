"""Review 8: `sasc experiment` end to end on a small real demo project."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.session import Session

PERSONA = "john-snibert"


@pytest.fixture(scope="module")
def five_topics(exp_project, tmp_path_factory):
    """Four judged topics of the demo and a fifth whose query matches no message (its one
    judged document is never a candidate): with 5 folds, one fold's topic has no candidate row,
    so a rotation has a validation fold and a test fold without any."""
    dst = tmp_path_factory.mktemp("five") / "proj"
    shutil.copytree(exp_project, dst)
    with Session.open(dst) as s:
        keep = sorted(J.qrels(s.store), key=int)[:4]
        marks = ",".join("?" * len(keep))
        with s.store.con:
            s.store.con.execute(f"DELETE FROM qrels WHERE topic NOT IN ({marks})", keep)
        any_doc = next(iter(J.qrels(s.store)[keep[0]]))
        J.save_topics(s.store, [{"id": "zz", "title": "xylophonequux", "description": "nothingmatcheshere"}])
        J.save_qrels(s.store, [("zz", any_doc, 1)])
    return dst


# ------------------------------------------------------------- 1. a fold without candidate rows
def test_lambdamart_experiment_with_a_fold_without_candidates(five_topics, tmp_path, capsys):
    """It died in scikit-learn ("Found array with 0 sample(s)") scoring the empty validation fold."""
    out = tmp_path / "rep"
    rc = sasc(["experiment", str(five_topics), "--persona", PERSONA, "--rankers", "lambdamart", "--approaches",
               "relevance", "prefilter", "--eval", "nDCG@10", "--classifier", "oracle", "--depth", "20",
               "--out", str(out)])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    rows = [line for line in captured.out.splitlines() if line.lstrip().startswith("lambdamart")]
    assert len(rows) == 2
    assert (out / "results.csv").is_file()


# ------------------------------------------------------- 2. each measure scores lists cut at its k
def _per_topic(res, approach="relevance"):
    return {r["measure"]: r["per_topic"] for r in res["results"] if r["approach"] == approach}


@pytest.mark.parametrize("cutoff", ["fixed", "dynamic"])
def test_the_objective_k_does_not_cut_what_an_eval_measure_scores(exp_project, cutoff):
    """BM25 relevance lists do not depend on the objective: nDCG@10 with an objective at @5
    was the nDCG@10 of 5-document lists (lower), silently."""
    quick = dict(rankers=["bm25"], approaches=["relevance", "postfilter"], classifier="oracle", depth=20,
                 cutoff=cutoff, eval_measures=["nDCG@10", "P@3", "F-docs@10"])
    with Session.open(exp_project) as s:
        at5 = s.run_experiment(PERSONA, objective="nCS-DCG@5(cost=12)", **quick)
        at10 = s.run_experiment(PERSONA, objective="nCS-DCG@10(cost=12)", **quick)
        at2 = s.run_experiment(PERSONA, objective="nCS-DCG@2(cost=12)", **quick)
    for a in ("relevance", "postfilter"):
        assert _per_topic(at5, a) == _per_topic(at10, a) == _per_topic(at2, a)
    key = lambda r: (r["approach"], r["measure"])  # noqa: E731
    assert {key(r): r["shown_sensitive"] for r in at5["results"]} == \
        {key(r): r["shown_sensitive"] for r in at10["results"]}
    by = {key(r): r["shown_sensitive"] for r in at10["results"]}
    # P@3's lists are 3 long, F-docs@10's 10: fewer sensitive documents in the shorter ones
    assert 0 < by[("relevance", "P@3")] < by[("relevance", "F-docs@10")]
    assert by[("postfilter", "F-docs@10")] == 0          # the oracle classifier lets none through
    # the curve runs to the first measure's k (it stopped at the objective's)
    assert [len(c["values"]) for c in at2["cutoff_curves"]] == [11, 11]


def test_fixed_lists_are_each_measures_first_k_exactly(exp_project):
    """nDCG@10 per topic equals the measure on BM25's first 10 candidates (its ranking alone)."""
    from sasc_desktop.engine.evaluate import parse_measure
    from sasc_desktop.engine.evaluate.experiment import build_dataset, score_lists
    with Session.open(exp_project) as s:
        res = s.run_experiment(PERSONA, rankers=["bm25"], approaches=["relevance"], classifier="oracle", depth=20,
                               objective="nCS-DCG@3(cost=12)", eval_measures=["nDCG@10"])
        base, _, _ = build_dataset(s, PERSONA, depth=20)
    col = list(base.feature_names).index("titledesc:all:bm25")
    lists = [np.argsort(-base.X[base.group(t), col], kind="stable")[:10] for t in range(base.n_topics)]
    vals, ok = score_lists(parse_measure("nDCG@10"), base, lists)
    expected = {t: (float(v) if d else None) for t, v, d in zip(base.topics, vals, ok)}
    (r,) = res["results"]
    assert r["per_topic"] == expected
    assert max(len(lst) for lst in lists) == 10


def test_static_cutoff_refuses_an_eval_measure_longer_than_the_objective(exp_project):
    with Session.open(exp_project) as s:
        with pytest.raises(InputError, match=r"static cutoff.*at most the objective's k \(5\).*nDCG@10"):
            s.run_experiment(PERSONA, rankers=["bm25"], approaches=["relevance"], classifier="oracle", depth=20,
                             cutoff="static", objective="nCS-DCG@5(cost=12)", eval_measures=["P@5", "nDCG@10"])
        res = s.run_experiment(PERSONA, rankers=["bm25"], approaches=["relevance"], classifier="oracle", depth=20,
                               cutoff="static", objective="nCS-DCG@5(cost=12)", eval_measures=["P@5", "P@3"])
    assert {r["measure"] for r in res["results"]} == {"P@5", "P@3"}
    assert all(0 <= p["value"] <= 5 for p in res["learned_policies"])


# ------------------------------------------------- 3. lower-is-better measures are not objectives
@pytest.mark.parametrize("objective", ["F-docs@10", "Withheld@10", "Empty@10"])
def test_experiment_refuses_a_lower_is_better_objective_before_any_work(exp_project, objective):
    with Session.open(exp_project) as s:
        with pytest.raises(InputError, match=f"{objective} cannot be a training objective"):
            s.run_experiment(PERSONA, rankers=["ca"], approaches=["joint"], classifier="oracle", depth=20,
                             objective=objective, eval_measures=["nDCG@10"], dataset=("not", "used", None))


def test_lower_is_better_measures_are_still_evaluation_measures(exp_project):
    with Session.open(exp_project) as s:
        res = s.run_experiment(PERSONA, rankers=["bm25"], approaches=["relevance", "postfilter"],
                               classifier="oracle", depth=20, eval_measures=["F-docs@10", "Withheld@10", "Empty@10"])
    by = {(r["approach"], r["measure"]): r["mean"] for r in res["results"]}
    assert by[("postfilter", "F-docs@10")] == 0.0 < by[("relevance", "F-docs@10")]


@pytest.mark.parametrize("objective", ["F-docs@10", "Empty@5"])
def test_protect_train_refuses_a_lower_is_better_objective(five_topics, objective, capsys):
    from sasc_desktop.engine.protect.search import _model_path
    with Session.open(five_topics) as s:
        with pytest.raises(InputError, match=f"{objective} cannot be a training objective"):
            s.train_protection(PERSONA, "joint", ranker="ca", objective=objective)
        path = _model_path(s, PERSONA, "joint")
    assert not path.exists()
    rc = sasc(["protect", "train", str(five_topics), "--persona", PERSONA, "--ranker", "linear",
               "--objective", objective, "--json"])
    assert rc == 2
    assert f"{objective} cannot be a training objective" in capsys.readouterr().err
    assert not path.exists()


# ------------------------------------------------------------- 4. the linear ranker and its objective
def test_linear_joint_shows_fewer_sensitive_documents_than_linear_relevance(exp_project):
    """It regressed on the grades whatever the objective: joint showed as many sensitive
    documents as relevance ranking (81 against 80 on a 600-message demo)."""
    with Session.open(exp_project) as s:
        res = s.run_experiment(PERSONA, rankers=["linear"], approaches=["relevance", "joint"], classifier="oracle",
                               depth=30, eval_measures=["nCS-DCG@10(cost=12)", "F-docs@10"])
    by = {(r["approach"], r["measure"]): r for r in res["results"]}
    rel, joint = by[("relevance", "F-docs@10")], by[("joint", "F-docs@10")]
    assert joint["shown_sensitive"] * 4 < rel["shown_sensitive"]
    assert by[("joint", "nCS-DCG@10(cost=12)")]["mean"] > by[("relevance", "nCS-DCG@10(cost=12)")]["mean"]


@pytest.mark.parametrize("approach,objective,learned", [
    ("joint", "nCS-DCG@10(cost=12)", "nCS-DCG@10(cost=12)"),
    ("joint", "TERN@10(M=1)", None),          # no cost: the grades
    ("relevance", "nCS-DCG@10(cost=12)", None),   # relevance approaches rank by the grades
])
def test_protect_train_json_says_what_the_linear_ranker_learned_from(five_topics, capsys, approach, objective,
                                                                      learned):
    import json
    rc = sasc(["protect", "train", str(five_topics), "--persona", PERSONA, "--ranker", "linear", "--approach",
               approach, "--objective", objective, "--depth", "20", "--json"])
    out = capsys.readouterr().out
    assert rc == 0
    info = json.loads(out)
    assert (info["objective"], info["ranker_objective"]) == (objective, learned)


# ------------------------------------------------------------- 5. the per-topic chart
def _has_colour(png, rgb, tol=0.02):
    import matplotlib.image as mpimg
    img = mpimg.imread(png)[..., :3]
    return bool((np.abs(img - np.array(rgb)).max(axis=-1) < tol).any())


C0, C1 = (0x1f / 255, 0x77 / 255, 0xb4 / 255), (0xff / 255, 0x7f / 255, 0x0e / 255)   # matplotlib's first colours


def test_per_topic_chart_plots_the_approaches_run(exp_project, tmp_path):
    """It plotted only joint, postfilter and relevance (of one ranker): with demote and
    prefilter it was an empty chart and matplotlib warned "No artists with labels found"."""
    import warnings
    from sasc_desktop.engine.evaluate.experiment_report import per_topic_series, write_report
    with Session.open(exp_project) as s:
        res = s.run_experiment(PERSONA, rankers=["bm25", "linear"], approaches=["demote", "prefilter"],
                               classifier="oracle", depth=20, cluster_replacement=True,
                               eval_measures=["nDCG@10", "CS-DCG@10(cost=12)"])
    cs, series = per_topic_series(res)
    assert cs == "CS-DCG@10(cost=12)"
    by = {(r["ranker"], r["approach"]): r["per_topic"] for r in res["results"] if r["measure"] == cs}
    for rk in ("bm25", "linear"):
        assert [a for a, _ in series[rk]] == ["demote", "demote+cr", "prefilter", "prefilter+cr"]
        for a, vals in series[rk]:
            assert vals == sorted(by[(rk, a)].values(), reverse=True) and len(vals) == res["n_topics"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        files = write_report(res, tmp_path / "rep")
    assert "per_topic_csdcg.png" in files
    png = tmp_path / "rep" / "per_topic_csdcg.png"
    assert _has_colour(png, C0) and _has_colour(png, C1)      # demote's and prefilter's lines


def test_per_topic_chart_without_any_defined_value_says_so(zero_project, tmp_path):
    import warnings
    from sasc_desktop.engine.evaluate.experiment_report import per_topic_series, write_report
    with Session.open(zero_project) as s:
        res = s.run_experiment(PERSONA, rankers=["linear"], approaches=["prefilter"], classifier="oracle", depth=20,
                               eval_measures=["nCS-DCG@10(cost=0)"])
    assert per_topic_series(res) == ("nCS-DCG@10(cost=0)", {"linear": []})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        files = write_report(res, tmp_path / "rep")
    assert "per_topic_csdcg.png" in files
    assert not _has_colour(tmp_path / "rep" / "per_topic_csdcg.png", C0)


# ------------------------------------------------------------- 6. a learned threshold of -inf
@pytest.fixture(scope="module")
def train_copy(exp_project, tmp_path_factory):
    dst = tmp_path_factory.mktemp("train") / "proj"
    shutil.copytree(exp_project, dst)
    return dst


@pytest.fixture(scope="module")
def few_sensitive_copy(exp_project, tmp_path_factory):
    """A copy where only two documents are judged sensitive for the persona: no validation list
    holds one, so cutting any is a loss and the learned threshold is -inf (every document)."""
    dst = tmp_path_factory.mktemp("few") / "proj"
    shutil.copytree(exp_project, dst)
    from sasc_desktop.engine.project import judgments as J
    with Session.open(dst) as s:
        keep = sorted(d for d, lvl in J.sensitivity(s.store, PERSONA).items() if lvl > 0)[-2:]
        with s.store.transaction() as con:
            con.execute("UPDATE sensitivity SET level = 0 WHERE persona = ? AND level > 0 AND doc_id NOT IN (?, ?)",
                        (PERSONA, *keep))
            con.execute("DELETE FROM sensitivity_reasons WHERE persona = ? AND doc_id NOT IN (?, ?)", (PERSONA, *keep))
    return dst


def test_protect_train_json_says_when_the_threshold_is_every_document(train_copy, few_sensitive_copy, capsys):
    """-inf (no threshold: every document) printed as "threshold_value": null, which read as
    "not learned"; threshold_every_document says which."""
    import json
    from sasc_desktop.engine.protect.search import load_protection
    seen = set()
    for project, approach, ranker in ((train_copy, "joint", "linear"), (train_copy, "postfilter", "bm25"),
                                      (few_sensitive_copy, "relevance", "linear"),
                                      (few_sensitive_copy, "postfilter", "bm25")):
        rc = sasc(["protect", "train", str(project), "--persona", PERSONA, "--ranker", ranker, "--approach",
                   approach, "--depth", "30", "--json"])
        assert rc == 0
        info = json.loads(capsys.readouterr().out)
        with Session.open(project) as s:
            stored = load_protection(s, PERSONA, approach)["threshold_value"]      # the float itself
        assert isinstance(info["static_value"], int)          # learned (not a cutoff_problem)
        every = stored == float("-inf")
        assert info["threshold_every_document"] is every
        assert info["threshold_value"] == (None if every else stored)
        seen.add(every)
    assert seen == {True, False}      # both cases were met


def test_experiment_learned_policies_say_when_the_threshold_is_every_document(exp_project):
    with Session.open(exp_project) as s:
        res = s.run_experiment(PERSONA, rankers=["linear"], approaches=["joint", "prefilter", "postfilter"],
                               classifier="oracle", depth=30, cutoff="threshold", eval_measures=["nDCG@10"])
    pols = res["learned_policies"]
    assert all(p["every_document"] is (p["value"] is None) for p in pols)
    assert {p["every_document"] for p in pols} == {True, False}
