"""Stored sensitivity scores follow the project's mail, on real projects (real mail files, real
SQLite, real Whoosh, real models): mail ingested after the scores were read, in this process or
another, is scored on first use as a cold start scores it."""
import numpy as np

from sasc_desktop.engine.classify import api, explain, probabilities, probabilities_for, train
from sasc_desktop.engine.classify.api import load_model
from sasc_desktop.engine.session import Session

from judged_mail import eml as _eml, judged_project


def _project(tmp_path, n: int = 60) -> Session:
    """n messages, every third one judged sensitive for persona p1."""
    return judged_project(tmp_path, n, seed=1, subject=lambda i, text: f"note {i} {text.split()[0]}", workers=1)


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


# ------------------------------------------------------------------------------ text replaced in place
# A sender's copy (in Sent, with the Bcc) arriving after a recipient's copy replaces the kept
# copy's text in the same message row; the stored score of that row is then scored again.
_SECRET = ("my divorce lawyer says the settlement is confidential, SSN 123-45-6789, card 4111 1111 1111 1111, "
           "salary, hospital, wife.")


def _sender_copy(s, doc_id: str) -> str:
    """The sender's copy of a stored message: the same message (its Message-ID, subject, Date and
    text) with a Bcc, and words of the sender's after the text the recipients' copy has."""
    d = s.document(doc_id)
    return _eml(doc_id, d["subject"], d["body"] + "\n" + _SECRET, sender="ann@corp.com",
                extra="Bcc: secret@x.com\nX-Folder: Sent Items\n")


def _agree(s, doc_id: str, persona: str = "p1") -> float:
    """The score every way of reading it gives: the score map, the stored row, explain, the model."""
    model = load_model(s, persona)
    expected = float(model.predict_proba_docs(s, [doc_id])[0])
    assert probabilities(s, persona)[doc_id] == expected
    assert probabilities_for(s, persona, [doc_id]).tolist() == [expected]
    assert _stored(s, doc_id, persona) == expected
    assert explain(s, doc_id, persona)["probability"] == expected
    return expected


def test_a_sender_copy_that_replaces_the_text_is_scored_again(tmp_path):
    s = _project(tmp_path)
    train(s, "p1")
    before = probabilities(s, "p1")                               # in memory now
    s.ingest([_mail(tmp_path, "sent1", {"1.eml": _sender_copy(s, "m1@corp.com")})], workers=1)
    assert tuple(s.store.con.execute("SELECT COUNT(*), MAX(bcc) FROM messages").fetchone()) == (60, "secret@x.com")
    after = _agree(s, "m1@corp.com")
    assert after > before["m1@corp.com"] + 0.2                    # the new text is the sensitive one
    probs = probabilities(s, "p1")
    assert {d: p for d, p in probs.items() if d != "m1@corp.com"} == \
        {d: p for d, p in before.items() if d != "m1@corp.com"}  # the others are as they were

    # replaced by another process, read by a process that starts afresh: the stored score is stale
    with Session.open(tmp_path / "proj") as other:
        other.ingest([_mail(tmp_path, "sent2", {"5.eml": _sender_copy(other, "m5@corp.com")})], workers=1)
    api._SCORES.clear()
    assert _agree(s, "m5@corp.com") > before["m5@corp.com"] + 0.2
    assert _agree(s, "m1@corp.com") == after
    s.close()


def test_scores_stored_before_the_text_they_came_from_was_recorded(tmp_path):
    """Scores an older version stored (no record of the text they came from) are trusted while
    the mail is the one the model was trained on, and all scored again once when it is not."""
    s = _project(tmp_path)
    train(s, "p1")
    con = s.store.con

    def as_an_older_version_left_it():
        with s.store.transaction() as c:
            c.execute("DELETE FROM meta WHERE key = 'classify.scores_copies:p1'")
            c.execute("UPDATE scores SET prob = 0.5 WHERE message = (SELECT id FROM messages WHERE doc_id = 'm2@corp.com')")
        api._SCORES.clear()

    as_an_older_version_left_it()
    assert probabilities(s, "p1")["m2@corp.com"] == 0.5           # the mail is unchanged: trusted
    top = con.execute("SELECT MAX(id) FROM copies").fetchone()[0]
    assert tuple(con.execute("SELECT value FROM meta WHERE key = 'classify.scores_copies:p1'").fetchone()) == (str(top),)

    as_an_older_version_left_it()
    s.ingest([_mail(tmp_path, "sent", {"1.eml": _sender_copy(s, "m1@corp.com")})], workers=1)
    model = load_model(s, "p1")
    docs = sorted(probabilities(s, "p1"))
    assert len(docs) == 60
    assert np.allclose([probabilities(s, "p1")[d] for d in docs], model.predict_proba_docs(s, docs), rtol=0, atol=1e-12)
    assert probabilities(s, "p1")["m2@corp.com"] != 0.5
    assert _agree(s, "m1@corp.com") > 0.5
    s.close()
