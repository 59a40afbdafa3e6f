"""The demo project is built aside and moved into place only when finished: a build stopped
part-way (Ctrl+C, kill, cancel, error) never leaves what looks like a finished project, the
next build clears what a killed one left, and a folder left unfinished by an older version is
refused with a message saying what to do. A build holds an OS lock on its temporary folder and
only folders whose lock can be taken are swept; an existing empty folder (the current one) is
kept and filled, the project marker last; a database that cannot be read is never taken for a
build's leftovers. Real builds, real SQLite, real `sasc` processes, real locks held by other
processes."""
from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sasc_desktop.cli import main as sasc_main
from sasc_desktop.engine.demo import generate
from sasc_desktop.engine import demo_project
from sasc_desktop.engine.demo_project import (BUILD_INFO, BUILD_LOCK, MIN_AGE, build_demo_project, demo_status,
                                              remove_stale_builds, remove_unfinished)
from sasc_desktop.engine.errors import Cancelled, ProjectError
from sasc_desktop.engine.progress import Progress
from sasc_desktop.engine.session import Session

ROOT = Path(__file__).resolve().parents[3]
ENV = dict(os.environ, PYTHONPATH=str(ROOT), SASC_BLOCK_QT="1")

# The demo at 300 messages (default seed): every message once, 36 topics, 425 relevance
# judgments, and a sensitivity judgment for each message from each of the two personas.
N = 300
COUNTS = {"messages": 300, "personas": 2, "topics": 36, "qrels": 427, "sensitivity": 600}


def counts(root: Path) -> dict[str, int]:
    con = sqlite3.connect(root / "project.sqlite")
    try:
        return {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in COUNTS}
    finally:
        con.close()


def temp_folders(parent: Path) -> list[Path]:
    """Builds' temporary folders in ``parent`` (each holds the project being built in ``project``)."""
    return sorted(p for p in parent.iterdir() if p.name.startswith(".sasc-build-"))


def make_old(folder: Path, seconds: float = 2 * MIN_AGE) -> None:
    """Date a temporary folder and its lock file back (a killed build's, found later)."""
    for p in (folder, folder / BUILD_LOCK):
        if p.exists():
            os.utime(p, (time.time() - seconds,) * 2)


def fake_build(where: Path, root: Path, hexname: str = "ab12cd34", old: bool = True) -> Path:
    """A temporary folder as a build into ``root`` makes it (nobody holding its lock)."""
    folder = where / f".sasc-build-{hexname}"
    (folder / "project" / "index").mkdir(parents=True)
    (folder / BUILD_INFO).write_text(json.dumps({"root": str(root.resolve()), "pid": 1, "host": "x"}))
    (folder / BUILD_LOCK).write_bytes(b"")
    if old:
        make_old(folder)
    return folder


HOLD_LOCK = """
import sys
from sasc_desktop.engine.procpool import lock_file
fd = lock_file(sys.argv[1], create=False)
print("locked" if fd is not None else "not locked", flush=True)
sys.stdin.readline()
"""


