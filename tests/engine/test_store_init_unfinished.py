"""'sasc init' stopped (killed, the power cut) after it wrote sasc-project.json and before it made
the database's schema left a folder that opening called no project ("create one with 'sasc
init'") and 'sasc init' refused ("already a SASC project"). Now init finishes such a folder, and
only such a folder: the marker, empty index/models/exports folders, and no database or one
holding nothing. A project holding anything (its index is not empty) is still refused."""
from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from sasc_desktop.engine.errors import ProjectError
from sasc_desktop.engine.index import INDEX_VERSION
from sasc_desktop.engine.project.layout import init_project, unfinished_project
from sasc_desktop.engine.project.schema import MIGRATIONS
from sasc_desktop.engine.session import Session


def stopped_init(root: Path, database: str) -> None:
    """The folder an init stopped at that point leaves (init_project writes the folders and the
    marker; Session.create then makes the database)."""
    init_project(root)
    db = root / "project.sqlite"
    if database == "empty file":          # (sqlite3.connect made the file)
        db.write_bytes(b"")
    elif database == "no tables":         # (WAL mode set, the schema's transaction not committed)
        con = sqlite3.connect(db)
        con.execute("PRAGMA journal_mode=WAL")
        con.close()


def unfinished_message(root: Path) -> str:
    return (f"{root} is not a SASC project yet (its creation stopped before its database was made); "
            "create one with 'sasc init', which finishes it")


@pytest.mark.parametrize("database", ["none", "empty file", "no tables"])
def test_init_finishes_a_project_whose_init_was_stopped(tmp_path, capsys, database):
    from sasc_desktop.cli import main as sasc
    root = tmp_path / "p"
    stopped_init(root, database)
    assert unfinished_project(root)
    with pytest.raises(ProjectError) as err:
        Session.open(root)
    assert str(err.value) == unfinished_message(root)
    capsys.readouterr()
    assert sasc(["init", str(root)]) == 0
    assert capsys.readouterr().out == f"created project {root}\n"
    assert not unfinished_project(root)
    mail = tmp_path / "a.eml"
    mail.write_text("Message-ID: <a@corp.com>\nFrom: ann@corp.com\nTo: bob@corp.com\nSubject: hi\n\nbudget\n")
    with Session.open(root) as s:
        assert s.store.con.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert s.store.get_meta("index_version") == str(INDEX_VERSION)
        assert s.ingest([mail], workers=0).ingested == 1
        assert s.search("budget").total == 1
    assert sasc(["init", str(root)]) == 2          # finished: a project now
    assert capsys.readouterr().err == f"sasc: error: {root} is already a SASC project\n"


def _made(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    Session.create(root).close()
    return root


@pytest.mark.parametrize("case", ["database emptied", "database removed", "a file of the user's",
                                  "a model", "not our marker"])
def test_init_refuses_a_folder_that_holds_anything(tmp_path, case):
    """Not an init stopped early: a made project (its index has files) whose database was
    emptied or removed, a folder holding a file of the user's or a model, a marker of another
    format. Refused as before, nothing changed."""
    if case in ("database emptied", "database removed"):
        root = _made(tmp_path)
        if case == "database emptied":
            (root / "project.sqlite").write_bytes(b"")
        else:
            (root / "project.sqlite").unlink()
    else:
        root = tmp_path / "p"
        stopped_init(root, "none")
        if case == "a file of the user's":
            (root / "notes.txt").write_text("mine")
        elif case == "a model":
            (root / "models" / "classifier-p1.npz").write_bytes(b"x")
        else:
            (root / "sasc-project.json").write_text(json.dumps({"format": "something-else"}))
    before = sorted((str(p.relative_to(root)), p.stat().st_size) for p in root.rglob("*"))
    assert not unfinished_project(root)
    with pytest.raises(ProjectError) as err:
        Session.create(root)
    assert str(err.value) == f"{root} is already a SASC project"
    assert sorted((str(p.relative_to(root)), p.stat().st_size) for p in root.rglob("*")) == before
    shutil.rmtree(root)
