"""A single message file (not an mbox) starting with a UTF-8 byte order mark (Windows tools write
one to a saved .eml) or with blank lines is read: what precedes its headers is dropped, as it is
before an mbox's first From line. It was skipped as 'no email headers: the first line is not a
'Name: value' header' (the BOM) or 'no email headers found' (blank lines: the parser took the
first empty line as the end of an empty header). The copy's SHA-256, size and stored bytes are
those of the message without them, so a second import of the same file adds nothing."""
from __future__ import annotations

import hashlib

import pytest
from mailfactory import msg

from sasc_desktop.engine.ingest.parse import MalformedMessage, message_bytes, parse_message, raw_digest
from sasc_desktop.engine.session import Session

BOM = b"\xef\xbb\xbf"
MAIL = msg(subject="Quarterly figures", message_id="<q1@x>")
CRLF = MAIL.replace(b"\n", b"\r\n")

LEADS = {"bom": BOM + MAIL, "bom-crlf": BOM + CRLF, "blank": b"\n\n" + MAIL, "blank-crlf": b"\r\n" + CRLF,
         "blank-spaces": b"  \n\t\n" + MAIL, "bom-blank": BOM + b"\n" + MAIL,
         "from-line-blank": b"From - Mon Mar  5 10:00:00 2001\n\n" + MAIL}


@pytest.mark.parametrize("name", sorted(LEADS))
def test_read_with_its_subject(name):
    raw = LEADS[name]
    clean = CRLF if "crlf" in name else MAIL
    assert message_bytes(raw) == clean
    m = parse_message(raw, name)
    assert (m.subject, m.message_id, m.from_addr) == ("Quarterly figures", "q1@x", "alice@example.org")
    assert m.raw_sha256 == raw_digest(raw) == hashlib.sha256(clean).hexdigest()
    assert m.raw_size == len(clean)


def test_nothing_but_what_precedes_headers_is_empty():
    for raw in (BOM, b"\n\r\n", BOM + b"\n\n"):
        with pytest.raises(MalformedMessage, match="empty message"):
            parse_message(raw, "x")
    with pytest.raises(MalformedMessage, match="the first line is not a 'Name: value' header"):
        parse_message(BOM + b"\n\njust some text\n", "x")


def test_imported_once(tmp_path):
    folder = tmp_path / "saved"
    folder.mkdir()
    (folder / "bom.eml").write_bytes(BOM + msg(subject="Bom subject", message_id="<bom@x>"))
    (folder / "blank.eml").write_bytes(b"\r\n\r\n" + msg(subject="Blank subject", message_id="<blank@x>").replace(b"\n", b"\r\n"))
    with Session.create(tmp_path / "p") as s:
        report = s.ingest([folder], workers=0)
        assert (report.ingested, report.skipped) == (2, [])
        assert sorted((h.doc_id, s.document(h.doc_id)["subject"]) for h in s.search("subject", limit=10).hits) == \
            [("blank@x", "Blank subject"), ("bom@x", "Bom subject")]
        assert s.raw_message("bom@x").startswith(b"From: Alice")      # stored without the BOM
        assert s.raw_message("blank@x").startswith(b"From: Alice")    # and without the blank lines
        again = s.ingest([folder], workers=0)
        assert (again.ingested, again.duplicates, again.skipped) == (0, 2, [])
        assert s.store.con.execute("SELECT COUNT(*) FROM copies").fetchone()[0] == 2
