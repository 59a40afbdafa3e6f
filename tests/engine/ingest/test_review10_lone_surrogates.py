"""Lone surrogates: Python's UTF-7 decoder makes one of half a UTF-16 pair (b'+2D0-' ->
'\\ud83d'), which SQLite cannot store. A subject, a body or an RFC 2231 file name in UTF-7 used
to stop the import at the INSERT, losing the batch. Now each is U+FFFD with a note; and a
message that cannot be stored all the same is skipped with the reason, the others kept."""
from __future__ import annotations

import json

from mailfactory import mbox, msg

from sasc_desktop.engine.ingest import parse as parse_module
from sasc_desktop.engine.ingest import text as text_module
from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.ingest.text import decode_bytes, decode_header_value
from sasc_desktop.engine.session import Session

NOTE = "1 lone surrogate(s) (half a UTF-16 pair, no character) replaced by U+FFFD"
SUBJECT = msg("=?utf-7?Q?+2D0-?=", "subject in utf-7", message_id="<s7@x>")
BODY = msg("utf-7 body", "hi +2D0- there", message_id="<b7@x>",
           ctype="Content-Type: text/plain; charset=utf-7")
NAME = (b"From: a@x.org\nSubject: utf-7 name\nMessage-ID: <n7@x>\nMIME-Version: 1.0\n"
        b"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nsee the file\n"
        b"--b\nContent-Type: application/pdf\nContent-Disposition: attachment; filename*=utf-7''%2B2D0-.pdf\n\n"
        b"xx\n--b--\n")


def test_decoders_replace_lone_surrogates():
    assert decode_bytes(b"hi +2D0- there", "utf-7") == ("hi \ufffd there", NOTE)
    assert decode_bytes(b"+2D3eAA-", "utf-7") == ("\U0001f600", None)      # a whole pair is a character
    assert decode_bytes(b"a \\ud83d \xe9", "unicode-escape") == ("a \ufffd \xe9", NOTE)
    assert decode_header_value("=?utf-7?Q?+2D0-?= x") == ("\ufffd x", [f"header: {NOTE}"])


def test_parsed_subject_body_and_file_name():
    m = parse_message(SUBJECT, "x")
    assert m.subject == "\ufffd" and f"Subject header: {NOTE}" in m.notes
    m = parse_message(BODY, "x")
    assert m.body == "hi \ufffd there" and f"body: {NOTE}" in m.notes
    m = parse_message(NAME, "x")
    assert [(a.name, a.original_name) for a in m.attachments] == [("\ufffd.pdf", "\ufffd.pdf")]
    assert f"attachment name: {NOTE}" in m.notes


def test_an_address_header_with_an_encoded_word_and_raw_8bit_bytes():
    # The raw value (its 8-bit byte a surrogate escape in compat32) is read as the decoded one is:
    # an address with a surrogate in it could not be stored either.
    m = parse_message(b"From: =?utf-8?Q?ceo=40bank.com?= <b\xe9@evil.org>\nSubject: x\nMessage-ID: <a8@x>\n\nbody\n", "x")
    assert m.from_addr == "b\xe9@evil.org"
    assert m.sender == "=?utf-8?Q?ceo=40bank.com?= <b\xe9@evil.org>"   # (not read as ceo@bank.com)


def test_a_mailbox_with_them_imports_every_message(tmp_path):
    src = tmp_path / "m.mbox"
    src.write_bytes(mbox([msg("before", "fine", message_id="<a@x>"), SUBJECT, BODY, NAME,
                          msg("after", "fine", message_id="<z@x>")]))
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([src], workers=0)
        assert (r.ingested, r.duplicates, r.skipped) == (5, 0, [])
        assert s.document("s7@x")["subject"] == "\ufffd"
        assert s.document("b7@x")["body"] == "hi \ufffd there"
        assert [a["name"] for a in s.document("n7@x")["attachments"]] == ["\ufffd.pdf"]
        assert sorted(h.doc_id for h in s.search("fine").hits) == ["a@x", "z@x"]
        report = json.loads(s.store.con.execute("SELECT report FROM sources").fetchone()[0])
        assert (report["ingested"], report["skipped"]) == (5, [])


def test_a_message_that_cannot_be_stored_is_skipped_and_the_batch_kept(tmp_path, monkeypatch):
    # A decoder that leaves lone surrogates in (as before the fix; a codec not yet known to make
    # them): the store refuses the text, the message is skipped with the reason, the rest stored.
    monkeypatch.setattr(text_module, "without_surrogates", lambda t: (t, 0), raising=False)
    monkeypatch.setattr(parse_module, "without_surrogates", lambda t: (t, 0), raising=False)
    src = tmp_path / "m.mbox"
    src.write_bytes(mbox([msg("before", "fine", message_id="<a@x>"), BODY, BODY.replace(b"<b7@x>", b"<b8@x>"),
                          msg("after", "fine", message_id="<z@x>")]))
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([src], workers=0)
        reason = "could not be stored (UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud83d' " \
                 "in position 3: surrogates not allowed)"
        assert (r.ingested, r.duplicates) == (2, 0)
        assert [(x.source, x.reason) for x in r.skipped] == [(f"{src}#2", reason), (f"{src}#3", reason)]
        assert [x[0] for x in s.store.con.execute("SELECT doc_id FROM messages ORDER BY id")] == ["a@x", "z@x"]
        assert s.store.con.execute("SELECT COUNT(*) FROM copies").fetchone()[0] == 2
        assert s.store.con.execute("SELECT COUNT(*) FROM raw").fetchone()[0] == 2
        assert sorted(h.doc_id for h in s.search("fine").hits) == ["a@x", "z@x"]
        report = json.loads(s.store.con.execute("SELECT report FROM sources").fetchone()[0])
        assert (report["status"], report["ingested"], len(report["skipped"])) == ("done", 2, 2)
        monkeypatch.undo()   # fixed: the skipped ones are imported now, nothing else
        again = s.ingest([src], workers=0)
        assert (again.ingested, again.duplicates, again.skipped) == (2, 2, [])
        assert s.document("b8@x")["body"] == "hi \ufffd there"
