"""Messages without a Message-ID: the sender's Sent copy and a recipient's Inbox copy differ by
what the mail system adds on the way (Received, Return-Path, Delivered-To, DKIM-Signature,
spam filters' verdicts...) and by the Bcc the sender's server takes out. They are one message:
one document (the sender's copy kept, whichever is imported first), one id, so a person's
judgment on one covers the other and protected search never shows it. Projects made under the
previous rules keep their ids and still take in copies. Real mail bytes, real projects (SQLite
+ Whoosh), a real protected search; the real spamassassin corpus where present."""
from __future__ import annotations

import collections
import hashlib
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mailfactory import mbox, msg

from sasc_desktop.engine.ingest.parse import (MAILBOX_HEADERS, TRANSIT_HEADERS, TRANSIT_PREFIXES,
                                              content_digest, ignored_header, parse_message,
                                              synthetic_message_id)
from sasc_desktop.engine.protect.search import judged_sensitive_among
from sasc_desktop.engine.session import Session

# ------------------------------------------------------------------ the reviewer's mail, byte for byte
BODY = (b"From: Carol Diaz <carol@arclight.example.com>\nTo: John Snibert <john@arclight.example.com>\n"
        b"Subject: custody hearing\nDate: Mon, 04 Mar 2019 10:00:00 -0800\n\n"
        b"My divorce custody hearing is on Friday, please keep this private.\n")
TRANSIT = (b"Return-Path: <carol@arclight.example.com>\nDelivered-To: john@arclight.example.com\n"
           b"Received: from mx.arclight.example.com by mail.arclight.example.com; Mon, 04 Mar 2019 10:00:02 -0800\n")
SENT, INBOX = BODY, TRANSIT + BODY


def other(i: int) -> bytes:
    return (f"From: ann@arclight.example.com\nTo: bob@arclight.example.com\nSubject: hearing schedule {i}\n"
            f"Date: Mon, 04 Mar 2019 1{i}:00:00 -0800\nMessage-ID: <m{i}@arclight.example.com>\n\n"
            f"The hearing room schedule, item {i}.\n").encode()


def reviewer_mail(tmp_path):
    sent, inbox = tmp_path / "mail" / "Sent", tmp_path / "mail" / "Inbox"
    sent.mkdir(parents=True)
    inbox.mkdir()
    (sent / "1.eml").write_bytes(SENT)
    (inbox / "1.eml").write_bytes(INBOX)
    for i in range(2, 8):
        (inbox / f"{i}.eml").write_bytes(other(i))
    return sent, inbox


def judge(s: Session, tmp_path, sent_doc: str) -> None:
    """The reviewer's judgments, imported from files as ``sasc judgments import`` does."""
    personas, sens = tmp_path / "personas.json", tmp_path / "sens.txt"
    personas.write_text(json.dumps([{"id": "john", "name": "John"}]))
    sens.write_text(f"john {sent_doc} 2\n" + "".join(f"john m{i}@arclight.example.com 0\n" for i in (2, 3, 4))
                    + "john m5@arclight.example.com 1\n")
    s.import_judgments(personas=personas, sensitivity=sens)


