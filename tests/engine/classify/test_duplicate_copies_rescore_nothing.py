"""Copies that change no message's text score nothing again (real mail, SQLite, Whoosh, models).

The importer adds a copies row for every copy it sees; only a copy that becomes the kept one
(kept = 1: a sender's copy replacing a recipient's text, or the same bytes found in a Sent
mailbox) can change what a message is scored from. a2f5a40 scored again every message with a
copies row newer than the stored scores, so importing the same mail again from another place
re-scored the whole project for every persona. Which messages were scored again is read from
the stored scores themselves: every stored probability is set to a value no model gives, and a
message scored again has its model's probability stored instead."""
import shutil

import numpy as np

from sasc_desktop.engine.classify import api, probabilities, train
from sasc_desktop.engine.classify.api import load_model
from sasc_desktop.engine.session import Session

from judged_mail import eml as _eml, judged_project

MARK = 0.123456789  # a stored probability no scoring writes
N = 40


def _project(tmp_path) -> Session:
    return judged_project(tmp_path, N, seed=2)


def _mark_stored_scores(s) -> None:
    with s.store.transaction() as c:
        c.execute("UPDATE scores SET prob = ? WHERE persona = 'p1'", (MARK,))
    api._SCORES.clear()


def _scored_again(s) -> list[str]:
    """The messages the next read of the scores scored again (their stored score is no longer MARK)."""
    probs = probabilities(s, "p1")
    stored = dict(s.store.con.execute("SELECT m.doc_id, s.prob FROM scores s JOIN messages m ON m.id = s.message "
                                      "WHERE s.persona = 'p1'"))
    assert stored == probs and len(probs) == N
    return sorted(d for d, p in probs.items() if p != MARK)


def test_copies_that_change_no_text_score_nothing_again(tmp_path):
    s = _project(tmp_path)
    train(s, "p1")
    probabilities(s, "p1")
    _mark_stored_scores(s)
    copies = s.store.con.execute("SELECT COUNT(*) FROM copies").fetchone()[0]

    # the same files from another place (same bytes), and recipients' copies with other bytes
    shutil.copytree(tmp_path / "mail", tmp_path / "again")
    other = tmp_path / "elsewhere"
    other.mkdir()
    for f in sorted((tmp_path / "mail").iterdir()):
        (other / f.name).write_text("Received: from relay.other.org\n" + f.read_text())
    report = s.ingest([tmp_path / "again", other], workers=0)
    assert (report.ingested, report.duplicates) == (0, 2 * N)
    con = s.store.con
    assert tuple(con.execute("SELECT COUNT(*), SUM(kept) FROM copies WHERE id > ?", (copies,)).fetchone()) == (2 * N, 0)
    assert _scored_again(s) == []

    # a copy that becomes the kept one is scored again, and only it: a sender's copy replacing the
    # text (m1: the same message, its Date and text, with the sender's own words after the text the
    # recipients' copies have), the same bytes found in a Sent mailbox (m2: where it is kept
    # changes, not its text)
    sent = tmp_path / "Sent Items"
    sent.mkdir()
    m1_text = con.execute("SELECT body FROM messages WHERE doc_id = 'm1@corp.com'").fetchone()[0]
    (sent / "1.eml").write_text(_eml("m1@corp.com", "note 1", m1_text + "\nconfidential settlement terms, my divorce lawyer",
                                     "ann@corp.com", extra="Bcc: secret@x.com\n"))
    shutil.copy(tmp_path / "mail" / "002.eml", sent / "2.eml")
    s.ingest([sent], workers=0)
    assert [tuple(r) for r in con.execute("SELECT m.doc_id, c.folder FROM copies c JOIN messages m ON m.id = c.message "
                                          "WHERE c.kept = 1 AND c.id > ? ORDER BY m.doc_id", (copies,))] == \
        [("m1@corp.com", "Sent Items"), ("m2@corp.com", "Sent Items")]
    assert _scored_again(s) == ["m1@corp.com", "m2@corp.com"]
    model = load_model(s, "p1")
    got = probabilities(s, "p1")
    assert np.array_equal([got["m1@corp.com"], got["m2@corp.com"]],
                          model.predict_proba_docs(s, ["m1@corp.com", "m2@corp.com"]))
    s.close()
