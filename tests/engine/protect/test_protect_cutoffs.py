"""The static and threshold cutoff policies of protected search use the values learned with the
ranker on its validation topics (they silently behaved as fixed: the values were never
learned), and are refused, saying why, where nothing could be learned. Real demo project."""
from __future__ import annotations

import numpy as np
import pytest

from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.evaluate.experiment import folds_for
from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.session import Session

PERSONA = "john-snibert"                                        # (the demo200 fixture's, conftest.py)
APPROACHES = ("relevance", "postfilter", "joint_postfilter")    # its trained rankers (linear, depth 60)


def _learned(s, approach):
    from sasc_desktop.engine.protect.search import load_protection
    payload = load_protection(s, PERSONA, approach)
    return payload.get("static_value"), payload.get("threshold_value"), payload


def _ids(res):
    return [h["doc_id"] for h in res["hits"]]


def test_static_and_threshold_apply_the_learned_values(demo200):
    differs = {"static": 0, "threshold": 0}
    with Session.open(demo200) as s:
        titles = [t["title"] for t in J.topics(s.store)]
        qrels = J.qrels(s.store)
        judged = [t["id"] for t in J.topics(s.store) if t["id"] in qrels]   # (build_dataset's order)
        for approach in APPROACHES:
            c, t, payload = _learned(s, approach)
            assert isinstance(c, int) and 0 <= c <= 10            # a list length for nCS-DCG@10
            assert isinstance(t, float) and not np.isnan(t)        # a score (-inf: every document)
            fold = folds_for(payload["topics"], 5)[0]             # the first of 5 folds of the judged topics
            assert payload["validation_topics"] == [judged[i] for i in fold]
            for title in titles[:12]:
                run = lambda cutoff, k, offset=0: s.protected_search(  # noqa: E731
                    title, PERSONA, approach=approach, k=k, offset=offset, cutoff=cutoff)
                whole = _ids(run("fixed", 20))
                for k, offset in ((10, 0), (20, 0), (10, 10)):
                    fixed, static, threshold = run("fixed", k, offset), run("static", k, offset), run("threshold", k, offset)
                    assert static["ranker"] == threshold["ranker"] == "linear"
                    assert _ids(fixed) == whole[offset:offset + k]
                    # static: the list ends at the learned length (or at the limit, if shorter)
                    assert _ids(static) == whole[:min(offset + k, c)][offset:]
                    # threshold: the fixed list's documents that score at least the learned score
                    assert _ids(threshold) == [h["doc_id"] for h in fixed["hits"] if h["score"] >= t]
                    differs["static"] += _ids(static) != _ids(fixed)
                    differs["threshold"] += _ids(threshold) != _ids(fixed)
    # not vacuous: on this project both policies give lists the fixed policy does not
    assert differs["static"] > 0 and differs["threshold"] > 0


def _keep_topics(root, n):
    with Session.open(root) as s:
        keep = [t["id"] for t in J.topics(s.store)][:n]
        with s.store.transaction() as con:
            marks = ",".join("?" * len(keep)) or "''"
            con.execute(f"DELETE FROM qrels WHERE topic NOT IN ({marks})", keep)


@pytest.mark.parametrize("n_topics, why", [
    (4, "it is learned on validation topics, which needs at least 5 judged topics (the project has 4)"),
    (0, "the project has no judged topics to learn it on: import topics and relevance judgments (qrels) first"),
])
def test_a_cutoff_that_could_not_be_learned_is_refused(demo_copy, n_topics, why):
    _keep_topics(demo_copy, n_topics)
    with Session.open(demo_copy) as s:
        for cutoff, what in (("static", "a list length"), ("threshold", "a score threshold")):
            with pytest.raises(InputError) as err:
                s.protected_search("Falcon launch", PERSONA, approach="relevance", cutoff=cutoff,
                                   retrain_stale=True)   # (else the ranker learned with every topic is used)
            assert str(err.value) == (f"cannot search with the {cutoff} cutoff policy ({what} learned on validation "
                                      f"topics): {why}; use the fixed or dynamic policy")
        # the ranker was retrained on what is left; fixed and dynamic still search
        res = s.protected_search("Falcon launch", PERSONA, approach="relevance", cutoff="fixed", retrain_stale=True)
        assert res["ranker"] == ("linear" if n_topics else "bm25") and len(res["hits"]) == 10
        assert s.protected_search("Falcon launch", PERSONA, approach="relevance", cutoff="dynamic")["hits"]


def test_the_cli_refuses_it_too(demo_copy, capsys):
    from sasc_desktop.cli import main
    _keep_topics(demo_copy, 4)
    capsys.readouterr()
    assert main(["search", str(demo_copy), "Falcon launch", "--protect", "relevance", "--persona", PERSONA,
                 "--cutoff", "threshold", "--retrain", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == ("sasc: error: cannot search with the threshold cutoff policy (a score threshold learned "
                           "on validation topics): it is learned on validation topics, which needs at least 5 judged "
                           "topics (the project has 4); use the fixed or dynamic policy")
