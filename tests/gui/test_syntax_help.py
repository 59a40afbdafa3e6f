"""The query syntax help never advertises what the engine refuses: every example in it is run
by Session.search on a real project, and the rules it states (strict date bounds, filters that
narrow, words over 40 characters refused) are checked against what the engine finds. Its window
shows the whole text on a 1024x700 screen (a real offscreen screen of that size, in a process of
its own) and scrolls on a smaller one."""
from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QRect

from sasc_desktop.engine.errors import SascError
from sasc_desktop.engine.session import Session
from sasc_desktop.gui.search import SYNTAX_HELP

from gui_support import needed_width, pump

SHOTS = Path("/tmp/s7/gui_fix2")
HERE = Path(__file__).resolve().parent


def plain(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", markup)).split())


def help_rows() -> dict[str, str]:
    """The help's table as {examples: what they do}, as plain text."""
    rows = re.findall(r"<tr><td[^>]*>(.*?)</td><td[^>]*>(.*?)</td></tr>", SYNTAX_HELP, re.S)
    return {plain(a): plain(b) for a, b in rows}


def example_queries() -> list[str]:
    """Every query the help shows: the examples' column, the words it says are searched as
    phrases, and the >= / <= forms of its date bounds."""
    rows = re.findall(r"<tr><td[^>]*>(.*?)</td><td[^>]*>(.*?)</td></tr>", SYNTAX_HELP, re.S)
    queries = [html.unescape(c) for first, _ in rows for c in re.findall(r"<code>(.*?)</code>", first)]
    phrase_row = next(second for first, second in rows if "board meeting" in first)
    queries += [html.unescape(w) for w in re.findall(r"<i[^>]*>(.*?)</i>", phrase_row)]
    for q in list(queries):
        m = re.fullmatch(r"date:([<>])(.+)", q)
        if m:
            queries.append(f"date:{m.group(1)}={m.group(2)}")
    return queries


def test_every_example_in_the_help_is_a_query_the_engine_takes(project):
    queries = example_queries()
    # (the extraction found them all: 16 rows, some with two examples, 3 phrase words, 2 bounds)
    assert len(queries) == 27 and len(set(queries)) == 27, queries
    for q in ("budget -draft", "bud?et", "date:>2020-03", "date:<=2021", "john.snibert@arclight.example.com",
              "red/yellow", "from:snibert OR date:2020", "power OR NOT gas", "(budget OR forecast) AND review"):
        assert q in queries
    refused = {}
    with Session.open(project) as s:
        for q in queries:
            try:
                s.search(q, limit=5)
            except SascError as exc:
                refused[q] = str(exc)
    assert refused == {}


@pytest.fixture(scope="module")
def first_run_demo(tmp_path_factory):
    """The demo project the app opens on first start (its default size; no models needed)."""
    from sasc_desktop.engine.demo_project import build_demo_project
    return build_demo_project(tmp_path_factory.mktemp("demo") / "proj", train=False)


def test_every_example_finds_mail_in_the_demo_project(first_run_demo):
    """The query box's example and every example in the help found nothing in the demo project a
    first-time archivist opens (budget from:fossum, to:enron.com, folder:holly/inbox, date:2001-05,
    ...: Enron's names and years)."""
    from sasc_desktop.gui.search import SearchPanel
    placeholder = SearchPanel.PLACEHOLDER_EXAMPLE
    queries = example_queries() + [placeholder, "cafe", "from:ines"]
    with Session.open(first_run_demo) as s:
        found = {q: s.search(q, limit=1).total for q in queries}
        ines = s.search("from:ines", limit=50).hits
    assert placeholder == "budget from:snibert"
    assert [q for q, n in found.items() if n == 0] == []
    assert found["date:>2020-03"] < found["date:>=2020-03"] and found["date:<2021"] < found["date:<=2021"]
    assert all("Inès" in h.sender for h in ines)   # the text's "from:ines finds Inès"


def test_the_help_states_strict_date_bounds_and_the_engine_keeps_them(project):
    rows = help_rows()
    assert rows["date:>2020-03, date:<2021"] == ("after March 2020 (from April on); before 2021 (up to the end "
                                                  "of 2020); >= and <= include the date named")
    # every message of the project is of 1-3 March 2001 (gui_support.make_mbox)
    with Session.open(project) as s:
        total = {q: s.search(q, limit=1).total for q in
                 ("date:>2001-03", "date:>=2001-03", "date:<2001-03", "date:<=2001-03", "date:<2001-04",
                  "date:>2001-02", "date:2001-03")}
    assert total == {"date:>2001-03": 0, "date:>=2001-03": 60, "date:<2001-03": 0, "date:<=2001-03": 60,
                     "date:<2001-04": 60, "date:>2001-02": 60, "date:2001-03": 60}


def test_the_other_rules_the_help_states_are_what_the_engine_does(project):
    rows = help_rows()
    assert rows["budget from:snibert date:2020"].startswith("filters narrow the search, with or without words")
    assert rows["from:snibert from:palmer"] == "filters on the same field: either one"
    assert rows["from:snibert OR date:2020"] == "an OR you type is kept: from snibert, or in 2020"
    assert rows["power OR NOT gas"] == "a NOT leaves its messages out of the whole group: power, without gas"
    text = plain(SYNTAX_HELP)
    assert "Words longer than 40 characters (a pasted hash) are not indexed, so a query with one is refused" in text
    assert "(not those a NOT leaves out)" in text
    # (what tests/engine/index/test_accent_folding.py checks on a project with accented mail)
    assert "Case and accents do not matter: cafe finds Café, from:ines finds Inès." in text
    with Session.open(project) as s:
        ids = lambda q: {h.doc_id for h in s.search(q, limit=1000).hits}  # noqa: E731
        one, two = ids("from:person1"), ids("from:person2")
        assert one and two and ids("from:person1 from:person2") == one | two
        assert ids("budget from:person1 date:2001") == ids("budget") & one
        assert ids("from:person1 OR date:2001-03-01") == one | ids("date:2001-03-01") != one
        power, gas = ids("power"), ids("gas")
        assert power - gas and power & gas and ids("power OR NOT gas") == power - gas
        assert s.search("budget " + "a" * 40, limit=1).total == len(ids("budget"))  # 40: a word like any other
        with pytest.raises(SascError, match="longer than 40 characters"):
            s.search("budget " + "a" * 41, limit=1)
        # a NOT-ed word is not among the words highlighted
        assert s.search("budget NOT lawyer", limit=1).terms == ("budget",)


SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from PySide6.QtWidgets import QApplication
app = QApplication([])
from gui_support import needed_width, pump
from sasc_desktop.gui.config import AppState
from sasc_desktop.gui.mainwindow import MainWindow
from sasc_desktop.gui.search import SYNTAX_HELP
win = MainWindow(AppState())
win.resize(1024, 700)
win.show()
dlg = win.show_syntax_help()
pump(200)
again = win.show_syntax_help()
pump(50)
screen = dlg.screen().availableGeometry()
frame, label, bar = dlg.frameGeometry(), dlg.label, dlg.scroll.verticalScrollBar()
print(json.dumps(dict(
    screen=[screen.x(), screen.y(), screen.width(), screen.height()],
    frame=[frame.x(), frame.y(), frame.width(), frame.height()],
    same=again is dlg, visible=dlg.isVisible(), text=label.text() == SYNTAX_HELP,
    label=[label.width(), label.height()], needs=[needed_width(label), label.heightForWidth(label.width())],
    scrolls=bar.isVisible() or bar.maximum() > 0)))
if len(sys.argv) > 2:
    from PySide6.QtGui import QColor, QPainter, QPixmap
    shot = QPixmap(screen.width(), screen.height())
    shot.fill(QColor("#777"))
    p = QPainter(shot)
    p.drawPixmap(win.pos(), win.grab())
    p.drawPixmap(dlg.pos(), dlg.grab())
    p.end()
    shot.save(sys.argv[2])
win.close()
"""


def test_the_help_window_shows_all_of_its_text_on_a_1024x700_screen(tmp_path):
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "1024x700", "x": 0, "y": 0, "width": 1024, "height": 700,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    script = tmp_path / "help_window.py"
    script.write_text(SCRIPT)
    args = [sys.executable, str(script), str(HERE)]
    if SHOTS.is_dir():
        args.append(str(SHOTS / "syntax_help_1024x700.png"))
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={config}")
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["screen"] == [0, 0, 1024, 700]
    x, y, w, h = seen["frame"]
    assert 0 <= x and x + w <= 1024 and 0 <= y and y + h <= 700 and h <= 700 - 60  # room for a title bar
    assert seen["same"] and seen["visible"] and seen["text"]
    assert not seen["scrolls"]
    (width, height), (needs_width, needs_height) = seen["label"], seen["needs"]
    assert needs_width <= width and needs_height <= height


def test_on_a_small_screen_the_help_window_fits_it_and_scrolls(qtbot, window):
    dlg = window.show_syntax_help()
    assert window.show_syntax_help() is dlg      # one window, however often it is asked for
    qtbot.waitUntil(dlg.isVisible)
    size = dlg.fit(QRect(0, 0, 800, 500))
    pump(100)
    assert size.width() <= 800 - 40 and size.height() <= 500 - 70
    assert dlg.height() <= 500 - 70
    bar = dlg.scroll.verticalScrollBar()
    assert bar.isVisible() and bar.maximum() > 0
    assert needed_width(dlg.label) <= dlg.label.contentsRect().width()  # no text cut off at the right
    if SHOTS.is_dir():
        dlg.grab().save(str(SHOTS / "syntax_help_800x500.png"))
