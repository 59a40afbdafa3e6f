"""The floating F1 shortcuts panel is for reading only (review 10b; a real project, offscreen).
At 800 x 600 F1 floats the panel, and showing it made it the active window: the application's
focus widget became None, typed keys went nowhere and Ctrl+F could not bring the focus back
(setFocus on a window that is not active). Now the panel shows without taking the activation
from the main window, and Ctrl+F activates the main window before it focuses the query box.
Keys are sent as the window system delivers them: to the window that has the focus."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from gui_support import pump, wait_idle, open_project


def _key(key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    QTest.keyClick(QGuiApplication.focusWindow(), key, modifier)
    pump(60)


def test_typing_after_f1_at_800x600_reaches_the_query_box(qtbot, window, project):
    window.resize(800, 600)
    pump(100)
    open_project(qtbot, window, project)
    window.activateWindow()
    pump(50)
    assert QApplication.focusWidget() is window.search_panel.query_box.lineEdit() or \
        QApplication.focusWidget() is window.search_panel.query_box
    _key(Qt.Key.Key_F1)
    panel = window.shortcuts_panel
    assert panel.isVisible() and panel.isFloating()        # 800 x 600: it floats
    assert QApplication.activeWindow() is window           # the panel did not take the activation
    assert QApplication.focusWidget() is not None
    _key(Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)   # Ctrl+F: the query box
    for k in (Qt.Key.Key_B, Qt.Key.Key_U, Qt.Key.Key_D, Qt.Key.Key_G, Qt.Key.Key_E, Qt.Key.Key_T):
        _key(k)
    with qtbot.waitSignal(window.search_done, timeout=30_000):
        _key(Qt.Key.Key_Return)
    wait_idle(qtbot, window)
    assert window.search_panel.query_box.currentText() == "budget"
    assert window.search_panel.total > 0
    assert panel.isVisible()


def test_ctrl_f_takes_the_focus_back_from_the_panel_window(qtbot, window, project):
    """The archivist clicked into the floating panel (it is a window of its own): Ctrl+F, which
    reaches the main window's shortcut from there, activates the main window again."""
    window.resize(800, 600)
    pump(100)
    open_project(qtbot, window, project)
    window.help_action.trigger()
    pump(100)
    panel = window.shortcuts_panel
    assert panel.isFloating()
    panel.activateWindow()
    pump(50)
    window.focus_query()
    pump(50)
    assert QApplication.activeWindow() is window
    assert QApplication.focusWidget() in (window.search_panel.query_box, window.search_panel.query_box.lineEdit())


def test_the_panel_floated_by_a_resize_leaves_the_main_window_active(qtbot, window, project):
    window.resize(1280, 800)
    pump(100)
    open_project(qtbot, window, project)
    window.activateWindow()
    pump(50)
    window.help_action.trigger()
    pump(100)
    panel = window.shortcuts_panel
    assert panel.isVisible() and not panel.isFloating()
    window.resize(800, 600)                                # smaller with the panel open: it floats
    pump(200)
    assert panel.isFloating()
    assert QApplication.activeWindow() is window
    _key(Qt.Key.Key_X)                                     # typed into the query box, which had the focus
    assert window.search_panel.query_box.currentText().endswith("x")
