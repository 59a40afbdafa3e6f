"""The F1 shortcuts panel in a small window (review 10; a real project with a trained model, a
message with its sensitivity line open, offscreen). At 800 x 600 the docked panel (275 px) left
the results 252 px: Subject 0 px, From 25 px, a horizontal scroll bar; and the sensitivity line
lost its last line (178 of the 192 px it needs). Now, when the results (their Subject column),
the message (its header and sensitivity line whole) and the panel do not all fit, the panel
floats over the window's right edge (beside the window when the screen has room) and the panes
keep their room; 1024 x 700 and 1280 x 800 keep the docked panel as they had it."""
from __future__ import annotations

from pathlib import Path

from sasc_desktop.gui.help import PANEL_WIDTH
from sasc_desktop.gui.models import COLUMNS, FROM, SUBJECT
from sasc_desktop.gui.search import FROM_LEAST, SUBJECT_MIN

from gui_support import open_doc, open_project, pump, search
from test_narrow_results import _trained, _visible

SHOTS = Path("/tmp/s10/eng_gui/shots")


def _shot(window, name: str) -> None:
    if not SHOTS.is_dir():
        return
    from PySide6.QtGui import QPainter
    image = window.grab()
    panel = window.shortcuts_panel
    if panel.isVisible() and panel.isFloating():   # a window of its own: drawn where it is
        painter = QPainter(image)
        painter.drawPixmap(panel.mapToGlobal(panel.rect().topLeft()) - window.mapToGlobal(window.rect().topLeft()),
                           panel.grab())
        painter.end()
    image.save(str(SHOTS / name))


def _check(window, size) -> None:
    table = window.search_panel.table
    header = table.horizontalHeader()
    shown = {COLUMNS[c]: _visible(table, c) for c in range(len(COLUMNS))}
    assert shown["Subject"] >= SUBJECT_MIN, f"{size}: {shown}"          # was 0 at 800 x 600
    assert shown["From"] >= FROM_LEAST, f"{size}: {shown}"              # was 25
    widths = [header.sectionSize(c) for c in range(len(COLUMNS)) if not table.isColumnHidden(c)]
    assert sum(widths) <= table.viewport().width(), f"{size}: a column scrolled out of view"
    assert header.sectionViewportPosition(SUBJECT) >= 0 and header.sectionViewportPosition(FROM) >= 0
    doc = window.doc_view
    sens = doc.sensitivity
    assert sens.isVisible() and sens.height() >= sens.heightForWidth(sens.width()), size   # was 178 of 192
    assert doc.header.height() >= doc.header.heightForWidth(doc.header.width()), size
    panel = window.shortcuts_panel
    text = panel.widget()
    assert panel.isVisible() and text.height() >= text.heightForWidth(text.width()), size   # every shortcut


def test_the_f1_panel_in_a_small_window_leaves_subject_and_the_sensitivity_line(qtbot, window, tmp_path):
    open_project(qtbot, window, _trained(tmp_path))
    search(qtbot, window, "topic")
    open_doc(qtbot, window, window.search_panel.model.hits[0].doc_id)
    panel = window.shortcuts_panel
    for (w, h), floating in (((800, 600), True), ((1024, 700), False), ((1280, 800), False)):
        window.resize(w, h)
        pump(150)
        before = window.splitter.sizes()
        window.help_action.trigger()                  # F1
        pump(150)
        _check(window, (w, h))
        assert panel.isFloating() == floating, (w, h)
        if not floating:                                # docked as before, at its width
            assert panel.width() <= PANEL_WIDTH + 20
        else:                                           # over the window's right edge, all of it on the window
            assert panel.width() == PANEL_WIDTH and panel.height() <= window.centralWidget().height()
        _shot(window, f"test_f1_{w}x{h}.png")
        window.help_action.trigger()
        pump(100)
        assert not panel.isVisible() and window.splitter.sizes() == before


def test_the_panel_follows_the_window_resized_while_it_is_open(qtbot, window, tmp_path):
    open_project(qtbot, window, _trained(tmp_path))
    search(qtbot, window, "topic")
    open_doc(qtbot, window, window.search_panel.model.hits[0].doc_id)
    panel = window.shortcuts_panel
    window.help_action.trigger()
    pump(150)
    assert panel.isVisible() and not panel.isFloating()
    window.resize(800, 600)                             # smaller with the panel open: it floats
    pump(200)
    assert panel.isFloating()
    _check(window, (800, 600))
    window.resize(1280, 800)                            # room again: docked again
    pump(200)
    assert not panel.isFloating()
    _check(window, (1280, 800))
    window.help_action.trigger()
    pump(50)
    assert not panel.isVisible()
