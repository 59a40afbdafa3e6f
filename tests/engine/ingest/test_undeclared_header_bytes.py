"""Raw 8-bit header bytes (no RFC 2047 encoding) are read as mail clients read them: UTF-8 when
valid, else the charset the message declares for its text, else cp1252; the note says so."""
from __future__ import annotations

import pytest

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.ingest import text


def _raw(subject: bytes, charset: str | None, body: str = "Çekiliş İstanbul", enc: str = "cp1254",
         name: bytes | None = None) -> bytes:
    ctype = b"Content-Type: text/plain" + (f"; charset={charset}".encode() if charset else b"")
    head = (b"From: Ay\xfe\xe7e <a@b.c>\nSubject: " + subject + b"\nMessage-ID: <x@y>\n"
            b"Date: Mon, 05 Mar 2001 10:00:00 -0800\nMIME-Version: 1.0\n")
    if name is None:
        return head + ctype + b"\n\n" + body.encode(enc) + b"\n"
    return (head + b"Content-Type: multipart/mixed; boundary=B\n\n--B\n" + ctype + b"\n\n" + body.encode(enc)
            + b"\n--B\nContent-Type: application/pdf; name=\"" + name + b"\"\n\nx\n--B--\n")


def test_subject_read_as_the_body_is():
    m = parse_message(_raw("Çekiliş İstanbul".encode("cp1254"), "windows-1254"), "x")
    assert (m.subject, m.body, m.sender) == ("Çekiliş İstanbul", "Çekiliş İstanbul", "Ayşçe <a@b.c>")
    note = "undeclared 8-bit bytes, not UTF-8; decoded as cp1254, the charset the message declares"
    assert m.notes == (f"From header: {note}", f"Subject header: {note}")


def test_first_declared_text_charset_in_a_multipart():
    m = parse_message(_raw("Çekiliş".encode("cp1254"), "iso-8859-9", name="Çekiliş.pdf".encode("cp1254")), "x")
    assert m.subject == "Çekiliş" and [a.name for a in m.attachments] == ["Çekiliş.pdf"]
    note = "undeclared 8-bit bytes, not UTF-8; decoded as iso8859-9, the charset the message declares"
    assert m.notes == (f"From header: {note}", f"Subject header: {note}",
                       "attachment name 'Çekiliş.pdf' has unencoded 8-bit bytes; decoded as iso8859-9")


def test_utf8_bytes_are_utf8_whatever_the_body_declares():
    m = parse_message(_raw("Grüße".encode("utf-8"), "windows-1254"), "x")
    assert m.subject == "Grüße"
    assert not any(n.startswith("Subject") for n in m.notes)


@pytest.mark.parametrize("charset", [None, "us-ascii", "utf-8"])
def test_no_useful_declaration_is_cp1252(charset):
    m = parse_message(_raw("café".encode("cp1252"), charset, body="plain", enc="ascii"), "x")
    assert m.subject == "café"
    assert "Subject header: undeclared 8-bit bytes, not UTF-8; decoded as cp1252" in m.notes
    assert not any("declared utf-8" in n for n in m.notes)


def test_exact_values():
    assert text.decode_undeclared("Çekiliş".encode("cp1254"), "windows-1254") == \
        ("Çekiliş", "undeclared 8-bit bytes, not UTF-8; decoded as cp1254, the charset the message declares")
    assert text.decode_undeclared("日本".encode("utf-8"), "windows-1254") == ("日本", None)
    assert text.decode_undeclared(b"plain", "windows-1254") == ("plain", None)
    assert text.decode_undeclared(b"x\x81y", None) == ("x\ufffdy", "undeclared 8-bit bytes, not UTF-8; decoded as cp1252; "
                                                            "1 undecodable byte(s) replaced")
    # a fallback that cannot read them (undefined there, or C1 controls): cp1252
    assert text.decode_undeclared(b"\xd2\xe1", "iso-8859-7") == ("Òá", "undeclared 8-bit bytes, not UTF-8; decoded as cp1252")
    assert text.decode_undeclared("€".encode("cp1252"), "iso-8859-7") == ("€", "undeclared 8-bit bytes, not UTF-8; decoded as cp1252")
    # Encoded words keep their declared charset
    assert text.decode_header_value("=?iso-8859-1?q?caf=E9?=", "windows-1254") == ("café", [])
