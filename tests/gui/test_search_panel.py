"""The search panel as a user meets it: the syntax help says what the engine really does, one
Enter runs one search, and sorting is honest about what it sorts. Real projects, offscreen."""
from __future__ import annotations

import html
import re
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone

import pytest
from PySide6.QtCore import Qt

from sasc_desktop.engine.session import Session
from sasc_desktop.gui.search import SYNTAX_HELP

from gui_support import make_mbox, open_project, pump, search, wait_idle


def help_rows() -> dict[str, str]:
    """The syntax help's table as {example: what it does}, as plain text."""
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td></tr>", SYNTAX_HELP, re.S)
    plain = lambda s: " ".join(html.unescape(re.sub(r"<[^>]+>", "", s)).split())  # noqa: E731
    return {plain(a): plain(b) for a, b in rows}


def test_the_syntax_help_says_what_the_engine_does_with_plain_words(project):
    rows = help_rows()
    assert rows["budget meeting"] == ("any of the words (OR is the default); messages with more of them "
                                      "usually rank first")
    assert rows["budget AND meeting"] == "both words"
    assert "AND is the default" not in SYNTAX_HELP
    with Session.open(project) as s:
        space = s.search("budget lawyer", limit=100)
        either = s.search("budget OR lawyer", limit=100)
        both = s.search("budget AND lawyer", limit=100)
        only = {w: {h.doc_id for h in s.search(w, limit=100).hits} for w in ("budget", "lawyer")}
    # a space is OR: the same messages, in the same order, as with OR
    assert [h.doc_id for h in space.hits] == [h.doc_id for h in either.hits]
    assert space.total == len(only["budget"] | only["lawyer"]) > len(only["budget"] & only["lawyer"]) == both.total > 0
    # ("usually rank first": BM25F can put a message with one word in its subject above one with both)
    # filters beside words narrow them, as the help says
    assert rows["budget from:fossum date:2001"].startswith("from:, to: and date: beside words narrow them")
    with Session.open(project) as s:
        narrowed = {h.doc_id for h in s.search("budget from:person1", limit=100).hits}
        sender = {h.doc_id for h in s.search("from:person1", limit=100).hits}
    assert narrowed == only["budget"] & sender and narrowed


# ------------------------------------------------------------------------ one Enter, one search
def test_one_enter_in_the_query_box_runs_one_search(qtbot, window, project):
    open_project(qtbot, window, project)
    panel = window.search_panel
    requested, done = [], []
    panel.search_requested.connect(lambda q, o: requested.append((q, o)))
    window.search_done.connect(lambda r: done.append(r.query))
    line = panel.query_box.lineEdit()
    line.setFocus()
    qtbot.keyClicks(line, "budget")
    with qtbot.waitSignal(window.search_done, timeout=30_000):
        qtbot.keyClick(line, Qt.Key.Key_Return)
    wait_idle(qtbot, window)
    pump(50)
    assert requested == [("budget", 0)] and done == ["budget"]
    for key, target in ((Qt.Key.Key_Enter, line), (Qt.Key.Key_Return, panel.query_box)):  # keypad Enter; the combo itself
        requested.clear()
        qtbot.keyClick(target, key)
        wait_idle(qtbot, window)
        pump(50)
        assert requested == [("budget", 0)], key
    # a query the engine refuses: one error dialog, not two
    line.selectAll()
    qtbot.keyClicks(line, "the")
    requested.clear()
    qtbot.keyClick(line, Qt.Key.Key_Return)
    wait_idle(qtbot, window)
    pump(50)
    shown = [b for b in window.error_dialogs if b.isVisible()]
    assert requested == [("the", 0)] and len(shown) == 1
    assert "no searchable words" in shown[0].text() + shown[0].informativeText()


# ------------------------------------------------------------------------ sorting, honestly
def _zones_mbox(path, n=130):
    """``n`` messages an hour apart (UTC), all with the word 'report', their Date headers written
    alternately at +10:00 and -08:00: as text their dates are in another order than in time."""
    base = datetime(2001, 3, 1, 0, 0, tzinfo=timezone.utc)
    out = []
    for i in range(n):
        zone = timezone(timedelta(hours=10 if i % 2 else -8))
        when = (base + timedelta(hours=i)).astimezone(zone)
        extra = " lawyer" if i < 40 else ""
        out.append(f"From p@example.com Thu Mar  1 09:00:00 2001\nFrom: Person {i % 7} <p{i % 7}@example.com>\n"
                   f"To: Q <q@example.com>\nSubject: Weekly report {i}\nDate: {format_datetime(when)}\n"
                   f"Message-ID: <z{i}@example.com>\n\nThe report number {i}{extra}.\n\n")
    path.write_text("".join(out))
    return path


