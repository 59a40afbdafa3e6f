"""Why a message is sensitive: reason groups from Berkeley labels and reasons.tsv, stored exactly."""
import json

import pytest

from sasc_desktop.engine.classify import (enron_reasons, import_categories, import_judgments, read_reasons,
                                          sensitivity_reasons, training_labels)
from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.session import Session

CATS = {
    "1/101": "1,1,1\n3,10,2\n4,10,1\n",       # legal advice + secrecy
    "2/102": "1,2,1\n4,7,1\n",                 # purely personal
    "5/103": "1,5,1\n2,8,1\n4,19,1\n",        # employment, legal document, scorn
    "1/104": "1,1,1\n3,6,2\n4,12,1\n",        # not sensitive
    "4/105": "1,4,1\n4,9,1\n",                 # sarcasm
}


def _collection(tmp_path):
    root = tmp_path / "cats"
    for i, (name, cats) in enumerate(CATS.items()):
        txt = root / f"{name}.txt"
        txt.parent.mkdir(parents=True, exist_ok=True)
        txt.write_text(f"Message-ID: <r{i}@corp.com>\nFrom: ann@corp.com\nTo: bob@corp.com\nSubject: s{i}\n\nbody {i}\n")
        txt.with_suffix(".cats").write_text(cats)
    return root


def test_enron_reasons_exact():
    assert enron_reasons([(1, 1, 1), (3, 10, 2), (4, 10, 1)]) == ["legal", "secrecy"]
    assert enron_reasons([(1, 5, 1), (2, 8, 1), (4, 19, 1)]) == ["legal", "employment", "tone"]
    assert enron_reasons([(4, 16, 1), (4, 17, 1), (4, 18, 1)]) == ["tone"]
    assert enron_reasons([(1, 1, 1), (3, 6, 2), (4, 12, 1), (2, 1, 1)]) == []


def test_import_categories_stores_reasons(tmp_path):
    folder = _collection(tmp_path)
    s = Session.create(tmp_path / "proj")
    s.ingest([folder])
    counts = import_categories(s, folder)
    assert counts["messages"] == 5 and counts["sensitive"] == 4 and counts["reasons"] == 7
    assert sensitivity_reasons(s, "dana-whitfield") == {
        "r0@corp.com": ["legal", "secrecy"], "r1@corp.com": ["personal"],
        "r2@corp.com": ["employment", "legal", "tone"], "r4@corp.com": ["tone"]}
    # every message with a reason is sensitive and every sensitive one has a reason
    labels = training_labels(s, "dana-whitfield")
    assert {d for d, v in labels.items() if v} == set(sensitivity_reasons(s, "dana-whitfield"))
    # importing again after a relabel replaces the old reasons
    (folder / "1/101.cats").write_text("1,1,1\n3,10,1\n")
    (folder / "4/105.cats").write_text("1,4,1\n")
    counts = import_categories(s, folder)
    assert counts["reasons"] == 5
    assert sensitivity_reasons(s, "dana-whitfield")["r0@corp.com"] == ["legal"]
    assert "r4@corp.com" not in sensitivity_reasons(s, "dana-whitfield")
    s.close()


def test_reasons_file(tmp_path):
    f = tmp_path / "reasons.tsv"
    f.write_text("docid\tpersona\treason\nm1@x\tp1\t3\nm1@x\tp1\t5\nm2@x\tp2\t1\n")
    assert read_reasons(f) == [("p1", "m1@x", "3"), ("p1", "m1@x", "5"), ("p2", "m2@x", "1")]
    bad = tmp_path / "bad.tsv"
    bad.write_text("m1@x p1 3\n")
    with pytest.raises(InputError, match="line 1: expected 'docid<TAB>persona<TAB>reason'"):
        read_reasons(bad)
    s = Session.create(tmp_path / "proj")
    # p1 and p2 have no card yet: each gets a minimal one, as personas a sensitivity file names do
    assert import_judgments(s, reasons_path=f) == {"personas": 2, "topics": 0, "qrels": 0, "sensitivity": 0, "reasons": 3,
                                                   "not_in_project": 2, "copy_ids": 0, "changed": 0, "topics_changed": 0,
                                                   "personas_changed": 0}
    assert s.personas() == [{"id": "p1", "name": "p1"}, {"id": "p2", "name": "p2"}]
    assert sensitivity_reasons(s, "p1") == {"m1@x": ["3", "5"]}
    assert sensitivity_reasons(s, "p2") == {"m2@x": ["1"]}
    s.close()


def test_demo_judgments_load_reasons(tmp_path):
    from sasc_desktop.engine.demo_project import load_demo_judgments
    src = tmp_path / "demo"
    src.mkdir()
    (src / "sensitivity.txt").write_text("john-snibert a@x 1\njohn-snibert b@x 0\nholly-palmer a@x 1\n")
    (src / "qrels.txt").write_text("1 0 a@x 2\n")
    (src / "topics.json").write_text(json.dumps([{"id": "1", "title": "t"}]))
    (src / "reasons.tsv").write_text("docid\tpersona\treason\na@x\tjohn-snibert\t2\na@x\tholly-palmer\t4\na@x\tholly-palmer\t7\n")
    s = Session.create(tmp_path / "proj")
    load_demo_judgments(s, src)
    assert sensitivity_reasons(s, "john-snibert") == {"a@x": ["2"]}
    assert sensitivity_reasons(s, "holly-palmer") == {"a@x": ["4", "7"]}
    s.close()


def test_a_reason_without_a_level_is_a_training_positive_as_protection_hides_it(tmp_path):
    """Protection withholds a document with a reason even when no level was given; training
    learns it as sensitive too. "Don't know" (-1, which can have no reason) is left out. A reason
    on a document not in the project adds nothing."""
    from sasc_desktop.engine.protect.search import judged_sensitive
    folder = _collection(tmp_path)
    s = Session.create(tmp_path / "proj")
    s.ingest([folder])
    sens = tmp_path / "sens.txt"
    sens.write_text("p1 r0@corp.com 0\np1 r1@corp.com -1\np1 r3@corp.com 1\n")
    reasons = tmp_path / "reasons.tsv"
    reasons.write_text("r4@corp.com\tp1\tpersonal\nr2@corp.com\tp1\tlegal\nabsent@x\tp1\tlegal\n")
    import_judgments(s, sensitivity_path=sens, reasons_path=reasons)
    assert training_labels(s, "p1") == {"r0@corp.com": 0, "r2@corp.com": 1, "r3@corp.com": 1, "r4@corp.com": 1}
    assert {d for d, v in training_labels(s, "p1").items() if v} <= judged_sensitive(s, "p1")
    s.close()
