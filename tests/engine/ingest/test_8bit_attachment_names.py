"""Attachment names written as raw 8-bit bytes (no RFC 2047/2231 encoding), as many mailers do:
the message is read, and the name is the text the bytes spell (UTF-8, else cp1252)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mailfactory import mbox

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.session import Session

HEAD = ("From: Ann <ann@example.org>\nTo: bob@example.org\nSubject: CV\nMessage-ID: <cv@example.org>\n"
        "Date: Mon, 05 Mar 2001 10:00:00 -0800\nMIME-Version: 1.0\n"
        "Content-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/plain\n\nmy cv\n--B\n")


def _message(name: str, encoding: str, where: str) -> bytes:
    ctype = "Content-Type: application/pdf" + (f'; name="{name}"' if where in ("type", "both") else "")
    disp = "Content-Disposition: attachment" + (f'; filename="{name}"' if where in ("disposition", "both") else "")
    part = f"{ctype}\n{disp}\nContent-Transfer-Encoding: base64\n\nJVBERi0=\n--B--\n"
    return HEAD.encode("ascii") + part.encode(encoding)


CASES = [(enc, where) for enc in ("utf-8", "cp1252") for where in ("disposition", "type", "both")]


@pytest.mark.parametrize("encoding,where", CASES)
def test_parsed_name(encoding, where):
    m = parse_message(_message("résumé.pdf", encoding, where), "x")
    assert [(a.name, a.original_name, a.mime_type, a.size) for a in m.attachments] == \
        [("résumé.pdf", "résumé.pdf", "application/pdf", 5)]
    assert m.body == "my cv"
    assert m.notes == (f"attachment name 'résumé.pdf' has unencoded 8-bit bytes; decoded as {encoding}",)


def test_imported_not_skipped(tmp_path):
    src = tmp_path / "cv.mbox"
    src.write_bytes(mbox([_message("résumé.pdf", enc, where).replace(b"<cv@", f"<cv-{enc}-{where}@".encode())
                          for enc, where in CASES]))
    with Session.create(tmp_path / "p") as s:
        report = s.ingest([src], workers=0)
        assert report.skipped == [] and report.ingested == 6
        for enc, where in CASES:
            atts = s.document(f"cv-{enc}-{where}@example.org")["attachments"]
            assert [(a["name"], a["original_name"]) for a in atts] == [("résumé.pdf", "résumé.pdf")]


def test_inline_8bit_disposition_is_read():
    """A raw 8-bit inline text part is a body, not an attachment (the disposition is read)."""
    raw = HEAD.encode() + 'Content-Type: text/plain; charset=utf-8\nContent-Disposition: inline; filename="notés.txt"\n\nmore\n--B--\n'.encode()
    m = parse_message(raw, "x")
    assert m.attachments == () and m.body == "my cv\n\nmore"


def test_rfc2231_content_type_name_collapsed():
    raw = HEAD.encode() + ("Content-Type: application/pdf; name*=UTF-8''r%C3%A9sum%C3%A9.pdf\n"
                           "Content-Disposition: attachment\n\nx\n--B--\n").encode()
    assert [a.name for a in parse_message(raw, "x").attachments] == ["résumé.pdf"]


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x2FF, blacklist_characters='"\\;'),
               min_size=1, max_size=30).filter(lambda t: t.strip(" .") and t == t.strip()))
def test_any_utf8_name_is_kept(stem):
    name = stem + ".pdf"
    m = parse_message(_message(name, "utf-8", "both"), "x")
    assert [a.original_name for a in m.attachments] == [name]
