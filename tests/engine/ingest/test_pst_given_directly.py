"""A PST given directly to an import that cannot be read (no readpst, or not a PST at all) is
refused before anything is written, naming the file: the import never stops part-way with the
sources before it imported and those after it never read. A PST inside a folder is still
skipped with a recorded reason while the rest is imported.

readpst (libpst) is not installed on the test machines, and PATH is set per test, so every test
runs whether or not it is: "no readpst" is a PATH without it; "readpst present" is a small
stand-in script with readpst's command line (``-q -r -o DIR FILE``) that writes what readpst
writes (mbox files under DIR), or fails as readpst does on a file it cannot read."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mailfactory import mbox, msg

from sasc_desktop.engine.errors import InputError
from sasc_desktop.engine.ingest.sources import NO_READPST, NOT_PST, checked_source_kind
from sasc_desktop.engine.session import Session

ROOT = Path(__file__).resolve().parents[3]
PST = b"!BDN" + b"\0" * 512


def _tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` -> the digest of its bytes: any write shows."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _settled(proj: Path) -> dict[str, str]:
    """The files of a closed project, after one open and close (opening makes the import lock
    file; closing checkpoints the database): what a refused import must leave exactly so."""
    Session.open(proj).close()
    return _tree(proj)


def _sources(tmp_path: Path) -> tuple[Path, Path, Path]:
    box = tmp_path / "box.mbox"
    box.write_bytes(mbox([msg(message_id="<b1@x>", subject="from the mbox")]))
    pst = tmp_path / "sig.pst"
    pst.write_bytes(PST)
    maildir = tmp_path / "maildir"
    for sub in ("cur", "new", "tmp"):
        (maildir / sub).mkdir(parents=True)
    (maildir / "cur" / "1:2,S").write_bytes(msg(message_id="<m1@x>", subject="from the maildir"))
    return box, pst, maildir


def _no_readpst(tmp_path: Path, monkeypatch) -> Path:
    empty = tmp_path / "no-programs"
    empty.mkdir(exist_ok=True)
    monkeypatch.setenv("PATH", str(empty))
    return empty


def _stand_in_readpst(tmp_path: Path, monkeypatch, script: str) -> None:
    bin_ = tmp_path / "bin"
    bin_.mkdir(exist_ok=True)
    exe = bin_ / "readpst"
    exe.write_text("#!/bin/sh\n" + script)
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_}{os.pathsep}/usr/bin{os.pathsep}/bin")


def _messages(s) -> list[str]:
    return sorted(r[0] for r in s.store.con.execute("SELECT doc_id FROM messages"))


def test_without_readpst_a_pst_given_directly_refuses_the_whole_import_and_writes_nothing(tmp_path, monkeypatch):
    box, pst, maildir = _sources(tmp_path)
    _no_readpst(tmp_path, monkeypatch)
    proj = tmp_path / "proj"
    Session.create(proj).close()
    before = _settled(proj)
    with Session.open(proj) as s:
        with pytest.raises(InputError) as caught:
            s.ingest([box, pst, maildir], workers=0)
        assert str(caught.value) == f"{pst}: {NO_READPST}"
        assert "needs the 'readpst' program" in str(caught.value)
        assert _messages(s) == []
        assert s.store.con.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 0
        assert s.search("mbox OR maildir").total == 0
    assert _tree(proj) == before
    # the PST left out, the same command imports the rest
    with Session.open(proj) as s:
        assert s.ingest([box, maildir], workers=0).ingested == 2
        assert _messages(s) == ["b1@x", "m1@x"]


def test_a_pst_named_file_that_is_no_pst_given_directly_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    box, _, maildir = _sources(tmp_path)
    fake = tmp_path / "notes.pst"
    fake.write_bytes(b"not an outlook file")
    _stand_in_readpst(tmp_path, monkeypatch, "exit 0\n")     # readpst present: the signature still decides
    proj = tmp_path / "proj"
    Session.create(proj).close()
    before = _settled(proj)
    with Session.open(proj) as s:
        with pytest.raises(InputError) as caught:
            s.ingest([box, fake, maildir], workers=0)
        assert str(caught.value) == f"{fake}: {NOT_PST}"
        assert s.store.con.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 0
    assert _tree(proj) == before


def test_the_cli_refuses_the_reviewers_repro_with_rc_2_and_writes_nothing(tmp_path):
    box, pst, maildir = _sources(tmp_path)
    proj = tmp_path / "i4"
    Session.create(proj).close()
    before = _settled(proj)
    empty = tmp_path / "no-programs"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty), "SASC_BLOCK_QT": "1"}
    r = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", "ingest", str(proj), str(box), str(pst), str(maildir)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == f"sasc: error: {pst}: {NO_READPST}"
    assert _tree(proj) == before


def test_without_readpst_a_pst_inside_a_folder_is_still_skipped_and_the_rest_imported(tmp_path, monkeypatch):
    box, _, maildir = _sources(tmp_path)
    folder = tmp_path / "archive"
    folder.mkdir()
    (folder / "outlook.pst").write_bytes(PST)
    (folder / "a.eml").write_bytes(msg(message_id="<a@x>", subject="in the folder"))
    _no_readpst(tmp_path, monkeypatch)
    with Session.create(tmp_path / "proj") as s:
        report = s.ingest([box, folder, maildir], workers=0)
        assert report.ingested == 3
        assert [(x.source, x.reason) for x in report.skipped] == [(str(folder / "outlook.pst"), NO_READPST)]
        assert _messages(s) == ["a@x", "b1@x", "m1@x"]


def test_with_readpst_a_pst_given_directly_is_read_with_the_other_sources(tmp_path, monkeypatch):
    box, pst, maildir = _sources(tmp_path)
    converted = mbox([msg(message_id="<p1@x>", subject="from the pst"), msg(message_id="<p2@x>", subject="also")])
    (tmp_path / "converted.mbox").write_bytes(converted)
    # readpst -q -r -o DIR FILE ($4 is DIR) writes DIR/<folder>/mbox
    _stand_in_readpst(tmp_path, monkeypatch,
                      f'mkdir -p "$4/Inbox" && cp "{tmp_path / "converted.mbox"}" "$4/Inbox/mbox"\n')
    assert checked_source_kind(pst) == "pst"
    with Session.create(tmp_path / "proj") as s:
        report = s.ingest([box, pst, maildir], workers=0)
        assert report.ingested == 4 and report.skipped == []
        assert _messages(s) == ["b1@x", "m1@x", "p1@x", "p2@x"]
        locations = sorted(r[0] for r in s.store.con.execute("SELECT location FROM messages WHERE doc_id LIKE 'p%'"))
        assert locations == [f"{pst}!Inbox/mbox#1", f"{pst}!Inbox/mbox#2"]


def test_with_readpst_a_pst_it_cannot_read_fails_its_source_with_readpsts_error(tmp_path, monkeypatch):
    """readpst present but unable to read the file: that is known only by running it, so the
    import of that source fails with readpst's message (the sources before it are kept)."""
    box, pst, _ = _sources(tmp_path)
    _stand_in_readpst(tmp_path, monkeypatch, 'echo "Error opening File" >&2\nexit 1\n')
    proj = tmp_path / "proj"
    with Session.create(proj) as s:
        with pytest.raises(InputError) as caught:
            s.ingest([box, pst], workers=0)
        assert str(caught.value) == f"{pst}: readpst could not read it: Error opening File"
        assert _messages(s) == ["b1@x"]
        rows = dict(tuple(r) for r in s.store.con.execute("SELECT path, status FROM sources"))
    assert rows == {str(box): "done", str(pst): "failed"}
