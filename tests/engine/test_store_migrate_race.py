"""Two processes opening a project of an older schema at the same time: the second, which read
the old version before the first took the write lock, finds the schema current once it has the
lock and migrates nothing. It used to run the migrations again after the first committed them:
"is not a readable project database: index messages_subject_ts already exists".

The other process is real (a Python process with its own SQLite connection) and holds its
migration's transaction open until this one has read the old version and asks for the write lock
(its BEGIN IMMEDIATE, seen through SQLite's statement trace): the order is fixed, not timed."""
from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from sasc_desktop.engine.project import store as store_mod
from sasc_desktop.engine.project.schema import MIGRATIONS
from sasc_desktop.engine.session import Session

MIGRATING = r"""
import sqlite3, sys
from sasc_desktop.engine.project.schema import MIGRATIONS
from sasc_desktop.engine.project.store import _statements
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN IMMEDIATE")
found = con.execute("PRAGMA user_version").fetchone()[0]
for script in MIGRATIONS[found:]:
    for statement in _statements(script):
        con.execute(statement)
con.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
print("migrated", found, flush=True)
sys.stdin.readline()          # committed when told to
con.execute("COMMIT")
print("committed", flush=True)
"""


def old_project(tmp_path: Path) -> Path:
    """A real project (3 messages) whose database is made to look like schema 3 (before
    migration 4, which creates the index messages_subject_ts)."""
    mail = tmp_path / "mail"
    mail.mkdir()
    for i in range(3):
        (mail / f"{i}.eml").write_text(f"Message-ID: <o{i}@corp.com>\nFrom: ann@corp.com\nTo: bob@corp.com\n"
                                       f"Subject: old {i}\n\nbudget {i}\n")
    root = tmp_path / "p"
    with Session.create(root) as s:
        s.ingest([mail], workers=0)
    con = sqlite3.connect(root / "project.sqlite")
    con.execute("DROP INDEX messages_subject_ts")
    con.execute("CREATE INDEX messages_subject_norm ON messages(subject_norm)")
    con.execute("DROP INDEX copies_raw_location")
    con.execute("CREATE UNIQUE INDEX copies_raw ON copies(raw_sha256)")
    con.execute("PRAGMA user_version = 3")
    con.commit()
    con.close()
    return root


def test_a_project_migrated_meanwhile_by_another_process_is_not_migrated_again(tmp_path, monkeypatch):
    root = old_project(tmp_path)
    db = root / "project.sqlite"
    other = subprocess.Popen([sys.executable, "-c", MIGRATING, str(db)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline() == "migrated 3\n"   # its transaction open, the write lock held
        asked = []
        connect = store_mod._connect

        def traced(*args, **kwargs):
            con = connect(*args, **kwargs)

            def trace(statement):
                if statement == "BEGIN IMMEDIATE" and not asked:
                    # This connection read version 3 and now waits for the lock: let the other commit.
                    asked.append(statement)
                    other.stdin.write("commit\n")
                    other.stdin.flush()
            con.set_trace_callback(trace)
            return con
        monkeypatch.setattr(store_mod, "_connect", traced)
        store = store_mod.Store(db)
        monkeypatch.undo()
        assert asked == ["BEGIN IMMEDIATE"]
        assert other.stdout.readline() == "committed\n"
        con = store.con
        con.set_trace_callback(None)
        assert con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"messages_subject_ts", "copies_raw_location"} <= names
        assert not names & {"messages_subject_norm", "copies_raw"}
        assert store.count_messages() == 3
        store.close()
    finally:
        if other.poll() is None:
            other.kill()
        other.wait()
        other.stdin.close()
        other.stdout.close()
        other.stderr.close()
    with Session.open(root) as s:
        assert s.search("budget").total == 3


def test_an_old_project_opened_alone_is_migrated_once(tmp_path):
    root = old_project(tmp_path)
    store = store_mod.Store(root / "project.sqlite")
    assert store.con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert store_mod.migrate(store.con) == len(MIGRATIONS)   # nothing left to do
    store.close()
