"""Copies of a message with the same bytes in several mailboxes (a sender's sent.mbox and the
recipients' inboxes): each is recorded as a copy of the one document, the sender's is kept,
wherever it comes in the import, and a re-import adds nothing."""
from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mailfactory import mbox, msg

from sasc_desktop.engine.project.schema import MIGRATIONS
from sasc_desktop.engine.session import Session

M = msg(subject="Budget final", message_id="<b@x>", frm="Alice <alice@example.org>", to="Bob <bob@example.org>",
        body="The zanzibar budget is final.", extra="Bcc: carol@example.org")
SHA = hashlib.sha256(M).hexdigest()
OTHER = msg(subject="Lunch", message_id="<l@x>", body="Lunch at noon.")


def _copies(s: Session, doc_id: str = "b@x") -> list[tuple]:
    return [(c["location"], c["folder"], c["raw_sha256"], c["kept"]) for c in s.document(doc_id)["copies"]]


def _mail(tmp_path):
    """mail/inbox.mbox (Bob's copy, read first: 'inbox' sorts before 'sent') and mail/sent.mbox."""
    folder = tmp_path / "mail"
    folder.mkdir()
    (folder / "inbox.mbox").write_bytes(mbox([OTHER, M]))
    (folder / "sent.mbox").write_bytes(mbox([M]))
    return folder