@pytest.fixture
def zones(tmp_path):
    root = tmp_path / "zones"
    with Session.create(root) as s:
        assert s.ingest([_zones_mbox(tmp_path / "zones.mbox")], workers=0).ingested == 130
    return root


def click_header(panel, column):
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest
    header = panel.table.horizontalHeader()
    x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
    QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))


def shown_hits(panel):
    return [panel.hit_at(panel.proxy.index(r, 0)) for r in range(panel.proxy.rowCount())]


def utc(hit):
    return datetime.fromisoformat(hit.date).timestamp()


def test_dates_sort_by_time_and_the_sort_stays_across_pages_and_says_it_is_per_page(qtbot, window, zones):
    from sasc_desktop.gui.models import DATE, RANK
    open_project(qtbot, window, zones)
    panel = window.search_panel
    search(qtbot, window, "report")
    assert panel.total == 130 and panel.model.rowCount() == 100
    click_header(panel, DATE)
    if panel.table.horizontalHeader().sortIndicatorOrder() != Qt.SortOrder.AscendingOrder:
        click_header(panel, DATE)
    hits = shown_hits(panel)
    times = [utc(h) for h in hits]
    assert times == sorted(times)                                 # in time, across the two zones
    assert [h.date for h in hits] != sorted(h.date for h in hits)  # (which is not the text's order)
    shown = [panel.proxy.index(r, DATE).data() for r in range(len(hits))]
    assert shown == sorted(shown)  # the dates as shown (this computer's clock) read in order too
    assert "this page sorted by Date, oldest first" in panel.summary.text()
    window.grab().save(str(zones.parent / "sorted_page1.png"))
    # the next page keeps the sort chosen, and says it again
    with qtbot.waitSignal(window.search_done, timeout=30_000):
        panel.next_button.click()
    wait_idle(qtbot, window)
    header = panel.table.horizontalHeader()
    assert panel.offset == 100 and (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (
        DATE, Qt.SortOrder.AscendingOrder)
    page2 = [utc(h) for h in shown_hits(panel)]
    assert len(page2) == 30 and page2 == sorted(page2)
    assert "this page sorted by Date, oldest first" in panel.summary.text()
    window.grab().save(str(zones.parent / "sorted_page2.png"))
    # back to the search's order: no note
    click_header(panel, RANK)
    assert [h.rank for h in shown_hits(panel)] == list(range(101, 131))
    assert "within this page" not in panel.summary.text()
    # a sort on a result set that fits on one page sorts all of it: no note
    search(qtbot, window, "lawyer")
    assert panel.total == 40 and header.sortIndicatorSection() == RANK  # a new search starts in rank order
    click_header(panel, DATE)
    assert [utc(h) for h in shown_hits(panel)] == sorted(utc(h) for h in shown_hits(panel)) or \
        [utc(h) for h in shown_hits(panel)] == sorted((utc(h) for h in shown_hits(panel)), reverse=True)
    assert "within this page" not in panel.summary.text()


def test_dates_read_on_this_computer_s_clock_and_the_message_gives_its_own(monkeypatch):
    import time
    from sasc_desktop.gui.models import header_date, local_date, utc_timestamp
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        sent = "2020-09-02T09:47:00-07:00"  # 16:47 UTC, 18:47 in Berlin (summer time)
        assert utc_timestamp(sent) == datetime(2020, 9, 2, 16, 47, tzinfo=timezone.utc).timestamp()
        assert local_date(sent) == "2020-09-02 18:47"
        assert header_date(sent) == "2020-09-02 09:47 -07:00 (18:47 on this computer)"
        assert header_date("2020-09-02T23:47:00-07:00") == "2020-09-02 23:47 -07:00 (2020-09-03 08:47 on this computer)"
        assert header_date("2020-09-02T18:47:00+02:00") == "2020-09-02 18:47 +02:00"
        assert header_date("2020-09-02T09:47:00") == "2020-09-02 09:47 (11:47 on this computer)"  # no offset: UTC
        assert (utc_timestamp(None), local_date(None), header_date(None)) == (None, "", "")
    finally:
        monkeypatch.undo()
        time.tzset()