@pytest.mark.parametrize("order", ["sent first", "inbox first", "inbox, then sent in another import"])
def test_reviewer_repro_one_document_and_never_shown(tmp_path, order):
    sent, inbox = reviewer_mail(tmp_path)
    want_id = "sasc-" + hashlib.sha256(SENT).hexdigest()[:24]     # the Sent copy's id, as before
    with Session.create(tmp_path / "proj") as s:
        if order == "sent first":
            r = s.ingest([sent, inbox], workers=0)
            assert (r.ingested, r.duplicates, r.skipped) == (7, 1, [])
        elif order == "inbox first":
            r = s.ingest([inbox, sent], workers=0)
            assert (r.ingested, r.duplicates, r.skipped) == (7, 1, [])
        else:
            r1, r2 = s.ingest([inbox], workers=0), s.ingest([sent], workers=0)
            assert (r1.ingested, r1.duplicates, r2.ingested, r2.duplicates) == (7, 0, 0, 1)
        assert (s.stats()["messages"], s.stats()["copies"]) == (7, 8)
        row = s.store.con.execute("SELECT id, doc_id, message_id, folder, location, raw_sha256 FROM messages "
                                  "WHERE subject = 'custody hearing'").fetchall()
        assert len(row) == 1
        row = row[0]
        # the sender's copy is the one kept, whatever the order
        assert (row["doc_id"], row["message_id"], row["folder"]) == (want_id, want_id, "Sent")
        assert row["location"] == str(sent / "1.eml") and row["raw_sha256"] == hashlib.sha256(SENT).hexdigest()
        copies = s.store.con.execute("SELECT location, kept FROM copies WHERE message = ? ORDER BY location",
                                     (row["id"],)).fetchall()
        assert [tuple(c) for c in copies] == [(str(inbox / "1.eml"), 0), (str(sent / "1.eml"), 1)]
        assert [h.doc_id for h in s.search("custody").hits] == [want_id]
        assert [h.doc_id for h in s.search("custody folder:Sent").hits] == [want_id]
        judge(s, tmp_path, want_id)
        result = s.protected_search("custody", "john", "joint", show_withheld=True)
        assert result["hits"] == [] and result["held_back"] == []
        assert (result["candidates"], result["withheld_judged_sensitive"]) == (1, 1)


# ------------------------------------------------------------------ the id: which headers count
BASE = dict(message_id=None, frm="Carol Diaz <carol@arclight.example.com>", to="john@arclight.example.com",
            subject="zanzibar custody hearing", date="Mon, 04 Mar 2019 10:00:00 -0800", cc="",
            body="My divorce custody hearing for zanzibar is on Friday, please keep this private.")


def copy(extra: str = "", top: str = "", **changes) -> bytes:
    """The message as written (``extra`` headers after its own, ``top`` ones before, where a
    server puts its trace headers)."""
    fields = {**BASE, **changes}
    cc = fields.pop("cc")
    extra = "\n".join(x for x in (f"Cc: {cc}" if cc else "", extra) if x)
    return top.encode() + msg(**fields, extra=extra)


SENT_COPY = copy("Bcc: Dana Ruiz <dana@arclight.example.com>\nX-Account-Key: account2\n"
                 "X-Identity-Key: id1\nX-Mozilla-Draft-Info: internal/draft; vcard=0")
TRANSIT_TOP = (
    "Return-Path: <carol@arclight.example.com>\n"
    "Delivered-To: john@arclight.example.com\n"
    "X-Original-To: john@arclight.example.com\n"
    "Envelope-To: john@arclight.example.com\n"
    "Delivery-date: Mon, 04 Mar 2019 10:00:03 -0800\n"
    "Received: from mx.arclight.example.com (mx.arclight.example.com [192.0.2.7])\n"
    "\tby mail.arclight.example.com (Postfix) with ESMTPS id 4F1C2\n"
    "\tfor <john@arclight.example.com>; Mon, 04 Mar 2019 10:00:02 -0800 (PST)\n"
    "Received: from [198.51.100.4] by smtp.arclight.example.com; Mon, 04 Mar 2019 10:00:01 -0800\n"
    "X-Received: by 2002:a17:90a:1 with SMTP id q1; Mon, 04 Mar 2019 10:00:02 -0800\n"
    "Received-SPF: pass (arclight.example.com: domain of carol@arclight.example.com designates 192.0.2.7)\n"
    "Authentication-Results: mail.arclight.example.com;\n dkim=pass header.d=arclight.example.com;\n spf=pass\n"
    "ARC-Seal: i=1; a=rsa-sha256; t=1551722402; cv=none; d=arclight.example.com; b=AbC\n"
    "ARC-Message-Signature: i=1; a=rsa-sha256; c=relaxed/relaxed; d=arclight.example.com;\n\tbh=XyZ=; b=DeF\n"
    "ARC-Authentication-Results: i=1; mail.arclight.example.com; dkim=pass\n"
    "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=arclight.example.com; s=s1;\n"
    "\th=from:to:subject:date; bh=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=;\n\tb=QmFzZTY0c2lnbmF0dXJl\n"
    "X-Spam-Status: No, score=-1.0 required=5.0 tests=ALL_TRUSTED\n"
    "X-Spam-Checker-Version: SpamAssassin 3.4.2\n"
    "X-Spam-Flag: NO\n"
    "X-Virus-Scanned: amavisd-new at arclight.example.com\n"
    "X-Originating-IP: [198.51.100.4]\n"
    "X-Authentication-Warning: smtp.arclight.example.com: carol set sender to carol@arclight.example.com\n"
    "X-MS-Exchange-Organization-AuthAs: Internal\n"
    "X-Microsoft-Antispam-Message-Info: abc\n")
