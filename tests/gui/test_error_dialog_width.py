"""An error about a query with a 600-character token: the dialog fits the screen and its text
wraps inside it (it was 1000 px wide, the token cut off at its right edge). Words over 80
characters are shortened in the middle ("…"); the whole message stays in the details."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QLabel

from sasc_desktop.engine.errors import SascError
from sasc_desktop.gui.errors import LONGEST_WORD, shorten_words, show_error

from gui_support import needed_width, open_project, wait_until

SHOTS = Path("/tmp/s7/gui_fix")
ZW = "\u200b"


def _fits(label: QLabel) -> bool:
    """The label's text, laid out at the label's width, is no wider than it (nothing cut off)."""
    return needed_width(label) <= label.contentsRect().width()


def _check_box(qtbot, box, name):
    qtbot.waitUntil(box.isVisible)
    qtbot.wait(100)
    screen = box.screen().availableGeometry()
    assert box.width() <= screen.width() and box.height() <= screen.height()
    for label_name in ("qt_msgbox_label", "qt_msgbox_informativelabel"):
        label = box.findChild(QLabel, label_name)
        assert label is not None and _fits(label), label_name
    if SHOTS.is_dir():
        box.grab().save(str(SHOTS / f"{name}.png"))


def test_a_600_character_token_in_a_query_gives_a_dialog_that_fits(qtbot, window, project):
    open_project(qtbot, window, project)
    token = "x" * 600
    window.search_panel.query_box.setEditText(token)
    window.search_panel.submit()
    wait_until(lambda: window.error_dialogs, 30, "the error dialog")
    box = window.error_dialogs[-1]
    _check_box(qtbot, box, "err_600_token")
    shown = box.text().replace(ZW, "") + box.informativeText().replace(ZW, "")
    import re
    assert "x" * 60 + "…" in shown and max(len(run) for run in re.findall(r"[x…]+", shown)) <= LONGEST_WORD
    assert token in box.detailedText()          # the whole of it is in Show Details…
    box.close()


def test_an_error_dialog_without_details_keeps_the_whole_message_in_them(qtbot):
    word = "y" * 300
    box = show_error(None, "Searching", SascError(f"the query '{word}' has no searchable words"))
    qtbot.addWidget(box)
    _check_box(qtbot, box, "err_no_details")
    assert word not in box.informativeText().replace(ZW, "")
    assert box.detailedText() == f"the query '{word}' has no searchable words"
    box.close()


def test_shorten_words_exact():
    assert shorten_words("short words stay as they are") == "short words stay as they are"
    assert shorten_words("a" * LONGEST_WORD) == "a" * LONGEST_WORD
    long = "'" + "b" * 200 + "'"
    short = shorten_words(f"the query {long} has none")
    plain = short.replace(ZW, "")
    assert plain == "the query '" + "b" * (LONGEST_WORD - 14) + "…" + "b" * 11 + "' has none"
    assert len(plain.split()[2]) == LONGEST_WORD
    assert max(len(piece) for piece in short.replace(" ", ZW).split(ZW)) <= 40
