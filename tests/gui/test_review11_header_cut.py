"""A long header line (a To: of 102 addresses) is shortened at an address, says how many it
leaves out ('… and 85 more'), and the rest can be seen and copied: the '… and N more' link shows
the whole line (and '(show fewer)' shortens it again), and copying the header gives every line
whole, shortened or not. Each value was cut at 400 characters ('lcottle@ …', mid-address), with
no count, no way to see the rest, and Select All + Copy copied the cut text."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence, QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QScrollArea

from sasc_desktop.engine.session import Session
from sasc_desktop.gui.document import HEADER_CUT, DocumentView, address_spans, shortened

from gui_support import label_layout, open_doc, open_project, pump, search

SHOTS = Path("/tmp/s11/eng_gui")
ENRON = "enron-categories-dev/1/233392.txt"     # To: 102 addresses, 2,441 characters
ZW = "\u200b"


def _plain(label) -> str:
    doc = QTextDocument()
    doc.setHtml(label.text())
    return doc.toPlainText().replace(ZW, "")


def _line(label, name: str) -> str:
    return next(line for line in _plain(label).split("\n") if line.startswith(f"{name}: "))


def _collapsed(value: str) -> str:
    """The value as the header shows it: runs of spaces, tabs and line breaks are one space."""
    return re.sub(r"[ \t\r\n]+", " ", value)


def _text_rect(label):
    """Where a QLabel lays out its rich text (QLabelPrivate::documentRect): its contents, and, with
    no indent but a frame (the app's style sheet gives the header padding, which is one), half an
    'x' in from the left and the top."""
    rect = label.contentsRect().adjusted(label.margin(), label.margin(), -label.margin(), -label.margin())
    indent = label.indent()
    if indent < 0 and label.frameWidth():
        indent = label.fontMetrics().horizontalAdvance("x") // 2 - label.margin()
    if indent > 0:
        rect.adjust(indent, indent, 0, 0)       # (the header is aligned top left)
    return rect


def _click_text(label, text: str) -> None:
    """A left click on the middle of ``text`` in the label (of its part on its first line)."""
    rect = _text_rect(label)
    doc = label_layout(label, rect.width())
    at = doc.toPlainText().find(text)
    assert at >= 0, text
    block = doc.findBlock(at)
    line = block.layout().lineForTextPosition(at - block.position())
    on_line = min(len(text), line.textStart() + line.textLength() - (at - block.position()))   # (it may wrap)
    ends = [line.cursorToX(at + i - block.position()) for i in (0, on_line)]
    x = sum(e[0] if isinstance(e, tuple) else e for e in ends) / 2
    origin = block.layout().position()
    point = QPoint(int(origin.x() + x), int(origin.y() + line.y() + line.height() / 2)) + rect.topLeft()
    area = label.parentWidget().parentWidget()          # the header scrolls: the text scrolled to first
    if isinstance(area, QScrollArea):
        area.ensureVisible(point.x(), point.y(), 0, int(line.height()))
        pump(30)
    QTest.mouseClick(label, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    pump(30)


def _shown_view(qtbot) -> DocumentView:
    """A document view of 700 x 500 px, shown."""
    view = DocumentView()
    qtbot.addWidget(view)
    view.resize(700, 500)
    view.show()
    return view


# ----------------------------------------------------------------------------- the pure parts
def test_address_spans_split_at_commas_and_semicolons_outside_quotes_and_brackets():
    value = ' "Smith, John" <john@x.com>,b@y.org ;  (work, home) c@z.net,, <d,@e.com>  ,'
    spans = address_spans(value)
    assert [value[a:b] for a, b in spans] == ['"Smith, John" <john@x.com>', "b@y.org", "(work, home) c@z.net",
                                              "<d,@e.com>"]
    assert address_spans("") == [] and address_spans(" , ;") == []
    assert address_spans('"unclosed, quote <a@b>') == [(0, len('"unclosed, quote <a@b>'))]


def test_where_a_long_line_is_shortened():
    people = [f"person{i:03d}@example.com" for i in range(40)]     # 21 characters each, ", " between
    assert {len(p) for p in people} == {21}
    to = ", ".join(people)
    # as many whole addresses as end within HEADER_CUT characters: the 17th ends at 21 + 23 x 16 = 389,
    # the 18th at 412
    assert shortened("To", to) == (389, "and 23 more")
    assert to[:389].endswith(people[16])
    assert shortened("To", ", ".join(people[:17])) is None           # 389 characters: whole
    assert shortened("To", ", ".join(people[:18])) == (389, "and 1 more")
    assert shortened("Cc", ", ".join(people[:19])) == (389, "and 2 more")
    assert shortened("Bcc", ";".join(people[:19])) == (21 + 22 * 17, "and 1 more")
    assert shortened("To", people[0] + " " * 400) is None             # only spaces after it
    # one address longer than the cut: cut at characters, counted as such
    long_one = "x" * 500 + "@example.com"
    assert shortened("From", long_one) == (HEADER_CUT, "and 112 more characters")
    assert shortened("Subject", "y" * 401) == (HEADER_CUT, "and 1 more character")
    assert shortened("Subject", "y" * 400) is None
    assert shortened("Folder", "f" * 1000) == (HEADER_CUT, "and 600 more characters")


# ----------------------------------------------------------------------------- the real message
@pytest.fixture
def enron(tmp_path, shared_data):
    mail = tmp_path / "mail"
    mail.mkdir()
    shutil.copy(shared_data / ENRON, mail / "233392.eml")
    with Session.create(tmp_path / "p") as s:
        assert s.ingest([mail], workers=0).ingested == 1
        doc_id = s.store.con.execute("SELECT doc_id FROM messages").fetchone()[0]
    return tmp_path / "p", doc_id


def test_the_102_addresses_are_shortened_at_an_address_and_can_be_shown_and_copied(qtbot, window, enron):
    root, doc_id = enron
    window.resize(1400, 900)
    open_project(qtbot, window, root)
    search(qtbot, window, "POWER")
    open_doc(qtbot, window, doc_id)
    pump(50)
    view = window.doc_view
    header = view.header
    to = view.doc["doc"]["to"]
    addresses = [a.strip() for a in to.split(",")]
    assert len(addresses) == 102 and len(to) == 2_441
    # shortened after the last address that ends within 400 characters, with the count left out
    ends = [m.end() for m in re.finditer(r"[^,\s]+@[^,\s]+", to)]
    shown_n = sum(1 for e in ends if e <= HEADER_CUT)
    assert shown_n == 16
    line = _line(header, "To")
    assert line == f"To: {', '.join(addresses[:shown_n])} … and {102 - shown_n} more"
    assert "lcottle@ " not in line
    if SHOTS.is_dir():
        view.grab().save(str(SHOTS / "to_collapsed.png"))

    # Select All + Copy: every line whole, the To: line with all 102 addresses
    clipboard = QGuiApplication.clipboard()
    clipboard.setText("nothing copied")
    header.setFocus()
    QTest.keySequence(header, QKeySequence.StandardKey.SelectAll)
    QTest.keySequence(header, QKeySequence.StandardKey.Copy)
    copied = clipboard.text().split("\n")
    assert f"To: {_collapsed(to)}" in copied and "… and" not in clipboard.text()
    assert f"Cc: {_collapsed(view.doc['doc']['cc'])}" in copied

    # the link shows the whole line; '(show fewer)' shortens it again
    _click_text(header, "… and 86 more")
    assert _line(header, "To") == f"To: {_collapsed(to)} (show fewer)"
    assert all(a in _line(header, "To") for a in addresses)
    if SHOTS.is_dir():
        view.grab().save(str(SHOTS / "to_expanded.png"))
    header.select_all()
    assert f"To: {_collapsed(to)}" in header.copied_text().split("\n")
    assert "(show fewer)" not in header.copied_text()
    # the view gives the header the room it needs, up to a point (the text below stays in sight)
    assert view.tabs.height() >= view.tabs.minimumSizeHint().height()
    _click_text(header, "(show fewer)")
    assert _line(header, "To") == line


def test_a_partial_selection_ending_in_the_link_copies_the_rest_of_the_line(qtbot):
    view = _shown_view(qtbot)
    people = [f"person{i:03d}@example.com" for i in range(40)]
    view.show_document({"doc": {"doc_id": "d", "subject": "s", "from": "a@b.c", "to": ",  ".join(people),
                                "date": "2002-09-02T10:00:00+00:00", "body": "b"}})
    pump(20)
    header = view.header
    plain = QTextDocument()
    plain.setHtml(header.text())
    text = plain.toPlainText()
    start = text.index("person010")
    end = text.index("… and 24 more") + len("… and")
    header.setSelection(start, end - start)
    assert header.copied_text() == ", ".join(people[10:])
    # a selection that stops before the link copies what it selects
    header.setSelection(start, len("person010@example.com"))
    assert header.copied_text() == "person010@example.com"


def test_a_long_subject_keeps_its_highlights_when_shown_whole(qtbot):
    from sasc_desktop.gui.evidence import COLOURS, QUERY
    subject = " ".join(["budget"] * 80)                                  # 559 characters
    view = _shown_view(qtbot)
    spans = [(7 * i, 7 * i + 6) for i in range(80)]
    view.show_document({"doc": {"doc_id": "d", "subject": subject, "from": "a@b.c", "body": "b"},
                        "subject_spans": spans})
    pump(20)
    header = view.header
    assert _plain(header).split("\n")[0] == subject[:HEADER_CUT] + " … and 159 more characters"
    # the 58 words that begin before the cut (the 58th, at 399, up to it)
    assert header.markup().count(f"background-color:{COLOURS[QUERY]}") == 58
    _click_text(header, "… and 159")
    assert _plain(header).split("\n")[0] == subject + " (show less)"
    assert header.markup().count(f"background-color:{COLOURS[QUERY]}") == 80
    header.select_all()
    assert header.copied_text().split("\n")[0] == subject


def test_another_message_is_shown_shortened_again(qtbot):
    view = _shown_view(qtbot)
    to = ", ".join(f"person{i:03d}@example.com" for i in range(40))
    for doc_id in ("a", "b"):
        view.show_document({"doc": {"doc_id": doc_id, "subject": "s", "from": "a@b.c", "to": to, "body": "b"}})
        pump(20)
        assert _line(view.header, "To").endswith("… and 23 more")
        _click_text(view.header, "… and 23 more")
        assert _line(view.header, "To").endswith("(show fewer)")
    # the same message loaded again (a training finished) stays as the reader left it
    view.show_document({"doc": {"doc_id": "b", "subject": "s", "from": "a@b.c", "to": to, "body": "b"}})
    assert _line(view.header, "To").endswith("(show fewer)")


def test_the_context_menu_and_the_links_tip_name_the_whole_line(qtbot):
    from gui_support import tip_text
    view = _shown_view(qtbot)
    to = ", ".join(f"person{i:03d}@example.com" for i in range(40))
    view.show_document({"doc": {"doc_id": "d", "subject": "s", "from": "a@b.c", "to": to, "body": "b"}})
    pump(20)
    header = view.header
    # the link wraps as one word ("…" was left at the end of a line, "and 23 more" on the next)
    assert '<a href="more:To">…&nbsp;and&nbsp;23&nbsp;more</a>' in header.markup()
    header.linkHovered.emit("more:To")
    assert tip_text(header) == "Show the whole To line (all 40 addresses). Copy copies it whole either way."
    header.linkHovered.emit("")
    assert header.toolTip() == ""
    actions = {a.text(): a for a in header.context_menu().actions()}
    assert list(actions) == ["&Copy", "Select All", "Show all of To"]
    actions["Show all of To"].trigger()
    assert _line(header, "To") == f"To: {to} (show fewer)"
    actions = {a.text(): a for a in header.context_menu().actions()}
    assert list(actions) == ["&Copy", "Select All", "Shorten To again"]
    actions["Shorten To again"].trigger()
    assert _line(header, "To").endswith(" … and 23 more")
    # a message with no long line: the menu as it was
    view.show_document({"doc": {"doc_id": "e", "subject": "s", "from": "a@b.c", "to": "x@y.z", "body": "b"}})
    assert [a.text() for a in header.context_menu().actions()] == ["&Copy", "Select All"]


def test_copy_is_whole_after_characters_outside_the_basic_plane(qtbot):
    """Qt counts an emoji as two UTF-16 units, Python as one character: the splice of the whole
    line into the copy was shifted one character per emoji before it ('…@example.comte: 2002-…':
    the link's text left in, the next line's start eaten)."""
    view = _shown_view(qtbot)
    people = [f"person{i:03d}@example.com" for i in range(40)]
    view.show_document({"doc": {"doc_id": "e", "subject": "Party \U0001F389\U0001F389\U0001F389",
                                "from": "Ann \U0001F600 <a@b.c>", "to": ", ".join(people),
                                "date": "2002-09-02T10:00:00+00:00", "body": "b"}})
    pump(20)
    want_to = "To: " + ", ".join(people)
    for state in ("shortened", "shown whole"):
        view.header.select_all()
        lines = view.header.copied_text().split("\n")
        assert lines[0] == "Party \U0001F389\U0001F389\U0001F389", state
        assert "From: Ann \U0001F600 <a@b.c>" in lines and want_to in lines, state
        assert lines[-1].startswith("Date: 2002-09-02"), state
        view.header.linkActivated.emit("more:To")
        pump(20)
