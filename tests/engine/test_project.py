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
