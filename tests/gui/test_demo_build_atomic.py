"""The first start opens the demo project, rebuilding one a killed first start left unfinished
(an earlier version's: project marker, mail, no judgments; this one's, killed while moving the
finished project into the existing folder: every file but the marker) in the same folder, and
never deleting a demo folder someone has put work in. Offscreen, real builds (a small demo),
real SQLite."""
from __future__ import annotations

import json
import os
import re
import sqlite3
import time

import pytest

from sasc_desktop.engine import demo_project
from sasc_desktop.engine.demo import generate
from sasc_desktop.engine.session import Session
from sasc_desktop.gui.config import demo_project_dir
from sasc_desktop.gui.main import start

from gui_support import make_mbox, wait_idle

N = 300  # the demo's size in these tests (the app builds 3000)


def unfinished_demo(root, n: int = 40) -> None:
    """What an earlier version left when its first start was killed during the import."""
    with Session.create(root) as s:
        generate(root / "demo-mail", n_messages=n, seed=7)
        s.ingest([root / "demo-mail" / "mail"], workers=0)


def killed_while_moving(root, n: int = 40) -> None:
    """What a build killed while filling the existing folder leaves: every file but the marker."""
    demo_project.build_demo_project(root, n_messages=n, seed=7, train=False)
    (root / demo_project.MARKER).unlink()
    (root / demo_project.FILLING).write_text("{}")  # the fill's token, written first, removed last


def killed_build_folder(root, old: bool = True):
    """The temporary folder of a build into ``root`` that was killed (nobody holds its lock),
    found more than a minute later (``old``) or at once."""
    stale = root.parent / ".sasc-build-0123abcd"
    (stale / "project" / "index").mkdir(parents=True)
    (stale / demo_project.BUILD_INFO).write_text(json.dumps({"root": str(root.resolve())}))
    (stale / demo_project.BUILD_LOCK).write_bytes(b"")
    if old:
        age(stale)
    return stale


def age(stale) -> None:
    """Make a build folder look as it does more than a minute after its builder stopped."""
    for p in (stale, stale / demo_project.BUILD_LOCK):
        os.utime(p, (time.time() - 2 * demo_project.MIN_AGE,) * 2)


def loaded(qtbot, window, timeout=600_000) -> dict:
    with qtbot.waitSignal(window.project_loaded, timeout=timeout) as sig:
        start(window, None)
    wait_idle(qtbot, window)
    return sig.args[0]


@pytest.mark.parametrize("was_last,left", [(False, "old"), (True, "old"), (False, "moving")],
                         ids=["first-start", "last-project", "killed-while-moving"])
def test_first_start_rebuilds_a_demo_left_unfinished(qtbot, window, monkeypatch, was_last, left):
    monkeypatch.setattr(demo_project, "DEMO_MESSAGES", N)
    root = demo_project_dir()
    if left == "old":
        unfinished_demo(root)
    else:
        killed_while_moving(root)
    assert demo_project.demo_status(root) == "incomplete"
    inode = root.stat().st_ino
    if was_last:  # the app opened the empty demo last time: it comes back through the demo path
        window.state.project_opened(root)
    killed_build_folder(root)

    info = loaded(qtbot, window)
    assert info["root"] == str(root.resolve())
    assert info["stats"]["messages"] == N and info["stats"]["topics"] == 36
    assert [p["id"] for p in info["personas"]] == ["holly-palmer", "john-snibert"]
    assert info["stats"]["sources"][0]["path"] == str(root.resolve() / "demo-mail" / "mail")
    assert window.collection_label.text().startswith(f"{root.name}:  {N} messages")
    con = sqlite3.connect(root / "project.sqlite")
    try:
        assert con.execute("SELECT COUNT(*) FROM sensitivity").fetchone()[0] == 2 * N
        assert con.execute("SELECT COUNT(*) FROM qrels").fetchone()[0] == 427
        assert [r[0] for r in con.execute("SELECT persona FROM classifier_models ORDER BY persona")] == \
            ["holly-palmer", "john-snibert"]  # the first start trains the models too
    finally:
        con.close()
    assert sorted(p.name for p in root.parent.iterdir()) == [root.name]  # the stale build folder is gone
    assert root.stat().st_ino == inode  # emptied and filled, not deleted
    assert demo_project.demo_status(root) == "complete"
    assert window.state.last_project == str(root.resolve())


