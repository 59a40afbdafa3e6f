"""Nothing is cut off at the default 1280 x 800 window: the F1 panel leaves the Subject column in
view, the sort arrow sits beside a column's title, and the collection line in the status bar
drops whole parts ("…") when a message needs the room instead of stopping mid-word."""
from __future__ import annotations

from PySide6.QtWidgets import QStyle

from sasc_desktop.gui.help import PANEL_WIDTH
from sasc_desktop.gui.models import COLUMNS, DATE, FROM, RANK, SCORE, SENS, SUBJECT
from sasc_desktop.gui.search import HEADER_PADDING
from sasc_desktop.gui.widgets import elide_parts

from gui_support import open_project, pump, search, tip_text, wait_until


def test_the_window_opens_at_1280_by_800(window):
    assert (window.width(), window.height()) == (1280, 800)


def test_the_f1_panel_leaves_the_subject_column_in_view(qtbot, window, project, tmp_path):
    open_project(qtbot, window, project)
    search(qtbot, window, "topic")
    table = window.search_panel.table
    before = window.splitter.sizes()
    window.help_action.trigger()
    pump(100)
    panel = window.shortcuts_panel
    assert panel.isVisible() and panel.width() <= PANEL_WIDTH + 20
    text = panel.widget()
    assert text.heightForWidth(text.width()) <= text.height()  # every shortcut in view, none cut
    header = table.horizontalHeader()
    widths = [header.sectionSize(c) for c in range(len(COLUMNS)) if not table.isColumnHidden(c)]
    assert sum(widths) <= table.viewport().width()  # no column scrolled out of view
    assert header.sectionSize(SUBJECT) >= 100 and header.sectionViewportPosition(SUBJECT) >= 0
    window.grab().save(str(tmp_path / "f1_panel.png"))
    window.help_action.trigger()
    pump(50)
    assert not panel.isVisible() and window.splitter.sizes() == before


def test_the_sort_arrow_sits_beside_each_column_title(qtbot, window, project):
    window.search_panel.set_sensitivity_available(True)  # (a hidden column has no width)
    header = window.search_panel.table.horizontalHeader()
    arrow = header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize)
    for col in (RANK, SCORE, SENS, DATE, FROM):
        need = header.fontMetrics().horizontalAdvance(COLUMNS[col]) + 2 * HEADER_PADDING + arrow
        assert header.sectionSize(col) >= need, COLUMNS[col]


def test_the_collection_line_drops_whole_parts_for_a_message(qtbot, window, project):
    open_project(qtbot, window, project)
    label = window.collection_label
    full = label.text()
    assert full.startswith("project:  60 messages   ·   20 threads")
    # a field the index does not have: the engine's error message (it lists the fields) in the status bar
    window.search_panel.query_box.setEditText("nosuchfield:budget")
    window.search_panel.submit()
    pump(300)
    wait_until(lambda: "failed" in window.message_label.text(), 30, "the error message")
    pump(50)
    shown = label.shown_text() if hasattr(label, "shown_text") else label.text()
    assert label.fontMetrics().horizontalAdvance(shown) <= label.contentsRect().width()  # all of it visible
    assert shown != full and shown.endswith(" …")
    kept = shown[:-2]
    assert full.startswith(kept) and full[len(kept):].startswith("   ·   ")  # whole parts only
    assert full in tip_text(label)
    # the message itself, too long for its room, ends at a word, and is whole in its tooltip
    message = window.message_label
    said = message.shown_text()
    assert message.fontMetrics().horizontalAdvance(said) <= message.contentsRect().width()
    assert said.endswith("…") and message.text().startswith(said[:-1]) and message.text()[len(said) - 1] == " "
    assert tip_text(message) == message.text()
    window.grab().save(str(project.parent / "status_elided.png"))


def test_eliding_keeps_whole_parts():
    fits = lambda n: (lambda s: len(s) <= n)  # noqa: E731
    text = "demo:  500 messages   ·   361 threads   ·   57 attachments"
    assert elide_parts(text, fits(len(text))) == text
    assert elide_parts(text, fits(len(text) - 1)) == "demo:  500 messages   ·   361 threads …"
    assert elide_parts(text, fits(21)) == "demo:  500 messages …"
    assert elide_parts(text, fits(10)) == "demo:…"            # at a word when that keeps half of what fits
    assert elide_parts(text, fits(8)) == "demo:  …"[:0] + "demo:…"
    assert elide_parts("unbreakable", fits(6)) == "unbre…"     # no word to end at: at a character
    assert elide_parts(text, fits(0)) == ""
