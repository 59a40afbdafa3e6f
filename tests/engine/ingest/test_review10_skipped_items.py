"""Skipped items: a location skipped by an import stays skipped only until its mail is stored
(the file fixed, then imported again: 'sasc stats' said 'skipped: 1' for ever). And the reasons
can be read after the import: 'sasc stats DIR --skipped' lists them (plain: one a line, escaped;
--json: skipped_items, only when asked, the other keys unchanged)."""
from __future__ import annotations

import json

from mailfactory import mbox, msg

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.session import Session

NO_HEADERS = "no email headers: the first line is not a 'Name: value' header"
STATS_KEYS = ["project", "messages", "copies", "attachments", "threads", "people", "skipped", "sources",
              "first_date", "last_date", "unindexed", "personas", "topics"]


def test_a_fixed_file_is_skipped_no_longer(tmp_path):
    mail = tmp_path / "mail"
    mail.mkdir()
    (mail / "good.eml").write_bytes(msg("good", "fine", message_id="<g@x>"))
    (mail / "bad.eml").write_bytes(b"not mail\n")
    (mail / "copy.eml").write_bytes(b"not mail either\n")
    box = tmp_path / "b.mbox"
    box.write_bytes(mbox([msg("one", "1", message_id="<m1@x>"), b"garbage line\n"]))
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([mail, box], workers=0)
        assert (r.ingested, len(r.skipped)) == (2, 3)
        assert s.stats()["skipped"] == 3
        (mail / "bad.eml").write_bytes(msg("fixed", "mended", message_id="<b@x>"))
        (mail / "copy.eml").write_bytes(msg("good", "fine", message_id="<g@x>"))   # the same bytes as good.eml
        again = s.ingest([mail], workers=0)
        assert (again.ingested, again.duplicates, again.skipped) == (1, 2, [])
        assert s.skipped() == [{"source": f"{box}#2", "reason": NO_HEADERS}]
        box.write_bytes(mbox([msg("one", "1", message_id="<m1@x>"), msg("two", "2", message_id="<m2@x>")]))
        third = s.ingest([box], workers=0)
        assert (third.ingested, third.duplicates, third.skipped) == (1, 1, [])
        assert s.skipped() == [] and s.stats()["skipped"] == 0


def test_a_skip_recorded_again_is_kept(tmp_path):
    mail = tmp_path / "mail"
    mail.mkdir()
    (mail / "bad.eml").write_bytes(b"not mail\n")
    with Session.create(tmp_path / "p") as s:
        s.ingest([mail], workers=0)
        s.ingest([mail], workers=0)
        assert s.skipped() == [{"source": str(mail / "bad.eml"), "reason": NO_HEADERS}]


def test_stats_lists_skipped_items(tmp_path, capsys):
    mail = tmp_path / "mail"
    mail.mkdir()
    (mail / "good.eml").write_bytes(msg("good", "fine", message_id="<g@x>"))
    (mail / "bad\nname.eml").write_bytes(b"\x1b[31mred\n")
    (mail / "b.pst").write_bytes(b"not a pst")
    with Session.create(tmp_path / "p") as s:
        s.ingest([mail], workers=0)
    root = str(tmp_path / "p")

    assert sasc(["stats", root, "--json"]) == 0
    plain_json = json.loads(capsys.readouterr().out)
    assert list(plain_json) == STATS_KEYS and plain_json["skipped"] == 2

    assert sasc(["stats", root, "--json", "--skipped"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == STATS_KEYS + ["skipped_items"]
    assert {k: v for k, v in out.items() if k != "skipped_items"} == plain_json
    assert out["skipped_items"] == [
        {"location": f"{mail}/b.pst",
         "reason": "named .pst but not an Outlook PST file (it does not start with the PST signature)"},
        {"location": f"{mail}/bad\nname.eml", "reason": NO_HEADERS}]

    assert sasc(["stats", root, "--skipped"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[6] == "     skipped: 2"
    assert lines[-3:] == [
        "skipped items (location, reason):",
        f"  {mail}/b.pst\tnamed .pst but not an Outlook PST file (it does not start with the PST signature)",
        f"  {mail}/bad\\nname.eml\t{NO_HEADERS}"]
    assert sasc(["stats", root]) == 0
    assert "skipped items" not in capsys.readouterr().out


def test_a_pst_skipped_for_want_of_readpst_is_skipped_no_longer_once_read(tmp_path, monkeypatch):
    """Without readpst a PST in a folder is skipped under its own path; its messages, once read,
    are stored as '<pst>!Inbox/mbox#1': the skip named the PST and stayed for ever."""
    import os
    mail = tmp_path / "mail"
    mail.mkdir()
    (mail / "box.pst").write_bytes(b"!BDN" + b"\0" * 512)
    empty = tmp_path / "no-programs"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with Session.create(tmp_path / "p") as s:
        first = s.ingest([mail], workers=0)
        assert first.ingested == 0 and [k.source for k in first.skipped] == [str(mail / "box.pst")]
        assert s.stats()["skipped"] == 1
        bin_ = tmp_path / "bin"
        bin_.mkdir()
        exe = bin_ / "readpst"       # a stand-in with readpst's command line (-q -r -o DIR FILE)
        exe.write_text('#!/bin/sh\nout="$4"; mkdir -p "$out/Inbox"\n'
                       "printf 'From a@x.com Mon Mar  5 10:05:15 2001\\nFrom: a@x.com\\nSubject: pst one\\n"
                       "Message-ID: <pst1@x>\\n\\npst body\\n' > \"$out/Inbox/mbox\"\n")
        exe.chmod(0o755)
        monkeypatch.setenv("PATH", f"{bin_}{os.pathsep}/usr/bin{os.pathsep}/bin")
        second = s.ingest([mail], workers=0)
        assert (second.ingested, second.skipped) == (1, [])
        assert s.store.con.execute("SELECT location FROM messages").fetchone()[0].startswith(f"{mail / 'box.pst'}!")
        assert s.skipped() == [] and s.stats()["skipped"] == 0