def test_sender_copy_kept_when_read_second(tmp_path):
    folder = _mail(tmp_path)
    inbox, sent = f"{folder}/inbox.mbox#2", f"{folder}/sent.mbox#1"
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([folder], workers=0)
        assert (r.ingested, r.duplicates, r.skipped) == (2, 1, [])
        doc = s.document("b@x")
        assert (doc["folder"], doc["location"], doc["bcc"]) == ("mail/sent", sent, "carol@example.org")
        assert _copies(s) == [(inbox, "mail/inbox", SHA, 0), (sent, "mail/sent", SHA, 1)]
        assert s.stats()["copies"] == 3 and s.stats()["messages"] == 2 and s.stats()["unindexed"] == 0
        assert s.index.doc_count() == 2
        # the index has the kept copy's folder
        assert [h.doc_id for h in s.search('folder:"mail/sent"').hits] == ["b@x"]
        assert [h.doc_id for h in s.search('folder:"mail/inbox"').hits] == ["l@x"]
        assert [h.doc_id for h in s.search("zanzibar").hits] == ["b@x"]
        # the same import again adds nothing
        r = s.ingest([folder], workers=2)
        assert (r.ingested, r.duplicates, r.skipped) == (0, 3, [])
        assert _copies(s) == [(inbox, "mail/inbox", SHA, 0), (sent, "mail/sent", SHA, 1)]
        assert s.stats()["copies"] == 3
    # `sasc show --json` lists both copies
    out = subprocess.run([sys.executable, "-c", "import sys; from sasc_desktop.cli import main; sys.exit(main())",
                          "show", str(tmp_path / "p"), "b@x", "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["folder"] == "mail/sent" and doc["copies"] == [
        {"location": inbox, "folder": "mail/inbox", "raw_sha256": SHA, "kept": 0},
        {"location": sent, "folder": "mail/sent", "raw_sha256": SHA, "kept": 1}]


def test_sender_copy_kept_in_separate_imports_either_order(tmp_path):
    folder = _mail(tmp_path)
    inbox, sent = folder / "inbox.mbox", folder / "sent.mbox"
    for name, order in (("p1", [inbox, sent]), ("p2", [sent, inbox])):
        with Session.create(tmp_path / name) as s:
            reports = [s.ingest([src], workers=0) for src in order]
            assert sum(r.ingested for r in reports) == 2 and sum(r.duplicates for r in reports) == 1
            assert sorted(_copies(s)) == [(f"{inbox}#2", "inbox", SHA, 0), (f"{sent}#1", "sent", SHA, 1)], name
            doc = s.document("b@x")
            assert (doc["folder"], doc["location"]) == ("sent", f"{sent}#1")
            assert [h.doc_id for h in s.search('folder:sent').hits] == ["b@x"]
            assert s.stats()["unindexed"] == 0 and s.index.doc_count() == 2
            for src in order:  # again: nothing added
                assert (s.ingest([src], workers=0).ingested, s.stats()["copies"]) == (0, 3)


def test_twins_in_one_mailbox_and_a_grown_mailbox_add_no_copies(tmp_path):
    """The same bytes twice in one mbox are one copy; an mbox that grew at its start (every '#N'
    moved) adds no copy when imported again."""
    box = tmp_path / "inbox.mbox"
    box.write_bytes(mbox([M, OTHER, M]))
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([box], workers=0)
        assert (r.ingested, r.duplicates) == (2, 1)
        assert _copies(s) == [(f"{box}#1", "inbox", SHA, 1)]
        box.write_bytes(mbox([msg(subject="New", message_id="<n@x>"), M, OTHER, M]))
        r = s.ingest([box], workers=0)
        assert (r.ingested, r.duplicates) == (1, 3)
        assert _copies(s) == [(f"{box}#1", "inbox", SHA, 1)] and s.stats()["copies"] == 3


def test_a_maildir_file_renamed_adds_no_copy_and_sent_maildir_is_kept(tmp_path):
    md = tmp_path / "Maildir"
    for sub in ("cur", "new", "tmp", ".Sent/cur", ".Sent/new", ".Sent/tmp"):
        (md / sub).mkdir(parents=True)
    (md / "new" / "1.host").write_bytes(M)
    with Session.create(tmp_path / "p") as s:
        s.ingest([md], workers=0)
        (md / "new" / "1.host").rename(md / "cur" / "1.host:2,S")  # read: moved to cur/ with a flag
        (md / ".Sent" / "cur" / "9.host:2,S").write_bytes(M)
        r = s.ingest([md], workers=0)
        assert (r.ingested, r.duplicates) == (0, 2)
        assert _copies(s) == [(f"{md}/new/1.host", "Maildir", SHA, 0),
                              (f"{md}/.Sent/cur/9.host:2,S", "Maildir/.Sent", SHA, 1)]
        assert s.document("b@x")["folder"] == "Maildir/.Sent"


def test_only_a_copy_of_the_kept_bytes_moves_the_kept_copy(tmp_path):
    """The sender's copy with other bytes (its Bcc; X-Folder: Sent Items) replaced the kept
    copy; the recipient's bytes found again in a Sent mailbox do not move the kept copy there
    (those bytes are not the kept ones)."""
    received = msg(subject="Q", message_id="<q@x>", frm="alice@example.org", to="bob@example.org", body="q")
    sent = msg(subject="Q", message_id="<q@x>", frm="alice@example.org", to="bob@example.org", body="q",
               extra="Bcc: carol@example.org\nX-Folder: Sent Items")
    (tmp_path / "inbox.mbox").write_bytes(mbox([received]))
    (tmp_path / "outbox.mbox").write_bytes(mbox([sent]))
    (tmp_path / "Sent.mbox").write_bytes(mbox([received]))
    with Session.create(tmp_path / "p") as s:
        for name in ("inbox", "outbox", "Sent"):
            s.ingest([tmp_path / f"{name}.mbox"], workers=0)
        doc = s.document("q@x")
        assert (doc["folder"], doc["location"], doc["bcc"], doc["raw_sha256"]) == (
            "Sent Items", f"{tmp_path}/outbox.mbox#1", "carol@example.org", hashlib.sha256(sent).hexdigest())
        assert [(c["folder"], c["kept"]) for c in doc["copies"]] == [("inbox", 0), ("Sent Items", 1), ("Sent", 0)]


def test_a_repeat_of_a_skipped_message_is_skipped_too(tmp_path):
    junk = b"this is not mail\n\nat all\n"
    folder = tmp_path / "mail"
    folder.mkdir()
    (folder / "a.eml").write_bytes(junk)
    (folder / "sub").mkdir()
    (folder / "sub" / "b.eml").write_bytes(junk)
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([folder], workers=0)
        assert r.ingested == 0 and sorted(x.source for x in r.skipped) == [f"{folder}/a.eml", f"{folder}/sub/b.eml"]
        assert s.stats()["copies"] == 0


def _as_schema_4(db) -> None:
    """A closed project's database as schema 4 left it: copies unique by their bytes alone."""
    con = sqlite3.connect(db)
    con.execute("DROP INDEX copies_raw_location")
    con.execute("CREATE UNIQUE INDEX copies_raw ON copies(raw_sha256)")
    con.execute("PRAGMA user_version = 4")
    con.commit()
    con.close()


def test_a_project_of_the_previous_schema_opens_and_takes_in_copies(tmp_path):
    folder = _mail(tmp_path)
    with Session.create(tmp_path / "p") as s:
        s.ingest([folder / "inbox.mbox"], workers=0)
    _as_schema_4(tmp_path / "p" / "project.sqlite")
    with Session.open(tmp_path / "p") as s:
        con = s.store.con
        assert con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 5
        indexes = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'copies'")}
        assert indexes == {"copies_raw_location", "copies_message"}
        r = s.ingest([folder / "sent.mbox"], workers=0)
        assert (r.ingested, r.duplicates) == (0, 1)
        assert _copies(s) == [(f"{folder}/inbox.mbox#2", "inbox", SHA, 0), (f"{folder}/sent.mbox#1", "sent", SHA, 1)]


BOXES = ["inbox", "sent", "archive", "Sent Items", "projects"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(BOXES), min_size=1, max_size=4, unique=True), st.booleans(), st.randoms())
def test_one_kept_copy_per_mailbox_property(tmp_path_factory, boxes, together, rnd):
    """Any mailboxes holding the same bytes, imported together or one by one in any order: one
    document, one copy per mailbox, exactly one kept (in a Sent mailbox when there is one), the
    document where its kept copy is, and importing again adds nothing."""
    root = tmp_path_factory.mktemp("c")
    (root / "mail").mkdir()
    paths = []
    for box in boxes:
        p = root / "mail" / f"{box}.mbox"
        p.write_bytes(mbox([M]))
        paths.append(p)
    rnd.shuffle(paths)
    with Session.create(root / "p") as s:
        if together:
            s.ingest([root / "mail"], workers=0)
        else:
            for p in paths:
                s.ingest([p], workers=0)
        copies = _copies(s)
        assert sorted(c[0] for c in copies) == sorted(f"{p}#1" for p in paths)
        kept = [c for c in copies if c[3]]
        assert len(kept) == 1
        if any(b.lower().startswith("sent") for b in boxes):
            assert "sent" in kept[0][1].lower()
        else:  # nothing to prefer: the first read is kept
            first = sorted(paths)[0] if together else paths[0]
            assert kept[0][0] == f"{first}#1"
        doc = s.document("b@x")
        assert (doc["location"], doc["folder"]) == kept[0][:2]
        assert [h.doc_id for h in s.search(f'folder:"{doc["folder"]}"').hits] == ["b@x"]  # the index too
        assert s.stats()["messages"] == 1 and s.stats()["unindexed"] == 0 and s.index.doc_count() == 1
        s.ingest([root / "mail"], workers=0)
        assert _copies(s) == copies