INBOX_COPY = copy("Status: RO\nX-UID: 17", top=TRANSIT_TOP)


def test_transit_headers_and_bcc_do_not_change_the_id():
    sent = parse_message(SENT_COPY, "sent")
    assert sent.synthetic_id and sent.message_id.startswith("sasc-") and len(sent.message_id) == 29
    assert sent.bcc == "Dana Ruiz <dana@arclight.example.com>"
    for variant in (INBOX_COPY, INBOX_COPY.replace(b"\n", b"\r\n"), copy(), copy(top=TRANSIT_TOP),
                    b"From MAILER-DAEMON Mon Mar  4 10:00:03 2019\n" + INBOX_COPY,
                    copy("received: from x by y; Mon, 04 Mar 2019 10:00:02 -0800\nDKIM-SIGNATURE: v=1; b=z"),
                    copy("X-Spam-Score: 2.1\nX-Spam: yes\nX-Virus-Status: Clean\nX-Amavis-Alert: none")):
        assert parse_message(variant, "inbox").message_id == sent.message_id
    # a message without any of these headers keeps the id it always had: its raw SHA-256
    plain = copy()
    assert parse_message(plain, "x").message_id == "sasc-" + hashlib.sha256(plain).hexdigest()[:24]
    # what the sender wrote is the message: any change to it is another one
    for changed in (copy(body=BASE["body"] + "!"), copy(subject="zanzibar custody hearing 2"),
                    copy(date="Mon, 04 Mar 2019 10:00:01 -0800"), copy(to="jane@arclight.example.com"),
                    copy(cc="dana@arclight.example.com"), copy(frm="carol@elsewhere.example.com"),
                    copy("X-Priority: 1"), copy("Reply-To: carol@home.example.com"),
                    copy("Sender: assistant@arclight.example.com"), copy("In-Reply-To: <a@b>"),
                    copy(top=TRANSIT_TOP, body=BASE["body"] + "!")):
        assert parse_message(changed, "c").message_id != sent.message_id
    # a message with a Message-ID keeps it
    assert parse_message(copy(top=TRANSIT_TOP, message_id="<m@x>"), "d").message_id == "m@x"


def test_the_header_lists():
    for name in ("Received", "Return-Path", "Delivered-To", "X-Original-To", "Envelope-To", "X-Envelope-From",
                 "X-Envelope-To", "Received-SPF", "Authentication-Results", "DKIM-Signature", "ARC-Seal",
                 "ARC-Message-Signature", "ARC-Authentication-Results", "X-Spam-Status", "X-Spam-Flag",
                 "X-Virus-Scanned", "X-Originating-IP", "Bcc", "Status", "X-Mozilla-Status", "X-Account-Key"):
        assert ignored_header(name.encode()) and ignored_header(name.upper().encode()), name
    for name in ("From", "To", "Cc", "Subject", "Date", "Message-ID", "In-Reply-To", "References", "Reply-To",
                 "Sender", "MIME-Version", "Content-Type", "Content-Transfer-Encoding", "X-Priority",
                 "Importance", "Sensitivity", "X-Mailer", "User-Agent", "List-Id", "Resent-From", "X-Spammy"):
        assert not ignored_header(name.encode()), name
    assert not (MAILBOX_HEADERS & TRANSIT_HEADERS)
    assert all(h == h.lower() for h in TRANSIT_HEADERS | set(TRANSIT_PREFIXES))


transit_names = st.one_of(st.sampled_from(sorted(h.decode() for h in TRANSIT_HEADERS)),
                          st.builds(lambda p, s: p.decode() + s, st.sampled_from(TRANSIT_PREFIXES),
                                    st.text("abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=8)),
                          st.sampled_from(sorted(h.decode() for h in MAILBOX_HEADERS)))
values = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=20)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(transit_names, values, st.booleans(), st.booleans(), st.booleans()), max_size=8),
       st.booleans())
