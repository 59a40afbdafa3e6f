"""Apple Mail .emlx files: a line with the message's length in bytes, the message, then an XML
property list. The message is those bytes."""
from __future__ import annotations

import pytest

from mailfactory import msg

from sasc_desktop.engine.ingest.sources import iter_source
from sasc_desktop.engine.session import Session

PLIST = (b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
         b'"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n<dict>\n'
         b"\t<key>flags</key>\n\t<integer>8590195713</integer>\n</dict>\n</plist>\n")


def emlx(message: bytes, first_line: str = "{n}") -> bytes:
    return first_line.format(n=len(message)).encode() + b"\n" + message + PLIST


@pytest.mark.parametrize("first_line", ["{n}", "{n}       ", "  {n}"])
def test_message_is_the_counted_bytes(tmp_path, first_line):
    m = msg(subject="Apple", body="from Apple Mail", message_id="<apple@x>").replace(b"\n", b"\r\n")
    (tmp_path / "123.emlx").write_bytes(emlx(m, first_line))
    assert [(i.location, i.data) for i in iter_source(tmp_path / "123.emlx")] == [(str(tmp_path / "123.emlx"), m)]


def test_imported(tmp_path):
    box = tmp_path / "INBOX.mbox" / "UUID" / "Data" / "Messages"
    box.mkdir(parents=True)
    (box / "1.emlx").write_bytes(emlx(msg(subject="first", body="alpha words", message_id="<e1@x>")))
    (box / "2.partial.emlx").write_bytes(emlx(msg(subject="second", body="beta words", message_id="<e2@x>")))
    with Session.create(tmp_path / "p") as s:
        report = s.ingest([tmp_path / "INBOX.mbox"], workers=0)
        assert (report.ingested, report.skipped) == (2, [])
        d = s.document("e1@x")
        assert (d["subject"], d["body"]) == ("first", "alpha words")
        assert [h.doc_id for h in s.search("beta").hits] == ["e2@x"]
        assert "plist" not in s.document("e2@x")["body"]
