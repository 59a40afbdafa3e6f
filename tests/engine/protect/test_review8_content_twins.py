"""A project ingested before transit headers were left out of a message's content digest holds
the sender's Sent copy and a recipient's Inbox copy of a message without a Message-ID as two
documents with two ids. They are twins (protect.search.content_twins): a judgment on either
covers both, in judged_sensitive, judged_sensitive_among and a real protected search; a message
with the same subject and date but other words is not a twin. Real mail, real ingest (the old
project's second document written as the previous rule stored it), a brute-force oracle."""
from __future__ import annotations

import hashlib
import itertools
import json
import sys
import zlib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ingest"))
from mailfactory import mbox  # noqa: E402

from sasc_desktop.engine.ingest.parse import parse_message  # noqa: E402
from sasc_desktop.engine.project import judgments as J  # noqa: E402
from sasc_desktop.engine.protect.search import (content_twins, judged_sensitive,  # noqa: E402
                                                judged_sensitive_among)
from sasc_desktop.engine.session import Session  # noqa: E402

HEAD = (b"From: Carol Diaz <carol@arclight.example.com>\nTo: John Snibert <john@arclight.example.com>\n"
        b"Subject: custody hearing\nDate: Mon, 04 Mar 2019 10:00:00 -0800\n\n")
SENT = HEAD + b"My divorce custody hearing is on Friday, please keep this private.\n"
TRANSIT = (b"Return-Path: <carol@arclight.example.com>\nDelivered-To: john@arclight.example.com\n"
           b"Received: from mx.arclight.example.com by mail.arclight.example.com; Mon, 04 Mar 2019 10:00:02 -0800\n")
INBOX = TRANSIT + SENT
SAME_SUBJECT_AND_DATE = HEAD + b"The custody hearing room is booked for Friday.\n"     # other words: no twin
WITH_ID = (b"From: ann@arclight.example.com\nTo: bob@arclight.example.com\nSubject: hearing schedule\n"
           b"Date: Mon, 04 Mar 2019 12:00:00 -0800\nMessage-ID: <m2@arclight.example.com>\n\n"
           b"The custody hearing schedule for the room.\n")
UNRELATED = (b"From: ann@arclight.example.com\nTo: bob@arclight.example.com\nSubject: budget\n"
             b"Date: Mon, 04 Mar 2019 13:00:00 -0800\n\nThe custody budget for next year.\n")
OLD_INBOX_ID = "sasc-" + hashlib.sha256(INBOX).hexdigest()[:24]     # the previous rule: transit headers kept
SENT_ID = parse_message(SENT, "x").message_id


@pytest.fixture(scope="module")
def old_project(tmp_path_factory):
    """Ingested now, with the Inbox copy then written as the previous rule stored it: its own
    document, id sasc-<SHA-256 of its bytes>, its bytes and digest those of the Inbox copy."""
    root = tmp_path_factory.mktemp("twins")
    sent, inbox = root / "Sent.mbox", root / "inbox.mbox"
    sent.write_bytes(mbox([SENT]))
    stand_in = TRANSIT + b"X-Stored-Apart: 1\n" + SENT        # a document of its own now: rewritten below
    inbox.write_bytes(mbox([stand_in, SAME_SUBJECT_AND_DATE, WITH_ID, UNRELATED]))
    s = Session.create(root / "p")
    r1, r2 = s.ingest([sent], workers=0), s.ingest([inbox], workers=0)
    assert (r1.ingested, r2.ingested, r2.duplicates) == (1, 4, 0)
    sha = hashlib.sha256(INBOX).hexdigest()
    with s.store.transaction() as con:
        (row_id, old_sha), = con.execute("SELECT id, raw_sha256 FROM messages WHERE raw_sha256 = ?",
                                         (hashlib.sha256(stand_in).hexdigest(),)).fetchall()
        con.execute("UPDATE messages SET message_id = ?, doc_id = ?, thread_id = ?, raw_sha256 = ?, raw_size = ? "
                    "WHERE id = ?", (OLD_INBOX_ID, OLD_INBOX_ID, OLD_INBOX_ID, sha, len(INBOX), row_id))
        con.execute("UPDATE copies SET raw_sha256 = ? WHERE raw_sha256 = ?", (sha, old_sha))
        con.execute("UPDATE raw SET data = ? WHERE message = ?", (zlib.compress(INBOX), row_id))
    s.reindex()
    yield s
    s.close()


