"""Review 8: `sasc experiment` end to end on a small real demo project."""
from __future__ import annotations

import shutil

import pytest

from sasc_desktop.cli import main as sasc
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
