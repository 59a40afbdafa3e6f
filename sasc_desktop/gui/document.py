"""The document view: headers, the body with query terms highlighted, attachments with their
extracted text, and the thread. Mail is shown as text; nothing remote is ever loaded."""
from __future__ import annotations

import html
from typing import Any, Callable, Optional, Sequence

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QSplitter,
                               QTabWidget, QTextBrowser, QVBoxLayout, QWidget)

from .models import short_date

HIGHLIGHT = "background-color:#ffe066;color:#000;"


class SafeBrowser(QTextBrowser):
    """A text browser that never fetches anything: every resource request (images, style
    sheets, http(s), file) is refused and remembered; links are not followed."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.refused: list[str] = []

    def loadResource(self, kind: int, url: QUrl):  # noqa: N802 (Qt name)
        self.refused.append(url.toString())
        return None

    def setSource(self, url, *args):  # noqa: N802 - never navigate anywhere
        self.refused.append(QUrl(url).toString())


def highlighted_html(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """Escaped text with the given character spans marked; whitespace kept."""
    out, pos = [], 0
    for start, end in sorted(spans):
        if start < pos or end <= start:
            continue
        out.append(html.escape(text[pos:start]))
        out.append(f'<span style="{HIGHLIGHT}">{html.escape(text[start:end])}</span>')
        pos = end
    out.append(html.escape(text[pos:]))
    return "".join(out)


def text_page(text: str, spans: Sequence[tuple[int, int]] = ()) -> str:
    return ('<pre style="white-space:pre-wrap;font-family:sans-serif;font-size:10.5pt;margin:6px">'
            + highlighted_html(text, spans) + "</pre>")


def _size(n: Optional[int]) -> str:
    if not n:
        return "0 B"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


class DocumentView(QWidget):
    """Shows one document payload (built on the worker thread by :func:`load_document`)."""
    open_requested = Signal(str)  # doc_id of another message (thread navigation)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.doc: Optional[dict[str, Any]] = None
        self.header = QLabel()
        self.header.setObjectName("docHeader")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.header.setWordWrap(True)
        self.header.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.body = SafeBrowser()
        self.body.setObjectName("docBody")

        self.attachments = QListWidget()
        self.attachments.setObjectName("attachmentList")
        self.attachment_text = SafeBrowser()
        att_split = QSplitter(Qt.Orientation.Vertical)
        att_split.addWidget(self.attachments)
        att_split.addWidget(self.attachment_text)
        att_split.setSizes([120, 300])
        self.attachments.currentRowChanged.connect(self._show_attachment)

        self.thread_list = QListWidget()
        self.thread_list.setObjectName("threadList")
        self.thread_list.itemActivated.connect(self._thread_activated)
        self.thread_list.itemDoubleClicked.connect(self._thread_activated)
        self.prev_in_thread = QPushButton("◀ Earlier in thread")
        self.next_in_thread = QPushButton("Later in thread ▶")
        self.prev_in_thread.clicked.connect(lambda: self._thread_step(-1))
        self.next_in_thread.clicked.connect(lambda: self._thread_step(1))
        thread_box = QWidget()
        tl = QVBoxLayout(thread_box)
        tl.setContentsMargins(0, 0, 0, 0)
        buttons = QHBoxLayout()
        buttons.addWidget(self.prev_in_thread)
        buttons.addWidget(self.next_in_thread)
        buttons.addStretch(1)
        tl.addLayout(buttons)
        tl.addWidget(self.thread_list)

        self.tabs = QTabWidget()
        self.tabs.addTab(self.body, "Message")
        self.tabs.addTab(att_split, "Attachments")
        self.tabs.addTab(thread_box, "Thread")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.header)
        layout.addWidget(self.tabs, 1)
        self.clear()

    # ------------------------------------------------------------------------------------
    def clear(self, message: str = "Open a search result to read it here.") -> None:
        self.doc = None
        self.header.setText(f'<span style="color:#666">{html.escape(message)}</span>')
        self.body.setHtml("")
        self.attachments.clear()
        self.attachment_text.setHtml("")
        self.thread_list.clear()
        self.tabs.setTabText(1, "Attachments")
        self.tabs.setTabText(2, "Thread")
        self.prev_in_thread.setEnabled(False)
        self.next_in_thread.setEnabled(False)

    def show_document(self, payload: dict[str, Any]) -> None:
        doc = payload["doc"]
        self.doc = payload
        rows = [("Subject", doc.get("subject") or "(no subject)", payload.get("subject_spans", ())),
                ("From", doc.get("from") or "", ()), ("To", doc.get("to") or "", ()),
                ("Cc", doc.get("cc") or "", ()), ("Bcc", doc.get("bcc") or "", ()),
                ("Date", short_date(doc.get("date")) or "(no date)", ())]
        lines = []
        for name, value, spans in rows:
            if not value and name in ("Cc", "Bcc"):
                continue
            if len(value) > 400:
                value, spans = value[:400] + " …", [s for s in spans if s[1] <= 400]
            shown = highlighted_html(value, spans)
            if name == "Subject":
                lines.append(f'<span style="font-size:13pt;font-weight:600">{shown}</span>')
            else:
                lines.append(f'<span style="color:#555">{name}:</span> {shown}')
        notes = []
        if doc.get("body_is_html"):
            notes.append("HTML message shown as text (no remote content is loaded)")
        if doc.get("notes"):
            notes.append("; ".join(doc["notes"]))
        if notes:
            lines.append(f'<span style="color:#8a6d00;font-size:9pt">{html.escape(" · ".join(notes))}</span>')
        self.header.setText("<br>".join(lines))
        self.body.setHtml(text_page(doc.get("body") or "(empty message)", payload.get("body_spans", ())))

        self.attachments.clear()
        for i, a in enumerate(doc.get("attachments", [])):
            item = QListWidgetItem(f"{a.get('name')}  ·  {a.get('mime_type')}  ·  {_size(a.get('size'))}")
            item.setData(Qt.ItemDataRole.UserRole, i)
            self.attachments.addItem(item)
        n_att = len(doc.get("attachments", []))
        self.tabs.setTabText(1, f"Attachments ({n_att})")
        self.attachment_text.setHtml("")
        if n_att:
            self.attachments.setCurrentRow(0)

        self.thread_list.clear()
        thread = doc.get("thread", [])
        current = 0
        for i, t in enumerate(thread):
            item = QListWidgetItem(f"{short_date(t.get('date')):16}   {t.get('sender') or ''}   —   {t.get('subject') or '(no subject)'}")
            item.setData(Qt.ItemDataRole.UserRole, t.get("doc_id"))
            if t.get("doc_id") == doc.get("doc_id"):
                f = item.font()
                f.setBold(True)
                item.setFont(f)
                current = i
            self.thread_list.addItem(item)
        self.tabs.setTabText(2, f"Thread ({len(thread)})")
        if thread:
            self.thread_list.setCurrentRow(current)
        self.prev_in_thread.setEnabled(current > 0)
        self.next_in_thread.setEnabled(current < len(thread) - 1)

    # ------------------------------------------------------------------------------------
    def _show_attachment(self, row: int) -> None:
        if self.doc is None or row < 0:
            self.attachment_text.setHtml("")
            return
        atts = self.doc["doc"].get("attachments", [])
        if row >= len(atts):
            return
        a = atts[row]
        text = a.get("text")
        spans = self.doc.get("attachment_spans", {}).get(row, ())
        if text:
            self.attachment_text.setHtml(text_page(text, spans))
        else:
            self.attachment_text.setHtml(text_page(f"No text was extracted from {a.get('name')} ({a.get('mime_type')})."))

    def _thread_activated(self, item: QListWidgetItem) -> None:
        doc_id = item.data(Qt.ItemDataRole.UserRole)
        if doc_id and self.doc is not None and doc_id != self.doc["doc"].get("doc_id"):
            self.open_requested.emit(doc_id)

    def _thread_step(self, step: int) -> None:
        if self.doc is None:
            return
        thread = self.doc["doc"].get("thread", [])
        ids = [t.get("doc_id") for t in thread]
        try:
            i = ids.index(self.doc["doc"].get("doc_id"))
        except ValueError:
            return
        j = i + step
        if 0 <= j < len(ids):
            self.open_requested.emit(ids[j])


def load_document(session, doc_id: str, terms: Sequence[str]) -> dict[str, Any]:
    """Runs on the worker thread: the document and its highlight spans, as plain data."""
    doc = session.document(doc_id)
    terms = list(terms)
    payload: dict[str, Any] = {"doc": doc, "terms": terms}
    if terms:
        payload["body_spans"] = session.highlight_spans(doc.get("body") or "", terms)
        payload["subject_spans"] = session.highlight_spans(doc.get("subject") or "", terms)
        payload["attachment_spans"] = {i: session.highlight_spans(a.get("text") or "", terms)
                                       for i, a in enumerate(doc.get("attachments", [])) if a.get("text")}
    return payload
