"""Closing the window while the first run builds the demo: the build is cancelled and no error
dialog appears afterwards (one did, 'Building the demo project did not complete', for a window
already closed, and kept the application running with no window)."""
from __future__ import annotations

from PySide6.QtWidgets import QApplication, QMessageBox

from sasc_desktop.engine import demo_project
from sasc_desktop.gui.main import start

from gui_support import pump, wait_until


def test_closing_during_the_demo_build_leaves_no_dialog(qtbot, window, monkeypatch):
    monkeypatch.setattr(demo_project, "DEMO_MESSAGES", 2000)
    failures = []
    window.project_failed.connect(failures.append)
    start(window, None)
    wait_until(lambda: window.worker.busy, 30, "the demo build to start")
    pump(1500)
    assert window.worker.busy                       # (still building when the window closes)
    window.close()
    wait_until(lambda: not window.isVisible() and not window.worker.busy, 120, "the window to close")
    pump(1000)                                      # the build's late callback has run
    assert failures                                 # the cancelled build did end in failure ...
    dialogs = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
    assert dialogs == []                            # ... and said nothing to a closed window
