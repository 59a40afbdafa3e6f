"""Messages without a Message-ID: copies that differ only in what a mailbox adds (Status,
X-Folder, Content-Length, X-Mozilla-Status, X-UID, Lines, CRLF line ends...) are one document,
so a person's judgment on one covers its copies. Projects made under the previous rule (the
id from the raw bytes of the first copy) keep their ids and still take in new copies.
Real mail, real projects (SQLite + Whoosh)."""
from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st
from mailfactory import mbox, msg

from sasc_desktop.engine.ingest.parse import MAILBOX_HEADERS, parse_message
from sasc_desktop.engine.session import Session

BASE = dict(message_id=None, frm="Carol Diaz <carol@arclight.example.com>", to="john@arclight.example.com",
            subject="zanzibar custody hearing", date="Mon, 04 Mar 2019 10:00:00 -0800",
            body="My divorce custody hearing for zanzibar is on Friday, please keep this private.")


def copy(extra: str = "", **changes) -> bytes:
    return msg(**{**BASE, **changes}, extra=extra)


INBOX = copy()
MAILBOX_COPY = copy("Status: RO\nX-Status: A\nX-Folder: Inbox/\n personal\nContent-Length: 81\nLines: 1\n"
                    "X-Mozilla-Status: 0001\nX-Mozilla-Status2: 00000000\nX-UID: 17\nX-Keywords: $Label1")


def test_mailbox_added_headers_do_not_change_the_id():
    a = parse_message(INBOX, "a")
    assert a.synthetic_id and a.message_id.startswith("sasc-") and len(a.message_id) == 29
    # as before for a message without such headers: the raw SHA-256
    assert a.message_id == "sasc-" + hashlib.sha256(INBOX).hexdigest()[:24]
    for variant in (MAILBOX_COPY, MAILBOX_COPY.replace(b"\n", b"\r\n"), INBOX.replace(b"\n", b"\r\n"),
                    b"From carol@x Mon Mar  4 10:00:00 2019\n" + INBOX, copy("STATUS: O\nx-folder: Sent")):
        assert parse_message(variant, "b").message_id == a.message_id
    # what the sender wrote is the message: any change to it is another one
    for other in (copy(body=BASE["body"] + "!"), copy(subject="zanzibar custody hearing 2"),
                  copy(date="Mon, 04 Mar 2019 10:00:01 -0800"), copy("X-Priority: 1"), copy(to="jane@x")):
        assert parse_message(other, "c").message_id != a.message_id
    # a message with a Message-ID keeps it
    assert parse_message(copy(message_id="<m@x>", extra="Status: RO"), "d").message_id == "m@x"


header_names = st.sampled_from(sorted(h.decode() for h in MAILBOX_HEADERS))
header_values = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=20)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(header_names, header_values, st.booleans()), max_size=6), st.booleans())
def test_any_mailbox_headers_keep_the_id(headers, crlf):
    extra = "\n".join(f"{name.title() if upper else name}: {value}" for name, value, upper in headers)
    raw = copy(extra)
    if crlf:
        raw = raw.replace(b"\n", b"\r\n")
    assert parse_message(raw, "x").message_id == parse_message(INBOX, "y").message_id


def test_copies_in_two_mailboxes_are_one_document(tmp_path):
    a, b = tmp_path / "syn_a.mbox", tmp_path / "syn_b.mbox"
    a.write_bytes(mbox([INBOX]))
    b.write_bytes(mbox([MAILBOX_COPY]))
    with Session.create(tmp_path / "p") as s:
        r1 = s.ingest([a], workers=0)
        r2 = s.ingest([b], workers=0)
        assert (r1.ingested, r2.ingested, r2.duplicates) == (1, 0, 1)
        (doc_id,) = [h.doc_id for h in s.search("zanzibar").hits]
        assert doc_id == parse_message(INBOX, "a").message_id
        assert s.stats()["messages"] == 1 and s.stats()["copies"] == 2


def _as_before(s: Session) -> list[str]:
    """Rewrite the stored documents without a Message-ID as the previous rule made them: the
    id 'sasc-' + the first 24 hex digits of the raw SHA-256 of the copy stored, as Message-ID,
    doc_id and thread; then rebuild the index from the store."""
    with s.store.transaction() as con:
        for row_id, sha in con.execute("SELECT id, raw_sha256 FROM messages WHERE synthetic_id = 1").fetchall():
            old = f"sasc-{sha[:24]}"
            con.execute("UPDATE messages SET message_id = ?, doc_id = ?, thread_id = ? WHERE id = ?",
                        (old, old, old, row_id))
    s.reindex()
    return [r[0] for r in s.store.con.execute("SELECT doc_id FROM messages ORDER BY id")]


