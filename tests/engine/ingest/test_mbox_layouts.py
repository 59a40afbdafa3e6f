"""mbox files as they come: messages not separated by a blank line (split at a strict From_
line, never at a body line 'From here on...'), and a file beginning with a UTF-8 byte order
mark or blank lines."""
from __future__ import annotations

import mailbox

import pytest

from mailfactory import msg

from sasc_desktop.engine.ingest.sources import count_messages, iter_source, source_kind
from sasc_desktop.engine.session import Session

FROM_LINES = [b"From alice@example.org Mon Mar  5 10:00:00 2001", b"From - Tue Mar 06 09:15 2001",
              b"From 1234567890@xxx Wed Mar 07 10:00:00 +0000 2001", b"From bob@example.org Thu Mar  8 23:59:59 PST 2001"]


def _message(n: int, body: str = "") -> bytes:
    return msg(subject=f"m{n}", body=body or f"body {n}", message_id=f"<m{n}@x>")


def _no_blank_lines(crlf: bool = False) -> bytes:
    """Four messages, each right after the last line of the one before."""
    data = b"".join(line + b"\n" + _message(n) for n, line in enumerate(FROM_LINES))
    return data.replace(b"\n", b"\r\n") if crlf else data


@pytest.mark.parametrize("crlf", [False, True])
def test_split_without_blank_lines(tmp_path, crlf):
    src = tmp_path / "nob.mbox"
    src.write_bytes(_no_blank_lines(crlf))
    assert len(mailbox.mbox(src)) == 4  # the stdlib's reader: the oracle
    items = list(iter_source(src))
    assert count_messages(src) == 4
    assert [i.location for i in items] == [f"{src}#{n}" for n in range(1, 5)]
    eol = b"\r\n" if crlf else b"\n"
    assert [i.data for i in items] == [_message(n).replace(b"\n", eol) for n in range(4)]


def test_body_line_from_here_on_does_not_split(tmp_path):
    body = "Read this.\nFrom here on, the plan changes.\nFrom Monday we meet daily at 10:00 in 2001\nbye"
    src = tmp_path / "one.mbox"
    src.write_bytes(FROM_LINES[0] + b"\n" + _message(1, body) + FROM_LINES[1] + b"\n" + _message(2))
    items = list(iter_source(src))
    assert [i.data for i in items] == [_message(1, body), _message(2)]
    with Session.create(tmp_path / "p") as s:
        report = s.ingest([src], workers=0)
        assert (report.ingested, report.skipped) == (2, [])
        assert s.document("m1@x")["body"] == body


@pytest.mark.parametrize("lead", [b"\xef\xbb\xbf", b"\n", b"\n\n", b"\r\n\r\n", b"\xef\xbb\xbf\r\n\n"])
def test_leading_bom_and_blank_lines(tmp_path, lead):
    src = tmp_path / "lead.mbox"
    src.write_bytes(lead + FROM_LINES[0] + b"\n" + _message(0) + b"\n" + FROM_LINES[1] + b"\n" + _message(1))
    assert source_kind(src) == "mbox" and count_messages(src) == 2
    assert [(i.location, i.folder, i.data) for i in iter_source(src)] == \
        [(f"{src}#1", "lead", _message(0)), (f"{src}#2", "lead", _message(1))]
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "lead.mbox").write_bytes(src.read_bytes())
    with Session.create(tmp_path / "p") as s:
        report = s.ingest([folder], workers=0)
        assert (report.ingested, report.skipped) == (2, [])
        assert [h.doc_id for h in s.search("folder:f/lead", sort="subject").hits] == ["m0@x", "m1@x"]
