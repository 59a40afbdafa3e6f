"""Copying from the message header gives the text as it is, never the zero-width spaces the
header's width-based breaking puts in (see breakable_html): a 52-character URL in the subject,
broken in a 640 px window, was pasted with U+200B in it (a broken link), by Ctrl+C and by the
context menu's Copy alike. The other header lines (From, To, Cc) are copied the same way."""
from __future__ import annotations

from pathlib import Path

import pytest

from PySide6.QtCore import QPoint, QTimer
from PySide6.QtGui import QContextMenuEvent, QGuiApplication, QKeySequence, QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from sasc_desktop.engine.session import Session

from gui_support import open_doc, open_project, pump

ZW = "\u200b"
SUBJECTS = {"short": "See https://example.com/reports/2019/q3/budget-final.pdf",
            "long": "Fwd: " + "W" * 100 + " and https://intranet.example.com/"
                    + "/".join(f"segment{i:03d}" for i in range(15)) + "?id=END"}
CC = "a.very.long.name.of.someone@departments.example-corporation.com"


def _project(tmp_path) -> Path:
    mail = tmp_path / "mail"
    mail.mkdir()
    for name, subject in SUBJECTS.items():
        (mail / f"{name}.eml").write_text(f"From: Web Tracker <news@shop.example.com>\nTo: bob@corp.com\n"
                                          f"Cc: {CC}\nSubject: {subject}\n"
                                          f"Date: Tue, 1 May 2001 09:00:00 +0000\n"
                                          f"Message-ID: <{name}@x>\n\nSee the report.\n")
    with Session.create(tmp_path / "p") as s:
        assert s.ingest([mail], workers=0).ingested == len(SUBJECTS)
    return tmp_path / "p"


def _select_subject(header, subject: str) -> None:
    first_line = header.text().split("<br>")[0]
    header.setSelection(0, len(subject) + first_line.count(ZW))


def _copy_by_context_menu(header) -> None:
    """Right-click the header and choose Copy in the menu that pops up (QLabel's menu runs its
    own event loop: the choice is made from a timer)."""
    chosen = []

    def choose():
        menu = QApplication.activePopupWidget()
        copy = [a for a in menu.actions() if a.text().startswith("&Copy")]
        chosen.append(len(copy))
        copy[0].trigger()
        menu.close()
    QTimer.singleShot(100, choose)
    point = QPoint(5, 5)
    QApplication.sendEvent(header, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point,
                                                     header.mapToGlobal(point)))
    pump(300)
    assert chosen == [1], "the context menu had no Copy"


def _copy_by_keys(header) -> None:
    QTest.keySequence(header, QKeySequence.StandardKey.Copy)
    pump(50)


@pytest.mark.parametrize("copy", [_copy_by_keys, _copy_by_context_menu], ids=["ctrl_c", "context_menu"])
def test_copying_the_subject_copies_it_without_zero_width_spaces(qtbot, window, tmp_path, copy):
    open_project(qtbot, window, _project(tmp_path))
    window.resize(640, 700)
    pump(150)
    header = window.doc_view.header
    clipboard = QGuiApplication.clipboard()
    for name, subject in SUBJECTS.items():
        open_doc(qtbot, window, f"{name}@x")
        pump(200)
        assert ZW in header.text().split("<br>")[0], f"{name}: the subject is not broken at this width"
        clipboard.setText("nothing copied")
        header.setFocus()
        _select_subject(header, subject)
        copy(header)
        assert clipboard.text() == subject, name


@pytest.mark.parametrize("copy", [_copy_by_keys, _copy_by_context_menu], ids=["ctrl_c", "context_menu"])
def test_copying_the_whole_header_copies_every_line_as_it_is(qtbot, window, tmp_path, copy):
    open_project(qtbot, window, _project(tmp_path))
    window.resize(640, 700)
    pump(150)
    header = window.doc_view.header
    open_doc(qtbot, window, "long@x")
    pump(200)
    unbroken = QTextDocument()
    unbroken.setHtml(header.markup())
    expected = unbroken.toPlainText()
    assert ZW not in expected and f"Cc: {CC}" in expected and "From: Web Tracker <news@shop.example.com>" in expected
    clipboard = QGuiApplication.clipboard()
    clipboard.setText("nothing copied")
    header.setFocus()
    QTest.keySequence(header, QKeySequence.StandardKey.SelectAll)
    assert header.hasSelectedText()
    copy(header)
    assert clipboard.text() == expected


def test_the_context_menu_copies_only_a_selection(qtbot, window, tmp_path):
    open_project(qtbot, window, _project(tmp_path))
    open_doc(qtbot, window, "short@x")
    header = window.doc_view.header
    header.setSelection(0, 0)
    menu = header.context_menu()
    actions = {a.text(): a for a in menu.actions()}
    assert not actions["&Copy"].isEnabled()
    actions["Select All"].trigger()
    unbroken = QTextDocument()
    unbroken.setHtml(header.markup())
    assert header.copied_text() == unbroken.toPlainText()