def test_any_transit_headers_keep_the_id(headers, crlf):
    """Any such headers, any case, folded or not, at the top or after the message's own, CRLF
    or LF: the id of the copy without them."""
    top, extra = [], []
    for name, value, upper, folded, at_top in headers:
        line = f"{name.upper() if upper else name}: {value}" + ("\n\tfolded " + value if folded else "")
        (top if at_top else extra).append(line)
    raw = copy("\n".join(extra), top="".join(t + "\n" for t in top))
    if crlf:
        raw = raw.replace(b"\n", b"\r\n")
    assert parse_message(raw, "x").message_id == parse_message(copy(), "y").message_id


# ------------------------------------------------------------------ through the importer
def test_sent_copy_with_bcc_kept_and_every_recipient_copy_joins(tmp_path):
    """Two recipients' Inbox copies (other trace headers each) and the sender's Sent copy, in
    each order of import: one document, three copies, the Sent copy (with its Bcc) kept."""
    second = copy(top="Return-Path: <carol@arclight.example.com>\nDelivered-To: dana@arclight.example.com\n"
                      "Received: from mx2.example.net by mail.example.net; Mon, 04 Mar 2019 10:00:09 -0800\n")
    for n, order in enumerate((("inbox", "sent", "dana"), ("sent", "inbox", "dana"), ("dana", "inbox", "sent"))):
        boxes = {"inbox": ("john_inbox.mbox", INBOX_COPY), "sent": ("Sent.mbox", SENT_COPY),
                 "dana": ("dana_inbox.mbox", second)}
        paths = []
        for key in order:
            name, raw = boxes[key]
            path = tmp_path / str(n) / name
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(mbox([raw]))
            paths.append(path)
        with Session.create(tmp_path / str(n) / "p") as s:
            reports = [s.ingest([p], workers=0) for p in paths]
            assert [(r.ingested, r.duplicates) for r in reports] == [(1, 0), (0, 1), (0, 1)], order
            rows = s.store.con.execute("SELECT doc_id, folder, bcc, location FROM messages").fetchall()
            assert len(rows) == 1 and s.stats()["copies"] == 3
            assert rows[0]["doc_id"] == parse_message(SENT_COPY, "x").message_id
            assert rows[0]["folder"] == "Sent" and rows[0]["location"].endswith("Sent.mbox#1")
            assert rows[0]["bcc"] == "Dana Ruiz <dana@arclight.example.com>"
            assert s.search("zanzibar").total == 1 and s.stats()["unindexed"] == 0


def _previous_rule_digest(raw: bytes) -> str:
    """The content_digest of the previous rule: the mailbox headers of the time left out, transit
    headers kept."""
    previous = MAILBOX_HEADERS - {b"x-account-key", b"x-identity-key"}
    return content_digest(raw, ignored=lambda name: name.lower() in previous)


def test_a_project_made_under_the_previous_rule_keeps_its_id_and_takes_in_the_sent_copy(tmp_path):
    inbox, sent = tmp_path / "inbox.mbox", tmp_path / "Sent.mbox"
    inbox.write_bytes(mbox([INBOX]))
    sent.write_bytes(mbox([SENT]))
    old = "sasc-" + _previous_rule_digest(INBOX)[:24]
    assert old == "sasc-" + hashlib.sha256(INBOX).hexdigest()[:24]
    assert old != parse_message(INBOX, "x").message_id == parse_message(SENT, "y").message_id
    with Session.create(tmp_path / "p") as s:
        s.ingest([inbox], workers=0)
        with s.store.transaction() as con:   # as the previous rule stored it
            con.execute("UPDATE messages SET message_id = ?, doc_id = ?, thread_id = ?", (old, old, old))
        s.reindex()
        (tmp_path / "personas.json").write_text(json.dumps([{"id": "john", "name": "John"}]))
        (tmp_path / "sens.txt").write_text(f"john {old} 2\n")
        s.import_judgments(personas=tmp_path / "personas.json", sensitivity=tmp_path / "sens.txt")
    with Session.open(tmp_path / "p") as s:
        r = s.ingest([inbox], workers=0)                     # the same mailbox again adds nothing
        assert (r.ingested, r.duplicates) == (0, 1)
        r = s.ingest([sent], workers=0)                      # the sender's copy: a copy, and kept
        assert (r.ingested, r.duplicates, r.skipped) == (0, 1, [])
        rows = s.store.con.execute("SELECT doc_id, message_id, folder, raw_sha256 FROM messages").fetchall()
        assert [tuple(r) for r in rows] == [(old, old, "Sent", hashlib.sha256(SENT).hexdigest())]
        assert s.stats()["copies"] == 2 and [h.doc_id for h in s.search("custody").hits] == [old]
        assert judged_sensitive_among(s, "john", [old]) == {old}
        # a third copy (another recipient's) joins it too
        third = tmp_path / "dana.mbox"
        third.write_bytes(mbox([b"Delivered-To: dana@arclight.example.com\n" + SENT]))
        r = s.ingest([third], workers=0)
        assert (r.ingested, r.duplicates) == (0, 1) and s.stats()["messages"] == 1


