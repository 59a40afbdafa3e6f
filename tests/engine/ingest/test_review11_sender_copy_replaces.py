"""The sender's copy arriving after a recipient's replaces it as the kept copy (it has the Bcc).
The replacement rewrote ``sender`` but not ``from_addr``, the subject, ``subject_norm``,
``in_reply_to`` or ``refs``, and the sender -> recipient edges kept the replaced copy's pairs:
the project disagreed with itself until a reindex ('from:team@lists.example' found nothing
after the import and the message after 'sasc reindex'). Every parsed column, the edges, the
thread and the index now follow the kept copy, and a reindex changes nothing. The reviewer's
files (/tmp/s11/rev_thread/r4: a list's copy with its From rewritten 'Alice via Team'), real
imports, real Whoosh."""
from __future__ import annotations

import pytest

from sasc_desktop.engine.session import Session

ROOT = (b"Message-ID: <root-7@corp.example>\nDate: Sun, 1 Sep 2002 09:00:00 +0000\nFrom: Bob <bob@corp.example>\n"
        b"To: alice@corp.example\nSubject: Budget plan\n\nWhat is the plan?\n")
# the sender's copy, in her Sent folder: her From, the Bcc, the In-Reply-To and References
SENT = (b"Message-ID: <plan-42@corp.example>\nDate: Mon, 2 Sep 2002 10:00:00 +0000\nFrom: Alice <alice@corp.example>\n"
        b"To: team@lists.example\nBcc: carol@corp.example\nSubject: Re: Budget plan\n"
        b"In-Reply-To: <root-7@corp.example>\nReferences: <root-7@corp.example>\n\nSee the plan.\n")
# the list's copy in Bob's inbox: From rewritten, Reply-To added, the reply headers dropped, a
# footer added, the subject folded otherwise
INBOX = (b"Message-ID: <plan-42@corp.example>\nDate: Mon, 2 Sep 2002 10:00:00 +0000\n"
         b'From: "Alice via Team" <team@lists.example>\nReply-To: alice@corp.example\nTo: team@lists.example\n'
         b"Subject: Re: Budget\n plan\nList-Id: <team.lists.example>\n\nSee the plan.\n--\nteam mailing list\n")

QUERIES = ["from:alice@corp.example", "from:team@lists.example", "to:carol@corp.example", "thread:root-7@corp.example",
           "thread:plan-42@corp.example", "plan", "footer", "mailing"]


def _state(s: Session):
    con = s.store.con
    row = dict(con.execute("SELECT doc_id, sender, from_addr, recipients, bcc, reply_to, subject, subject_norm, "
                           "in_reply_to, refs, thread_id, folder, body, indexed FROM messages "
                           "WHERE message_id = 'plan-42@corp.example'").fetchone())
    edges = sorted(tuple(e) for e in con.execute("SELECT sender, recipient, kind, count FROM edges"))
    found = {q: sorted(h.doc_id for h in s.search(q, limit=10).hits) for q in QUERIES}
    return row, edges, found


WANT_ROW = {"doc_id": "plan-42@corp.example", "sender": "Alice <alice@corp.example>", "from_addr": "alice@corp.example",
            "recipients": "team@lists.example", "bcc": "carol@corp.example", "reply_to": "",
            "subject": "Re: Budget plan", "subject_norm": "budget plan", "in_reply_to": "root-7@corp.example",
            "refs": "root-7@corp.example", "thread_id": "root-7@corp.example", "folder": "mail/sent",
            "body": "See the plan.", "indexed": 1}
WANT_EDGES = [("alice@corp.example", "carol@corp.example", "bcc", 1), ("alice@corp.example", "team@lists.example", "to", 1),
              ("bob@corp.example", "alice@corp.example", "to", 1)]
WANT_FOUND = {"from:alice@corp.example": ["plan-42@corp.example"], "from:team@lists.example": [],
              "to:carol@corp.example": ["plan-42@corp.example"],
              "thread:root-7@corp.example": ["plan-42@corp.example", "root-7@corp.example"],
              "thread:plan-42@corp.example": [], "plan": ["plan-42@corp.example", "root-7@corp.example"],
              "footer": [], "mailing": []}


def _mail(tmp_path):
    for box, files in (("inbox", {"1.eml": INBOX, "0.eml": ROOT}), ("sent", {"1.eml": SENT})):
        (tmp_path / "mail" / box).mkdir(parents=True)
        for name, raw in files.items():
            (tmp_path / "mail" / box / name).write_bytes(raw)
    return tmp_path / "mail"


@pytest.mark.parametrize("how", ["one import", "two imports", "two imports, a writer commit between"])
def test_the_sender_copy_replacing_the_list_copy_is_the_whole_message(tmp_path, how):
    mail = _mail(tmp_path)
    with Session.create(tmp_path / "p") as s:
        if how == "one import":
            r = s.ingest([mail], workers=0)                        # inbox sorts first: replaced later
            assert (r.ingested, r.duplicates) == (2, 1)
        else:
            s.ingest([mail / "inbox"], workers=0)
            if how.endswith("between"):
                s.close()
                s = Session.open(tmp_path / "p")
            r = s.ingest([mail / "sent"], workers=0)
            assert (r.ingested, r.duplicates) == (0, 1)
        # (the folder is relative to the source given)
        want = dict(WANT_ROW, folder="mail/sent" if how == "one import" else "sent")
        assert _state(s) == (want, WANT_EDGES, WANT_FOUND)
        assert [(c["folder"].split("/")[-1], c["kept"]) for c in s.document("plan-42@corp.example")["copies"]] == \
            [("inbox", 0), ("sent", 1)]
        s.reindex()
        assert _state(s) == (want, WANT_EDGES, WANT_FOUND)
        s.close()


def test_the_sender_copy_first_keeps_it_and_the_list_copy_changes_nothing(tmp_path):
    mail = _mail(tmp_path)
    with Session.create(tmp_path / "p") as s:
        s.ingest([mail / "sent", mail / "inbox"], workers=0)
        assert _state(s) == (dict(WANT_ROW, folder="sent"), WANT_EDGES, WANT_FOUND)
