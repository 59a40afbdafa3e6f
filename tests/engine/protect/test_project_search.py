"""Search and protect in a real (small demo) project: the safety rule, stored models, the
experiment runner end to end, and the CLI."""
from __future__ import annotations

import json

import pytest

from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.session import Session

PERSONA = "john-snibert"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    from sasc_desktop.engine.demo_project import build_demo_project
    root = tmp_path_factory.mktemp("protect")
    return build_demo_project(root / "proj", n_messages=600, seed=7, train=False)


@pytest.mark.slow
def test_judged_sensitive_never_shown_whatever_the_approach(project):
    with Session.open(project) as s:
        never = {d for d, lvl in J.sensitivity(s.store, PERSONA).items() if lvl > 0}
        assert never
        titles = [t["title"] for t in J.topics(s.store)]
        for approach in ("relevance", "joint", "postfilter"):
            info = s.train_protection(PERSONA, approach, ranker="linear", depth=60)
            assert info["topics"] > 0
            for title in titles[:4]:
                for cutoff in ("fixed", "dynamic"):
                    res = s.protected_search(title, PERSONA, approach=approach, k=10, cutoff=cutoff)
                    shown = [h["doc_id"] for h in res["hits"]]
                    assert not set(shown) & never
                    assert not {h["doc_id"] for h in res["held_back"]} & never
                    assert len(shown) <= 10
        # relevance ignores sensitivity, so only the final safety step can have removed these
        res = [s.protected_search(t, PERSONA, approach="relevance", show_withheld=True) for t in titles]
        assert sum(r["withheld_judged_sensitive"] for r in res) > 0


@pytest.mark.slow
def test_experiment_end_to_end_oracle(project, tmp_path):
    from sasc_desktop.engine.evaluate.experiment_report import write_report
    with Session.open(project) as s:
        res = s.run_experiment(PERSONA, rankers=["linear"], classifier="oracle", folds=5,
                               approaches=["relevance", "postfilter", "joint", "joint_postfilter"],
                               eval_measures=["nCS-DCG@10(cost=12)", "CS-DCG@10(cost=12)"], cluster_replacement=True,
                               cutoff="dynamic", depth=60)
    assert {r["approach"] for r in res["results"]} >= {"postfilter", "joint", "postfilter+cr", "relevance"}
    for r in res["results"]:
        assert set(r) >= {"ranker", "approach", "measure", "mean", "per_topic"}
        if r["approach"] in ("postfilter", "joint_postfilter", "postfilter+cr", "joint_postfilter+cr"):
            assert r["shown_sensitive"] == 0      # the oracle classifier never lets one through
        if r["approach"] == "relevance":
            assert r["shown_sensitive"] > 0       # ... so the check above is not vacuous
    assert res["tests"] and {"a", "b", "t_p"} <= set(res["tests"][0])
    files = write_report(res, tmp_path / "report")
    for f in files:
        assert (tmp_path / "report" / f).stat().st_size > 0


@pytest.mark.slow
def test_cli_protected_search_json(project, capsys):
    from sasc_desktop.cli import main
    assert main(["search", str(project), "Falcon launch", "--protect", "postfilter", "--persona", PERSONA,
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"hits", "held_back", "approach", "persona"}
    assert main(["search", str(project), "Falcon", "--protect", "postfilter"]) == 2


@pytest.mark.slow
def test_oracle_postfilter_shows_no_sensitive_document_with_bm25_and_ca(project):
    """The papers' sanity check: with a perfect classifier, post-filtering shows nothing sensitive
    (for every ranker), while relevance-only ranking does show sensitive documents."""
    with Session.open(project) as s:
        res = s.run_experiment(PERSONA, rankers=["bm25", "ca"], classifier="oracle", folds=5,
                               approaches=["relevance", "postfilter", "joint_postfilter"],
                               eval_measures=["nCS-DCG@10(cost=12)"], depth=60,
                               ranker_params={"ca": {"n_restarts": 1, "n_iter": 4, "n_jobs": 1}})
    by = {(r["ranker"], r["approach"]): r for r in res["results"]}
    for ranker in ("bm25", "ca"):
        assert by[(ranker, "postfilter")]["shown_sensitive"] == 0
        assert by[(ranker, "joint_postfilter")]["shown_sensitive"] == 0
        assert by[(ranker, "relevance")]["shown_sensitive"] > 0
        # every shown document was judged; filtering can only raise the cost-sensitive score here
        post, rel = by[(ranker, "postfilter")]["per_topic"], by[(ranker, "relevance")]["per_topic"]
        assert sum(v for v in post.values() if v is not None) >= sum(v for v in rel.values() if v is not None)


@pytest.mark.slow
def test_crossfit_probabilities_are_out_of_fold_and_leave_test_topics_alone(project):
    import numpy as np
    from sasc_desktop.engine.evaluate.experiment import (build_dataset, crossfit_probabilities, folds_for,
                                                         learned_probabilities)
    with Session.open(project) as s:
        base, _, _ = build_dataset(s, PERSONA, depth=40)
        folds = folds_for(base.n_topics, 5, 0)
        test_docs = {d for t in folds[0] for d in base.doc_ids[base.group(int(t))]}
        judged = J.sensitivity(s.store, PERSONA)
        train = [d for d in judged if d not in test_docs]
        p = learned_probabilities(s, PERSONA, train, list(base.doc_ids))
        others = np.concatenate(folds[1:])
        q = crossfit_probabilities(s, PERSONA, base, p, train, test_docs, others, 2, 0)
        in_test = np.array([d in test_docs for d in base.doc_ids])
        assert np.array_equal(q[in_test], p[in_test])
        assert not np.allclose(q[~in_test], p[~in_test])
        y = np.array([judged.get(d, 0) > 0 for d in base.doc_ids])
        # in-sample probabilities separate the training documents better than out-of-fold ones
        gap = lambda v: v[~in_test & y].mean() - v[~in_test & ~y].mean()  # noqa: E731
        assert gap(p) > gap(q)
