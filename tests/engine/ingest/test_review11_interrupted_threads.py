"""Threads are guessed when a message is stored and computed by the rule once the import ends
(fix_threads). An import stopped by Ctrl+C, or killed, skipped that: its replies stored before
what they answer stayed in the wrong threads until the next import or reindex (50-113 messages
of a SpamAssassin + Enron import killed at 15 s). Ctrl+C now computes the threads on the way
out, and opening a project whose last import did not (a kill, a crash, a project threaded by
an older rule) computes them, unless an import is running. Real imports, a real process that
dies without any clean-up (os._exit, as SIGKILL leaves it), real SQLite and Whoosh."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from mailfactory import mbox, msg

from sasc_desktop.engine.ingest import importer
from sasc_desktop.engine.ingest.importer import take_import_lock
from sasc_desktop.engine.ingest.threading_rules import CHECKED_THROUGH
from sasc_desktop.engine.procpool import unlock_file
from sasc_desktop.engine.progress import Progress
from sasc_desktop.engine.session import Session

ROOT = Path(__file__).resolve().parents[3]

# stored in this order, the insert-time guesses are wrong for c@x (B not stored yet: thread 'b@x')
# and r@x (no earlier 'plan' yet: its own thread)
MAILS = [
    msg(subject="Re: Re: plan", message_id="<c@x>", frm="x@a.example", to="y@a.example",
        date="Wed, 07 Mar 2001 10:00:00 -0000", extra="In-Reply-To: <b@x>\nReferences: <b@x>"),
    msg(subject="Re: lunch", message_id="<r@x>", frm="y@a.example", to="x@a.example", date="Tue, 06 Mar 2001 12:00:00 -0000"),
    msg(subject="Re: plan", message_id="<b@x>", frm="y@a.example", to="x@a.example",
        date="Tue, 06 Mar 2001 10:00:00 -0000", extra="In-Reply-To: <a@x>"),
    msg(subject="lunch", message_id="<o@x>", frm="x@a.example", to="y@a.example", date="Mon, 05 Mar 2001 10:00:00 -0000"),
]
GUESSED = {"c@x": "b@x", "r@x": "r@x", "b@x": "a@x", "o@x": "o@x"}
RULE = {"c@x": "a@x", "r@x": "o@x", "b@x": "a@x", "o@x": "o@x"}


def _threads(s: Session) -> dict[str, str]:
    return {r[0]: r[1] for r in s.store.con.execute("SELECT message_id, thread_id FROM messages")}


def _found_threads(s: Session) -> dict[str, str]:
    """The thread each message is found under in the index."""
    return {h.doc_id: t for t in set(RULE.values()) | set(GUESSED.values())
            for h in s.search(f"thread:{t}", limit=10).hits}


def _source(tmp_path) -> Path:
    src = tmp_path / "m.mbox"
    src.write_bytes(mbox(MAILS))
    return src


def _interrupt_after_the_batch():
    calls = []

    def callback(done, total, message):
        calls.append(message)
        if len(calls) == 2:      # the update after the batch is stored: before the threads are computed
            raise KeyboardInterrupt
    return Progress(callback)


def test_ctrl_c_computes_the_threads_on_the_way_out(tmp_path):
    with Session.create(tmp_path / "p") as s:
        with pytest.raises(KeyboardInterrupt):
            s.ingest([_source(tmp_path)], progress=_interrupt_after_the_batch(), workers=0)
        assert _threads(s) == RULE
        assert s.store.con.execute("SELECT status FROM sources").fetchone()[0] == "interrupted"
    with Session.open(tmp_path / "p") as s:      # (the open indexes the rows whose thread changed)
        assert _threads(s) == RULE and _found_threads(s) == RULE
        assert s.stats()["unindexed"] == 0


KILLED = """
import os, sys
from sasc_desktop.engine.progress import Progress
from sasc_desktop.engine.session import Session
calls = []
def callback(done, total, message):
    calls.append(message)
    if len(calls) == 2:
        os._exit(137)          # as SIGKILL: no finally, no commit of the index writer
s = Session.open(sys.argv[1])
s.ingest([sys.argv[2]], progress=Progress(callback), workers=0)
"""


def _killed_import(tmp_path) -> Path:
    Session.create(tmp_path / "p").close()
    env = dict(os.environ, SASC_BLOCK_QT="1", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", KILLED, str(tmp_path / "p"), str(_source(tmp_path))], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 137, done.stderr
    return tmp_path / "p"


def _stored_guesses(project: Path) -> dict[str, str]:
    import sqlite3
    con = sqlite3.connect(project / "project.sqlite")
    try:
        return {r[0]: r[1] for r in con.execute("SELECT message_id, thread_id FROM messages")}
    finally:
        con.close()


def test_opening_a_project_after_a_killed_import_computes_the_threads(tmp_path):
    project = _killed_import(tmp_path)
    assert _stored_guesses(project) == GUESSED          # what the killed import left
    with Session.open(project) as s:
        assert _threads(s) == RULE and _found_threads(s) == RULE
        assert s.stats()["unindexed"] == 0
        top = s.store.con.execute("SELECT MAX(id) FROM copies").fetchone()[0]
        assert s.store.get_meta(CHECKED_THROUGH) == str(top)
        assert importer.rethread_interrupted_import(s.store, s.index) == 0     # done: nothing more
        # the same import again completes it and changes nothing
        r = s.ingest([tmp_path / "m.mbox"], workers=0)
        assert (r.ingested, r.duplicates) == (0, 4)
        assert _threads(s) == RULE


def test_not_while_an_import_runs(tmp_path):
    """While another import holds the project's import lock, its messages are its own: opening
    leaves their threads to it."""
    project2 = _killed_import(tmp_path)
    lock = take_import_lock(SimpleNamespace(path=project2 / "index"))   # as a running import holds it
    try:
        with Session.open(project2) as s:
            assert _threads(s) == GUESSED
            assert importer.rethread_interrupted_import(s.store, s.index) == 0
    finally:
        unlock_file(lock)
    with Session.open(project2) as s:
        assert _threads(s) == RULE and _found_threads(s) == RULE


def test_a_project_threaded_by_an_older_rule_is_corrected_when_opened(tmp_path):
    with Session.create(tmp_path / "p") as s:
        s.ingest([_source(tmp_path)], workers=0)
        assert _threads(s) == RULE
        with s.store.transaction() as con:
            for mid, thread in GUESSED.items():
                con.execute("UPDATE messages SET thread_id = ? WHERE message_id = ?", (thread, mid))
            con.execute("DELETE FROM meta WHERE key = ?", (CHECKED_THROUGH,))
    with Session.open(tmp_path / "p") as s:
        assert _threads(s) == RULE and _found_threads(s) == RULE
