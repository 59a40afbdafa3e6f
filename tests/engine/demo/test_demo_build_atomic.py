"""The demo project is built aside and moved into place only when finished: a build stopped
part-way (Ctrl+C, kill, cancel, error) never leaves what looks like a finished project, the
next build clears what a killed one left, and a folder left unfinished by an older version is
refused with a message saying what to do. Real builds, real SQLite, a real `sasc` process."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sasc_desktop.cli import main as sasc_main
from sasc_desktop.engine.demo import generate
from sasc_desktop.engine.demo_project import build_demo_project, demo_status, remove_stale_builds
from sasc_desktop.engine.errors import Cancelled, ProjectError
from sasc_desktop.engine.progress import Progress
from sasc_desktop.engine.session import Session

ROOT = Path(__file__).resolve().parents[3]

# The demo at 300 messages (default seed): every message once, 36 topics, 429 relevance
# judgments, and a sensitivity judgment for each message from each of the two personas.
N = 300
COUNTS = {"messages": 300, "personas": 2, "topics": 36, "qrels": 429, "sensitivity": 600}


def counts(root: Path) -> dict[str, int]:
    con = sqlite3.connect(root / "project.sqlite")
    try:
        return {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in COUNTS}
    finally:
        con.close()


def temp_folders(parent: Path, name: str) -> list[Path]:
    return sorted(p for p in parent.iterdir() if p.name.startswith(f".{name}.building-"))


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
            return temp_folders(tmp_path, "demo")
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
    left = temp_folders(tmp_path, "demo")
    if how.startswith("SIGINT"):
        assert proc.returncode == 130 and "interrupted" in err
        assert left == []  # cleaned up on the way out
    else:
        assert proc.returncode == -signal.SIGKILL
        assert len(left) == 1 and (left[0] / "sasc-project.json").exists()  # killed: no chance to clean up

    rerun = subprocess.run([sys.executable, "-m", "sasc_desktop.cli", "demo", str(target), "--messages", str(N),
                            "--no-train"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert rerun.stdout.strip() == (f"demo project ready at {target}: {N} messages, 36 topics, "
                                    f"personas holly-palmer, john-snibert")
    assert temp_folders(tmp_path, "demo") == []  # the killed build's folder was removed
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
    assert not target.exists() and temp_folders(tmp_path, "demo") == []
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
    assert temp_folders(tmp_path, "demo") == []


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


def test_an_existing_empty_folder_is_built_into(tmp_path):
    target = tmp_path / "demo"
    target.mkdir()
    assert demo_status(target) == "empty"
    build_demo_project(target, n_messages=N, train=False)
    assert_complete_demo(target)


def test_demo_status_tells_unfinished_builds_from_work(tmp_path):
    assert demo_status(tmp_path / "nothing") == "missing"
    (tmp_path / "a-file").write_text("x")
    assert demo_status(tmp_path / "a-file") == "other"

    files_only = tmp_path / "files-only"  # build files, no marker
    (files_only / "index").mkdir(parents=True)
    (files_only / "project.sqlite").write_bytes(b"")
    assert demo_status(files_only) == "incomplete"
    (files_only / "notes.txt").write_text("mine")
    assert demo_status(files_only) == "other"

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

    marker_only = tmp_path / "marker-only"  # killed right after the marker was written
    with Session.create(marker_only):
        pass
    assert demo_status(marker_only) == "incomplete"


def test_only_temporary_folders_of_finished_writers_are_swept(tmp_path):
    parent = tmp_path / "data"
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead, alive = gone.pid, os.getppid()
    names = [f".demo.building-{dead}-ab12cd34",     # a killed build of this target: removed
             f".demo.building-{alive}-ab12cd34",    # a build still running: kept
             f".demo.building-{os.getpid()}-00ff",  # this process's own: kept
             f".demo.building-{dead}",              # not a name a build makes: kept
             f".demo2.building-{dead}-ab12cd34",    # another target's: kept
             f".demo.building-{dead}-x.building-{dead}-ab12cd34"]  # a longer name's: kept
    for name in names:
        (parent / name / "index").mkdir(parents=True)
    (parent / "demo").mkdir()  # the target itself is never touched
    assert remove_stale_builds(parent / "demo") == [parent / names[0]]
    assert sorted(p.name for p in parent.iterdir()) == sorted(names[1:] + ["demo"])
