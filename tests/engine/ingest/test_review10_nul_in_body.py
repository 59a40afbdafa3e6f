"""A NUL byte in a short body used to skip the message as 'binary data ... (NUL bytes in the
header area)': any NUL in the first 4096 bytes counted. Only one in the headers (before the
first blank line) does now; a file that is not mail (its first line no header) with NULs near
its start is still called binary data."""
from __future__ import annotations

import pytest

from sasc_desktop.engine.ingest.parse import MalformedMessage, parse_message
from sasc_desktop.engine.session import Session

BINARY = "binary data, not an email message (NUL bytes in the header area)"
NO_HEADERS = "no email headers: the first line is not a 'Name: value' header"


@pytest.mark.parametrize("raw", [
    b"From: a@x.org\nSubject: nul\nMessage-ID: <n@x>\n\nhello\x00world\n",
    b"From: a@x.org\r\nSubject: nul\r\nMessage-ID: <n@x>\r\n\r\nhello\x00world\r\n",
])
def test_a_nul_in_the_body_is_kept(raw):
    m = parse_message(raw, "x")
    assert (m.subject, m.body) == ("nul", "hello\x00world")


@pytest.mark.parametrize("raw, reason", [
    (b"From: a@x.org\nSubject: n\x00l\nMessage-ID: <n@x>\n\nhello\n", BINARY),   # in a header
    (b"From: a@x.org\nSubject: nul\n" + b"X-Pad: " + b"p" * 5000 + b"\x00\n\nbody\n", None),  # past 4096: as before
    (b"From: a@x.org\nSubject: nul\x00", BINARY),                                   # headers only
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", BINARY),                         # not mail, NULs
    (b"PK\x03\x04\n\n\x00\x00\x08\x00", BINARY),                                     # NUL after a blank line
    (b"just text\n\nand\x00more\n", BINARY),
    (b"just text\n\nand more\n", NO_HEADERS),
])
def test_what_is_still_refused(raw, reason):
    if reason is None:
        assert parse_message(raw, "x").subject == "nul"
        return
    with pytest.raises(MalformedMessage) as info:
        parse_message(raw, "x")
    assert str(info.value) == reason


def test_imported_and_found(tmp_path):
    src = tmp_path / "mail"
    src.mkdir()
    (src / "1.eml").write_bytes(b"From: a@x.org\nSubject: nul\nMessage-ID: <n@x>\n\nhello\x00world\n")
    (src / "2.eml").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([src], workers=0)
        assert r.ingested == 1 and [(x.source, x.reason) for x in r.skipped] == [(str(src / "2.eml"), BINARY)]
        assert s.document("n@x")["body"] == "hello\x00world"
        assert [h.doc_id for h in s.search("world").hits] == ["n@x"]