def hold_lock(path: Path, prefix: tuple[str, ...] = ()) -> subprocess.Popen:
    """Another process (``prefix``: run through, e.g. unshare) holding the lock on ``path``
    until its stdin is closed."""
    proc = subprocess.Popen([*prefix, sys.executable, "-c", HOLD_LOCK, str(path)], env=ENV, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = proc.stdout.readline().strip()
    if line != "locked":
        proc.kill()
        pytest.fail(f"the other process could not take the lock: {line!r} {proc.communicate()[1]}")
    return proc


def release(proc: subprocess.Popen) -> None:
    proc.stdin.close()
    proc.wait(timeout=60)


def assert_complete_demo(root: Path) -> None:
    assert counts(root) == COUNTS
    assert demo_status(root) == "complete"
    con = sqlite3.connect(root / "project.sqlite")
    try:
        mail = str(root.resolve() / "demo-mail" / "mail")
        assert [r[0] for r in con.execute("SELECT path FROM sources")] == [mail]
        # every recorded location names the finished folder, none the temporary one
        for table in ("messages", "copies"):
            assert con.execute(f"SELECT COUNT(*) FROM {table} WHERE substr(location, 1, ?) != ?",
                               (len(mail) + 1, mail + "/")).fetchone()[0] == 0
    finally:
        con.close()
    with Session.open(root) as s:
        stats = s.stats()
    assert stats["messages"] == N and stats["personas"] == ["holly-palmer", "john-snibert"]
    assert Path(stats["sources"][0]["path"]).is_dir()


def old_style_unfinished_demo(root: Path, n: int = 40) -> None:
    """What a build by an earlier version left when killed during import: the project marker,
    the generated mail, the messages, but no personas and no judgments."""
    with Session.create(root) as s:
        generate(root / "demo-mail", n_messages=n, seed=7)
        s.ingest([root / "demo-mail" / "mail"], workers=0)


def imported(folder: Path) -> int:
    """Messages an import running in ``folder`` has committed so far (read-only, beside it)."""
    try:
        con = sqlite3.connect((folder / "project.sqlite").as_uri() + "?mode=ro", uri=True)
        try:
            return con.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def wait_for(predicate, proc: subprocess.Popen) -> None:
    """Until ``predicate()`` holds; fails if the build ends first."""
    while not predicate():
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the build ended (exit {proc.returncode}) before it could be stopped: {err}")
        time.sleep(0.02)


@pytest.mark.parametrize("how", ["SIGINT while writing the mail", "SIGKILL while importing"])
def test_a_stopped_sasc_demo_leaves_no_project_and_a_rerun_builds_a_complete_one(tmp_path, how):
    target = tmp_path / "demo"
    proc = subprocess.Popen([sys.executable, "-m", "sasc_desktop.cli", "demo", str(target), "--messages", "1500",
                             "--no-train"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        def building() -> list[Path]:
            return [b / "project" for b in temp_folders(tmp_path)]
        if how.startswith("SIGINT"):
            wait_for(lambda: any(any((b / "demo-mail" / "mail").glob("*/*.mbox")) for b in building()), proc)
            proc.send_signal(signal.SIGINT)
        else:  # the generated mail is complete (its manifest is written last) and being imported
            wait_for(lambda: any((b / "demo-mail" / "manifest.json").exists() for b in building()), proc)
            wait_for(lambda: any(imported(b) for b in building()), proc)
            proc.kill()
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert not target.exists()  # nothing that looks like a project, finished or not
    left = temp_folders(tmp_path)
    if how.startswith("SIGINT"):
        assert proc.returncode == 130 and "interrupted" in err
        assert left == []  # cleaned up on the way out
    else:
        assert proc.returncode == -signal.SIGKILL
        assert len(left) == 1 and (left[0] / "project" / "sasc-project.json").exists()  # no chance to clean up
        assert json.loads((left[0] / BUILD_INFO).read_text())["root"] == str(target)
        make_old(left[0])  # found by a build more than a minute later

    rerun = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", "demo", str(target), "--messages", str(N),
                            "--no-train"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert rerun.stdout.strip() == (f"demo project ready at {target}: {N} messages, 36 topics, "
                                    f"personas holly-palmer, john-snibert")
    assert temp_folders(tmp_path) == []  # the killed build's folder was removed
    assert_complete_demo(target)


def test_a_cancelled_build_leaves_nothing_and_the_finished_one_reports_progress(tmp_path):
    target = tmp_path / "demo"
    seen: list[str] = []

    def cancel_in_import(done, total, message):
        seen.append(message)
        if message.startswith("importing"):
            progress.cancel()
    progress = Progress(cancel_in_import)
    with pytest.raises((Cancelled, ProjectError), match="cancel"):
        build_demo_project(target, n_messages=N, train=False, progress=progress)
    assert not target.exists() and temp_folders(tmp_path) == []
    assert any(m.startswith("writing demo mail") for m in seen)

    updates: list[tuple[int, int, str]] = []
    assert build_demo_project(target, n_messages=N, train=False,
                              progress=Progress(lambda d, t, m: updates.append((d, t, m)))) == target
    assert updates[-1] == (1000, 1000, "demo project ready")
    assert_complete_demo(target)


def test_an_unfinished_demo_of_an_older_version_is_refused_with_what_to_do(tmp_path, capsys):
    target = tmp_path / "demo"
    old_style_unfinished_demo(target)
    before = sorted(p.relative_to(target) for p in target.rglob("*"))
    assert demo_status(target) == "incomplete"
    assert sasc_main(["demo", str(target), "--messages", str(N), "--no-train"]) == 2
    err = capsys.readouterr().err
    assert f"{target} holds an unfinished demo project" in err and "delete that folder" in err
    assert "choose another folder" in err
    assert sorted(p.relative_to(target) for p in target.rglob("*")) == before  # never deleted by `sasc demo`
    assert temp_folders(tmp_path) == []


def test_a_finished_project_or_a_non_empty_folder_is_refused(tmp_path, capsys):
    done = tmp_path / "done"
    build_demo_project(done, n_messages=40, seed=7, train=False)
    assert sasc_main(["demo", str(done), "--messages", "40"]) == 2
    assert f"{done} is already a SASC project" in capsys.readouterr().err
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    assert sasc_main(["demo", str(other), "--messages", "40"]) == 2
    assert f"{other} is not empty" in capsys.readouterr().err
    assert (other / "notes.txt").read_text() == "mine"


def test_an_existing_empty_folder_is_built_into_and_stays_the_same_folder(tmp_path):
    tmp_path = tmp_path / "box"  # (beside the autouse fixture's home folder)
    target = tmp_path / "demo"
    target.mkdir(parents=True)
    inode = target.stat().st_ino
    assert demo_status(target) == "empty"
    assert build_demo_project(target, n_messages=N, train=False) == target.resolve()
    assert target.stat().st_ino == inode  # filled, not replaced
    assert_complete_demo(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo"]


def test_sasc_demo_dot_in_an_empty_current_folder(tmp_path):
    """`sasc demo .`: the folder a shell is in is filled, not renamed over; it stays valid."""
    tmp_path = tmp_path / "box"
    here = tmp_path / "here"
    here.mkdir(parents=True)
    inode = here.stat().st_ino
    run = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", "demo", "--messages", str(N), "--no-train", "."],
                         cwd=here, env=ENV, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == (f"demo project ready at {here.resolve()}: {N} messages, 36 topics, "
                                  f"personas holly-palmer, john-snibert")
    assert here.stat().st_ino == inode and os.listdir(here)  # the same folder, the project in it
    assert_complete_demo(here)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["here"]  # no temporary folder left


# Killed at the worst moment of filling an existing folder: every file moved but the marker.
KILLED_BEFORE_THE_MARKER = """
import os, sys
from sasc_desktop.engine import demo_project
rename = os.rename
def rename_or_die(a, b):
    if os.path.basename(b) == demo_project.MARKER and os.path.basename(os.path.dirname(a)) == "project":
        os._exit(9)  # as SIGKILL would: no clean-up, no finally
    rename(a, b)
demo_project.os.rename = rename_or_die
demo_project.build_demo_project(sys.argv[1], n_messages=40, seed=7, train=False)
"""


def test_killed_while_filling_an_existing_folder_it_is_incomplete_never_a_project(tmp_path, capsys):
    target = tmp_path / "demo"
    target.mkdir()
    run = subprocess.run([sys.executable, "-c", KILLED_BEFORE_THE_MARKER, str(target)], env=ENV,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 9, run.stderr
    assert sorted(os.listdir(target)) == [".sasc-filling", "demo-mail", "exports", "index", "models", "project.sqlite"]
    assert demo_status(target) == "incomplete"  # every build file, no marker: nothing opens it
    with pytest.raises(ProjectError, match="not a SASC project"):
        Session.open(target)
    assert sasc_main(["demo", str(target), "--messages", "40", "--no-train"]) == 2
    assert f"{target} holds an unfinished demo project" in capsys.readouterr().err
    left = temp_folders(tmp_path)  # still named and with its lock file, which nobody holds
    assert len(left) == 1 and sorted(os.listdir(left[0])) == sorted([BUILD_INFO, BUILD_LOCK, "project"])

    remove_unfinished(target)  # what the app does to its own demo folder
    assert os.listdir(target) == [] and demo_status(target) == "empty"
    make_old(left[0])
    build_demo_project(target, n_messages=40, seed=7, train=False)
    assert demo_status(target) == "complete" and counts(target)["messages"] == 40
    assert temp_folders(tmp_path) == []  # the killed build's folder was swept


def test_a_failure_while_filling_an_existing_folder_leaves_it_empty(tmp_path, monkeypatch):
    target = tmp_path / "demo"
    target.mkdir()
    rename = os.rename

    def interrupted_at_the_marker(a, b):
        if os.path.basename(b) == demo_project.MARKER:
            raise KeyboardInterrupt
        rename(a, b)
    monkeypatch.setattr(demo_project.os, "rename", interrupted_at_the_marker)
    with pytest.raises(KeyboardInterrupt):
        build_demo_project(target, n_messages=40, seed=7, train=False)
    assert os.listdir(target) == [] and temp_folders(tmp_path) == []  # what was moved in was taken out


def test_a_240_character_folder_name_builds_and_a_too_long_one_is_a_clear_error(tmp_path):
    tmp_path = tmp_path / "box"
    tmp_path.mkdir()
    long = tmp_path / ("d" * 240)  # the temporary folder's name is short: it never adds to this
    assert build_demo_project(long, n_messages=40, seed=7, train=False) == long
    assert demo_status(long) == "complete" and counts(long)["messages"] == 40
    assert sorted(p.name for p in tmp_path.iterdir()) == [long.name]
    too_long = tmp_path / ("e" * 256)
    with pytest.raises(ProjectError, match=r"is too long for this file system \(256 bytes; at most 255\)"):
        build_demo_project(too_long, n_messages=40, train=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [long.name]


def unwritable_runner(parent: Path) -> tuple[str, ...]:
    """How to run a process for which ``parent`` (mode 555) really cannot be written: directly
    as an ordinary user; as root (whose DAC override ignores modes) in a user namespace, where
    that override does not apply to the host's files. Skips when neither can be had."""
    parent.chmod(0o555)
    prefix: tuple[str, ...] = ("unshare", "--user") if os.geteuid() == 0 else ()
    if prefix and shutil.which("unshare") is None:
        pytest.skip("running as root without unshare: a folder's mode cannot stop this process")
    probe = subprocess.run([*prefix, sys.executable, "-c", "import os, sys; os.mkdir(sys.argv[1])",
                            str(parent / "probe")], capture_output=True, text=True)
    if probe.returncode == 0:
        os.rmdir(parent / "probe")
        pytest.skip("cannot make a folder unwritable for a process here")
    return prefix


def test_a_parent_that_cannot_be_written_builds_inside_the_empty_root(tmp_path):
    parent = tmp_path / "parent"
    target = parent / "demo"
    target.mkdir(parents=True)
    target.chmod(0o777)
    inode = target.stat().st_ino
    try:
        prefix = unwritable_runner(parent)
        run = subprocess.run([*prefix, sys.executable, "-m", "sasc_desktop.cli", "demo", str(target),
                              "--messages", str(N), "--no-train"], env=ENV, capture_output=True, text=True,
                             timeout=600)
        missing = subprocess.run([*prefix, sys.executable, "-m", "sasc_desktop.cli", "demo", str(parent / "new"),
                                  "--messages", str(N), "--no-train"], env=ENV, capture_output=True, text=True,
                                 timeout=600)
    finally:
        parent.chmod(0o755)
    assert run.returncode == 0, run.stderr
    assert target.stat().st_ino == inode
    assert_complete_demo(target)  # every recorded path names the root, none the folder built in
    assert sorted(os.listdir(parent)) == ["demo"]
    assert missing.returncode == 2
    assert missing.stderr.strip() == (f"sasc: error: cannot build the demo project at {parent / 'new'}: {parent} "
                                      f"cannot be written (Permission denied)")


def test_demo_status_tells_unfinished_builds_from_work(tmp_path):
    assert demo_status(tmp_path / "nothing") == "missing"
    (tmp_path / "a-file").write_text("x")
    assert demo_status(tmp_path / "a-file") == "other"

    files_only = tmp_path / "files-only"  # build files, no marker: only the fill's token makes them a build's
    (files_only / "index").mkdir(parents=True)
    (files_only / "project.sqlite").write_bytes(b"")
    assert demo_status(files_only) == "other"
    (files_only / demo_project.FILLING).write_text("{}")
    assert demo_status(files_only) == "incomplete"
    (files_only / "notes.txt").write_text("mine")
    assert demo_status(files_only) == "other"

    # a user's project that lost its marker (their own mail in it) is never a build's leftovers
    lost_marker = tmp_path / "lost-marker"
    old_style_unfinished_demo(lost_marker)
    (lost_marker / "sasc-project.json").unlink()
    assert demo_status(lost_marker) == "other"
    with pytest.raises(ProjectError):
        remove_unfinished(lost_marker)
    assert (lost_marker / "project.sqlite").exists()
    only_models = tmp_path / "only-models"
    (only_models / "models").mkdir(parents=True)
    (only_models / "models" / "mine.pkl").write_bytes(b"x")
    assert demo_status(only_models) == "other"

    old = tmp_path / "old"
    old_style_unfinished_demo(old)
    assert demo_status(old) == "incomplete"
    (old / "exports" / "release.csv").write_text("doc_id\n")  # someone exported from it
    assert demo_status(old) == "project"

    imported = tmp_path / "imported"  # someone imported their own mail into the empty demo
    old_style_unfinished_demo(imported)
    mine = tmp_path / "mine"
    generate(mine, n_messages=10, seed=8)
    with Session.open(imported) as s:
        s.ingest([mine / "mail"], workers=0)
    assert demo_status(imported) == "project"

    marker_only = tmp_path / "marker-only"  # `sasc init`: someone's project, however empty
    with Session.create(marker_only):
        pass
    assert demo_status(marker_only) == "project"

    settings = tmp_path / "settings"  # `sasc init`, then the user's own settings: their work
    with Session.create(settings) as s:
        s.update_settings(owner_addresses=["me@example.org"], internal_domains=["example.org"])
    assert demo_status(settings) == "project"

    reasons = tmp_path / "reasons"  # an unfinished demo into which someone imported reasons
    old_style_unfinished_demo(reasons)
    assert demo_status(reasons) == "incomplete"
    with Session.open(reasons) as s:
        doc = s.store.con.execute("SELECT doc_id FROM messages LIMIT 1").fetchone()[0]
        why = tmp_path / "why.tsv"
        why.write_text(f"{doc}\tholly-palmer\tlegal\n")
        s.import_judgments(reasons=why)
    assert demo_status(reasons) == "project"

    damaged = tmp_path / "damaged"
    old_style_unfinished_demo(damaged)
    (damaged / "project.sqlite").write_bytes(b"not a database, " * 512)
    assert demo_status(damaged) == "project"

    dead_inside = tmp_path / "dead-inside"  # a killed build made inside it (parent unwritable)
    dead_inside.mkdir()
    fake_build(dead_inside, dead_inside)
    assert demo_status(dead_inside) == "incomplete"
    young_inside = tmp_path / "young-inside"
    young_inside.mkdir()
    fake_build(young_inside, young_inside, old=False)
    assert demo_status(young_inside) == "building"
    others_inside = tmp_path / "others-inside"  # another root's build folder is not this one's
    others_inside.mkdir()
    fake_build(others_inside, tmp_path / "elsewhere")
    assert demo_status(others_inside) == "other"


EXCLUSIVE = """
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("PRAGMA locking_mode=EXCLUSIVE")
con.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
"""


def test_a_database_locked_by_another_process_is_kept_not_called_incomplete(tmp_path, capsys):
    target = tmp_path / "demo"
    old_style_unfinished_demo(target)  # nothing but build output: deletable when it can be read
    assert demo_status(target) == "incomplete"
    holder = subprocess.Popen([sys.executable, "-c", EXCLUSIVE, str(target / "project.sqlite")], text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert demo_status(target, busy_timeout=0.2) == "project"  # cannot be read: kept
        with pytest.raises(ProjectError, match="holds no unfinished demo project|already a SASC project"):
            remove_unfinished(target)
    finally:
        release(holder)
    assert (target / "sasc-project.json").exists() and counts(target)["messages"] == 40
    assert demo_status(target) == "incomplete"  # readable again: what it was


def test_only_temporary_folders_of_this_root_whose_lock_is_free_and_old_are_swept(tmp_path):
    parent = tmp_path / "data"
    parent.mkdir()
    root = parent / "demo"
    dead = fake_build(parent, root, "00000001")                         # a killed build of root: removed
    young = fake_build(parent, root, "00000002", old=False)             # under a minute old: kept
    others = fake_build(parent, parent / "demo2", "00000003")           # another root's: kept
    unnamed = fake_build(parent, root, "00000004")
    (unnamed / BUILD_INFO).unlink()                                     # names no root: kept
    for name in (".sasc-build-0000005", ".sasc-build-00000006x", ".demo.building-1-ab12cd34"):
        (parent / name / "index").mkdir(parents=True)                    # not names a build makes: kept
    no_lock = fake_build(parent, root, "0000000b")
    (no_lock / BUILD_LOCK).unlink()                                     # its lock file deleted: removed
    make_old(no_lock)
    outside = fake_build(tmp_path, root, "00000007")
    (parent / ".sasc-build-00000008").symlink_to(outside)                # a link: kept, and what it points to
    root.mkdir()
    inside = fake_build(root, root, "00000009")                          # made inside root: removed
    assert sorted(remove_stale_builds(root)) == sorted([dead, no_lock, inside])
    assert sorted(p.name for p in parent.iterdir()) == sorted(
        [young.name, others.name, unnamed.name, ".sasc-build-0000005", ".sasc-build-00000006x",
         ".demo.building-1-ab12cd34", ".sasc-build-00000008", "demo"])
    assert outside.exists() and os.listdir(root) == []


def pid_namespace() -> tuple[str, ...]:
    prefix = ("unshare", "--pid", "--fork") + (("--user", "--map-root-user") if os.geteuid() else ())
    if shutil.which("unshare") is None or subprocess.run([*prefix, "true"], capture_output=True).returncode:
        pytest.skip("no unshare: cannot start a process in another PID namespace here")
    return prefix


@pytest.mark.parametrize("where", ["another process", "another PID namespace"])
def test_a_build_whose_lock_another_process_holds_is_never_swept(tmp_path, where):
    """The lock decides, not the pid: a process in another PID namespace (a container, a
    flatpak) has a pid that means nothing here, and its build is still kept."""
    prefix = pid_namespace() if where == "another PID namespace" else ()
    root = tmp_path / "demo"
    build = fake_build(tmp_path, root)  # old enough: only the lock keeps it
    holder = hold_lock(build / BUILD_LOCK, prefix)
    try:
        assert remove_stale_builds(root) == []
        assert build.exists()
        root.mkdir()
        running_inside = fake_build(root, root, "0000000a")
        inside_holder = hold_lock(running_inside / BUILD_LOCK, prefix)
        try:
            assert demo_status(root) == "building"
            with pytest.raises(ProjectError, match="being built in .* right now"):
                build_demo_project(root, n_messages=40, train=False)
        finally:
            release(inside_holder)
    finally:
        release(holder)
    assert sorted(remove_stale_builds(root)) == sorted([running_inside, build])  # its builder is gone
    assert temp_folders(tmp_path) == [] and os.listdir(root) == []


def test_a_real_build_holds_its_lock_while_it_runs(tmp_path):
    """A `sasc demo` run: while it builds, its folder's lock is held (another process cannot
    take it) and a sweep leaves it alone even when dated back; it finishes complete."""
    target = tmp_path / "demo"
    proc = subprocess.Popen([sys.executable, "-m", "sasc_desktop.cli", "demo", str(target), "--messages", "1500",
                             "--no-train"], cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        wait_for(lambda: any(imported(b / "project") for b in temp_folders(tmp_path)), proc)
        [build] = temp_folders(tmp_path)
        make_old(build)
        assert remove_stale_builds(target) == [] and build.exists()
        probe = subprocess.run([sys.executable, "-c", HOLD_LOCK, str(build / BUILD_LOCK)], env=ENV, input="\n",
                               capture_output=True, text=True)
        assert probe.stdout.strip() == "not locked"
        out, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert counts(target)["messages"] == 1500 and demo_status(target) == "complete"
    assert temp_folders(tmp_path) == []


def test_a_message_count_below_one_is_refused_before_anything_is_made(tmp_path, capsys):
    target = tmp_path / "a" / "b" / "demo"
    for bad in ("0", "-5"):
        assert sasc_main(["demo", str(target), "--messages", bad, "--no-train"]) == 2
        assert capsys.readouterr().err.strip() == f"sasc: error: --messages must be at least 1, got {bad}"
    assert not (tmp_path / "a").exists()


def test_a_symlink_loop_is_a_clear_error(tmp_path, capsys):
    loop = tmp_path / "loopy"
    loop.symlink_to(loop)
    assert sasc_main(["demo", str(loop), "--messages", "5", "--no-train"]) == 2
    assert capsys.readouterr().err.strip() == (f"sasc: error: cannot use {loop} for the demo project: "
                                               "it is a symbolic link loop")
