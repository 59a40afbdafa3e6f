"""Two DIFFERENT messages with one Message-ID and one subject (a broken mailer numbering every
message <1234@localhost>: other sender, other date, other text) were taken for copies of one
message: the second was only a copies row (its words unsearchable, its bytes not kept), or, a
sender's copy in a Sent folder, it REPLACED the first's text; which survived depended on the
import order. A copy now is the same message as written: the Message-ID, the subject, the Date
and the text (whitespace aside; or the other's text with something added before or after it)
-- what copies that differ only in what mailboxes and the mail system add
(:func:`..parse.content_digest`) always share, and what a list's or a server's changed copy (its
From made 'Alice via Team', its transfer encoding changed, a footer or a banner added) keeps.
Anything else is a document of its own ('<mid>~<hash>'). Real bytes (the reviewer's files),
real imports, a property over import orders."""
from __future__ import annotations

import quopri
import zlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mailfactory import msg

from sasc_desktop.engine.ingest.importer import stored_document
from sasc_desktop.engine.ingest.parse import content_digest, parse_message, raw_digest
from sasc_desktop.engine.session import Session

# the reviewer's two files (/tmp/s11/rev_thread/dupid), byte for byte
ONE = (b"Message-ID: <1234@localhost>\nDate: Mon, 2 Sep 2002 10:00:00 +0000\nFrom: alice@one.example\n"
       b"To: bob@two.example\nSubject: Hello\n\nMeet me at the harbour on Friday.\n")
TWO = (b"Message-ID: <1234@localhost>\nDate: Tue, 14 Jan 2003 16:30:00 +0000\nFrom: mallory@three.example\n"
       b"To: trent@four.example\nSubject: Hello\n\nMy diagnosis came back positive, please keep this private.\n")


def _found(s, query):
    return sorted(h.doc_id for h in s.search(query, limit=50).hits)


def _docs(s):
    return {r[0]: (r[1], r[2]) for r in s.store.con.execute("SELECT doc_id, from_addr, raw_sha256 FROM messages")}


def _check_both_stored(s, first: bytes, second: bytes):
    """``first`` was stored first: the bare id; ``second`` its own document, bytes kept."""
    a, b = raw_digest(first), raw_digest(second)
    docs = _docs(s)
    who = {ONE: "alice@one.example", TWO: "mallory@three.example"}
    assert docs == {"1234@localhost": (who[first], a), f"1234@localhost~{b[:10]}": (who[second], b)}
    assert _found(s, "harbour") == [d for d, v in docs.items() if v[0] == "alice@one.example"]
    assert _found(s, "diagnosis") == [d for d, v in docs.items() if v[0] == "mallory@three.example"]
    raws = {zlib.decompress(r[0]) for r in s.store.con.execute("SELECT data FROM raw")}
    assert raws == {ONE, TWO}
    assert s.stats()["copies"] == 2 and s.stats()["unindexed"] == 0 and s.index.doc_count() == 2


def test_reviewer_repro_two_files_in_either_order(tmp_path):
    for name, order in (("ab", (ONE, TWO)), ("ba", (TWO, ONE))):
        folder = tmp_path / name / "mail"
        folder.mkdir(parents=True)
        for n, raw in enumerate(order, 1):
            (folder / f"{n}.eml").write_bytes(raw)
        with Session.create(tmp_path / name / "p") as s:
            r = s.ingest([folder], workers=0)
            assert (r.ingested, r.duplicates, r.skipped) == (2, 0, [])
            _check_both_stored(s, *order)


def _inbox_and_sent(tmp_path, inbox: tuple[str, bytes], sent: tuple[str, bytes]) -> None:
    """tmp_path/mail/inbox/<name> and tmp_path/mail/sent/<name>, each holding its bytes."""
    for folder, (name, raw) in (("inbox", inbox), ("sent", sent)):
        (tmp_path / "mail" / folder).mkdir(parents=True)
        (tmp_path / "mail" / folder / name).write_bytes(raw)


def test_a_sent_copy_of_another_message_replaces_nothing(tmp_path):
    """/tmp/s11/rev_thread/dupid2: inbox/1.eml (alice's) first, then sent/2.eml (mallory's):
    mallory's text had replaced alice's in her document."""
    _inbox_and_sent(tmp_path, ("1.eml", ONE), ("2.eml", TWO))
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([tmp_path / "mail"], workers=0)
        assert (r.ingested, r.duplicates) == (2, 0)
        _check_both_stored(s, ONE, TWO)
        assert s.document("1234@localhost")["folder"] == "mail/inbox"


SENT = msg(subject="Budget plan", frm="Alice <alice@corp.example>", to="team@lists.example", message_id="<plan@corp>",
           date="Mon, 2 Sep 2002 10:00:00 +0000", body="See the plan =E2=80=94 caf=C3=A9 budget.",
           ctype="Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable",
           extra="Bcc: carol@corp.example")
TRANSIT = (b"Return-Path: <alice@corp.example>\nReceived: from mx.corp.example by mail.lists.example; "
           b"Mon, 2 Sep 2002 10:00:02 +0000\nDelivered-To: bob@lists.example\n")


