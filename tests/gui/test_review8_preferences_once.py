"""File ▸ Preferences… (Ctrl+,) gives one dialog however often it is pressed: while the worker is
busy the request waits and a second press adds nothing; an open dialog is raised. While a project
is being opened, Ctrl+, says in the status line that Preferences opens once the project is open,
and it does then. The reviewer's cases: two stacked dialogs after Ctrl+, twice during a search;
Ctrl+, during an open did nothing and said nothing. Real projects, offscreen."""
from __future__ import annotations

import threading

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from sasc_desktop.engine.session import Session
from sasc_desktop.gui.preferences import PreferencesDialog

from gui_support import open_project, pump, wait_idle, wait_until


PREFS_WHILE_LOADING = "A project is being opened: Preferences opens once it is open"


def visible_prefs() -> list:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, PreferencesDialog) and w.isVisible()]


def ctrl_comma(window) -> None:
    QTest.keyClick(window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)


def hold_worker(window) -> threading.Event:
    release = threading.Event()
    window.worker.run(lambda _p: release.wait(60), label="something slow")
    return release


def test_ctrl_comma_twice_while_the_worker_is_busy_opens_one_dialog(qtbot, window, project):
    open_project(qtbot, window, project)
    window.activateWindow()
    wait_until(window.isActiveWindow, 10, "the window to be active")
    release = hold_worker(window)
    try:
        ctrl_comma(window)
        ctrl_comma(window)                                  # nothing appeared at once: pressed again
        pump(100)
        assert visible_prefs() == []
    finally:
        release.set()
    wait_idle(qtbot, window)
    pump(100)
    assert len(visible_prefs()) == 1                        # was 2, stacked
    dlg = window.prefs_dialog
    assert window.show_preferences() is None and visible_prefs() == [dlg]   # open: raised, not another
    dlg.reject()
    pump(50)
    window.show_preferences()                               # closed: a new one, as before
    wait_idle(qtbot, window)
    assert len(visible_prefs()) == 1 and window.prefs_dialog is not dlg
    window.prefs_dialog.reject()
    window.close()


def _slow_open(monkeypatch):
    real, opening, release = Session.open, threading.Event(), threading.Event()

    def slow_open(root, *args, **kwargs):
        opening.set()
        release.wait(60)
        return real(root, *args, **kwargs)
    monkeypatch.setattr(Session, "open", staticmethod(slow_open))
    return opening, release


def test_ctrl_comma_while_a_project_opens_says_so_and_opens_it_then(qtbot, window, project, monkeypatch):
    with Session.open(project) as s:
        s.update_settings(field_weights={"subject": 4.5})
    opening, release = _slow_open(monkeypatch)
    window.activateWindow()
    wait_until(window.isActiveWindow, 10, "the window to be active")
    try:
        window.open_project(project)                         # the first project, at start-up
        wait_until(opening.is_set, 60, "the project to be opening")
        ctrl_comma(window)
        pump(50)
        assert window.message_label.text() == PREFS_WHILE_LOADING   # was: nothing at all
        ctrl_comma(window)
        assert visible_prefs() == []
    finally:
        release.set()
    wait_until(lambda: visible_prefs(), 60, "the Preferences dialog")
    wait_idle(qtbot, window)
    pump(100)
    assert len(visible_prefs()) == 1 and window.info["root"] == str(project)
    assert window.prefs_dialog.weights["subject"].value() == 4.5   # the settings of the project opened
    window.prefs_dialog.reject()
    window.close()


def test_a_project_that_fails_to_open_leaves_no_preferences_waiting(qtbot, window, tmp_path, monkeypatch):
    opening, release = _slow_open(monkeypatch)
    window.activateWindow()
    try:
        window.open_project(tmp_path / "not-a-project")
        wait_until(opening.is_set, 60, "the project to be opening")
        window.show_preferences()
        assert window.message_label.text() == PREFS_WHILE_LOADING
    finally:
        release.set()
    wait_until(lambda: window.error_dialogs, 60, "the error")
    wait_idle(qtbot, window)
    pump(100)
    assert visible_prefs() == [] and not window.prefs_action.isEnabled() and not window._prefs_after_open
    for box in window.error_dialogs:
        box.close()
    window.close()
