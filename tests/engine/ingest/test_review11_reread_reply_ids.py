"""A project imported before In-Reply-To was read by the new rule (the first <...> or bare
word: an exmh attribution's address, Emacs's "bob@x's", an id broken by a space) keeps those
stored ids: reread_reply_ids reads them again from the stored bytes and computes the threads
again (for 'sasc reindex'). On the reviewer's SpamAssassin project made by the old code: 104
messages' ids changed in 1.1 s, the threads named by an address 43 -> 2, and every thread is
an independent oracle's (4195, as a fresh import). Real bytes, a real project."""
from __future__ import annotations

from mailfactory import mbox, msg

from sasc_desktop.engine.ingest.threading_rules import reread_reply_ids
from sasc_desktop.engine.session import Session

GARY = "Gary Lawrence Murphy <garym@canada.com>"
MAILS = [
    msg(subject="java is for kiddies", frm=GARY, to="fork@xent.example", message_id="<m2vg@maya.example>",
        date="Wed, 28 Aug 2002 15:06:39 -0400"),
    msg(subject="slaughter", frm=GARY, to="fork@xent.example", message_id="<m2fz@maya.example>",
        date="Tue, 17 Sep 2002 10:50:46 -0400"),
    msg(subject="Re: java is for kiddies", frm="jm@jm.example", to="fork@xent.example", message_id="<a1@jm.example>",
        date="Wed, 28 Aug 2002 21:00:00 +0100",
        extra='In-Reply-To: Message from Gary Lawrence Murphy <garym@canada.com> of\n    "28 Aug 2002."\n'
              "    <m2vg@maya.example>"),
    msg(subject="Re: slaughter", frm="jm@jm.example", to="fork@xent.example", message_id="<a2@jm.example>",
        date="Tue, 17 Sep 2002 18:00:00 +0100",
        extra='In-Reply-To: Message from Gary Lawrence Murphy <garym@canada.com> of\n    "17 Sep 2002."\n'
              "    <m2fz@maya.ex ample>"),
    msg(subject="Re: slaughter", frm="tom@gnus.example", to=GARY, message_id="<a3@gnus.example>",
        date="Tue, 17 Sep 2002 19:00:00 +0100", extra='In-Reply-To: garym@canada.com\'s message of "17 Sep 2002"'),
]
# what the old rule stored: the first <...> or bare word
OLD = {"a1@jm.example": "garym@canada.com", "a2@jm.example": "garym@canada.com", "a3@gnus.example": "garym@canada.com's"}
RULE = {"m2vg@maya.example": "m2vg@maya.example", "m2fz@maya.example": "m2fz@maya.example",
        "a1@jm.example": "m2vg@maya.example", "a2@jm.example": "m2fz@maya.example", "a3@gnus.example": "m2fz@maya.example"}


def test_a_project_of_the_old_rule_is_corrected(tmp_path):
    src = tmp_path / "m.mbox"
    src.write_bytes(mbox(MAILS))
    with Session.create(tmp_path / "p") as s:
        s.ingest([src], workers=0)
        con = s.store.con
        fresh = {r[0]: (r[1], r[2]) for r in con.execute("SELECT message_id, in_reply_to, thread_id FROM messages")}
        assert {m: t for m, (_, t) in fresh.items()} == RULE
        with s.store.transaction():   # as the old rule left it
            for mid, irt in OLD.items():
                con.execute("UPDATE messages SET in_reply_to = ?, thread_id = 'garym@canada.com' WHERE message_id = ?",
                            (irt, mid))
        with s.store.transaction() as c:
            assert reread_reply_ids(c) == 3
        assert {r[0]: (r[1], r[2]) for r in con.execute("SELECT message_id, in_reply_to, thread_id FROM messages")} == fresh
        assert s.complete_index() == 0
        assert sorted(h.doc_id for h in s.search("thread:m2fz@maya.example").hits) == \
            ["a2@jm.example", "a3@gnus.example", "m2fz@maya.example"]
        assert s.search("thread:garym@canada.com").total == 0
        with s.store.transaction() as c:
            assert reread_reply_ids(c) == 0
