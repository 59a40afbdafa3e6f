"""A source's status tells how its last import ended: done, cancelled, interrupted (Ctrl+C, or a
killed import found later), failed. Never 'running' for an import that no longer runs.
Real projects, real mail, a real killed `sasc ingest` process, the real OS import lock."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mailfactory import mbox, msg

from sasc_desktop.engine.errors import InputError, ProjectError
from sasc_desktop.engine.ingest.importer import ANOTHER_IMPORT, IMPORT_LOCK
from sasc_desktop.engine.procpool import try_lock_file, unlock_file
from sasc_desktop.engine.progress import Progress
from sasc_desktop.engine.session import Session

ROOT = Path(__file__).resolve().parents[3]
CLI = [sys.executable, "-m", "sasc_desktop.cli"]


def statuses(proj: Path) -> dict[str, tuple[str, dict | None]]:
    """path -> (status, report), read straight from the database (nothing settled on the way)."""
    con = sqlite3.connect(f"file:{proj / 'project.sqlite'}?mode=ro", uri=True)
    try:
        return {p: (st, json.loads(r) if r else None) for p, st, r in con.execute("SELECT path, status, report FROM sources")}
    finally:
        con.close()


def stats_statuses(proj: Path) -> dict[str, str]:
    r = subprocess.run([*CLI, "stats", str(proj), "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return {s["path"]: s["status"] for s in json.loads(r.stdout)["sources"]}


@pytest.fixture
def big(tmp_path) -> Path:
    src = tmp_path / "big.mbox"
    src.write_bytes(mbox([msg(message_id=f"<s{n}@x>", subject=f"status test {n}") for n in range(1600)]))
    return src


def test_cancelled_import_is_cancelled_with_its_counts_and_a_rerun_is_done(tmp_path, big):
    proj = tmp_path / "p"
    with Session.create(proj) as s:
        progress = Progress(lambda done, total, m: progress.cancel() if done >= 500 else None)
        r = s.ingest([big], progress, workers=0)
        assert r.cancelled and 500 <= r.ingested < 1600
        status, report = statuses(proj)[str(big)]
        assert status == "cancelled"
        assert (report["status"], report["ingested"], report["duplicates"], report["skipped"]) == \
            ("cancelled", r.ingested, 0, [])
        assert s.stats()["sources"][0]["status"] == "cancelled"
    assert stats_statuses(proj) == {str(big): "cancelled"}
    with Session.open(proj) as s:
        r2 = s.ingest([big], workers=0)
    assert (r2.ingested, r2.duplicates, r2.cancelled) == (1600 - r.ingested, r.ingested, False)
    status, report = statuses(proj)[str(big)]
    assert status == "done" and (report["ingested"], report["duplicates"]) == (1600 - r.ingested, r.ingested)


def test_interrupted_import_is_interrupted(tmp_path, big):
    """Ctrl+C raises KeyboardInterrupt in the main thread, where progress is reported."""
    other = tmp_path / "small.mbox"
    other.write_bytes(mbox([msg(message_id="<o1@x>"), msg(message_id="<o2@x>", subject="two")]))
    proj = tmp_path / "p"

    def press(done, total, message):
        if done >= 502:
            raise KeyboardInterrupt

    with Session.create(proj) as s:
        with pytest.raises(KeyboardInterrupt):
            s.ingest([other, big], Progress(press), workers=0)
        stored = s.store.count_messages()
    got = statuses(proj)
    assert got[str(other)][0] == "done" and got[str(other)][1]["ingested"] == 2
    status, report = got[str(big)]
    assert status == "interrupted" and report["ingested"] == stored - 2 > 0
    assert stats_statuses(proj) == {str(other): "done", str(big): "interrupted"}


def test_failed_import_is_failed_with_its_error(tmp_path, monkeypatch):
    # A PST given directly without readpst is refused before anything is written (see
    # test_pst_given_directly.py); one readpst fails on is known only by running it. readpst is
    # a stand-in script here that fails as readpst does on a file it cannot read.
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "readpst").write_text('#!/bin/sh\necho "Error opening File" >&2\nexit 1\n')
    (bin_ / "readpst").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_}{os.pathsep}/usr/bin{os.pathsep}/bin")
    pst = tmp_path / "mail.pst"
    pst.write_bytes(b"!BDN" + b"\0" * 512)
    proj = tmp_path / "p"
    with Session.create(proj) as s:
        with pytest.raises(InputError) as caught:
            s.ingest([pst], workers=0)
    status, report = statuses(proj)[str(pst)]
    assert status == "failed" and report["error"] == str(caught.value) and "readpst" in report["error"]


def _kill_an_import(tmp_path: Path, n: int = 6000) -> tuple[Path, Path, int]:
    src = tmp_path / "big.mbox"
    src.write_bytes(mbox([msg(message_id=f"<k{i}@x>", subject=f"kill test {i}",
                              body=f"message number {i} about the pipeline " * 20) for i in range(n)]))
    proj = tmp_path / "p"
    Session.create(proj).close()
    proc = subprocess.Popen([*CLI, "ingest", str(proj), str(src), "--workers", "0"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    count = 0
    while time.monotonic() < deadline and proc.poll() is None and count < 500:
        time.sleep(0.05)
        try:
            con = sqlite3.connect(f"file:{proj / 'project.sqlite'}?mode=ro", uri=True, timeout=1)
            count = con.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
            con.close()
        except sqlite3.Error:
            continue
    assert proc.poll() is None, "the import finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return proj, src, n


def test_killed_import_shows_interrupted_and_a_rerun_is_done(tmp_path):
    proj, src, n = _kill_an_import(tmp_path)
    assert statuses(proj)[str(src)][0] == "running"  # a killed process wrote nothing more
    lock = proj / "index" / IMPORT_LOCK
    # While an import holds the project's import lock, its 'running' is true: left alone.
    fd, held = try_lock_file(lock)
    assert fd is not None and not held
    try:
        with Session.open(proj) as s:
            assert s.stats()["sources"][0]["status"] == "running"
            with pytest.raises(ProjectError) as busy:  # and a second import is refused, clearly
                s.ingest([src], workers=0)
            assert str(busy.value) == ANOTHER_IMPORT
        assert statuses(proj)[str(src)][0] == "running"
    finally:
        unlock_file(fd)
    # Nobody holds it: the import that marked it running is gone.
    assert stats_statuses(proj) == {str(src): "interrupted"}
    with Session.open(proj) as s:
        stored = s.store.count_messages()
        r = s.ingest([src], workers=0)
        assert (r.ingested, r.duplicates) == (n - stored, stored)
        assert s.stats()["sources"][0]["status"] == "done"


def test_killed_import_settled_by_the_next_import_of_another_source(tmp_path):
    proj, src, _ = _kill_an_import(tmp_path)
    other = tmp_path / "other.mbox"
    other.write_bytes(mbox([msg(message_id="<other@x>")]))
    r = subprocess.run([*CLI, "ingest", str(proj), str(other), "--json"], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = statuses(proj)
    assert (got[str(src)][0], got[str(other)][0]) == ("interrupted", "done")


def test_a_cancel_after_the_last_message_is_stored_still_returns_the_whole_report(tmp_path):
    """Cancel pressed as the import finishes (the GUI's button, a moment late): everything was
    imported, so the caller gets the report of a whole import, not Cancelled with no report
    (the GUI then said 'cancelled, 0 new messages' while 20 were kept)."""
    src = tmp_path / "a.mbox"
    src.write_bytes(mbox([msg(f"s{i}", f"body {i}", message_id=f"<late{i}@x>") for i in range(20)]))
    progress = Progress()
    progress._callback = lambda done, total, message: progress.cancel() if message == "finished" else None
    with Session.create(tmp_path / "p") as s:
        report = s.ingest([src], progress=progress, workers=0)
        assert (report.ingested, report.cancelled) == (20, False)
        assert [tuple(r) for r in s.store.con.execute("SELECT status FROM sources")] == [("done",)]
        assert s.search("body", limit=50).total == 20
