"""What opening a project did that its user should know (Session.notes: a damaged search index
rebuilt from the project's database) is shown in the window: a bar above the results, which
stays until dismissed or another project is opened, and a status bar message; no dialog. Real
projects, the index really damaged (its table of contents truncated to 100 bytes, as the engine's
tests in tests/engine/test_store_index_rebuild.py do), offscreen."""
from __future__ import annotations

import html
import os
from pathlib import Path

from PySide6.QtWidgets import QDialog, QLabel, QMessageBox

from sasc_desktop.engine.session import Session

from gui_support import make_mbox, needed_width, open_project, search, wait_idle

SHOTS = Path("/tmp/s7/gui_fix2")


def damage_index(root: Path) -> None:
    (toc,) = (root / "index").glob("_MAIN_*.toc")
    os.truncate(toc, 100)


def test_a_rebuilt_index_is_noted_in_the_window(qtbot, window, project, tmp_path):
    damage_index(project)
    open_project(qtbot, window, project)
    index = project / "index"
    note = (f"The search index at {index} was damaged (UnpicklingError: pickle data was truncated); "
            "it was rebuilt from the project's database.")
    shown = [html.unescape(label.text()) for label in window.findChildren(QLabel) if label.isVisible()]
    assert note in shown, shown     # the note, as it is, in the window
    bar = window.notice_bar
    assert bar.isVisible() and bar.plain_text() == note
    assert window.message_label.text() == f"Opened {project}, with a note (above the results)"
    # no dialog of any kind: the app is ready to search
    assert not [w for w in window.findChildren(QDialog) if w.isVisible()] and not window.error_dialogs
    search(qtbot, window, "budget")
    assert window.search_panel.total > 0
    if SHOTS.is_dir():
        window.resize(1024, 700)
        qtbot.wait(100)
        window.grab().save(str(SHOTS / "open_note_1024x700.png"))
    # the bar never widens the window, however long the note is
    width = window.width()
    bar.show_notes([f"the search index at /{'very-long-folder-name/' * 20}index was damaged; it was rebuilt"])
    qtbot.wait(50)
    assert window.width() == width and needed_width(bar.text) <= bar.text.contentsRect().width() < width
    bar.show_notes([note])

    # dismissed: gone, the results keep the room
    bar.close_button.click()
    assert not bar.isVisible()
    # opened again, the index is whole: no note
    open_project(qtbot, window, project)
    assert not bar.isVisible() and window.message_label.text() == f"Opened {project}"

    # a note, then another project without one: the first project's note goes
    damage_index(project)
    open_project(qtbot, window, project)
    assert bar.isVisible()
    other = tmp_path / "other"
    with Session.create(other) as s:
        s.ingest([make_mbox(tmp_path / "other.mbox", 6)], workers=0)
    open_project(qtbot, window, other)
    assert not bar.isVisible() and bar.plain_text() == ""
    assert not [w for w in window.findChildren(QMessageBox) if w.isVisible()]


def test_the_demo_opened_at_first_start_shows_its_note_too(qtbot, window):
    from sasc_desktop.engine import demo_project
    from sasc_desktop.gui.config import demo_project_dir
    from sasc_desktop.gui.main import start
    root = demo_project_dir()
    demo_project.build_demo_project(root, n_messages=40, seed=7, train=False)
    assert demo_project.demo_status(root) == "complete"
    damage_index(root)
    with qtbot.waitSignal(window.project_loaded, timeout=120_000):
        start(window, None)     # as the app starts: no project given, none opened before: the demo
    wait_idle(qtbot, window)
    assert window.notice_bar.isVisible()
    assert window.notice_bar.plain_text() == (
        f"The search index at {root / 'index'} was damaged (UnpicklingError: pickle data was truncated); "
        "it was rebuilt from the project's database.")
    assert not [w for w in window.findChildren(QDialog) if w.isVisible()]