def test_a_project_made_under_the_previous_rule_keeps_its_ids_and_takes_in_copies(tmp_path):
    first = tmp_path / "inbox.mbox"
    other = copy(subject="zanzibar custody hearing", body="A different note with the same subject and date.")
    first.write_bytes(mbox([MAILBOX_COPY, other]))
    sha = hashlib.sha256(MAILBOX_COPY).hexdigest()
    with Session.create(tmp_path / "p") as s:
        s.ingest([first], workers=0)
        old_ids = _as_before(s)
        assert old_ids[0] == f"sasc-{sha[:24]}" != parse_message(MAILBOX_COPY, "a").message_id
    with Session.open(tmp_path / "p") as s:
        # the same mailbox again adds nothing
        r = s.ingest([first], workers=0)
        assert (r.ingested, r.duplicates) == (0, 2)
        # other copies (without, or with other, mailbox headers) are copies of the stored
        # document, found from its stored bytes, not new documents
        second = tmp_path / "archive.mbox"
        second.write_bytes(mbox([INBOX, copy("X-UID: 99\nStatus: O").replace(b"\n", b"\r\n")]))
        r = s.ingest([second], workers=0)
        assert (r.ingested, r.duplicates, r.skipped) == (0, 2, [])
        assert [r[0] for r in s.store.con.execute("SELECT doc_id FROM messages ORDER BY id")] == old_ids
        assert s.store.con.execute("SELECT COUNT(*) FROM copies WHERE message = 1").fetchone()[0] == 3
        assert sorted(h.doc_id for h in s.search("zanzibar").hits) == sorted(old_ids)
        # a new message without a Message-ID gets the new id
        third = tmp_path / "new.mbox"
        third.write_bytes(mbox([copy(subject="budget", body="the budget")]))
        r = s.ingest([third], workers=0)
        assert r.ingested == 1
        new = s.store.con.execute("SELECT doc_id FROM messages WHERE subject = 'budget'").fetchone()[0]
        assert new == parse_message(copy(subject="budget", body="the budget"), "x").message_id


def test_sent_copy_replaces_the_kept_copy_and_later_copies_still_join(tmp_path):
    """The sender's copy (Sent folder) replaces a stored recipient's copy of a message without a
    Message-ID, as for one with it; copies arriving after that are still copies."""
    sent = tmp_path / "Sent.mbox"
    sent.write_bytes(mbox([copy("X-Mozilla-Status: 0009")]))
    inbox, later = tmp_path / "inbox.mbox", tmp_path / "later.mbox"
    inbox.write_bytes(mbox([copy("Status: RO")]))
    later.write_bytes(mbox([INBOX]))
    with Session.create(tmp_path / "p") as s:
        s.ingest([inbox], workers=0)
        _as_before(s)
        r = s.ingest([sent], workers=0)
        assert (r.ingested, r.duplicates) == (0, 1)
        assert s.store.con.execute("SELECT folder FROM messages").fetchall()[0][0] == "Sent"
        r = s.ingest([later], workers=0)
        assert (r.ingested, r.duplicates) == (0, 1) and s.stats()["messages"] == 1


def test_a_judgment_on_one_copy_covers_the_other(tmp_path):
    """The reviewer's case: a person judges the message sensitive; its copy from another
    mailbox (Status: RO, X-Folder) arrives later. Every search hit is judged sensitive."""
    from sasc_desktop.engine.project import judgments as J
    from sasc_desktop.engine.protect.search import judged_sensitive, judged_sensitive_among
    a, b = tmp_path / "syn_a.mbox", tmp_path / "syn_b.mbox"
    a.write_bytes(mbox([INBOX]))
    b.write_bytes(mbox([copy("Status: RO\nX-Folder: Inbox/personal")]))
    with Session.create(tmp_path / "p") as s:
        s.ingest([a], workers=0)
        (judged,) = [h.doc_id for h in s.search("zanzibar").hits]
        J.save_personas(s.store, [{"id": "john-snibert"}])
        J.save_sensitivity(s.store, [("john-snibert", "", judged, 2)])
        s.ingest([b], workers=0)
        hits = [h.doc_id for h in s.search("zanzibar").hits]
        assert hits == [judged]
        assert judged_sensitive_among(s, "john-snibert", hits) == set(hits)
        assert set(hits) <= judged_sensitive(s, "john-snibert")
