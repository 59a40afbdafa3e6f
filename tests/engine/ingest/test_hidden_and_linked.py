"""Hidden folders are read (a Maildir++ '.Drafts' whose empty new/ and tmp/ were lost, a
'.backup' folder of EML files); symbolic links are not followed and say so; nothing is passed
over silently but Finder's .DS_Store and AppleDouble '._' files and maildir tmp/ folders."""
from __future__ import annotations

import os

from mailfactory import msg

from sasc_desktop.engine.ingest.sources import count_messages, iter_source, source_kind
from sasc_desktop.engine.session import Session


SYMLINK = "symbolic link, not followed (it may lead outside the source, or in a loop)"


def _m(subject: str) -> bytes:
    return msg(subject=subject, message_id=f"<{subject}@x>")


def _tree(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.eml").write_bytes(_m("outside"))
    md = tmp_path / "md"
    for d in ("cur", "new", "tmp", ".Sent/cur", ".Sent/new", ".Sent/tmp", ".Drafts/cur", ".backup", ".git/objects"):
        (md / d).mkdir(parents=True, exist_ok=True)
    (md / "cur" / "1.h:2,S").write_bytes(_m("inbox"))
    (md / "tmp" / "2.partial").write_bytes(_m("delivering"))
    (md / ".Sent" / "cur" / "3.h:2,S").write_bytes(_m("sent"))
    (md / ".Drafts" / "cur" / "4.h:2,S").write_bytes(_m("draft"))
    (md / ".backup" / "old.eml").write_bytes(_m("hidden"))
    (md / ".backup" / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    (md / ".backup" / "._old.eml").write_bytes(b"\x00\x05\x16\x07")
    (md / ".hidden.eml").write_bytes(_m("dotfile"))
    (md / ".git" / "objects" / "ab").write_bytes(b"x\x01binary")
    os.symlink(outside / "target.eml", md / "link.eml")
    os.symlink(outside, md / "linkeddir")
    os.symlink(md, md / ".Sent" / "loop")
    return md


def test_items(tmp_path):
    md = _tree(tmp_path)
    assert source_kind(md) == "maildir"
    items = [(i.location.removeprefix(str(md)), i.folder, i.error) for i in iter_source(md)]
    assert items == [
        ("/.git", "md", "hidden folder of a Git repository's data; not mail, not read"),
        ("/.hidden.eml", "md", ""),
        ("/link.eml", "md", SYMLINK),
        ("/linkeddir", "md", SYMLINK),
        ("/.Drafts/cur/4.h:2,S", "md/.Drafts", ""),
        ("/.Sent/loop", "md/.Sent", SYMLINK),
        ("/.Sent/cur/3.h:2,S", "md/.Sent", ""),
        ("/.backup/old.eml", "md/.backup", ""),
        ("/cur/1.h:2,S", "md", ""),
    ]
    assert count_messages(md) == len(items)


def test_maildir_with_cur_only(tmp_path):
    d = tmp_path / "Drafts"
    (d / "cur").mkdir(parents=True)
    (d / "cur" / "1.h:2,S").write_bytes(_m("draft"))
    assert source_kind(d) == "maildir"
    assert [(i.location, i.folder) for i in iter_source(d)] == [(f"{d}/cur/1.h:2,S", "Drafts")]


def test_import_reports_every_skip(tmp_path):
    md = _tree(tmp_path)
    with Session.create(tmp_path / "p") as s:
        report = s.ingest([md], workers=0)
        assert report.ingested == 5
        assert sorted((k.source.removeprefix(str(md)), k.reason) for k in report.skipped) == [
            ("/.Sent/loop", SYMLINK),
            ("/.git", "hidden folder of a Git repository's data; not mail, not read"),
            ("/link.eml", SYMLINK), ("/linkeddir", SYMLINK)]
        assert sorted(h.doc_id for h in s.search("body", limit=20).hits) == \
            ["dotfile@x", "draft@x", "hidden@x", "inbox@x", "sent@x"]
