"""Project folders: creation, opening, versions, migrations, WAL, the index version."""
from __future__ import annotations

import sqlite3

import pytest

from sasc_desktop.engine.errors import ProjectError
from sasc_desktop.engine.index import INDEX_VERSION
from sasc_desktop.engine.project import store as store_mod
from sasc_desktop.engine.project.schema import MIGRATIONS
from sasc_desktop.engine.session import Session


def test_create_layout_and_wal(tmp_path):
    with Session.create(tmp_path / "p") as s:
        assert s.store.con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s.store.con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert s.store.get_meta("index_version") == str(INDEX_VERSION)
    names = {p.name for p in (tmp_path / "p").iterdir()}
    assert {"project.sqlite", "index", "models", "exports", "sasc-project.json"} <= names
    con = sqlite3.connect(tmp_path / "p" / "project.sqlite")
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"   # persistent in the file
    con.close()


def test_newer_schema_version_is_refused_clearly(tmp_path):
    Session.create(tmp_path / "p").close()
    con = sqlite3.connect(tmp_path / "p" / "project.sqlite")
    con.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    con.commit()
    con.close()
    with pytest.raises(ProjectError, match=r"newer version of SASC Desktop .*Update SASC Desktop to open it"):
        Session.open(tmp_path / "p")


def test_not_a_project_and_not_empty(tmp_path):
    with pytest.raises(ProjectError, match="not a SASC project"):
        Session.open(tmp_path)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f.txt").write_text("x")
    with pytest.raises(ProjectError, match="not empty"):
        Session.create(tmp_path / "full")


def test_migrations_run_in_one_transaction(tmp_path, monkeypatch):
    """A failing last migration leaves the database exactly as it was (version 0, no tables)."""
    db = tmp_path / "db.sqlite"
    monkeypatch.setattr(store_mod, "MIGRATIONS", [*MIGRATIONS, "CREATE TABLE later (x INTEGER);\nTHIS IS NOT SQL;"])
    monkeypatch.setattr(store_mod, "SCHEMA_VERSION", len(MIGRATIONS) + 1)
    with pytest.raises(ProjectError, match="syntax error"):
        store_mod.Store(db, create=True)
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA user_version").fetchone()[0] == 0
    assert con.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0] == 0
    con.close()
    monkeypatch.undo()
    s = store_mod.Store(db, create=True)
    assert s.con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    s.close()


def test_old_index_version_rebuilds_index(tmp_path):
    mail = tmp_path / "m.eml"
    mail.write_bytes(b"From: a@x.org\nTo: b@x.org\nSubject: Rebuild me\nMessage-ID: <r@x>\n\nbody words\n")
    with Session.create(tmp_path / "p") as s:
        s.ingest([mail], workers=0)
        s.store.set_meta("index_version", "0")
    with Session.open(tmp_path / "p") as s:
        assert s.store.get_meta("index_version") == str(INDEX_VERSION)
        assert [h.doc_id for h in s.search("rebuild").hits] == ["r@x"]
        assert s.stats()["unindexed"] == 0
    with Session.open(tmp_path / "p") as s:
        assert s.reindex() == 1
        assert s.search("words").total == 1


# ------------------------------------------------------------------------------ index / models / exports not folders
def _judged_project(root):
    """A real project: 12 ingested messages, persona p1 with 4 sensitive of 12 judged."""
    import json

    from sasc_desktop.engine.classify import import_judgments
    mail = root / "mail"
    mail.mkdir(parents=True)
    lines = []
    for i in range(12):
        words = "confidential settlement lawsuit" if i % 3 == 0 else "lunch menu friday"
        (mail / f"{i:02d}.eml").write_text(f"Message-ID: <m{i}@corp.com>\nFrom: ann@corp.com\nTo: bob@corp.com\n"
                                           f"Subject: note {i}\n\n{words} meeting {i}\n")
        lines.append(f"p1 m{i}@corp.com {int(i % 3 == 0)}")
    (root / "sens.txt").write_text("\n".join(lines) + "\n")
    (root / "personas.json").write_text(json.dumps([{"id": "p1", "name": "One"}]))
    with Session.create(root / "p") as s:
        s.ingest([mail], workers=0)
        import_judgments(s, sensitivity_path=root / "sens.txt", personas_path=root / "personas.json")
    return root / "p"