# ------------------------------------------------------------------ the real corpus
def _without_message_id(raw: bytes) -> bytes:
    """The message without its Message-ID header (and its folded lines)."""
    blank = re.search(rb"\r?\n\r?\n", raw)
    end = blank.start() if blank else len(raw)
    return re.sub(rb"(?im)^message-id[ \t]*:.*(?:\r?\n[ \t].*)*\r?\n?", b"", raw[:end]) + raw[end:]


def _headers(raw: bytes) -> tuple[collections.Counter, bytes]:
    raw = raw.replace(b"\r\n", b"\n")
    if raw.startswith(b"From "):
        raw = raw.split(b"\n", 1)[1]
    head, _, body = raw.partition(b"\n\n")
    return collections.Counter(re.sub(rb"\n[ \t]+", b" ", head).split(b"\n")), body


def test_spamassassin_without_message_ids_merges_only_transit_copies(shared_data):
    """Every message of the corpus with its Message-ID taken out, so each gets a synthetic id:
    6,046 messages, 6,046 ids under the previous rule, 6,032 under this one. Each of the 12
    merged groups (26 files) is one spam or list message delivered twice: the same body, and
    headers that differ only in ones left out (Received, Return-Path, Delivery-Date,
    X-OriginalArrivalTime, X-Authentication-Warning; the relays' Message-IDs were different)."""
    files = sorted(p for p in (shared_data / "spamassassin").rglob("*") if p.is_file())
    assert len(files) == 6046
    groups: dict[str, list] = collections.defaultdict(list)
    previous: set[str] = set()
    for path in files:
        raw = _without_message_id(path.read_bytes())
        groups[synthetic_message_id(raw)].append(raw)
        previous.add(_previous_rule_digest(raw))
    assert len(previous) == 6046                 # the previous rule: every one its own document
    assert len(groups) == 6032
    merged = [g for g in groups.values() if len(g) > 1]
    assert (len(merged), sum(len(g) for g in merged)) == (12, 26)
    for group in merged:
        first_head, first_body = _headers(group[0])
        for raw in group[1:]:
            head, body = _headers(raw)
            assert body == first_body
            differing = (head - first_head) + (first_head - head)
            names = {line.split(b":", 1)[0] for line in differing}
            assert names and all(ignored_header(n) for n in names), names
    # and every message keeps apart from every other one under the rule (the corpus as it is)
    assert len({content_digest(p.read_bytes()) for p in files}) == 6046


@pytest.mark.slow
def test_spamassassin_ingested_without_message_ids(shared_data, tmp_path):
    """The same through the real importer: 6,046 files, 6,032 documents, 14 duplicates (the
    previous rule: 6,046 documents)."""
    src = tmp_path / "nomid"
    for path in sorted(p for p in (shared_data / "spamassassin").rglob("*") if p.is_file()):
        out = src / path.relative_to(shared_data / "spamassassin")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(_without_message_id(path.read_bytes()))
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([src])
        assert (r.ingested, r.duplicates, r.skipped) == (6032, 14, [])
        assert s.stats()["messages"] == 6032 and s.stats()["copies"] == 6046 and s.stats()["unindexed"] == 0
