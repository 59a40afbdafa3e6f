"""In-Reply-To and References name Message-IDs, but mailers put other things there:

* exmh/MH write ``In-Reply-To: Message from Gary Murphy <garym@canada.com> of "28 Aug 2002
  ..." <m2vg5u3irk.fsf@maya.dyndns.org>`` (the replied-to person's ADDRESS first, the id last),
  or the address alone; some put an address first in References too;
* Emacs/Gnus writes ``bob@x.example's message of "..."`` (no angle brackets).

The first <...> (or the bare word) was taken as the id: every reply to that person became one
thread named after the address (43 such threads in SpamAssassin, 120 messages, 10 of them
mixing subjects). Real message bytes (headers as the corpus has them), real imports."""
from __future__ import annotations

import pytest
from mailfactory import mbox, msg

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.session import Session


def P(raw: bytes):
    return parse_message(raw, "test#1", "inbox")


def reply(irt: str = "", refs: str = "", *, frm="Justin Mason <jm@jmason.example>",
          to="exmh-users@lists.example", cc="", mid="<r@jmason.example>", subject="Re: Sorting",
          date="Wed, 28 Aug 2002 16:00:00 -0400", body="reply text") -> bytes:
    extra = []
    if cc:
        extra.append(f"Cc: {cc}")
    if irt:
        extra.append(f"In-Reply-To: {irt}")
    if refs:
        extra.append(f"References: {refs}")
    return msg(subject=subject, frm=frm, to=to, message_id=mid, date=date, body=body, extra="\n".join(extra))


# -- parsing: exact values ----------------------------------------------------------------------

@pytest.mark.parametrize("irt, want", [
    # exmh: the replied-to person's address, the date, the id (folded as the corpus has it)
    ('Message from Gary Lawrence Murphy <garym@canada.com> of\n    "28 Aug 2002 15:06:39 EDT."\n'
     '    <m2vg5u3irk.fsf@maya.dyndns.org>', "m2vg5u3irk.fsf@maya.dyndns.org"),
    ('Message from J C Lawrence <claw@kanga.nu> of Tue,\n    10 Sep 2002 01:20:56 PDT '
     '<20020909193637.590BBB1@whatexit.org>\n    <29945.1031646056@kanga.nu>', "29945.1031646056@kanga.nu"),
    # exmh with the address only: no id at all (not the address)
    ('Message from Gary Murphy <garym@canada.com> of "28 Aug 2002 15:06:39 EDT."', ""),
    ('Message from "Craig R.Hughes" <craig@deersoft.com> \n   of "Wed, 14 Aug 2002 22:57:17 PDT."', ""),
    # Emacs/Gnus: no angle brackets; the bare word with an apostrophe is no id
    ('bitbitch@magnesium.net\'s message of "Wed, 4 Sep 2002 23:07:41 -0400"', ""),
    ('ThosStew@aol.com\'s message of "Wed, 24 Jul 2002 09:08:12 EDT"', ""),
    ('Message from owen@permafrost.example of 23 Jul 2002 10:02:42 -0300', ""),
    ('<20020804121426.GA92548@orca.ucd.ie> (Albert White\'s message\n    of\n    "Sun, 4 Aug 2002 13:14:27 +0100")',
     "20020804121426.GA92548@orca.ucd.ie"),
    # mutt
    ('<20020719224739.GC3854@bagend.makalumedia.com>; from niall@linux.ie on Fri, Jul 19, 2002 at 11:47:39PM +0100',
     "20020719224739.GC3854@bagend.makalumedia.com"),
    # the ordinary cases stay as they were
    ("<p@x>", "p@x"),
    ("1234.5678@host.example", "1234.5678@host.example"),
])
def test_in_reply_to(irt, want):
    assert P(reply(irt)).in_reply_to == want


def test_an_address_of_the_message_itself_is_no_id():
    """An id equal to an address in the message's own From/To/Cc/Reply-To is left out (of
    In-Reply-To and of References: the next entry is the root)."""
    m = P(reply("<garym@canada.com>", to="Gary Murphy <garym@canada.com>"))
    assert m.in_reply_to == ""
    # XEmacs VM, SpamAssassin easy-ham-1/00322: the Cc'd person's address first in References
    m = P(reply("<20020821120335.9B96E43C32@phobos.labs.netnoteinc.com>",
                "<rah@shipwright.com> <p05111a3db98832ce18cd@[66.149.49.6]>\n"
                "    <20020821120335.9B96E43C32@phobos.labs.netnoteinc.com>",
                cc='"R. A. Hettinga" <rah@shipwright.com>, fork@xent.example'))
    assert m.in_reply_to == "20020821120335.9B96E43C32@phobos.labs.netnoteinc.com"
    assert m.references == ("p05111a3db98832ce18cd@[66.149.49.6]",
                            "20020821120335.9B96E43C32@phobos.labs.netnoteinc.com")
    # case does not matter; the sender's own address too
    m = P(reply("<Jm@JMason.example>", "<JM@jmason.example> <a@b.example>"))
    assert (m.in_reply_to, m.references) == ("", ("a@b.example",))
    # an id that is nobody's address here is kept
    m = P(reply("<r1@x.example>", "<root@x.example> <r1@x.example>"))
    assert (m.in_reply_to, m.references) == ("r1@x.example", ("root@x.example", "r1@x.example"))


# -- importing: the threads ---------------------------------------------------------------------

GARY = "Gary Lawrence Murphy <garym@canada.com>"