@pytest.mark.parametrize("name", ["models", "exports"])
def test_a_file_where_a_write_only_folder_should_be_does_not_block_reading(tmp_path, name, caplog, capsys):
    """A file named ``models`` or ``exports`` (the reviewer's case: Session.open died with a raw
    FileExistsError, so search, explain and train never ran): the project opens and searches;
    it is logged; saving a model there is a ProjectError naming the file; the CLI says so
    without a traceback; nothing is deleted, and once the folder is back everything works."""
    from sasc_desktop.cli import main as sasc
    from sasc_desktop.engine.classify import explain, train
    root = _judged_project(tmp_path)
    spot = root / name
    explain_message = (f"the classifier cannot be read: {spot} is a file where the project's models folder should be; "
                       "move what is there away and try again")
    if name == "models":  # a model trained before the file took the folder's place
        with Session.open(root) as s:
            train(s, "p1", kind="lr")
    spot.rename(root / f"{name}.bak")
    spot.write_bytes(b"not a folder")
    with caplog.at_level("WARNING"), Session.open(root) as s:
        assert sorted(h.doc_id for h in s.search("confidential").hits) == [f"m{i}@corp.com" for i in (0, 3, 6, 9)]
        if name == "models":
            with pytest.raises(ProjectError, match=rf"^the sensitivity model cannot be saved: {spot} is not a folder; "
                                                   r"move what is there away and try again$"):
                train(s, "p1", kind="lr")
            # no model can be read there, and retraining would not help: say what is wrong
            with pytest.raises(ProjectError) as err:
                explain(s, "m0@corp.com", "p1")
            assert str(err.value) == explain_message
        else:
            assert train(s, "p1", kind="lr").version == 1
            assert explain(s, "m0@corp.com", "p1")
    assert f"the project's {name} folder cannot be opened: {spot} is not a folder" in caplog.text
    assert spot.read_bytes() == b"not a folder"
    capsys.readouterr()
    assert sasc(["search", str(root), "confidential"]) == 0
    assert "4 hits" in capsys.readouterr().out
    if name == "models":
        assert sasc(["classify", "explain", str(root), "m0@corp.com", "--persona", "p1"]) == 2
        err = capsys.readouterr().err
        assert err == f"sasc: error: {explain_message}\n"  # (was: the model file ... cannot be read; retrain)
        assert sasc(["classify", "train", str(root), "--persona", "p1"]) == 2
        err = capsys.readouterr().err
        assert f"sasc: error: the sensitivity model cannot be saved: {spot} is not a folder" in err
    spot.unlink()
    (root / f"{name}.bak").rename(spot)
    with Session.open(root) as s:
        assert train(s, "p1", kind="lr", full=True).version >= 1 and explain(s, "m0@corp.com", "p1")


def test_a_file_where_the_index_should_be_is_a_clear_project_error(tmp_path, capsys):
    """The search index is needed to open a project at all: a file in its place is a
    ProjectError saying what to do (not FileExistsError), and the file is left alone."""
    from sasc_desktop.cli import main as sasc
    root = _judged_project(tmp_path)
    (root / "index").rename(root / "index.bak")
    (root / "index").write_bytes(b"mine")
    message = f"the project's search index cannot be opened: {root / 'index'} is not a folder; " \
              "move what is there away and try again"
    with pytest.raises(ProjectError) as err:
        Session.open(root)
    assert str(err.value) == message
    assert sasc(["search", str(root), "confidential"]) == 2
    assert capsys.readouterr().err == f"sasc: error: {message}\n"
    assert (root / "index").read_bytes() == b"mine"
    (root / "index").unlink()
    (root / "index.bak").rename(root / "index")
    with Session.open(root) as s:
        assert s.search("confidential").total == 4


