"""A project whose folder (or project.sqlite) cannot be written, on a read-only medium or share:
it opens for reading (search, read, explain, probabilities) with nothing changed on disk, and
every write is a ProjectError saying the folder is read-only and what to do; where opening it
would need a write, opening is refused saying so.

The tests run as root here, whom a folder's mode does not stop, so each read-only folder is
made with a mechanism that stops root too: the immutable attribute (chattr +i), a read-only
bind mount in a mount namespace, a folder's mode in a user namespace (where root's override
does not apply to the host's files), and a Landlock sandbox, which denies writes while the
permission check (os.access) still says "writable", as Windows folders' access rules and some
network shares do. A mechanism that cannot be had here is skipped, saying why.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from sasc_desktop.engine.errors import ProjectError
from sasc_desktop.engine.project import store as store_mod
from sasc_desktop.engine.session import Session

from test_project import _judged_project  # 12 ingested messages; persona p1 judged (4 sensitive)

ENV = {**os.environ, "SASC_BLOCK_QT": "1"}
FIX = "copy the project folder to a place you can write to and open the copy"
SENSITIVE = [f"m{i}@corp.com" for i in (0, 3, 6, 9)]


def written(root: Path, what: str, where: str | None = None) -> str:
    where = where or f"the project folder {root} is read-only"
    return f"{what} cannot be saved: {where}, so the project is open for reading only (searching and reading work); " \
           f"to change it, {FIX}"


def snapshot(root: Path) -> dict[str, tuple]:
    """Every file and folder under ``root``: contents' digest, size and modification time."""
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        out[str(p.relative_to(root))] = (digest, st.st_size, st.st_mtime_ns)
    return out