def _inbox_copy() -> bytes:
    """Bob's copy: transit headers, no Bcc, and its body made 8-bit by a server on the way."""
    head, body = SENT.split(b"\n\n", 1)
    head = head.replace(b"Bcc: carol@corp.example\n", b"").replace(
        b"Content-Transfer-Encoding: quoted-printable", b"Content-Transfer-Encoding: 8bit\n"
        b"X-MIME-Autoconverted: from quoted-printable to 8bit by mail.lists.example")
    return TRANSIT + head + b"\n\n" + quopri.decodestring(body)


def test_copies_as_the_mail_system_changed_them_are_still_one_message(tmp_path):
    inbox = _inbox_copy()
    assert content_digest(inbox) != content_digest(SENT)            # (not the same bytes as written)
    assert parse_message(inbox, "i").body == parse_message(SENT, "s").body == "See the plan \u2014 café budget."
    _inbox_and_sent(tmp_path, ("1.eml", inbox), ("1.eml", SENT))
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([tmp_path / "mail"], workers=0)
        assert (r.ingested, r.duplicates) == (1, 1)
        doc = s.document("plan@corp")
        assert (doc["folder"], doc["bcc"]) == ("mail/sent", "carol@corp.example")
        assert [c["kept"] for c in doc["copies"]] == [0, 1]


def test_only_the_same_date_and_text_make_a_copy(tmp_path):
    """stored_document's rule, message by message (the Message-ID and subject the same)."""
    base = dict(subject="Hello", message_id="<1234@localhost>", date="Mon, 2 Sep 2002 10:00:00 +0000",
                body="Meet me at the harbour.")
    with Session.create(tmp_path / "p") as s:
        first = parse_message(msg(**base), "a")
        con = s.store.con
        with s.store.transaction():
            con.execute("INSERT INTO messages(doc_id, message_id, ts, subject, body, thread_id, raw_sha256, raw_size, "
                        "location) VALUES ('1234@localhost', '1234@localhost', ?, 'Hello', ?, 't', 'x', 1, 'a')",
                        (first.timestamp, first.body))
        cases = {
            "same": (base, True),
            "other whitespace": (dict(base, body="Meet  me at the\nharbour."), True),
            "other sender": (dict(base, frm="Alice via Team <team@lists.example>"), True),
            "other recipients": (dict(base, to="carol@x.example"), True),
            "a footer added": (dict(base, body="Meet me at the harbour.\n-- \nILUG mailing list"), True),
            "a banner added": (dict(base, body="[External sender] Meet me at the harbour."), True),
            "other text": (dict(base, body="Meet me at the station."), False),
            "a mail merge's other letter": (dict(base, body="Meet me at the harbour, Carol."), False),
            "no text": (dict(base, body=""), False),
            "other date": (dict(base, date="Mon, 2 Sep 2002 10:00:01 +0000"), False),
            "no date": (dict(base, date=""), False),
            "other subject": (dict(base, subject="Hello again"), False),
        }
        for name, (fields, copy) in cases.items():
            m = parse_message(msg(**fields), name)
            assert (stored_document(con, m) is not None) is copy, name


DATES = ["Mon, 2 Sep 2002 10:00:00 +0000", "Tue, 14 Jan 2003 16:30:00 +0000"]
TEXTS = ["Meet me at the harbour.", "My diagnosis came back."]
FOLDERS = ["inbox", "sent", "archive"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mails=st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 2), st.integers(0, 3)),
                      min_size=1, max_size=6),
       split=st.integers(0, 6), data=st.data())
def test_one_document_per_distinct_message_whatever_the_order(tmp_path_factory, mails, split, data):
    """Mail sharing one Message-ID and subject: one document per distinct (date, text), each
    text found by a search, each stored copy's bytes kept once, whatever the order and however
    the mail is split into imports."""
    raws = []
    for date, text, folder, n in mails:
        raw = msg(subject="Hello", message_id="<1234@localhost>", date=DATES[date], body=TEXTS[text],
                  frm=f"p{n}@x.example", extra=f"X-Seq: {n}")
        raws.append((FOLDERS[folder], raw))
    order = data.draw(st.permutations(raws))
    root = tmp_path_factory.mktemp("p")
    imports = [order[:split], order[split:]]
    with Session.create(root / "p") as s:
        for k, part in enumerate(imports):
            if not part:
                continue
            for n, (folder, raw) in enumerate(part):
                box = root / f"import{k}" / folder
                box.mkdir(parents=True, exist_ok=True)
                (box / f"{n}.eml").write_bytes(raw)
            s.ingest([root / f"import{k}"], workers=0)
        distinct = {(DATES[d], TEXTS[t]) for d, t, _, _ in mails}
        rows = s.store.con.execute("SELECT doc_id, date, body FROM messages").fetchall()
        assert len(rows) == len(distinct)
        assert sum(r[0] == "1234@localhost" for r in rows) == 1
        for text, word in zip(TEXTS, ("harbour", "diagnosis")):
            assert _found(s, word) == sorted(r[0] for r in rows if r[2] == text)
        assert s.stats()["unindexed"] == 0 and s.index.doc_count() == len(distinct)
        # each copy recorded once per mailbox it is in
        assert s.stats()["copies"] == len({(k, folder, raw) for k, part in enumerate(imports) for folder, raw in part})
