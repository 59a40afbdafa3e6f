"""A Message-ID broken by a space inside its angle brackets (Eudora: ``In-Reply-To:
<Pine.LNX.4.33.0209301737140.13187-100000@hydrogen.leitl.or g>``) was stored truncated with a
leading '<' ('<Pine...leitl.or'), splitting the reply from its parent (SpamAssassin
easy-ham-1/00837 and 00314). The whitespace inside <...> is removed before the id is read, and
a word read without its brackets never keeps a '<'. Real bytes, real imports; the corpus files
themselves where present."""
from __future__ import annotations

import pytest
from mailfactory import mbox, msg

from sasc_desktop.engine.ingest.parse import parse_message
from sasc_desktop.engine.session import Session


def P(raw: bytes):
    return parse_message(raw, "test#1", "inbox")


def mail(*, mid="<r@x.example>", irt="", refs="") -> bytes:
    extra = [f"In-Reply-To: {irt}"] if irt else []
    extra += [f"References: {refs}"] if refs else []
    return msg(message_id=mid, extra="\n".join(extra))


@pytest.mark.parametrize("irt, want", [
    ("<Pine.LNX.4.33.0209301737140.13187-100000@hydrogen.leitl.or g>",
     "Pine.LNX.4.33.0209301737140.13187-100000@hydrogen.leitl.org"),
    ("<Pine.LNX.4.33.0208240101180.25180-100000@watcher.mithral.c om>",
     "Pine.LNX.4.33.0208240101180.25180-100000@watcher.mithral.com"),
    ("<a@b.example\n  >", "a@b.example"),
    ("<p@x>", "p@x"),
    ("<unclosed@host.example", "unclosed@host.example"),
    ("1234.5678@host.example", "1234.5678@host.example"),
])
def test_in_reply_to(irt, want):
    assert P(mail(irt=irt)).in_reply_to == want


def test_message_id_and_references():
    assert P(mail(mid="<Pine.LNX.4.44.0208290714450.30051-100000@aztec.zan shin.com>")).message_id == \
        "Pine.LNX.4.44.0208290714450.30051-100000@aztec.zanshin.com"
    assert P(mail(mid="<\n  abc@host.example>")).message_id == "abc@host.example"
    assert P(mail(mid="<abc@host.example")).message_id == "abc@host.example"
    assert P(mail(mid="abc@host.example>")).message_id == "abc@host.example"
    assert P(mail(refs="<a@b.exa mple>\n <c@d.example>")).references == ("a@b.example", "c@d.example")


def test_a_reply_whose_parent_id_has_a_space_joins_it(tmp_path):
    """easy-ham-1/00837's headers: the reply, imported first, and its parent are one thread."""
    pid = "Pine.LNX.4.33.0209301737140.13187-100000@hydrogen.leitl.org"
    parent = msg(subject="lexical analysis", frm="Eugen Leitl <eugen@leitl.example>", to="fork@xent.example",
                 message_id=f"<{pid}>", date="Mon, 30 Sep 2002 17:38:00 +0200")
    child = msg(subject="Re: lexical analysis", frm="B. K. DeLong <bkdelong@brain.example>",
                to="fork@xent.example", message_id="<5.0.2.1.2@brain.example>", date="Tue, 01 Oct 2002 10:05:32 -0400",
                extra="In-Reply-To: <Pine.LNX.4.33.0209301737140.13187-100000@hydrogen.leitl.or g>")
    src = tmp_path / "m.mbox"
    src.write_bytes(mbox([child, parent]))
    with Session.create(tmp_path / "proj") as s:
        s.ingest([src], workers=0)
        rows = s.store.con.execute("SELECT message_id, in_reply_to, thread_id FROM messages ORDER BY id").fetchall()
        assert [tuple(r) for r in rows] == [("5.0.2.1.2@brain.example", pid, pid), (pid, "", pid)]


def test_the_spamassassin_replies_name_their_stored_parents(shared_data):
    """easy-ham-1/00837 and 00314 (Eudora) name, read so, the Message-IDs of 00814 and 00078."""
    ham = (shared_data / "spamassassin" / "easy-ham-1").resolve()

    def parsed(name):
        path = next(ham.glob(f"{name}.*"))
        return parse_message(path.read_bytes(), str(path))
    for reply, parent in (("00837", "00814"), ("00314", "00078")):
        assert parsed(reply).in_reply_to == parsed(parent).message_id
        assert "<" not in parsed(reply).in_reply_to