def test_missing_folders_are_made_again_on_open(tmp_path):
    root = _judged_project(tmp_path)
    import shutil
    for name in ("models", "exports"):
        shutil.rmtree(root / name)
    with Session.open(root) as s:
        assert s.search("confidential").total == 4
    assert (root / "models").is_dir() and (root / "exports").is_dir()


# ------------------------------------------------------------------------------ a damaged project.sqlite
def _snapshot(root):
    """Every file under ``root`` (SQLite's -wal/-shm aside) with its bytes' digest, and its mtime."""
    import hashlib
    return {str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file() and not p.name.endswith(("-wal", "-shm"))}


def _damage(db, how):
    """Damage a closed project's database the way ``how`` says (the project is checkpointed)."""
    for ext in ("-wal", "-shm"):
        db.with_name(db.name + ext).unlink(missing_ok=True)
    if how == "empty":                   # truncated to 0 bytes
        db.write_bytes(b"")
    elif how == "garbage header":        # the reviewer's: the first bytes overwritten
        with open(db, "r+b") as f:
            f.write(b"garbage" * 20)
    elif how == "no tables":             # a valid SQLite file without anything in it
        db.unlink()
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE x (y)")
        con.execute("DROP TABLE x")
        con.commit()
        con.close()
    elif how == "another program's":     # an SQLite file of another program (no schema version)
        db.unlink()
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE notes (text TEXT)")
        con.commit()
        con.close()
    elif how == "table lost":            # the schema says version N but a table is gone
        con = sqlite3.connect(db)
        con.execute("DROP TABLE raw")
        con.commit()
        con.close()
        for ext in ("-wal", "-shm"):
            db.with_name(db.name + ext).unlink(missing_ok=True)
    else:
        raise AssertionError(how)


DAMAGED = r"^project\.sqlite in {root} is empty or damaged \({why}\); the project was not opened and nothing in " \
          r"it was changed: restore project\.sqlite from a backup of the project folder \(if there is none, make " \
          r"a new project and import the mail again\)$"


@pytest.mark.parametrize("how, why", [
    ("empty", "it is empty: 0 bytes"),
    ("garbage header", "it is not an SQLite database"),
    ("no tables", "it holds no project data"),
    ("another program's", "it holds no SASC project data"),
    ("table lost", "table raw missing"),
])
def test_a_damaged_database_is_refused_and_nothing_is_written(tmp_path, capsys, how, why):
    """The reviewer's case: project.sqlite truncated to 0 bytes opened as a healthy EMPTY project
    (the schema made afresh in it) and its search index was deleted (index_version missing).
    Opening is refused with a ProjectError saying what to do; not a byte of the project changes
    (database, index, marker), also through the CLI; a repaired file opens as before."""
    import re

    from sasc_desktop.cli import main as sasc
    root = _judged_project(tmp_path)
    db = root / "project.sqlite"
    good = db.read_bytes()
    _damage(db, how)
    before = _snapshot(root)
    assert any(p.suffix == ".toc" for p in (root / "index").iterdir())  # (a search index to lose)
    message = DAMAGED.format(root=re.escape(str(root)), why=re.escape(why))
    for _ in range(2):  # (a second try sees the same: nothing was "repaired" by the first)
        with pytest.raises(ProjectError, match=message) as err:
            Session.open(root)
        assert isinstance(err.value, sqlite3.DatabaseError)  # (ProjectDamagedError: as SQLite's error was)
        assert _snapshot(root) == before
    capsys.readouterr()
    assert sasc(["search", str(root), "confidential"]) == 2
    out = capsys.readouterr()
    assert re.fullmatch(r"sasc: error: " + message[1:-1] + r"\n", out.err) and "Traceback" not in out.err + out.out
    assert _snapshot(root) == before
    # restored from a backup: everything is there
    db.write_bytes(good)
    with Session.open(root) as s:
        assert s.store.count_messages() == 12 and s.search("confidential").total == 4


