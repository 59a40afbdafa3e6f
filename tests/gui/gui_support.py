"""Helpers for the GUI tests: small real mailboxes (no mocks)."""
from __future__ import annotations

import time
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer


WORDS = ("budget forecast pipeline contract gas power meeting schedule report audit trading desk "
         "holiday family doctor salary review lawyer merger price risk").split()


def make_mbox(path: Path, n: int, malformed: bool = False, start: int = 0, html_one: bool = False) -> Path:
    """An mbox of ``n`` generated messages in threads of three; optionally one malformed message
    (no headers) in the middle, and one HTML message with a remote image."""
    base = datetime(2001, 3, 1, 9, 0, tzinfo=timezone.utc)
    out = []
    for i in range(start, start + n):
        thread = i // 3
        w = [WORDS[(i * 7 + k) % len(WORDS)] for k in range(6)]
        subject = f"{'Re: ' if i % 3 else ''}Topic {thread} {WORDS[thread % len(WORDS)]}"
        headers = [f"From: Person {i % 5} <person{i % 5}@example.com>",
                   f"To: Person {(i + 1) % 5} <person{(i + 1) % 5}@example.com>",
                   f"Subject: {subject}",
                   f"Date: {format_datetime(base + timedelta(hours=i))}",
                   f"Message-ID: <msg{i}@example.com>"]
        if i % 3:
            headers.append(f"In-Reply-To: <msg{i - 1}@example.com>")
            headers.append(f"References: <msg{thread * 3}@example.com>")
        body = f"Message number {i}. We discussed the {' '.join(w)} today.\nRegards,\nPerson {i % 5}\n"
        if html_one and i == start:
            headers += ["MIME-Version: 1.0", 'Content-Type: text/html; charset="utf-8"']
            body = ('<html><body><p>An <b>HTML</b> budget note.</p>'
                    '<img src="http://tracker.example.com/pixel.png"></body></html>\n')
        out.append(f"From person{i % 5}@example.com Thu Mar  1 09:00:00 2001\n" + "\n".join(headers) + "\n\n" + body + "\n")
        if malformed and i == start + n // 2:
            out.append("From nobody Thu Mar  1 09:00:00 2001\nthis line is not an email header at all\n\nno headers here\n\n")
    path.write_text("".join(out))
    return path




def pump(msecs: int) -> None:
    """Run the event loop for ``msecs``. Unlike QTest.qWait (qtbot.waitUntil), a QEventLoop
    releases the GIL while it waits, so background threads (the workers) get on meanwhile."""
    loop = QEventLoop()
    QTimer.singleShot(msecs, loop.quit)
    loop.exec()


def wait_until(predicate, timeout: float = 60.0, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        pump(20)


def wait_idle(qtbot, win, timeout=60_000):
    wait_until(lambda: not win.worker.busy and not win.background.busy, timeout / 1000, "the workers to be idle")


def open_project(qtbot, win, root):
    with qtbot.waitSignal(win.project_loaded, timeout=60_000):
        win.open_project(root)
    wait_idle(qtbot, win)


def open_prefs(qtbot, win):
    """A new Preferences dialog of ``win``, shown."""
    win.prefs_dialog = None
    win.show_preferences()
    qtbot.waitUntil(lambda: win.prefs_dialog is not None and win.prefs_dialog.isVisible(), timeout=30_000)
    return win.prefs_dialog


def save_prefs(qtbot, win, dlg):
    """OK on the Preferences dialog ``dlg``; returns once the save, the search run again and the
    message loaded again are all done."""
    with qtbot.waitSignal(dlg.accepted, timeout=5_000):
        dlg.accept()
    wait_idle(qtbot, win)


def open_doc(qtbot, win, doc_id):
    with qtbot.waitSignal(win.document_shown, timeout=60_000):
        win.open_document(doc_id)
    wait_idle(qtbot, win)


def search(qtbot, win, query):
    win.search_panel.query_box.setEditText(query)
    with qtbot.waitSignal(win.search_done, timeout=30_000):
        win.search_panel.submit()
    wait_idle(qtbot, win)


def label_layout(label, width: float | None = None):
    """A word-wrapping rich-text QLabel's text laid out as QLabel lays it out (no document margin,
    the label's font, wrapping at word boundaries only) at ``width`` (the label's contents width
    if not given): a QTextDocument."""
    from PySide6.QtGui import QTextDocument, QTextOption
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    doc.setDefaultFont(label.font())
    option = doc.defaultTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    doc.setDefaultTextOption(option)
    doc.setHtml(label.text())
    doc.setTextWidth(label.contentsRect().width() if width is None else width)
    doc.size()
    return doc


def needed_width(label) -> float:
    """The width a word-wrapping rich-text QLabel's text needs at the label's width: wider than
    the label when a word cannot be broken (the label then cuts it off at its right edge). Laid
    out as QLabel does (:func:`label_layout`)."""
    return label_layout(label).idealWidth()


def tip_text(widget) -> str:
    """A widget's tooltip as the user reads it (text from mail or files is set as escaped HTML,
    widgets.plain_tip, so that Qt never reads it as markup)."""
    from PySide6.QtGui import QTextDocumentFragment
    return QTextDocumentFragment.fromHtml(widget.toolTip()).toPlainText()
