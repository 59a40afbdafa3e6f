"""Stored sensitivity scores follow the project's mail, on real projects (real mail files, real
SQLite, real Whoosh, real models): mail ingested after the scores were read, in this process or
another, is scored on first use as a cold start scores it."""
import json
import random

import numpy as np
import pytest

from sasc_desktop.engine.classify import api, explain, import_judgments, probabilities, probabilities_for, train
from sasc_desktop.engine.classify.api import load_model
from sasc_desktop.engine.session import Session

SENSITIVE = ["privileged attorney advice on the lawsuit", "my divorce and family trouble", "he is an idiot, so angry",
             "confidential settlement terms", "salary and termination of Bob"]
PLAIN = ["lunch menu for friday", "quarterly gas volumes report", "meeting room booking", "pipeline capacity update",
         "conference travel schedule"]


def _eml(mid: str, subject: str, body: str, sender: str = "ann@corp.com", extra: str = "") -> str:
    return (f"Message-ID: <{mid}>\nDate: Mon, 5 Mar 2001 10:00:00 -0800\nFrom: {sender}\n"
            f"To: carl@corp.com, dee@other.org\n{extra}Subject: {subject}\n\n{body}\n")


def _project(tmp_path, n: int = 60) -> Session:
    """n messages, every third one judged sensitive for persona p1."""
    rng = random.Random(1)
    folder = tmp_path / "mail"
    folder.mkdir()
    lines = []
    for i in range(n):
        s = i % 3 == 0
        text = rng.choice(SENSITIVE if s else PLAIN) + " " + rng.choice(PLAIN)
        (folder / f"{i:03d}.eml").write_text(_eml(f"m{i}@corp.com", f"note {i} {text.split()[0]}", text,
                                                  "ann@corp.com" if i % 2 else "bob@corp.com"))
        lines.append(f"p1 m{i}@corp.com {int(s)}")
    (tmp_path / "sens.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "personas.json").write_text(json.dumps([{"id": "p1", "name": "Persona One"}]))
    s = Session.create(tmp_path / "proj")
    s.ingest([folder], workers=1)
    import_judgments(s, sensitivity_path=tmp_path / "sens.txt", personas_path=tmp_path / "personas.json")
    return s


def _mail(tmp_path, name: str, files: dict[str, str]):
    folder = tmp_path / name
    folder.mkdir(parents=True)
    for f, text in files.items():
        (folder / f).write_text(text)
    return folder


def _stored(s, doc_id: str, persona: str = "p1") -> float:
    return s.store.con.execute("SELECT s.prob FROM scores s JOIN messages m ON m.id = s.message "
                               "WHERE s.persona = ? AND m.doc_id = ?", (persona, doc_id)).fetchone()[0]


def test_mail_ingested_after_the_scores_were_read_is_scored_on_first_use(tmp_path):
    s = _project(tmp_path)
    train(s, "p1")
    old = probabilities_for(s, "p1", ["m0@corp.com", "m1@corp.com"])  # the scores are now in memory
    s.ingest([_mail(tmp_path, "mail2", {"n1.eml": _eml("brandnew1@x.com", "brand new", "hello lawyer",
                                                           sender="zz@x.com")})], workers=1)
    # the app's background import, then a search on the same session: the new message is scored
    got = probabilities_for(s, "p1", ["brandnew1@x.com", "m0@corp.com", "m1@corp.com"])
    model = load_model(s, "p1")
    expected = float(model.predict_proba_docs(s, ["brandnew1@x.com"])[0])
    assert got.tolist() == [expected, *old.tolist()]
    assert _stored(s, "brandnew1@x.com") == expected
    assert explain(s, "brandnew1@x.com", "p1")["probability"] == expected
    hits = s.protected_search("brand new", "p1", approach="relevance")["hits"]
    assert [(h["doc_id"], h["p_sensitive"]) for h in hits] == [("brandnew1@x.com", expected)]

    # mail another process ingests (another session of the project) is seen as well
    with Session.open(tmp_path / "proj") as other:
        other.ingest([_mail(tmp_path, "mail3", {"n2.eml": _eml("brandnew2@x.com", "newer still",
                                                               "confidential settlement terms")})], workers=1)
    second = float(model.predict_proba_docs(s, ["brandnew2@x.com"])[0])
    assert probabilities_for(s, "p1", ["brandnew2@x.com"]).tolist() == [second]
    probs = probabilities(s, "p1")
    assert len(probs) == 62 and probs["brandnew1@x.com"] == expected and probs["brandnew2@x.com"] == second

    # a cold start (nothing in memory) reads the same
    api._SCORES.clear()
    assert probabilities(s, "p1") == probs
    s.close()
