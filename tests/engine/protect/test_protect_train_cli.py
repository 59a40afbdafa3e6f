"""sasc protect train: the ranker a protected search uses, trained ahead with chosen options;
the search then uses it as it is while the judgments stay the same. Real demo project, the
real CLI."""
from __future__ import annotations

import json

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.evaluate.experiment import folds_for
from sasc_desktop.engine.project import judgments as J
from sasc_desktop.engine.session import Session

PERSONA = "john-snibert"


def test_train_then_search_uses_it(demo_copy, capsys):
    root = str(demo_copy)
    capsys.readouterr()
    assert sasc(["protect", "train", root, "--persona", PERSONA, "--approach", "demote", "--ranker", "linear",
                 "--depth", "40", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    with Session.open(demo_copy) as s:
        qrels = J.qrels(s.store)
        judged = [t["id"] for t in J.topics(s.store) if t["id"] in qrels]
    assert (info["persona"], info["approach"], info["ranker"], info["topics"]) == (PERSONA, "demote", "linear", len(judged))
    assert info["training"] == {"ranker": "linear", "objective": "nCS-DCG@10(cost=12)", "depth": 40, "ranker_params": None}
    assert info["validation_topics"] == [judged[i] for i in folds_for(len(judged), 5)[0]]
    assert isinstance(info["static_value"], int) and "columns" not in info and "model" not in info
    assert sasc(["search", root, "Falcon launch", "--protect", "demote", "--persona", PERSONA, "--cutoff", "static",
                 "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert (res["ranker"], res["trained"], res["model_up_to_date"]) == ("linear", False, True)
    assert len(res["hits"]) <= info["static_value"]
    # the text form
    assert sasc(["protect", "train", root, "--persona", PERSONA, "--approach", "demote", "--ranker", "linear",
                 "--depth", "40"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"trained linear for demote ({PERSONA}) on {len(judged)} judged topics in ")
    assert lines[1].startswith(f"learned on {len(info['validation_topics'])} validation topics: static cutoff ")


def test_without_judged_topics_it_says_so(demo_copy, capsys):
    with Session.open(demo_copy) as s:
        with s.store.transaction() as con:
            con.execute("DELETE FROM qrels")
    capsys.readouterr()
    assert sasc(["protect", "train", str(demo_copy), "--persona", PERSONA, "--ranker", "linear"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"no judged topics: joint searches for {PERSONA} rank by BM25 until topics and relevance judgments are "
        "imported (then the next search trains linear)"]


def test_mistakes_are_refused_before_training(demo_copy, capsys):
    root = str(demo_copy)
    with Session.open(demo_copy) as s:
        models = sorted(p.name for p in s.paths.models.iterdir())
    for args, message in (
            (["--persona", "nobody"], "unknown persona 'nobody'; personas are: holly-palmer, john-snibert"),
            (["--persona", PERSONA, "--ranker", "foo"],
             "unknown ranker 'foo'; rankers are: bm25, linear, lambdamart, adarank, ca"),
            (["--persona", PERSONA, "--approach", "both"],
             "unknown approach 'both'; approaches are: relevance, prefilter, postfilter, demote, joint, "
             "joint_postfilter"),
            (["--persona", PERSONA, "--depth", "0"], "depth (candidates per topic) must be at least 1")):
        capsys.readouterr()
        assert sasc(["protect", "train", root, *args]) == 2
        assert capsys.readouterr().err.strip() == f"sasc: error: {message}"
    with Session.open(demo_copy) as s:
        assert sorted(p.name for p in s.paths.models.iterdir()) == models
