"""Rebuilding the search index (Session.reindex, and Session.open's rebuild of an index of
another version) holds the project's import lock (index/sasc-import.lock, held by every import):
while another process imports, it is refused with the import's ProjectBusyError and the index
is left alone; while it rebuilds, an import is refused. The reviewer's case: `sasc reindex`
during a `sasc ingest` deleted the index folder under the import (it died with
FileNotFoundError; searches meanwhile found 0 hits). The lock file, inside the index folder, is
kept by the rebuild (removed, another process could lock a new file of that name).
Real projects, real processes, the real OS lock."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sasc_desktop.engine.errors import ProjectError
from sasc_desktop.engine.index import INDEX_VERSION
from sasc_desktop.engine.ingest.importer import IMPORT_LOCK
from sasc_desktop.engine.procpool import try_lock_file, unlock_file
from sasc_desktop.engine.progress import Progress
from sasc_desktop.engine.session import Session

from test_store_index_rebuild import check_whole, project, write_mail

ENV = {**os.environ, "SASC_BLOCK_QT": "1"}
ANOTHER_IMPORT = "another import into this project is running; try again when it has finished"


def index_files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (root / "index").iterdir()}


@pytest.fixture
def other_import():
    """Hold a project's import lock as another process's running import does (the locks belong
    to open files: one taken here is held against this process's sessions too)."""
    held = []

    def take(root: Path):
        fd, busy = try_lock_file(root / "index" / IMPORT_LOCK)
        assert fd is not None and not busy
        held.append(fd)
    yield take
    for fd in held:
        unlock_file(fd)


def test_reindex_while_another_import_runs_is_refused_and_leaves_the_index(tmp_path, other_import):
    root = project(tmp_path)
    before = index_files(root)
    with Session.open(root) as s:
        other_import(root)
        with pytest.raises(ProjectError) as err:
            s.reindex()
        assert type(err.value).__name__ == "ProjectBusyError" and str(err.value) == ANOTHER_IMPORT
        assert s.stats()["unindexed"] == 0                  # nothing marked for a rebuild
        assert s.search("pipeline").total == 4
    assert index_files(root) == before


def test_an_import_while_reindex_runs_is_refused(tmp_path):
    """A real `sasc ingest` started while the rebuild indexes (from its progress callback):
    refused with exit 2, saying another import runs; the lock file is the one locked before the
    rebuild, still held; the rebuild completes whole."""
    root = project(tmp_path)
    more = write_mail(tmp_path / "more", 12, 6)
    lock = root / "index" / IMPORT_LOCK
    kept = os.open(lock, os.O_RDONLY)   # (held open: a removed file's inode is not reused)
    seen = []

    def during(done, total, message):
        if seen:
            return
        fd, busy = try_lock_file(lock, create=False)
        run = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", "ingest", str(root), str(more)],
                             capture_output=True, text=True, env=ENV, timeout=120)
        seen.append(((fd, busy), os.path.samestat(os.fstat(kept), os.stat(lock)), run.returncode, run.stderr))
    try:
        with Session.open(root) as s:
            assert s.reindex(Progress(during)) == 12
    finally:
        os.close(kept)
    assert seen == [((None, True), True, 2, f"sasc: error: {ANOTHER_IMPORT}\n")]
    check_whole(root)


def test_reindex_keeps_the_lock_file_and_releases_it(tmp_path):
    """The lock file is the same file throughout the rebuild (held open here, so a removed one's
    inode cannot be reused by a new file of that name), locked while the rebuild indexes, free
    after it."""
    root = project(tmp_path)
    lock = root / "index" / IMPORT_LOCK
    kept = os.open(lock, os.O_RDONLY)
    seen = []

    def during(done, total, message):
        fd, busy = try_lock_file(lock, create=False)
        seen.append((os.path.samestat(os.fstat(kept), os.stat(lock)), fd, busy))
    try:
        with Session.open(root) as s:
            assert s.reindex(Progress(during)) == 12
        assert os.path.samestat(os.fstat(kept), os.stat(lock))
    finally:
        os.close(kept)
    assert seen[0] == (True, None, True) and len(set(seen)) == 1
    fd, busy = try_lock_file(lock)
    assert fd is not None and not busy
    unlock_file(fd)
    check_whole(root)


def test_an_index_version_rebuild_waits_for_another_import(tmp_path, monkeypatch):
    """Opening a project whose index is of another version while another process imports: the
    rebuild is not done under it (the project is busy; nothing changed); once the lock is free,
    it is (without a note: a new version's rebuild is expected)."""
    from sasc_desktop.engine import session as session_mod
    root = project(tmp_path)
    with Session.open(root) as s:
        with s.store.transaction():
            s.store.set_meta("index_version", "0")
    before = index_files(root)
    monkeypatch.setattr(session_mod, "INDEX_WAIT", 0.0)
    fd, busy = try_lock_file(root / "index" / IMPORT_LOCK)   # the other process's import
    assert fd is not None and not busy
    try:
        with pytest.raises(ProjectError) as err:
            Session.open(root)
        assert type(err.value).__name__ == "ProjectBusyError" and str(err.value) == ANOTHER_IMPORT
    finally:
        unlock_file(fd)
    assert index_files(root) == before
    with Session.open(root) as s:
        assert s.notes == []
        assert s.store.get_meta("index_version") == str(INDEX_VERSION)
    check_whole(root)