def test_a_damaged_database_in_a_read_only_project_is_called_damaged(tmp_path):
    """Opened for reading (the project folder read-only: chattr +i), an empty project.sqlite is
    called damaged too, not 'made by an older version ... must be upgraded'."""
    import re
    import shutil
    import subprocess
    root = _judged_project(tmp_path)
    _damage(root / "project.sqlite", "no tables")
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(root)], capture_output=True).returncode:
        pytest.skip("chattr +i is not possible here: cannot make a folder read-only for root")
    try:
        before = _snapshot(root)
        with pytest.raises(ProjectError, match=DAMAGED.format(root=re.escape(str(root)),
                                                               why="it holds no project data")):
            Session.open(root)
        assert _snapshot(root) == before
    finally:
        subprocess.run(["chattr", "-i", str(root)])


def _messages_leaf_pages(db):
    con = sqlite3.connect(db)
    try:
        page_size = con.execute("PRAGMA page_size").fetchone()[0]
        pages = [r[0] for r in con.execute(
            "SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' ORDER BY pageno")]
    finally:
        con.close()
    return page_size, pages


def test_a_database_damaged_in_the_middle_is_a_clear_project_error(tmp_path):
    """SQLite's "database disk image is malformed" (a page in the middle of the file overwritten),
    found on opening or on a later query (also while reading rows), is a ProjectError saying
    project.sqlite is damaged and what to do, not a raw sqlite3.DatabaseError."""
    import random
    import re
    mail = tmp_path / "mail"
    mail.mkdir()
    rng = random.Random(5)
    words = ["budget", "pipeline", "contract", "lunch", "meeting", "salary", "lawyer", "weather"]
    for i in range(120):
        body = " ".join(rng.choice(words) for _ in range(300))
        (mail / f"{i:03d}.eml").write_text(f"Message-ID: <d{i}@corp.com>\nFrom: ann@corp.com\nTo: bob@corp.com\n"
                                           f"Subject: note {i}\n\n{body}\n")
    root = tmp_path / "p"
    with Session.create(root) as s:
        s.ingest([mail], workers=0)
    db = root / "project.sqlite"
    page_size, leaves = _messages_leaf_pages(db)
    assert len(leaves) >= 10
    with open(db, "r+b") as f:  # the last leaf of the messages table: a full scan reaches it last
        f.seek((leaves[-1] - 1) * page_size)
        f.write(bytes(rng.getrandbits(8) for _ in range(page_size)))
    message = (rf"^project\.sqlite in {re.escape(str(root))} is empty or damaged \(database disk image is malformed\); "
               r"restore project\.sqlite from a backup of the project folder \(if there is none, make a new project "
               r"and import the mail again\)$")
    with Session.open(root) as s:   # the damaged page is not read on opening
        assert s.search("budget").total == 120  # the index is fine, ...
        with pytest.raises(ProjectError, match=message):
            s.search("budget", limit=200)      # ... the store's rows are not
        rows = s.store.con.execute("SELECT id, body FROM messages ORDER BY id")
        assert rows.fetchone()["id"] == 1      # the first pages are read
        with pytest.raises(ProjectError, match=message):
            for _ in rows:                     # the damage is found while reading rows
                pass
        with pytest.raises(ProjectError, match=message):
            s.store.con.execute("SELECT COUNT(*), SUM(LENGTH(body)) FROM messages").fetchall()


# ------------------------------------------------------------------------------ another program holds the write lock
BUSY = "the project is busy (another program is writing to it); try again"


@pytest.fixture
def lock_holder():
    """Start a real process that opens a project's database and holds its write lock (BEGIN
    EXCLUSIVE and a write, as in the reviewer's script) until the test ends."""
    import subprocess
    import sys
    procs = []

    def hold(db):
        code = ("import sqlite3, sys, time\n"
                "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                "c.execute('BEGIN EXCLUSIVE')\n"
                "c.execute(\"INSERT INTO meta VALUES ('held', 'by another program')\")\n"
                "print('held', flush=True)\n"
                "time.sleep(600)\n")
        p = subprocess.Popen([sys.executable, "-c", code, str(db)], stdout=subprocess.PIPE, text=True)
        procs.append(p)
        assert p.stdout.readline().strip() == "held"
        return p
    yield hold
    for p in procs:
        p.kill()
        p.wait()


