"""A project whose index/ folder alone cannot be written (another user's after 'sudo sasc
reindex'; the project folder and its database writable): searching works; a rebuild, an import
and an open that must rebuild or complete the index are each a ProjectError saying the folder
is read-only and to make it writable (as the models folder's is: modelfile.unwritable_reason),
raised before anything is changed: the store keeps every message marked indexed (a failed
'sasc reindex' marked them all unindexed, and every later command then died with a
PermissionError traceback), and once the folder is writable everything works.

As in test_readonly_project.py, root (whom a folder's mode does not stop) is stopped with the
immutable attribute (chattr +i: EPERM), and the real case, a folder's mode (EACCES), is run in
a process without root's permission override (setpriv, dropping CAP_DAC_OVERRIDE).
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from sasc_desktop.engine.errors import ProjectError
from sasc_desktop.engine.index import SearchIndex
from sasc_desktop.engine.index.search_index import IndexUnwritableError, index_write_problem
from sasc_desktop.engine.session import Session

from test_project import _judged_project  # 12 ingested messages (m0..m11@corp.com), persona p1 judged
from test_readonly_project import _chattr, immutable, snapshot  # noqa: F401  (immutable: a fixture)

SENSITIVE = [f"m{i}@corp.com" for i in (0, 3, 6, 9)]   # the messages holding "confidential"


def read_only(folder: Path) -> str:
    return f"the folder {folder} is read-only (permission denied); make it writable and try again"


def store_rows(root: Path) -> list[str]:
    """Everything the project's database holds, as SQL (its files' bytes may change on open)."""
    con = sqlite3.connect(root / "project.sqlite")
    try:
        return list(con.iterdump())
    finally:
        con.close()


def unindexed(root: Path) -> int:
    con = sqlite3.connect(root / "project.sqlite")
    try:
        return con.execute("SELECT COUNT(*) FROM messages WHERE indexed = 0").fetchone()[0]
    finally:
        con.close()


def hits(root: Path) -> list[str]:
    with Session.open(root) as s:
        return sorted(h.doc_id for h in s.search("confidential").hits)


@pytest.fixture
def project(tmp_path):
    root = _judged_project(tmp_path)
    assert hits(root) == SENSITIVE and unindexed(root) == 0
    return root


def test_reindex_with_a_read_only_index_folder_changes_nothing_and_later_commands_work(project, immutable, capsys):
    from sasc_desktop.cli import main as sasc
    root, index = project, project / "index"
    rows, files = store_rows(root), snapshot(index)
    immutable(index)
    message = f"the rebuilt search index cannot be saved: {read_only(index)}"
    with Session.open(root) as s:
        with pytest.raises(ProjectError) as err:
            s.reindex()
        assert str(err.value) == message
        assert sorted(h.doc_id for h in s.search("confidential").hits) == SENSITIVE
        assert s.stats()["unindexed"] == 0
    assert store_rows(root) == rows and snapshot(index) == files
    capsys.readouterr()
    assert sasc(["reindex", str(root)]) == 2
    assert capsys.readouterr().err == f"sasc: error: {message}\n"
    # the store says every message is indexed still: every later command works (they failed with
    # PermissionError: .../index/MAIN.tmp)
    assert store_rows(root) == rows and snapshot(index) == files
    assert sasc(["stats", str(root)]) == 0 and sasc(["search", str(root), "confidential"]) == 0
    assert sasc(["personas", str(root)]) == 0
    assert capsys.readouterr().err == ""
    assert hits(root) == SENSITIVE
    _chattr("-i", index)
    with Session.open(root) as s:
        assert s.reindex() == 12
    assert hits(root) == SENSITIVE and unindexed(root) == 0


def test_ingest_with_a_read_only_index_folder_is_refused_before_the_importer_runs(project, immutable, capsys):
    from sasc_desktop.cli import main as sasc
    root, index = project, project / "index"
    mail = root.parent / "more"
    mail.mkdir()
    (mail / "new.eml").write_text("Message-ID: <new@corp.com>\nFrom: ann@corp.com\nTo: bob@corp.com\n"
                                  "Subject: new\n\nconfidential addendum\n")
    rows, files = store_rows(root), snapshot(index)
    immutable(index)
    message = f"the imported mail cannot be indexed: {read_only(index)}"
    with Session.open(root) as s:
        with pytest.raises(ProjectError) as err:
            s.ingest([mail], workers=0)
        assert str(err.value) == message
    capsys.readouterr()
    assert sasc(["ingest", str(root), str(mail)]) == 2
    assert capsys.readouterr().err == f"sasc: error: {message}\n"
    assert store_rows(root) == rows and snapshot(index) == files   # no source registered, no message stored
    _chattr("-i", index)
    with Session.open(root) as s:
        assert s.ingest([mail], workers=0).ingested == 1
    assert hits(root) == sorted(SENSITIVE + ["new@corp.com"])


@pytest.mark.parametrize("case", ["older index", "missing index", "unindexed messages"])
def test_an_open_that_must_write_the_index_says_so_and_changes_nothing(project, immutable, case, capsys):
    """An index of another version or a missing one (to be rebuilt), and messages marked not yet
    indexed (as a failed reindex left every message): opening is refused with a clear message,
    the store keeps its index version and marks (a rebuild marked every message unindexed
    first), and once the folder is writable the project opens, rebuilt or completed."""
    from sasc_desktop.cli import main as sasc
    root, index = project, project / "index"
    con = sqlite3.connect(root / "project.sqlite", isolation_level=None)
    if case == "older index":
        con.execute("UPDATE meta SET value = '0' WHERE key = 'index_version'")
        reason = (f"its search index at {index} was made by another version of SASC Desktop, and it must be rebuilt, "
                  f"but {read_only(index)}")
    elif case == "missing index":
        for f in index.iterdir():
            f.unlink()
        reason = f"the search index at {index} was missing, and it must be rebuilt, but {read_only(index)}"
    else:
        con.execute("UPDATE messages SET indexed = 0")
        reason = ("12 of its messages are not yet in its search index (an import or a rebuild was interrupted) and "
                  f"must be indexed, but {read_only(index)}")
    con.close()
    message = f"the project at {root} cannot be opened: {reason}"
    rows, files = store_rows(root), snapshot(index)
    immutable(index)
    with pytest.raises(ProjectError) as err:
        Session.open(root)
    assert str(err.value) == message
    capsys.readouterr()
    assert sasc(["stats", str(root)]) == 2
    assert capsys.readouterr().err == f"sasc: error: {message}\n"
    assert store_rows(root) == rows and snapshot(index) == files
    _chattr("-i", index)
    assert hits(root) == SENSITIVE and unindexed(root) == 0


def test_a_writer_on_a_read_only_folder_is_a_clear_error_and_keeps_no_lock(tmp_path, immutable):
    """SearchIndex.writer (the importer's and a repair's) where the folder cannot be written: an
    IndexUnwritableError, and Whoosh's writer lock, taken before the failure, released (else the
    next writer of this process waited 30 s for it and failed). recreate says so too."""
    folder = tmp_path / "index"
    index = SearchIndex(folder, create=True)
    assert index_write_problem(folder) is None
    immutable(folder)
    assert isinstance(index_write_problem(folder), PermissionError)
    with pytest.raises(IndexUnwritableError) as err:
        index.writer()
    assert str(err.value) == f"the search index cannot be written: {read_only(folder)}"
    with pytest.raises(IndexUnwritableError) as err:
        SearchIndex.recreate(folder)
    assert str(err.value).startswith("the search index cannot be rebuilt: ")
    _chattr("-i", folder)
    writer = index.writer()   # at once: the lock is free
    writer.cancel()
    index.close()


# ------------------------------------------------------------------------------ the real case: a folder's mode
SASC = "import sys; from sasc_desktop.cli import main; sys.exit(main(sys.argv[1:]))"


def test_a_folder_mode_as_after_sudo_reindex(project):
    """index/ not writable by its mode (as when another user owns it), commands run as the CLI
    runs them: search works; reindex and ingest end with the one-line message and exit 2, no
    traceback; stats, personas and search keep working afterwards."""
    root, index = project, project / "index"
    prefix = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: a folder's mode cannot stop this process")
        prefix = ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
                  "--bounding-set=-dac_override,-dac_read_search"]
    env = {**os.environ, "SASC_BLOCK_QT": "1"}
    cwd = Path(__file__).resolve().parents[2]

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*prefix, sys.executable, "-c", SASC, *args], env=env, cwd=cwd, capture_output=True,
                              text=True, timeout=600)

    rows = store_rows(root)
    index.chmod(0o555)
    try:
        probe = subprocess.run([*prefix, sys.executable, "-c", "import os, sys; os.mkdir(sys.argv[1])",
                                str(index / "probe")], capture_output=True)
        if probe.returncode == 0:
            (index / "probe").rmdir()
            pytest.skip("a folder's mode does not stop a process here")
        search = run("search", str(root), "confidential")
        assert search.returncode == 0 and search.stdout.startswith("4 hits"), search.stderr
        for args, what in ((["reindex", str(root)], "the rebuilt search index cannot be saved"),
                           (["ingest", str(root), str(root.parent / "mail")], "the imported mail cannot be indexed")):
            out = run(*args)
            assert (out.returncode, out.stderr) == (2, f"sasc: error: {what}: {read_only(index)}\n")
        for args in (["stats", str(root)], ["personas", str(root)], ["search", str(root), "confidential"]):
            out = run(*args)
            assert out.returncode == 0 and out.stderr == "", out.stderr
    finally:
        index.chmod(0o755)
    assert store_rows(root) == rows
