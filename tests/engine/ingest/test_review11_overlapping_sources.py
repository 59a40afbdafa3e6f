"""Sources given to one import that name the same place twice ('junk' and 'junk/'), or a file or
folder inside a folder also given ('junk/screenshot.png' with 'junk'), were each read: `sasc
ingest P junk junk/ junk/screenshot.png` reported 'skipped 7' against 3 stored and counted the
messages twice in its progress. The sources are now resolved, the same one kept once and one
inside a folder source dropped: each file is read, counted and reported once. Real files, a
real import and the real CLI."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mailfactory import msg

from sasc_desktop.engine.progress import Progress
from sasc_desktop.engine.session import Session

ROOT = Path(__file__).resolve().parents[3]
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"


def _junk(tmp_path) -> Path:
    junk = tmp_path / "junk"
    (junk / "sub").mkdir(parents=True)
    (junk / "a.eml").write_bytes(msg(subject="alpha", message_id="<a@x>"))
    (junk / "b.eml").write_bytes(msg(subject="beta", message_id="<b@x>"))
    (junk / "sub" / "c.eml").write_bytes(msg(subject="gamma", message_id="<c@x>"))
    (junk / "screenshot.png").write_bytes(PNG)
    (junk / "notes.txt").write_bytes(b"shopping list\nmilk\n")
    return junk


def test_each_file_read_once(tmp_path, monkeypatch):
    junk = _junk(tmp_path)
    seen = []
    monkeypatch.chdir(tmp_path)  # (relative sources, as typed)
    with Session.create(tmp_path / "p") as s:
        r = s.ingest(["junk", "junk/", "junk/screenshot.png", str(junk / "sub"), "./junk/a.eml", junk],
                     progress=Progress(lambda done, total, message: seen.append((done, total))), workers=0)
        assert (r.ingested, r.duplicates) == (3, 0)
        assert sorted((Path(x.source).name, x.reason.split(":")[0].split(" (")[0]) for x in r.skipped) == [
            ("notes.txt", "no email headers"), ("screenshot.png", "binary data, not an email message")]
        assert seen[0] == (0, 5) and seen[-1] == (5, 5)
        assert [tuple(x) for x in s.store.con.execute("SELECT path, status FROM sources")] == [(str(junk), "done")]
        assert s.stats()["copies"] == 3
        # the same again: nothing new, each file once
        r = s.ingest([junk / "sub", "junk"], workers=0)
        assert (r.ingested, r.duplicates, len(r.skipped)) == (0, 3, 2)


def test_separate_places_are_all_read(tmp_path):
    """A file beside a folder (not in it), and a folder whose name starts like another's, are
    their own sources."""
    junk = _junk(tmp_path)
    (tmp_path / "junk2").mkdir()
    (tmp_path / "junk2" / "d.eml").write_bytes(msg(subject="delta", message_id="<d@x>"))
    (tmp_path / "e.eml").write_bytes(msg(subject="epsilon", message_id="<e@x>"))
    with Session.create(tmp_path / "p") as s:
        r = s.ingest([tmp_path / "e.eml", junk / "sub", tmp_path / "junk2"], workers=0)
        assert (r.ingested, r.duplicates, r.skipped) == (3, 0, [])
        assert [x[0] for x in s.store.con.execute("SELECT path FROM sources ORDER BY id")] == \
            [str(tmp_path / "e.eml"), str(junk / "sub"), str(tmp_path / "junk2")]


def test_the_reviewers_command(tmp_path):
    _junk(tmp_path)
    env = dict(os.environ, SASC_BLOCK_QT="1", PYTHONPATH=str(ROOT))
    run = lambda *a: subprocess.run([sys.executable, "-m", "sasc_desktop.cli", *a], cwd=tmp_path, env=env,  # noqa: E731
                                    capture_output=True, text=True, timeout=120)
    assert run("init", "P").returncode == 0
    done = run("ingest", "--json", "--workers", "0", "P", "junk", "junk/", "junk/screenshot.png")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["ingested"], report["duplicates"], len(report["skipped"])) == (3, 0, 2)


def test_a_missing_path_inside_a_folder_source_is_still_refused(tmp_path):
    """Dropping sources inside a folder source came before the check that each exists: a typo
    under a folder also given was accepted silently (exit 0) instead of 'no such file or folder'."""
    import pytest

    from sasc_desktop.engine.errors import InputError
    junk = _junk(tmp_path)
    with Session.create(tmp_path / "p") as s:
        with pytest.raises(InputError, match="no such file or folder"):
            s.ingest([junk, junk / "nonexistent.mbox"], workers=0)
        assert s.store.con.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 0