def _chattr(flag: str, *paths: Path, recursive: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run(["chattr", *(["-R"] if recursive else []), flag, *map(str, paths)],
                          capture_output=True, text=True)


@pytest.fixture
def immutable(tmp_path):
    """Make paths immutable (chattr +i: not even root may create, delete or change a file there);
    everything under tmp_path is made mutable again afterwards, whatever happens."""
    if shutil.which("chattr") is None:
        pytest.skip("no chattr here: cannot make a folder read-only for root")

    def make(*paths: Path, recursive: bool = False) -> None:
        run = _chattr("+i", *paths, recursive=recursive)
        if run.returncode:
            pytest.skip(f"chattr +i is not possible here (not root, or the file system has no such attribute): "
                        f"{run.stderr.strip()}")
    yield make
    _chattr("-i", tmp_path, recursive=True)


@pytest.fixture
def trained(tmp_path):
    """A real project (12 messages, persona p1 judged and its model trained) closed cleanly,
    and what it answers while writable: the hits for 'confidential', P(sensitive) of m0 and of
    every message."""
    from sasc_desktop.engine.classify import explain, probabilities, train
    root = _judged_project(tmp_path / "odd ?#% name")  # a folder name that must be escaped in a URI
    with Session.open(root) as s:
        train(s, "p1", kind="lr")
        expected = {"hits": sorted(h.doc_id for h in s.search("confidential").hits),
                    "m0": explain(s, "m0@corp.com", "p1")["probability"], "all": probabilities(s, "p1")}
    assert expected["hits"] == SENSITIVE
    assert sorted(p.name for p in root.iterdir()) == ["exports", "index", "models", "project.sqlite",
                                                     "sasc-project.json"]  # no -wal: closed cleanly
    return root, expected


def test_an_immutable_project_opens_for_reading_and_every_write_says_what_to_do(trained, immutable, capsys):
    """The whole project read-only (as on a read-only medium): searching, reading, explaining
    and the stored probabilities work and agree with the writable project; settings, judgments,
    training, scoring, ingesting and a direct SQL write each raise ProjectReadOnlyError naming the
    folder and saying to copy it; the CLI says the same without a traceback; nothing on disk
    changes, and once writable again the project opens normally."""
    from sasc_desktop.cli import main as sasc
    from sasc_desktop.engine.classify import explain, import_judgments, probabilities, train
    from sasc_desktop.engine.classify.api import score_project
    root, expected = trained
    before = snapshot(root)
    immutable(root, recursive=True)
    this_change = written(root, "this change")
    with Session.open(root) as s:
        assert s.store.read_only
        assert sorted(h.doc_id for h in s.search("confidential").hits) == expected["hits"]
        assert s.stats()["messages"] == 12 and s.document("m3@corp.com")["subject"] == "note 3"
        assert explain(s, "m0@corp.com", "p1")["probability"] == expected["m0"]
        assert probabilities(s, "p1") == expected["all"]
        with pytest.raises(ProjectError) as err:
            s.update_settings(active_persona="p1")
        assert str(err.value) == this_change
        with pytest.raises(ProjectError) as err:
            train(s, "p1", kind="lr")
        assert str(err.value) == written(root, "the sensitivity model")
        with pytest.raises(ProjectError) as err:
            score_project(s, "p1")
        assert str(err.value) == written(root, "the scores")
        with pytest.raises(ProjectError) as err:
            import_judgments(s, sensitivity_path=root.parent / "sens.txt")
        assert str(err.value) == this_change
        with pytest.raises(ProjectError) as err:
            s.ingest([root.parent / "mail"], workers=0)
        assert str(err.value) == written(root, "imported mail")
        with pytest.raises(sqlite3.OperationalError) as err:  # still what SQLite's own error was
            s.store.con.execute("DELETE FROM scores")
        assert type(err.value).__name__ == "ProjectReadOnlyError" and str(err.value) == this_change
        assert isinstance(err.value, ProjectError)
        assert s.settings()["active_persona"] is None and s.stats()["messages"] == 12
    capsys.readouterr()
    assert sasc(["search", str(root), "confidential"]) == 0
    assert "4 hits" in capsys.readouterr().out
    assert sasc(["classify", "train", str(root), "--persona", "p1"]) == 2
    assert capsys.readouterr().err == f"sasc: error: {written(root, 'the sensitivity model')}\n"
    assert sasc(["settings", str(root), "--set", 'active_persona="p1"']) == 2
    assert capsys.readouterr().err == f"sasc: error: {this_change}\n"
    assert snapshot(root) == before
    _chattr("-i", root, recursive=True)
    with Session.open(root) as s:
        assert not s.store.read_only
        assert s.update_settings(active_persona="p1")["active_persona"] == "p1"


@pytest.mark.parametrize("which", ["folder", "database"])
def test_a_read_only_folder_or_database_alone_is_enough(trained, immutable, which):
    """Only the project folder read-only (its subfolders writable), or only project.sqlite (the
    folder writable, where SQLite would otherwise make -wal and -shm files): it opens for
    reading, the message names what is read-only, and no file appears or changes."""
    from sasc_desktop.engine.classify import explain
    root, expected = trained
    before = snapshot(root)
    immutable(root if which == "folder" else root / "project.sqlite")
    where = (f"the project folder {root} is read-only" if which == "folder"
             else f"the project's database {root / 'project.sqlite'} is read-only")
    with Session.open(root) as s:
        assert s.store.read_only
        assert sorted(h.doc_id for h in s.search("confidential").hits) == expected["hits"]
        assert explain(s, "m0@corp.com", "p1")["probability"] == expected["m0"]
        with pytest.raises(ProjectError) as err:
            s.update_settings(active_persona="p1")
        assert str(err.value) == written(root, "this change", where)
    assert snapshot(root) == before


def _refused(root: Path, reason: str) -> str:
    return (f"the project at {root} cannot be opened: the project folder {root} is read-only, and opening it needs "
            f"to write to it: {reason}; {FIX}")


def test_changes_left_in_the_wal_file_refuse_a_read_only_open(trained, immutable, capsys):
    """A project not closed cleanly (a writer killed: its last change is only in
    project.sqlite-wal): read as an immutable file it would miss that change, so a read-only
    open is refused, saying so; copied to (here: made) a writable place it opens with the change."""
    from sasc_desktop.cli import main as sasc
    root, _ = trained
    db = root / "project.sqlite"
    killed = subprocess.run([sys.executable, "-c", """
import os, sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("PRAGMA journal_mode=WAL")
con.execute("INSERT INTO settings(key, value) VALUES ('active_persona', ?)", ('"p1"',))
os._exit(0)  # killed: no checkpoint, the change is in the -wal file only
""", str(db)], capture_output=True, text=True)
    assert killed.returncode == 0, killed.stderr
    assert (root / "project.sqlite-wal").stat().st_size > 0
    ghost = sqlite3.connect(db.as_uri() + "?mode=ro&immutable=1", uri=True)  # what an immutable read would see
    assert ghost.execute("SELECT COUNT(*) FROM settings").fetchone()[0] == 0
    ghost.close()
    before = snapshot(root)
    immutable(root)
    message = _refused(root, "project.sqlite-wal holds changes not yet written into project.sqlite (it was not "
                             "closed cleanly, or another program has it open)")
    with pytest.raises(ProjectError) as err:
        Session.open(root)
    assert str(err.value) == message
    capsys.readouterr()
    assert sasc(["search", str(root), "confidential"]) == 2
    assert capsys.readouterr().err == f"sasc: error: {message}\n"
    assert snapshot(root) == before
    _chattr("-i", root)
    with Session.open(root) as s:
        assert s.settings()["active_persona"] == "p1" and not s.store.read_only


@pytest.mark.parametrize("case", ["older schema", "older index", "incomplete index"])
def test_a_read_only_project_that_needs_a_write_to_open_is_refused(trained, immutable, case):
    """An upgrade, an index rebuild or an interrupted import's index repair would write: each is
    refused with its reason, nothing is changed, and once writable the project opens (and is
    upgraded or repaired) as usual."""
    root, expected = trained
    con = sqlite3.connect(root / "project.sqlite", isolation_level=None)
    if case == "older schema":  # as the version before the last migration left it
        con.execute("CREATE INDEX messages_subject_norm ON messages(subject_norm)")
        con.execute("DROP INDEX messages_subject_ts")
        con.execute(f"PRAGMA user_version = {store_mod.SCHEMA_VERSION - 1}")
        reason = "it was made by an older version of SASC Desktop and must be upgraded to this version's format"
    elif case == "older index":
        con.execute("UPDATE meta SET value = '0' WHERE key = 'index_version'")
        reason = "its search index was made by another version of SASC Desktop and must be rebuilt"
    else:
        con.execute("UPDATE messages SET indexed = 0 WHERE doc_id = 'm3@corp.com'")
        reason = "its search index is incomplete (an import was interrupted) and must be completed"
    con.close()
    before = snapshot(root)
    immutable(root, recursive=True)
    with pytest.raises(ProjectError) as err:
        Session.open(root)
    assert str(err.value) == _refused(root, reason)
    assert snapshot(root) == before
    _chattr("-i", root, recursive=True)
    with Session.open(root) as s:
        assert s.store.con.execute("PRAGMA user_version").fetchone()[0] == store_mod.SCHEMA_VERSION
        assert s.stats()["unindexed"] == 0
        assert sorted(h.doc_id for h in s.search("confidential").hits) == expected["hits"]


def test_creating_a_project_in_a_read_only_folder_is_a_project_error(tmp_path, immutable):
    parent = tmp_path / "parent"
    (parent / "empty").mkdir(parents=True)
    immutable(parent, parent / "empty")
    with pytest.raises(ProjectError) as err:
        Session.create(parent / "new")
    assert str(err.value) == (f"cannot create a project at {parent / 'new'}: the folder {parent} is read-only "
                              "(permission denied); make it writable and try again")
    with pytest.raises(ProjectError) as err:
        Session.create(parent / "empty")
    assert str(err.value) == (f"cannot create a project at {parent / 'empty'}: the folder {parent / 'empty'} is "
                              "read-only (permission denied); make it writable and try again")
    assert sorted(p.name for p in parent.rglob("*")) == ["empty"]


# ------------------------------------------------------------------------------ other mechanisms, in a process of their own
CHECK = r"""
import ctypes, json, os, sys
root, landlock = sys.argv[1], sys.argv[2] == "landlock"
if landlock:  # deny creating, removing and writing files anywhere (sockets and reading stay allowed)
    libc = ctypes.CDLL(None, use_errno=True)
    class Attr(ctypes.Structure):
        _fields_ = [("handled_access_fs", ctypes.c_uint64)]
    rights = sum(1 << b for b in (1, 4, 5, 6, 7, 8, 10, 11, 12))  # WRITE_FILE, REMOVE_*, MAKE_* but MAKE_SOCK
    fd = libc.syscall(444, ctypes.byref(Attr(rights)), ctypes.c_size_t(8), ctypes.c_uint32(0))
    if fd < 0 or libc.prctl(38, 1, 0, 0, 0) or libc.syscall(446, fd, ctypes.c_uint32(0)):
        print(json.dumps({"skip": "Landlock is not available: " + os.strerror(ctypes.get_errno())}))
        sys.exit(0)
from sasc_desktop.engine.classify import explain, train
from sasc_desktop.engine.errors import SascError
from sasc_desktop.engine.session import Session
out = {"access_says_writable": os.access(root, os.W_OK)}
with Session.open(root) as s:
    out["read_only"] = s.store.read_only
    out["hits"] = sorted(h.doc_id for h in s.search("confidential").hits)
    out["m0"] = explain(s, "m0@corp.com", "p1")["probability"]
    for name, call in (("settings", lambda: s.update_settings(active_persona="p1")),
                       ("train", lambda: train(s, "p1", kind="lr"))):
        try:
            call()
            out[name] = "saved"
        except SascError as exc:
            out[name] = f"{type(exc).__name__}: {exc}"
print(json.dumps(out))
"""


def _run_check(root: Path, prefix: list[str], how: str = "") -> dict:
    run = subprocess.run([*prefix, sys.executable, "-c", CHECK, str(root), how], env=ENV, capture_output=True,
                         text=True, timeout=600, cwd=Path(__file__).resolve().parents[2])
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    if "skip" in out:
        pytest.skip(out["skip"])
    return out


def _usable(prefix: list[str], root: Path) -> bool:
    """Whether a process started with ``prefix`` really cannot create a file in ``root``."""
    probe = subprocess.run([*prefix, sys.executable, "-c", """
import os, sys
try:
    open(os.path.join(sys.argv[1], "probe"), "x").close()
    print("written")
except OSError:
    print("denied")
""", str(root)], capture_output=True, text=True)
    if probe.stdout.strip() == "written":
        os.unlink(root / "probe")
    return probe.stdout.strip() == "denied"


@pytest.mark.parametrize("mechanism", ["read-only mount", "folder mode", "landlock"])
def test_other_read_only_mechanisms(trained, mechanism):
    """A read-only bind mount (EROFS), a folder's mode (EACCES; root in a user namespace), and
    a Landlock sandbox, under which os.access still says the folder is writable, so only
    SQLite's failure to open tells, and the store then finds out by trying: each opens for
    reading with the same answers, refuses writes with the clear message, changes nothing."""
    root, expected = trained
    before = snapshot(root)
    where = f"the project folder {root} is read-only"
    if mechanism == "read-only mount":
        if os.geteuid() != 0 or shutil.which("unshare") is None:
            pytest.skip("a bind mount needs root and unshare")
        prefix = ["unshare", "-m", "sh", "-c", 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"',
                  str(root)]
        if not _usable(prefix, root):
            pytest.skip("cannot make a read-only bind mount here")
        how = ""
    elif mechanism == "folder mode":
        prefix = ["unshare", "--user"] if os.geteuid() == 0 else []
        if prefix and shutil.which("unshare") is None:
            pytest.skip("running as root without unshare: a folder's mode cannot stop this process")
        root.chmod(0o555)
        (root / "project.sqlite").chmod(0o444)
        how = ""
    else:
        prefix, how = [], "landlock"
    try:
        if mechanism == "folder mode" and not _usable(prefix, root):
            pytest.skip("cannot make a folder unwritable for a process here")
        out = _run_check(root, prefix, how)
    finally:
        root.chmod(0o755)
        (root / "project.sqlite").chmod(0o644)
    if mechanism == "landlock":
        assert out["access_says_writable"]  # the permission check cannot tell: the store found out by trying
    assert out["read_only"] and out["hits"] == expected["hits"] and out["m0"] == expected["m0"]
    assert out["settings"] == "ProjectReadOnlyError: " + written(root, "this change", where)
    assert out["train"] == "ProjectReadOnlyError: " + written(root, "the sensitivity model", where)
    assert snapshot(root) == before  # (modes changed and put back by the test: no file's contents or mtime)


def test_reindex_of_a_read_only_project_leaves_its_index_alone(trained, immutable, capsys):
    """Only the top folder (and so project.sqlite's neighbours) read-only, index/ still writable:
    a rebuild of the index is refused before the index is emptied (it used to recreate the
    index, then fail on the store, leaving every search with 0 hits)."""
    from sasc_desktop.cli import main as sasc
    root, expected = trained
    before = snapshot(root)
    immutable(root)
    with Session.open(root) as s:
        assert s.store.read_only
        with pytest.raises(ProjectError) as err:
            s.reindex()
        assert str(err.value) == written(root, "the rebuilt search index")
        assert sorted(h.doc_id for h in s.search("confidential").hits) == expected["hits"]
    capsys.readouterr()
    assert sasc(["reindex", str(root)]) == 2
    assert capsys.readouterr().err == f"sasc: error: {written(root, 'the rebuilt search index')}\n"
    assert snapshot(root) == before


def test_a_read_only_project_writes_no_feature_cache_even_where_models_is_writable(trained, immutable):
    """The feature cache is written nowhere in a project open for reading, even though its
    models/ folder (not the top folder) could be written."""
    from sasc_desktop.engine.classify import explain, features
    root, expected = trained
    for cache in (root / "models").glob("features-*.joblib"):
        cache.unlink()
    features._MEMO.clear()  # as in a new process: the matrix must be built again
    before = snapshot(root)
    immutable(root)
    with Session.open(root) as s:
        assert s.store.read_only
        assert explain(s, "m0@corp.com", "p1")["probability"] == expected["m0"]
    assert snapshot(root) == before


def test_a_read_only_project_refuses_to_train_protection_before_training(trained, immutable):
    root, _ = trained
    before = snapshot(root)
    immutable(root, recursive=True)
    with Session.open(root) as s:
        with pytest.raises(ProjectError) as err:
            s.train_protection("p1", "relevance")
        assert str(err.value) == written(root, "the protection model")
    assert snapshot(root) == before
