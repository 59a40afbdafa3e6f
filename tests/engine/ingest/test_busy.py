"""An import into a project another program is writing to (it holds SQLite's write lock) fails
with the store's clear ProjectBusyError, not SQLite's raw "database is locked"; nothing is
half-written, and the import works once the other program is done. A real second process
holds the lock; the session's busy timeout is shortened so that the test need not wait 30 s."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mailfactory import mbox, msg

from sasc_desktop.engine.project.store import BUSY_MESSAGE, ProjectBusyError
from sasc_desktop.engine.session import Session

HOLD = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN IMMEDIATE")
con.execute("INSERT INTO meta(key, value) VALUES ('held', 'by another program')")
print("held", flush=True)
sys.stdin.read()  # until the test closes our stdin
con.execute("ROLLBACK")
"""


class Holder:
    def __init__(self, db: Path):
        self.proc = subprocess.Popen([sys.executable, "-c", HOLD, str(db)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "held"

    def release(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


@pytest.fixture
def source(tmp_path) -> Path:
    src = tmp_path / "box.mbox"
    src.write_bytes(mbox([msg(message_id=f"<b{i}@x>", subject=f"busy {i}") for i in range(30)]))
    return src


def test_import_into_a_locked_project_is_busy_not_locked(tmp_path, source):
    proj = tmp_path / "p"
    with Session.create(proj) as s:
        s.store.con.execute("PRAGMA busy_timeout = 300")  # (30 s in the app)
        holder = Holder(proj / "project.sqlite")
        try:
            with pytest.raises(ProjectBusyError) as caught:
                s.ingest([source], workers=0)
            assert str(caught.value) == BUSY_MESSAGE
        finally:
            holder.release()
        assert s.store.count_messages() == 0
        r = s.ingest([source], workers=0)  # the other program is done: it works
        assert (r.ingested, r.duplicates, r.skipped) == (30, 0, [])
        assert [x["status"] for x in s.stats()["sources"]] == ["done"]


def test_lock_taken_during_an_import_is_busy_and_a_rerun_completes_it(tmp_path, source):
    """Another program takes the lock while the import runs (after its first batch is stored)."""
    from sasc_desktop.engine.progress import Progress
    proj = tmp_path / "p"
    holder = None

    def lock_now(done, total, message):
        nonlocal holder
        if holder is None and done > 0:
            holder = Holder(proj / "project.sqlite")

    with Session.create(proj) as s:
        s.store.con.execute("PRAGMA busy_timeout = 300")
        try:
            with pytest.raises(ProjectBusyError) as caught:
                s.ingest([source], Progress(lock_now), workers=0)
            assert str(caught.value) == BUSY_MESSAGE
        finally:
            if holder is not None:
                holder.release()
    with Session.open(proj) as s:  # how it ended could not be written: no import runs, so 'interrupted'
        assert [x["status"] for x in s.stats()["sources"]] == ["interrupted"]
        r = s.ingest([source], workers=0)
        assert r.ingested + r.duplicates == 30 and s.store.count_messages() == 30
        assert [x["status"] for x in s.stats()["sources"]] == ["done"]
