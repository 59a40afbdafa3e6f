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
