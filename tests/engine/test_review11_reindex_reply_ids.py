"""'sasc reindex' reads reply ids again by the current rule: a project imported when an address
in In-Reply-To was taken for a Message-ID (exmh's 'Message from Gary <garym@...> of "date"')
had unrelated replies to one person in one thread named by the address; a rebuild now parts
them. Real mail bytes, real ingest, the real CLI."""
from __future__ import annotations

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.session import Session


def _mail(mid: str, date: str, subject: str) -> str:
    return (f"Message-ID: <{mid}@phobos.example>\nDate: {date}\nFrom: jm@phobos.example\n"
            f"To: Gary <garym@canada.example>\nSubject: {subject}\n"
            f"In-Reply-To: Message from Gary <garym@canada.example> of\n    \"28 Aug 2002 15:06:39 EDT.\"\n\nbody\n")


def test_reindex_parts_replies_an_old_rule_joined_by_an_address(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "a.eml").write_text(_mail("a1", "Thu, 29 Aug 2002 11:24:39 +0100", "Re: Java is for kiddies"))
    (tmp_path / "m" / "b.eml").write_text(_mail("b1", "Tue, 17 Sep 2002 17:50:23 +0100", "Re: Slaughter"))
    root = tmp_path / "p"
    with Session.create(root) as s:
        s.ingest([tmp_path / "m"], workers=0)
        threads = dict(s.store.con.execute("SELECT doc_id, thread_id FROM messages"))
        assert threads == {"a1@phobos.example": "a1@phobos.example", "b1@phobos.example": "b1@phobos.example"}
        with s.store.transaction() as con:      # the project as the old rule stored it
            con.execute("UPDATE messages SET in_reply_to = 'garym@canada.example', thread_id = 'garym@canada.example'")
    with Session.open(root) as s:
        assert len(s.search("thread:garym@canada.example").hits) == 0       # (the index still says apart)
    assert sasc(["reindex", str(root)]) == 0
    with Session.open(root) as s:
        assert dict(s.store.con.execute("SELECT doc_id, in_reply_to FROM messages")) == {
            "a1@phobos.example": "", "b1@phobos.example": ""}
        assert dict(s.store.con.execute("SELECT doc_id, thread_id FROM messages")) == threads
        assert {h.doc_id for h in s.search("thread:a1@phobos.example").hits} == {"a1@phobos.example"}
