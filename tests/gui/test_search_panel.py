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

from gui_support import open_project, pump, search, wait_idle


def help_rows() -> dict[str, str]:
    """The syntax help's table as {example: what it does}, as plain text."""
    rows = re.findall(r"<tr><td[^>]*>(.*?)</td><td[^>]*>(.*?)</td></tr>", SYNTAX_HELP, re.S)
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
    assert rows["budget from:snibert date:2020"].startswith("filters narrow the search, with or without words")
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


def _mixed_mbox(path, n=130):
    """``n`` messages with 'report' said 1 to 5 times (rank order is neither time nor name order),
    sent in scrambled order at +10:00 and -08:00, from senders in mixed case; one has no date."""
    base = datetime(2001, 3, 1, 0, 0, tzinfo=timezone.utc)
    names = ["amy", "Bob", "carol", "Dave", "ERIN", "frank", "Gina"]
    out = []
    for i in range(n):
        zone = timezone(timedelta(hours=10 if i % 2 else -8))
        when = (base + timedelta(hours=(i * 37) % n)).astimezone(zone)
        date = "" if i == 5 else f"Date: {format_datetime(when)}\n"
        words = " ".join(["report"] * (1 + (i * 7) % 5))
        out.append(f"From p@example.com Thu Mar  1 09:00:00 2001\nFrom: {names[(i * 3) % 7]} <p{i % 7}@example.com>\n"
                   f"To: Q <q@example.com>\nSubject: {'weekly' if i % 3 else 'Monthly'} report {i}\n{date}"
                   f"Message-ID: <z{i}@example.com>\n\nThe {words} number {i} with some filler words.\n\n")
    path.write_text("".join(out))
    return path


@pytest.fixture
def mixed(tmp_path):
    root = tmp_path / "mixed"
    with Session.create(root) as s:
        assert s.ingest([_mixed_mbox(tmp_path / "mixed.mbox")], workers=0).ingested == 130
    return root


def _oracle(root, query, key, descending):
    """Every hit of the query, fetched in rank order, sorted in Python: the value missing last
    either way, ties in rank order."""
    with Session.open(root) as s:
        hits = s.search(query, limit=10_000).hits
    present = sorted((h for h in hits if key(h) is not None), key=key, reverse=descending)
    return [h.doc_id for h in present] + [h.doc_id for h in hits if key(h) is None]


def _click_and_wait(qtbot, window, panel, column):
    with qtbot.waitSignal(window.search_done, timeout=30_000):
        click_header(panel, column)
    wait_idle(qtbot, window)


def test_date_from_subject_sort_the_whole_result_set_across_pages(qtbot, window, mixed):
    from sasc_desktop.gui.models import DATE, FROM, RANK, SCORE
    open_project(qtbot, window, mixed)
    panel = window.search_panel
    header = panel.table.horizontalHeader()
    search(qtbot, window, "report")
    assert panel.total == 130 and panel.model.rowCount() == 100
    ranked = [h.doc_id for h in shown_hits(panel)]
    by_time = lambda h: None if not h.date else utc(h)  # noqa: E731
    for descending in (False, True):
        _click_and_wait(qtbot, window, panel, DATE)       # a real click: the engine sorts all 130
        if (header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder) != descending:
            _click_and_wait(qtbot, window, panel, DATE)
        want = _oracle(mixed, "report", by_time, descending)
        assert want[:100] != ranked                       # (not the rank order, nor a page of it sorted)
        assert sorted(want[:100]) != sorted(ranked)
        assert panel.offset == 0 and [h.doc_id for h in shown_hits(panel)] == want[:100]
        words = "newest first" if descending else "oldest first"
        assert f"sorted by Date, {words}" in panel.summary.text() and "this page" not in panel.summary.text()
        with qtbot.waitSignal(window.search_done, timeout=30_000):
            panel.next_button.click()                     # the next page of the same order
        wait_idle(qtbot, window)
        assert (header.sortIndicatorSection(), panel.offset) == (DATE, 100)
        page2 = [h.doc_id for h in shown_hits(panel)]
        assert page2 == want[100:] and page2[-1] == "z5@example.com"   # undated: last either way
        assert "101–130 of 130 messages" in panel.summary.text() and f"sorted by Date, {words}" in panel.summary.text()
        with qtbot.waitSignal(window.search_done, timeout=30_000):
            panel.prev_button.click()
        wait_idle(qtbot, window)
    # From: by the sender ignoring case, over both pages
    _click_and_wait(qtbot, window, panel, FROM)
    descending = header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    want = _oracle(mixed, "report", lambda h: h.sender.lower(), descending)
    assert [h.doc_id for h in shown_hits(panel)] == want[:100]
    with qtbot.waitSignal(window.search_done, timeout=30_000):
        panel.next_button.click()
    wait_idle(qtbot, window)
    assert [h.doc_id for h in shown_hits(panel)] == want[100:]
    window.grab().save(str(mixed.parent / "sorted_from_page2.png"))
    # Rank: the search's own order again, from its first page
    _click_and_wait(qtbot, window, panel, RANK)
    assert panel.offset == 0 and [h.doc_id for h in shown_hits(panel)] == ranked
    assert "sorted by" not in panel.summary.text()
    # Score sorts the page shown, no new search, and says so
    searches = []
    window.search_done.connect(searches.append)
    click_header(panel, SCORE)
    wait_idle(qtbot, window)
    pump(50)
    assert not searches and "this page sorted by Score" in panel.summary.text()
    scores = [h.score for h in shown_hits(panel)]
    assert scores in (sorted(scores), sorted(scores, reverse=True))
    # a new search starts in rank order
    _click_and_wait(qtbot, window, panel, DATE)
    search(qtbot, window, "filler")
    assert header.sortIndicatorSection() == RANK and [h.rank for h in shown_hits(panel)] == list(range(1, 101))


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
