"""A multipart whose boundary matches no line of its body exactly (a mailer wrote
boundary="=Multipart Boundary 0925021429" and parts starting '--= Multipart Boundary
0925021429'): compat32 cannot split it, and its whole body used to become one attachment,
attachment-1.bin, its text found by no search. Its parts are found again by the boundary with
whitespace ignored, with a note; failing that, its body is read as text."""
from __future__ import annotations

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.session import Session

HEAD = b"From: Deals <deals@x.org>\nTo: a@y.org\nSubject: offers\nMessage-ID: <mb@x>\nDate: Wed, 25 Sep 2002 14:29:23 -0400\nMIME-Version: 1.0\n"
SHAPED = HEAD + b"""Content-Type: multipart/alternative; boundary="=Multipart Boundary 0925021429"

This is a multipart MIME message.

--= Multipart Boundary 0925021429
Content-Type: text/plain;
\tcharset="ISO-8859-1"
Content-Transfer-Encoding: 8bit

Special offers from OptinDeals, caf\xe9 prices.

--= Multipart Boundary 0925021429
Content-Type: text/html;
\tcharset="ISO-8859-1"
Content-Transfer-Encoding: 8bit

<p>Special offers from <b>OptinDeals</b></p>

--= Multipart Boundary 0925021429--
"""
MIXED = HEAD + b"""Content-Type: multipart/mixed; boundary="=Part Two"

--= Part  Two
Content-Type: text/plain

Minutes attached.
--= Part  Two
Content-Type: application/pdf; name="minutes.pdf"
Content-Transfer-Encoding: base64

JVBERi0xLjQK
--= Part  Two--
epilogue
"""
LENIENT = "found by the boundary with whitespace ignored"


def test_parts_found_again():
    m = parse_message(SHAPED, "x")
    assert m.body == "Special offers from OptinDeals, caf\xe9 prices."
    assert m.attachments == ()
    assert m.notes == ("multipart/alternative: its boundary matches no line exactly; its 2 part(s) " + LENIENT,)
    m = parse_message(MIXED, "x")
    assert m.body == "Minutes attached."
    assert [(a.name, a.mime_type, a.size) for a in m.attachments] == [("minutes.pdf", "application/pdf", 9)]
    assert m.notes == ("multipart/mixed: its boundary matches no line exactly; its 2 part(s) " + LENIENT,)


def test_no_part_found_reads_the_body_as_text():
    m = parse_message(HEAD + b'Content-Type: multipart/mixed; boundary="zzz"\n\nJust the OptinDeals text.\n', "x")
    assert (m.body, m.attachments) == ("Just the OptinDeals text.", ())
    assert m.notes == ("multipart/mixed: no part marked by its boundary; its body read as text",)
    m = parse_message(HEAD + b"Content-Type: multipart/mixed\n\nNo boundary named.\n", "x")
    assert (m.body, m.attachments) == ("No boundary named.", ())
    assert m.notes == ("multipart/mixed: no part marked by its boundary; its body read as text",)


def test_real_messages_of_that_shape(shared_data, tmp_path):
    spam = (shared_data / "spamassassin").resolve()   # (stored locations are resolved paths)
    files = [spam / "spam-1" / "00467.5b733c506b7165424a0d4a298e67970f.txt",
             *sorted((spam / "spam-2").glob("01214.973b*.txt"))]
    assert len(files) == 2
    for f in files:
        m = parse_message(f.read_bytes(), str(f))
        assert m.attachments == ()
        assert m.notes == ("multipart/alternative: its boundary matches no line exactly; its 2 part(s) " + LENIENT,)
    with Session.create(tmp_path / "p") as s:
        r = s.ingest(files, workers=0)
        assert (r.ingested, r.skipped) == (2, [])
        assert [h.doc_id for h in s.search("OptinDeals").hits] == ["200209251825.g8PIPHC08718@dogma.slashnull.org"]
        (hit,) = s.search('"custom website development"').hits
        assert s.document(hit.doc_id)["location"] == f"{files[1]}#1"   # (an mbox of one: it starts with a From line)
        assert s.stats()["attachments"] == 0
