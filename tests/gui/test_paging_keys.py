"""Paging with the keyboard and sorting by Rank, over a real project of 130 matching messages
(two pages): K at the top of page 2 lands on rank 100, shown and highlighted; Rank worst first
is a sort of the page shown, and the summary says so."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from sasc_desktop.engine.session import Session
from sasc_desktop.gui.models import RANK

from gui_support import make_mbox, open_project, pump, search, wait_idle


@pytest.fixture
def two_pages(tmp_path):
    root = tmp_path / "two-pages"
    with Session.create(root) as s:
        assert s.ingest([make_mbox(tmp_path / "m.mbox", 130)], workers=0).ingested == 130
    return root


def _ranks(panel):
    return [panel.hit_at(panel.proxy.index(r, 0)).rank for r in range(panel.proxy.rowCount())]


def test_k_on_the_first_row_of_page_two_goes_to_rank_100_and_highlights_it(qtbot, window, two_pages):
    open_project(qtbot, window, two_pages)
    panel = window.search_panel
    search(qtbot, window, "message")
    assert panel.total == 130
    with qtbot.waitSignal(window.search_done, timeout=30_000):
        panel.next_button.click()
    wait_idle(qtbot, window)
    assert panel.offset == 100 and _ranks(panel)[0] == 101
    panel.select_row(0, open_it=False)
    panel.table.setFocus()
    with qtbot.waitSignal(window.document_shown, timeout=30_000) as shown:
        qtbot.keyClick(panel.table, Qt.Key.Key_K)
    wait_idle(qtbot, window)
    pump(50)
    assert panel.offset == 0
    current = panel.hit_at(panel.table.currentIndex())
    selected = [panel.hit_at(i).rank for i in panel.table.selectionModel().selectedRows()]
    assert (panel.current_row(), current.rank, selected) == (99, 100, [100])   # was: row 0, rank 1 highlighted
    assert shown.args[0] == current.doc_id == window._requested_doc             # the message shown is rank 100
    # and K again goes on upwards from there: rank 99
    with qtbot.waitSignal(window.document_shown, timeout=30_000) as shown:
        qtbot.keyClick(panel.table, Qt.Key.Key_K)
    assert panel.hit_at(panel.table.currentIndex()).rank == 99 and shown.args[0] == panel.hit_at(
        panel.table.currentIndex()).doc_id
    wait_idle(qtbot, window)


def test_a_new_search_still_highlights_its_first_row(qtbot, window, two_pages):
    open_project(qtbot, window, two_pages)
    panel = window.search_panel
    search(qtbot, window, "message")
    assert panel.current_row() == 0 and panel.hit_at(panel.table.currentIndex()).rank == 1


def test_rank_worst_first_sorts_this_page_and_says_so(qtbot, window, two_pages):
    open_project(qtbot, window, two_pages)
    panel = window.search_panel
    search(qtbot, window, "message")
    searches = []
    window.search_done.connect(searches.append)
    panel.table.horizontalHeader().setSortIndicator(RANK, Qt.SortOrder.DescendingOrder)
    wait_idle(qtbot, window)
    pump(50)
    assert not searches                                       # the page shown, no new search
    assert _ranks(panel) == list(range(100, 0, -1))
    assert panel.sorted_within_page()
    assert "this page sorted by Rank, worst first" in panel.summary.text()   # was: no note at all
    assert "Only the results on this page are sorted" in panel.summary.toolTip()
    panel.table.horizontalHeader().setSortIndicator(RANK, Qt.SortOrder.AscendingOrder)
    wait_idle(qtbot, window)
    assert _ranks(panel) == list(range(1, 101)) and "sorted" not in panel.summary.text()
    assert not panel.sorted_within_page()


def test_rank_worst_first_on_a_single_page_needs_no_note(qtbot, window, two_pages):
    open_project(qtbot, window, two_pages)
    panel = window.search_panel
    search(qtbot, window, "doctor")      # fewer than a page (47)
    assert 0 < panel.total <= 100
    panel.table.horizontalHeader().setSortIndicator(RANK, Qt.SortOrder.DescendingOrder)
    wait_idle(qtbot, window)
    assert _ranks(panel) == sorted(_ranks(panel), reverse=True) and "this page" not in panel.summary.text()