def test_a_build_killed_just_before_the_first_restart_is_removed_by_a_later_start(qtbot, window, monkeypatch):
    """A first start killed and restarted at once: its build folder (35-59 MB) is younger than
    MIN_AGE then, so the restart, which builds the demo, leaves it (it could be a live build on
    a file system without locks); a later start, which finds the demo complete and builds
    nothing, removes it once it is old enough (it stayed forever)."""
    monkeypatch.setattr(demo_project, "DEMO_MESSAGES", 40)  # too few to train: no models, quick
    root = demo_project_dir()
    stale = killed_build_folder(root, old=False)
    assert loaded(qtbot, window)["stats"]["messages"] == 40  # the restart: builds the demo
    assert demo_project.demo_status(root) == "complete"
    assert stale.is_dir()  # too young to be told from a build still running
    assert window.state.last_project == str(root.resolve())

    age(stale)  # a later start, more than a minute on
    info = loaded(qtbot, window)
    assert info["root"] == str(root.resolve()) and info["stats"]["messages"] == 40
    assert sorted(p.name for p in root.parent.iterdir()) == [root.name]  # the dead build folder is gone
    assert demo_project.demo_status(root) == "complete"

    live = killed_build_folder(root)  # one whose builder runs (holds its lock) is left alone, however old
    fd = demo_project.lock_file(live / demo_project.BUILD_LOCK)
    try:
        assert loaded(qtbot, window)["stats"]["messages"] == 40
        assert live.is_dir()
    finally:
        demo_project.unlock_file(fd)


def test_a_demo_folder_with_someone_s_own_mail_in_it_opens_as_it_is(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setattr(demo_project, "DEMO_MESSAGES", N)
    root = demo_project_dir()
    unfinished_demo(root)
    with Session.open(root) as s:  # stuck with the empty demo, they imported their own mail into it
        assert s.ingest([make_mbox(tmp_path / "mine.mbox", 60)], workers=0).ingested == 60
    info = loaded(qtbot, window)
    assert info["stats"]["messages"] == 100 and info["personas"] == []
    assert len(info["stats"]["sources"]) == 2


def test_a_demo_folder_holding_other_files_is_not_deleted(qtbot, window, monkeypatch):
    monkeypatch.setattr(demo_project, "DEMO_MESSAGES", N)
    root = demo_project_dir()
    (root / "index").mkdir(parents=True)
    (root / "notes.txt").write_text("mine")
    with qtbot.waitSignal(window.project_failed, timeout=60_000) as sig:
        start(window, None)
    wait_idle(qtbot, window)
    assert "holds other files" in str(sig.args[0])
    assert (root / "notes.txt").read_text() == "mine"
    assert "holds other files" in window.error_dialogs[-1].informativeText()


def test_the_first_start_shows_the_build_s_progress_as_a_percentage(qtbot, window, monkeypatch):
    """The build reports on a 0-1000 scale over its stages: shown as '…: 22%', never as
    '222 of 1,000' (the demo has 3,000 messages)."""
    monkeypatch.setattr(demo_project, "DEMO_MESSAGES", N)
    shown = []
    real = window._status_progress

    def recording(done, total, message, *args, **kwargs):
        real(done, total, message, *args, **kwargs)
        shown.append((window.message_label.text(), window.doc_view.header.text()))
    monkeypatch.setattr(window, "_status_progress", recording)
    info = loaded(qtbot, window)
    assert info["stats"]["messages"] == N
    texts = [t for pair in shown for t in pair]
    assert shown and not any("of 1,000" in t for t in texts)
    steps = [t for t, _ in shown]
    lead = "Building the demo collection (first run only): "
    assert all(re.fullmatch(re.escape(lead) + r"\d{1,3}% — .+", t) for t in steps), steps
    assert steps[-1] == lead + "100% — demo project ready"
    assert any("% — writing demo mail" in t for t in steps) and any("% — importing" in t for t in steps)
    percents = [int(t[len(lead):].split("%")[0]) for t in steps]
    assert percents == sorted(percents) and 0 <= percents[0] < 100
