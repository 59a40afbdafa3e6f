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
