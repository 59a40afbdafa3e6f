"""The Check model quality dialog never lays its content out smaller than it is: at its least
size, at the reviewer's 760 x 560 and below, the summary sentence sits below the results table
(it was drawn over it), nothing is cut at the right, and what does not fit scrolls. A check
ending in a dialog too short for its figures makes it taller, as far as the screen allows."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, QSize

from gui_support import pump, wait_idle
from test_quality_dialog import build, open_dialog

SHOTS = Path("/tmp/s7/gui_fix")


def _run(qtbot, window, dlg):
    dlg.folds.setValue(2)
    with qtbot.waitSignal(window.quality_checked, timeout=120_000):
        dlg.run_button.click()
    wait_idle(qtbot, window)
    pump(100)


def _in_dialog(dlg, w):
    top_left = w.mapTo(dlg, QPoint(0, 0))
    return top_left.y(), top_left.y() + w.height()


def _check_laid_out_whole(dlg, name):
    table, sentence = dlg.table, dlg.sentence
    assert table.isVisible() and sentence.isVisible() and table.parent() is sentence.parent()
    assert sentence.geometry().top() > table.geometry().bottom(), f"{name}: the sentence is drawn over the table"
    needed = sentence.heightForWidth(sentence.width())
    assert sentence.height() >= needed, f"{name}: the sentence is squeezed"
    # the content ends above the buttons (in the dialog: a scroll area's viewport clips it)
    assert _in_dialog(dlg, dlg.scroll)[1] <= _in_dialog(dlg, dlg.run_button)[0]
    # nothing cut at the right, and all of it reachable by scrolling
    viewport = dlg.scroll.viewport()
    assert dlg.body.width() <= viewport.width()
    assert dlg.body.height() <= viewport.height() + dlg.scroll.verticalScrollBar().maximum()
    if SHOTS.is_dir():
        dlg.grab().save(str(SHOTS / f"quality_{name}.png"))


def test_at_its_least_size_the_sentence_never_covers_the_table(qtbot, window, tmp_path):
    judged = build(tmp_path)
    dlg = open_dialog(qtbot, window, judged["root"])
    _run(qtbot, window, dlg)
    least = dlg.minimumSize()
    assert least.width() > 0 and least.height() > 0
    for size in (least, QSize(760, 560), QSize(616, 538), QSize(760, 480), QSize(least.width(), 560)):
        dlg.resize(size)
        pump(100)
        assert dlg.width() >= least.width() and dlg.height() >= least.height()
        # (table and sentence share a parent: their geometries compare)
        t, s = dlg.table.geometry(), dlg.sentence.geometry()
        assert s.top() > t.bottom(), f"{dlg.size().toTuple()}: the sentence is drawn over the table"
        _check_laid_out_whole(dlg, f"{dlg.width()}x{dlg.height()}")


def test_a_check_ending_in_a_short_dialog_makes_it_tall_enough_for_its_figures(qtbot, window, tmp_path):
    judged = build(tmp_path)
    dlg = open_dialog(qtbot, window, judged["root"])
    dlg.resize(620, 400)
    pump(100)
    _run(qtbot, window, dlg)
    screen = dlg.screen().availableGeometry()
    assert dlg.height() > 400 and dlg.frameGeometry().height() <= screen.height()
    if dlg.body.heightForWidth(dlg.scroll.viewport().width()) + 120 < screen.height():
        assert dlg.scroll.verticalScrollBar().maximum() == 0     # all the figures in view, no scrolling
    _check_laid_out_whole(dlg, "grown")
