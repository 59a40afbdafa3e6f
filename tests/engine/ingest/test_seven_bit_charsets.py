"""Charsets written in 7-bit bytes (ISO-2022-JP/KR, UTF-7, HZ) are decoded as declared: every
byte of such text is ASCII, and read as ASCII it is escape codes ('\\x1b$B7oL>\\x1b(B')."""
from __future__ import annotations

import base64

import pytest

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.ingest.text import decode_bytes
from sasc_desktop.engine.session import Session

from mailfactory import mbox


def _japanese() -> bytes:
    subject = base64.b64encode("件名".encode("iso-2022-jp"))
    return (b"From: a@b.c\nSubject: =?ISO-2022-JP?B?" + subject + b"?=\nMessage-ID: <x@y>\n"
            b"Content-Type: text/plain; charset=ISO-2022-JP\n\n" + "日本語の本文".encode("iso-2022-jp") + b"\n")


def test_iso_2022_jp_subject_and_body():
    m = parse_message(_japanese(), "x")
    assert (m.subject, m.body) == ("件名", "日本語の本文")
    assert m.notes == ("no Date header",)


@pytest.mark.parametrize("charset,text", [
    ("utf-7", "Grüße"), ("UTF-7", "Grüße"), ('"utf-7"', "Grüße"),
    ("iso-2022-kr", "안녕하세요"), ("hz-gb-2312", "己所不欲，勿施於人。"), ("iso-2022-jp", "日本語"),
])
def test_seven_bit_body(charset, text):
    data = text.encode(charset.strip('"'))
    assert data.isascii()
    raw = f"From: a@b.c\nSubject: s\nMessage-ID: <x@y>\nContent-Type: text/plain; charset={charset}\n\n".encode() + data + b"\n"
    m = parse_message(raw, "x")
    assert m.body == text
    assert m.notes == ("no Date header",)


def test_utf7_literal():
    assert decode_bytes(b"Gr+APwA3w-e", "utf-7") == ("Grüße", None)


def test_plain_ascii_declared_seven_bit_but_not_valid_is_ascii_with_a_note():
    assert decode_bytes(b"C++ is great", "utf-7") == ("C++ is great", "declared utf-7 but not valid; decoded as ascii")
    assert decode_bytes(b"100~200", "HZ-GB-2312") == ("100~200", "declared hz-gb-2312 but not valid; decoded as ascii")


@pytest.mark.parametrize("charset", [None, "us-ascii", "utf-8", "iso-8859-1", "windows-1252", "x-unknown", "utf-16"])
def test_ascii_declared_otherwise_stays_ascii(charset):
    assert decode_bytes(b"plain ~{text}~ +AGE-", charset) == ("plain ~{text}~ +AGE-", None)


def test_searchable_after_import(tmp_path):
    src = tmp_path / "jp.mbox"
    src.write_bytes(mbox([_japanese()]))
    with Session.create(tmp_path / "p") as s:
        assert s.ingest([src], workers=0).ingested == 1
        doc = s.document("x@y")
        assert (doc["subject"], doc["body"]) == ("件名", "日本語の本文")
