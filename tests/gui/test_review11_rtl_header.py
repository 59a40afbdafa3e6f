"""A right-to-left subject (Hebrew, Arabic) is right-aligned in the message header, and only
the subject: the header's lines were one paragraph joined by <br>, whose direction Qt takes from
its first strong character, the subject's, so From/To/Date/Folder were right-aligned too
('From:' at x = 410 of 621 px). The subject is a block of its own whose direction comes from its
text (dir="auto"); the labelled lines are a left-to-right block (they begin with their labels)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument

from sasc_desktop.engine.session import Session
from sasc_desktop.gui.document import DocumentView

from gui_support import label_layout, open_doc, open_project, pump

SHOTS = Path("/tmp/s11/eng_gui")
HEBREW = "שלום עולם"                 # "hello world"
ARABIC_NAME = "سارة أحمد"             # a display name written right to left


def _doc(subject: str, sender: str = "Alice <alice@example.com>") -> dict:
    return {"doc": {"doc_id": "d", "subject": subject, "from": sender, "to": "Bob <bob@example.com>",
                    "cc": "", "date": "2002-09-02T10:00:00+00:00", "folder": "mail/Inbox", "body": "body"}}


def _line(doc: QTextDocument, text: str):
    """(the block holding ``text``, the x where its line starts, where it ends)."""
    at = doc.toPlainText().find(text)
    assert at >= 0, text
    block = doc.findBlock(at)
    line = block.layout().lineForTextPosition(at - block.position())
    rect = line.naturalTextRect()
    return block, round(rect.left()), round(rect.right())


def _check(view: DocumentView, subject: str, rtl_subject: bool, labels=("From:", "To:", "Date:", "Folder:")):
    doc = label_layout(view.header)
    width = view.header.contentsRect().width()
    block, left, right = _line(doc, subject)
    if rtl_subject:
        assert block.textDirection() == Qt.LayoutDirection.RightToLeft
        assert right == width and left > 0, (left, right, width)     # flush right
    else:
        assert block.textDirection() == Qt.LayoutDirection.LeftToRight
        assert left == 0
    for label in labels:
        block, left, _ = _line(doc, label)
        assert block.textDirection() == Qt.LayoutDirection.LeftToRight, label
        assert left == 0, (label, left)
    # the subject is a block of its own; the labelled lines are another
    assert doc.findBlock(doc.toPlainText().find(subject)).blockNumber() == 0
    assert {doc.findBlock(doc.toPlainText().find(label)).blockNumber() for label in labels} == {1}


def test_a_hebrew_subject_is_right_aligned_and_the_labelled_lines_left(qtbot):
    view = DocumentView()
    qtbot.addWidget(view)
    view.resize(640, 400)
    view.show()
    for subject, rtl in ((HEBREW, True), ("Hello world", False), (f"{HEBREW} — budget 2002", True),
                         (f"Re: {HEBREW}", False)):
        view.show_document(_doc(subject))
        pump(20)
        _check(view, subject, rtl)


def test_a_right_to_left_sender_name_leaves_its_line_left_aligned(qtbot):
    view = DocumentView()
    qtbot.addWidget(view)
    view.resize(640, 400)
    view.show()
    view.show_document(_doc(HEBREW, f"{ARABIC_NAME} <sara@example.com>"))
    pump(20)
    _check(view, HEBREW, True)
    doc = label_layout(view.header)
    assert f"From: {ARABIC_NAME} <sara@example.com>" in doc.toPlainText().split("\n")


def test_in_the_window_with_a_real_message(qtbot, window, tmp_path):
    mail = tmp_path / "mail"
    mail.mkdir()
    (mail / "0.eml").write_text("From: Alice <alice@example.com>\nTo: Bob <bob@example.com>\n"
                                "Subject: =?utf-8?b?16nXnNeV150g16LXldec150=?=\n"
                                "Date: Mon, 2 Sep 2002 10:00:00 +0000\nMessage-ID: <rtl0@example.com>\n\nbody\n")
    with Session.create(tmp_path / "p") as s:
        assert s.ingest([mail], workers=0).ingested == 1
    window.resize(1400, 900)
    open_project(qtbot, window, tmp_path / "p")
    open_doc(qtbot, window, "rtl0@example.com")
    pump(50)
    view = window.doc_view
    assert view.doc["doc"]["subject"] == HEBREW
    _check(view, HEBREW, True, labels=("From:", "To:", "Date:"))
    if SHOTS.is_dir():
        view.header.grab().save(str(SHOTS / "rtl_header_after.png"))