def _docs(s) -> list[str]:
    return sorted(d for (d,) in s.store.con.execute("SELECT doc_id FROM messages"))


def test_the_old_project_and_its_twins(old_project):
    s = old_project
    docs = _docs(s)
    assert len(docs) == 5 and SENT_ID in docs and OLD_INBOX_ID in docs
    assert sorted(h.doc_id for h in s.search("divorce").hits) == sorted([SENT_ID, OLD_INBOX_ID])
    ids = {d: i for i, d in s.store.con.execute("SELECT id, doc_id FROM messages")}
    synthetic = [i for (i,) in s.store.con.execute("SELECT id FROM messages WHERE synthetic_id = 1 ORDER BY id")]
    assert len(synthetic) == 4
    assert content_twins(s.store.con, synthetic) == {ids[SENT_ID]: [(OLD_INBOX_ID, OLD_INBOX_ID)],
                                                     ids[OLD_INBOX_ID]: [(SENT_ID, SENT_ID)]}
    assert content_twins(s.store.con, []) == {}


def test_every_set_of_judged_documents_against_brute_force(old_project):
    """Each subset of the five documents judged sensitive (level 2, a reason, or 0 for the
    rest) for its own persona: judged_sensitive and judged_sensitive_among give the documents of
    the groups hit, {Sent, Inbox copy} being one group and every other document its own."""
    s = old_project
    docs = _docs(s)
    group = {d: {d} for d in docs}
    group[SENT_ID] = group[OLD_INBOX_ID] = {SENT_ID, OLD_INBOX_ID}
    levels, reasons, expected = [], [], {}
    for n in range(len(docs) + 1):
        for judged in itertools.combinations(docs, n):
            persona = "p" + "".join(str(docs.index(d)) for d in judged)
            for d in docs:
                if d not in judged:
                    levels.append((persona, "", d, 0))
                elif docs.index(d) % 2:
                    reasons.append((persona, d))
                else:
                    levels.append((persona, "t1", d, 2))
            expected[persona] = set().union(*(group[d] for d in judged)) if judged else set()
    J.save_sensitivity(s.store, levels)
    with s.store.transaction() as con:
        con.executemany("INSERT INTO sensitivity_reasons(persona, doc_id, reason) VALUES (?, ?, 'private')", reasons)
    assert len(expected) == 32
    for persona, want in expected.items():
        assert judged_sensitive(s, persona) & set(docs) == want, persona
        assert judged_sensitive_among(s, persona, docs) == want, persona
        for d in docs:
            assert judged_sensitive_among(s, persona, [d, "not-stored"]) == want & {d}, (persona, d)


@pytest.mark.parametrize("judged", [SENT_ID, OLD_INBOX_ID])
def test_protected_search_never_shows_either_copy(old_project, tmp_path, judged):
    """The reviewer's case in a project made before the fix: one copy judged sensitive, the
    other was listed; now neither is, and the message with other words still is."""
    s = old_project
    persona = f"john-{judged[-6:]}"
    unrelated = parse_message(UNRELATED, "x").message_id          # judged sensitive too (training needs two)
    others = sorted(d for d in _docs(s) if d not in (SENT_ID, OLD_INBOX_ID, unrelated))
    assert len(others) == 2 and "m2@arclight.example.com" in others
    (tmp_path / "personas.json").write_text(json.dumps([{"id": persona, "name": "John"}]))
    (tmp_path / "sens.txt").write_text(f"{persona} {judged} 2\n{persona} {unrelated} 1\n"
                                       + "".join(f"{persona} {d} 0\n" for d in others))
    s.import_judgments(personas=tmp_path / "personas.json", sensitivity=tmp_path / "sens.txt")
    for approach in ("relevance", "joint"):
        result = s.protected_search("custody", persona, approach, show_withheld=True)
        assert {h["doc_id"] for h in result["hits"]} == set(others), approach
        assert not {h["doc_id"] for h in result["held_back"]} & {SENT_ID, OLD_INBOX_ID, unrelated}
        assert (result["candidates"], result["withheld_judged_sensitive"]) == (5, 3)