def _to_schema_3(db):
    """Make a closed project's database look like one of schema version 3 (before migration 4)."""
    con = sqlite3.connect(db)
    con.execute("DROP INDEX messages_subject_ts")
    con.execute("CREATE INDEX messages_subject_norm ON messages(subject_norm)")
    con.execute("PRAGMA user_version = 3")
    con.commit()
    con.close()


def test_a_locked_project_is_busy_everywhere_the_store_writes(tmp_path, monkeypatch, lock_holder):
    """Another program holding the write lock (the reviewer's import failed after the busy
    timeout with SQLite's raw 'database is locked'): every write through the store, whether in a
    transaction or not, and opening a project that needs a write (an older schema, an index of
    another version), is ProjectBusyError with one message; searching and reading go on; the
    index and the database are left as they were (reindex and the index rebuild on opening
    emptied the index before failing on the store)."""
    from sasc_desktop.cli import main as sasc
    from sasc_desktop.engine.project.store import ProjectBusyError
    monkeypatch.setattr(store_mod, "BUSY_TIMEOUT", 0.2, raising=False)  # (30 s in use; the error is the same)
    root = _judged_project(tmp_path)
    mail = tmp_path / "more.eml"
    mail.write_text("Message-ID: <new@corp.com>\nFrom: ann@corp.com\nTo: bob@corp.com\nSubject: new\n\nconfidential\n")
    holder = lock_holder(root / "project.sqlite")
    before = _snapshot(root / "index")
    with Session.open(root) as s:  # opening needs no write: it opens, and reads work
        assert s.search("confidential").total == 4 and s.store.count_messages() == 12
        for name, write in [("ingest", lambda: s.ingest([mail], workers=0)),        # (the reviewer's)
                            ("settings", lambda: s.update_settings(active_persona="p1")),
                            ("reindex", lambda: s.reindex()),
                            ("a direct write", lambda: s.store.set_meta("x", "y"))]:
            with pytest.raises(ProjectError) as err:
                write()
            assert str(err.value) == BUSY, name
            assert isinstance(err.value, ProjectBusyError) and isinstance(err.value, sqlite3.OperationalError)
        assert s.search("confidential").total == 4     # the index is still there
    assert _snapshot(root / "index") == before
    holder.kill()
    holder.wait()
    # opening that needs to write: an index of another version to rebuild, an older schema
    with Session.open(root) as s:
        s.store.set_meta("index_version", "0")
    holder = lock_holder(root / "project.sqlite")
    before = _snapshot(root / "index")
    with pytest.raises(ProjectError) as err:
        Session.open(root)
    assert str(err.value) == BUSY and _snapshot(root / "index") == before
    holder.kill()
    holder.wait()
    with Session.open(root) as s:  # rebuilt once the lock is gone
        assert s.search("confidential").total == 4 and s.store.get_meta("index_version") == str(INDEX_VERSION)
    _to_schema_3(root / "project.sqlite")
    holder = lock_holder(root / "project.sqlite")
    with pytest.raises(ProjectError) as err:
        Session.open(root)
    assert str(err.value) == BUSY
    assert sasc(["search", str(root), "confidential"]) == 2
    holder.kill()
    holder.wait()
    with Session.open(root) as s:  # migrated once the lock is gone
        assert s.store.con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert s.ingest([mail], workers=0).ingested == 1 and s.search("confidential").total == 5


def test_a_damaged_database_without_its_folders_gets_none_made(tmp_path):
    """A project folder holding only its marker and an empty project.sqlite: refused, and its
    missing index/models/exports folders are not made (the message says nothing changed)."""
    from sasc_desktop.engine.project.layout import MARKER
    with Session.create(tmp_path / "p"):
        pass
    root = tmp_path / "bare"
    root.mkdir()
    (root / MARKER).write_bytes((tmp_path / "p" / MARKER).read_bytes())
    (root / "project.sqlite").write_bytes(b"")
    with pytest.raises(ProjectError, match="is empty or damaged"):
        Session.open(root)
    assert sorted(p.name for p in root.iterdir()) == sorted([MARKER, "project.sqlite"])
