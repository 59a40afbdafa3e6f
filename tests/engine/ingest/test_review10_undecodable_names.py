"""File and folder names that are not valid UTF-8 (a Latin-1 'résumé.eml' from an old system):
os.walk hands their bytes over as lone surrogates, which SQLite cannot store. The import used
to stop with a UnicodeEncodeError, losing the batch's good messages. Now a stored location or
folder is text with each such byte escaped ('r\\xe9sum\\xe9.eml'), the file is read through its
real path, and a second import finds the same copies (duplicates, not new messages)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mailfactory import mbox, msg

from sasc_desktop.cli import main as sasc
from sasc_desktop.engine.ingest.sources import path_text
from sasc_desktop.engine.session import Session


def latin1(parent: Path, name: bytes) -> Path:
    """``parent / name`` with a name that is not valid UTF-8 (skips where the file system refuses it)."""
    p = Path(os.fsdecode(os.fsencode(parent) + b"/" + name))
    try:
        p.touch()
        p.unlink()
    except (OSError, UnicodeError):
        pytest.skip("this file system keeps no names that are not valid UTF-8")
    return p


def test_path_text():
    assert path_text("/m/a.eml") == "/m/a.eml"
    assert path_text("/m/résumé.eml") == "/m/résumé.eml"        # valid Unicode: as it is
    assert path_text(os.fsdecode(b"/m/r\xe9sum\xe9.eml")) == "/m/r\\xe9sum\\xe9.eml"
    assert path_text(Path(os.fsdecode(b"/d\xefr/b\xf6x.mbox"))) + "#2" == "/d\\xefr/b\\xf6x.mbox#2"


def test_a_folder_with_a_latin1_file_name_imports_both_and_again_adds_nothing(tmp_path, capsys):
    mail = tmp_path / "mail"
    mail.mkdir()
    (mail / "a.eml").write_bytes(b"From: a@x.org\nSubject: ok\nMessage-ID: <ok@x>\n\nfine\n")
    latin1(mail, b"r\xe9sum\xe9.eml").write_bytes(b"From: a@x.org\nSubject: l\nMessage-ID: <l1@x>\n\nfine\n")
    assert sasc(["init", str(tmp_path / "p")]) == 0
    assert sasc(["ingest", str(tmp_path / "p"), str(mail), "--json", "--workers", "0"]) == 0
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert (out["ingested"], out["duplicates"], out["skipped"]) == (2, 0, [])
    with Session.open(tmp_path / "p") as s:
        con = s.store.con
        assert [tuple(r) for r in con.execute("SELECT doc_id, location, folder FROM messages ORDER BY id")] == [
            ("ok@x", f"{mail}/a.eml", "mail"), ("l1@x", f"{mail}/r\\xe9sum\\xe9.eml", "mail")]
        assert s.document("l1@x")["body"] == "fine"
        assert [h.doc_id for h in s.search("fine").hits] == ["ok@x", "l1@x"]
        report = json.loads(con.execute("SELECT report FROM sources").fetchone()[0])
        assert (report["status"], report["ingested"], report["duplicates"], report["skipped"]) == ("done", 2, 0, [])
        again = s.ingest([mail], workers=0)
        assert (again.ingested, again.duplicates, again.skipped) == (0, 2, [])
        assert s.stats()["messages"] == 2 and s.stats()["copies"] == 2


def test_sources_given_directly_with_latin1_names(tmp_path):
    folder = latin1(tmp_path, b"d\xefr")
    folder.mkdir()
    box = latin1(folder, b"b\xf6x.mbox")
    box.write_bytes(mbox([msg("in the box", "mbox body", message_id="<mb1@x>"),
                          msg("second", "more", message_id="<mb2@x>")]))
    eml = latin1(tmp_path, b"r\xe9sum\xe9.eml")
    eml.write_bytes(msg("single", "one file", message_id="<one@x>"))
    shown = str(tmp_path)
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([eml, box], workers=0)
        assert (r.ingested, r.duplicates, r.skipped) == (3, 0, [])
        assert [tuple(x) for x in s.store.con.execute("SELECT path, kind, status FROM sources ORDER BY id")] == [
            (f"{shown}/r\\xe9sum\\xe9.eml", "message", "done"), (f"{shown}/d\\xefr/b\\xf6x.mbox", "mbox", "done")]
        assert [tuple(x) for x in s.store.con.execute("SELECT location, folder FROM copies ORDER BY id")] == [
            (f"{shown}/r\\xe9sum\\xe9.eml", shown.rpartition("/")[2]),
            (f"{shown}/d\\xefr/b\\xf6x.mbox#1", "b\\xf6x"), (f"{shown}/d\\xefr/b\\xf6x.mbox#2", "b\\xf6x")]
        # The folder holding the mbox, then each source again: copies already there, nothing new
        # (the mbox inside the folder is read once, by the folder: review 11)
        again = s.ingest([folder, eml, box], workers=0)
        assert (again.ingested, again.duplicates, again.skipped) == (0, 3, [])
        assert s.stats()["messages"] == 3
        assert [x[0] for x in s.store.con.execute("SELECT path FROM sources ORDER BY id")][2] == f"{shown}/d\\xefr"


def test_unreadable_entries_with_latin1_names_are_skipped_with_their_names_escaped(tmp_path):
    mail = tmp_path / "mail"
    mail.mkdir()
    latin1(mail, b"caf\xe9.eml").write_bytes(b"not mail at all\n")
    link = latin1(mail, b"l\xefnk.eml")
    link.symlink_to(mail / "elsewhere.eml")
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([mail], workers=0)
        assert r.ingested == 0
        assert sorted((x.source, x.reason) for x in r.skipped) == [
            (f"{mail}/caf\\xe9.eml", "no email headers: the first line is not a 'Name: value' header"),
            (f"{mail}/l\\xefnk.eml", "symbolic link, not followed (it may lead outside the source, or in a loop)")]
        assert sorted(d["source"] for d in s.skipped()) == [f"{mail}/caf\\xe9.eml", f"{mail}/l\\xefnk.eml"]


def test_a_pst_and_its_folders_with_latin1_names(tmp_path, monkeypatch):
    # A stand-in for readpst (readpst -q -r -o DIR FILE: $4 is DIR) writing a folder whose name
    # is not valid UTF-8: its messages' locations name the PST and that folder, escaped.
    converted = tmp_path / "converted.mbox"
    converted.write_bytes(mbox([msg("from the pst", "in a folder", message_id="<p1@x>")]))
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "readpst").write_text(f"#!/bin/sh\nd=\"$4/Bo$(printf '\\356')te\"\nmkdir -p \"$d\" && cp \"{converted}\" \"$d/mbox\"\n")
    (bin_ / "readpst").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_}{os.pathsep}/usr/bin{os.pathsep}/bin")
    pst = latin1(tmp_path, b"r\xe9sum\xe9.pst")
    pst.write_bytes(b"!BDN" + b"\x00" * 60)
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([pst], workers=0)
        assert (r.ingested, r.skipped) == (1, [])
        assert [tuple(x) for x in s.store.con.execute("SELECT location, folder FROM messages")] == [
            (f"{tmp_path}/r\\xe9sum\\xe9.pst!Bo\\xeete/mbox#1", "Bo\\xeete")]
        assert [x[0] for x in s.store.con.execute("SELECT path FROM sources")] == [f"{tmp_path}/r\\xe9sum\\xe9.pst"]