def _project(tmp_path, mails):
    src = tmp_path / "m.mbox"
    src.write_bytes(mbox(mails))
    s = Session.create(tmp_path / "proj")
    r = s.ingest([src], workers=0)
    assert (r.ingested, r.skipped) == (len(mails), [])
    return s


def test_replies_to_one_person_are_not_one_thread_named_by_the_address(tmp_path):
    """Gary's two messages on two subjects, and exmh and Gnus replies to each: two threads, each
    named by Gary's message; none by his address. (Before: 'garym@canada.com' named one thread
    of all four replies, both subjects.)"""
    mails = [
        msg(subject="java is for kiddies", frm=GARY, to="fork@xent.example", message_id="<m2vg5u3irk.fsf@maya.dyndns.org>",
            date="28 Aug 2002 15:06:39 -0400", body="java text"),
        msg(subject="slaughter in the name of god", frm=GARY, to="fork@xent.example",
            message_id="<m2fzw8zn3t.fsf@maya.dyndns.org>", date="17 Sep 2002 10:50:46 -0400", body="other text"),
        reply('Message from Gary Lawrence Murphy <garym@canada.com> of\n    "28 Aug 2002 15:06:39 EDT."\n'
              "    <m2vg5u3irk.fsf@maya.dyndns.org>", mid="<a1@jm.example>", subject="Re: java is for kiddies",
              to="fork@xent.example", date="Wed, 28 Aug 2002 21:00:00 +0100"),
        reply('Message from Gary Lawrence Murphy <garym@canada.com> of\n    "17 Sep 2002 10:50:46 EDT."\n'
              "    <m2fzw8zn3t.fsf@maya.dyndns.org>", mid="<a2@jm.example>",
              subject="Re: slaughter in the name of god", to="fork@xent.example", date="Tue, 17 Sep 2002 18:00:00 +0100"),
        # a Gnus reply: no id in its In-Reply-To; threaded by its subject (it is to Gary)
        reply('garym@canada.com\'s message of "28 Aug 2002 15:06:39 -0400"', mid="<a3@gnus.example>",
              frm="Tom <tom@gnus.example>", subject="Re: java is for kiddies", to=f"{GARY}, fork@xent.example",
              date="Wed, 28 Aug 2002 22:00:00 +0100"),
        # exmh naming only the address, on the other subject
        reply('Message from Gary Lawrence Murphy <garym@canada.com> of "17 Sep 2002 10:50:46 EDT."',
              mid="<a4@exmh.example>", frm="Ann <ann@exmh.example>", subject="Re: slaughter in the name of god",
              to=f"{GARY}, fork@xent.example", date="Tue, 17 Sep 2002 19:00:00 +0100"),
    ]
    s = _project(tmp_path, mails)
    try:
        got = {r[0]: r[1] for r in s.store.con.execute("SELECT message_id, thread_id FROM messages")}
        java, god = "m2vg5u3irk.fsf@maya.dyndns.org", "m2fzw8zn3t.fsf@maya.dyndns.org"
        assert got == {java: java, god: god, "a1@jm.example": java, "a2@jm.example": god,
                       "a3@gnus.example": java, "a4@exmh.example": god}
        assert {h.doc_id for h in s.search("thread:garym@canada.com", limit=10).hits} == set()
    finally:
        s.close()


# -- the real corpus ----------------------------------------------------------------------------

def _address_named_threads(con) -> dict[str, int]:
    """Threads named by an address someone sends from and that no stored message has as its
    Message-ID: {thread: messages}."""
    senders = {r[0] for r in con.execute("SELECT DISTINCT from_addr FROM messages WHERE from_addr <> ''")}
    mids = {r[0] for r in con.execute("SELECT message_id FROM messages")}
    out: dict[str, int] = {}
    for (t,) in con.execute("SELECT thread_id FROM messages"):
        if t in senders and t not in mids:
            out[t] = out.get(t, 0) + 1
    return out


@pytest.mark.slow
def test_spamassassin_threads_named_by_an_address(shared_data, tmp_path):
    """The whole SpamAssassin corpus: 43 threads of 120 messages were named by an address
    before; two of one message each are left: easy-ham-1/01392 (Mutt) and 01511 (Gnus) have
    <schaefer@zanshin.com> and <mkettler@evi-inc.com> first in their References, an address of
    nobody on the message (nothing there tells it from an id). The two
    Eudora replies join their parents, and no stored id holds '<' or an apostrophe."""
    src = (shared_data / "spamassassin").resolve()
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([src], workers=2)
        assert r.ingested == 6046
        con = s.store.con
        assert _address_named_threads(con) == {"schaefer@zanshin.com": 1, "mkettler@evi-inc.com": 1}
        bad = con.execute("SELECT COUNT(*) FROM messages WHERE message_id GLOB '*[<>'' ]*' "
                          "OR in_reply_to GLOB '*[<>'' ]*' OR refs GLOB '*[<>'']*'").fetchone()[0]
        assert bad == 0

        def thread(name):
            loc = next(p for p in (src / "easy-ham-1").glob(f"{name}.*"))
            return con.execute("SELECT thread_id, in_reply_to FROM messages WHERE location = ?",
                               (f"{loc}#1",)).fetchone()
        for name, parent in (("00837", "Pine.LNX.4.33.0209301737140.13187-100000@hydrogen.leitl.org"),
                             ("00314", "Pine.LNX.4.33.0208240101180.25180-100000@watcher.mithral.com")):
            t, irt = thread(name)
            assert irt == parent
            assert t == con.execute("SELECT thread_id FROM messages WHERE message_id = ?", (parent,)).fetchone()[0]
