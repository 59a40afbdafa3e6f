"""A chain of forwarded messages (message/rfc822 inside message/rfc822...) stores each text
once: each nested message is an attachment of its own with its own text, not its descendants'
(which doubled at each level: a 106 KB message forwarded 8 deep was 13.4 MB of text)."""
from __future__ import annotations

import sqlite3

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.session import Session

WORDS = 15000


def _chain(depth: int = 8) -> bytes:
    s = "From: z@z\nSubject: inner\nContent-Type: text/plain\n\n" + "budget " * WORDS + "\n"
    for i in range(depth):
        s = (f"From: l{i}@z\nSubject: Fwd {i}\nMessage-ID: <l{i}@z>\nMIME-Version: 1.0\n"
             f"Content-Type: multipart/mixed; boundary=b{i}\n\n--b{i}\nContent-Type: text/plain\n\nfyi\n"
             f"--b{i}\nContent-Type: message/rfc822\n\n" + s + f"\n--b{i}--\n")
    return s.encode()


INNER = "From: z@z\nSubject: inner\n\n" + ("budget " * WORDS).strip()
EXPECTED = [("inner.eml", INNER)] + [(f"Fwd {i}.eml", f"From: l{i}@z\nSubject: Fwd {i}\n\nfyi") for i in range(7)]


def test_each_text_once():
    m = parse_message(_chain(), "x")
    assert m.body == "fyi"
    assert [(a.name, a.text) for a in m.attachments] == EXPECTED
    assert all(a.is_message for a in m.attachments)
    assert m.attachment_text.count("budget") == WORDS
    assert sum(len(a.text) for a in m.attachments) == len(INNER) + sum(len(t) for _, t in EXPECTED[1:]) == 105_235


def test_text_attachments_of_a_nested_message_stay_in_its_text():
    inner = ("From: e@x\nSubject: inner\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=C\n\n"
             "--C\nContent-Type: text/plain\n\ninner words\n--C\nContent-Type: text/plain; name=notes.txt\n"
             "Content-Disposition: attachment\n\nnotes words\n--C\nContent-Type: application/pdf; name=a.pdf\n\nx\n--C--\n")
    middle = ("From: m@x\nSubject: middle\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=D\n\n"
              "--D\nContent-Type: text/plain\n\nmiddle words\n--D\nContent-Type: message/rfc822\n\n" + inner + "\n--D--\n")
    raw = ("From: o@x\nSubject: outer\nMessage-ID: <o@x>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=E\n\n"
           "--E\nContent-Type: text/plain\n\nouter words\n--E\nContent-Type: message/rfc822\n\n" + middle + "\n--E--\n")
    m = parse_message(raw.encode(), "x")
    assert [(a.name, a.text) for a in m.attachments] == [
        ("a.pdf", None),
        ("inner.eml", "From: e@x\nSubject: inner\n\ninner words\n\nnotes words"),
        ("middle.eml", "From: m@x\nSubject: middle\n\nmiddle words"),
    ]


def test_stored_once_and_found(tmp_path):
    src = tmp_path / "chain.eml"
    src.write_bytes(_chain())
    with Session.create(tmp_path / "p") as s:
        assert s.ingest([src], workers=0).ingested == 1
        assert [h.doc_id for h in s.search("budget").hits] == ["l7@z"]
    con = sqlite3.connect(tmp_path / "p" / "project.sqlite")
    assert con.execute("SELECT sum(length(text)), count(*) FROM attachments").fetchone() == (105_235, 8)
