"""Tab leaves the results table for the next control (Qt's default moved between the table's
cells, so Tab, Shift+Tab and Ctrl+Tab never left it); arrows still move between rows."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gui_support import open_project, pump, search


def test_tab_and_shift_tab_leave_the_results_table(qtbot, window, project):
    open_project(qtbot, window, project)
    search(qtbot, window, "budget")
    table = window.search_panel.table
    assert window.search_panel.model.rowCount() > 1
    for key, modifier in ((Qt.Key.Key_Tab, Qt.KeyboardModifier.NoModifier),
                          (Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)):
        table.setFocus()
        pump(50)
        assert QApplication.focusWidget() is table
        qtbot.keyClick(table, key, modifier)
        pump(50)
        assert QApplication.focusWidget() is not table, key
    table.setFocus()
    table.selectRow(0)
    qtbot.keyClick(table, Qt.Key.Key_Down)
    assert table.currentIndex().row() == 1
