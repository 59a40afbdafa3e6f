"""Python's codecs.lookup knows codecs that are no charset: bytes-to-bytes ones (hex, base64,
rot13, zlib, uu: bytes.decode refuses them with a LookupError) and 'undefined' (a UnicodeError
for every byte). A message declaring one (charset=undefined, =?hex?...?=) used to be skipped
as 'could not be parsed (LookupError ...)'. Now they are unknown charsets, read as such."""
from __future__ import annotations

import pytest
from mailfactory import mbox, msg

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.ingest.text import decode_bytes, decode_header_value, read_undeclared
from sasc_desktop.engine.session import Session

NOT_CHARSETS = ["hex", "base64", "rot13", "zlib", "uu", "bz2", "quopri", "undefined"]


@pytest.mark.parametrize("name", NOT_CHARSETS)
def test_not_a_charset(name):
    assert decode_bytes(b"caf\xe9", name) == ("caf\xe9", f"unknown charset {name!r}; decoded as cp1252")
    assert decode_bytes(b"na\xc3\xafve", name) == ("na\xefve", f"unknown charset {name!r}; decoded as utf-8")
    assert decode_bytes(b"plain", name) == ("plain", None)
    assert decode_header_value(f"=?{name}?Q?caf=E9?=") == ("caf\xe9", [f"header: unknown charset {name!r}; decoded as cp1252"])
    assert read_undeclared(b"caf\xe9", name) == ("caf\xe9", "cp1252")


def test_messages_declaring_them():
    m = parse_message(msg("=?hex?Q?6869=E9?=", "body", message_id="<h@x>"), "x")
    assert m.subject == "6869\xe9" and "Subject header: unknown charset 'hex'; decoded as cp1252" in m.notes
    m = parse_message(msg("s", "hi caf\udce9", ctype="Content-Type: text/plain; charset=undefined"), "x")
    assert m.body == "hi caf\xe9" and "body: unknown charset 'undefined'; decoded as cp1252" in m.notes
    m = parse_message(msg("caf\udce9", "hi", ctype='Content-Type: text/plain; charset="rot13"'), "x")
    assert m.subject == "caf\xe9"
    raw = (b"From: a@x.org\nSubject: s\nMessage-ID: <s@x>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n"
           b"--b\nContent-Type: text/plain\n\nhi\n--b\nContent-Type: application/pdf\n"
           b"Content-Disposition: attachment; filename*=undefined''r%E9sum%E9.pdf\n\nxx\n--b--\n")
    m = parse_message(raw, "x")
    assert [(a.name, a.original_name) for a in m.attachments] == [("r\xe9sum\xe9.pdf", "r\xe9sum\xe9.pdf")]
    assert "attachment name: unknown charset 'undefined'; decoded as cp1252" in m.notes


def test_imported_not_skipped(tmp_path):
    src = tmp_path / "m.mbox"
    src.write_bytes(mbox([msg("s", "undefined caf\udce9", message_id="<u@x>",
                              ctype="Content-Type: text/plain; charset=undefined"),
                          msg("s", "zlib caf\udce9", message_id="<z@x>", ctype="Content-Type: text/plain; charset=zlib"),
                          msg("=?hex?Q?hex=E9?=", "body", message_id="<h@x>")]))
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([src], workers=0)
        assert (r.ingested, r.skipped) == (3, [])
        assert [s.document(d)["body"] for d in ("u@x", "z@x")] == ["undefined caf\xe9", "zlib caf\xe9"]
        assert s.document("h@x")["subject"] == "hex\xe9"
