"""The document view: headers, the body with query terms highlighted, attachments with their
extracted text, and the thread. Mail is shown as text; nothing remote is ever loaded. A long text
is shown in parts of bounded size, the first part's HTML made on the worker thread."""
from __future__ import annotations

import html
import logging
import re
import shlex
import threading
from dataclasses import replace
from typing import Any, Callable, Optional, Sequence

from PySide6.QtCore import QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QClipboard, QFont, QFontMetricsF, QGuiApplication, QKeySequence, QTextDocument
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QMenu, QPushButton,
                               QScrollArea, QSizePolicy, QSplitter, QTabWidget, QTextBrowser, QVBoxLayout,
                               QWidget)

from ..engine.errors import SascError
from .evidence import (CUE, PAGE_CHARS, PII, QUERY, TRAIN_MENU, Mark, PagedText, field_marks, merged_html,
                       read_only_hint, sensitivity_html)
from .models import header_date, local_date
from .widgets import plain_tip

log = logging.getLogger("sasc_desktop.gui")

_OLD_HINT = "retrain with 'sasc classify train'"    # how the engine ends a refused (old / damaged) model file


def folder_line(doc: dict[str, Any]) -> str:
    """The message's folder, as folder: finds it (the kept copy's), and the other folders its
    copies were imported from: 'mail/Sent (copies also in mail/Inbox)'."""
    folder = doc.get("folder") or ""
    others = sorted({c.get("folder") or "" for c in doc.get("copies", []) if not c.get("kept")} - {folder, ""})
    if not others:
        return folder
    return f"{folder or '(top folder)'} (copies also in {', '.join(others)})"


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


_TAG_OR_TEXT = re.compile(r"(<[^>]*>)|([^<]+)")
_TEXT_UNIT = re.compile(r"&#?\w+;|.", re.S)   # an entity is one character
# Characters in a run without a space before a break may go in: past any e-mail address or path
# one would copy (HeaderLabel copies its text without the zero-width spaces all the same). A run
# wider than the label is broken where the label's width ends as well (see breakable_html's
# ``advance``).
BREAK_EVERY = 60


_LINE_BREAK_TAG = re.compile(r"<(br|/?p|/?div)\b", re.I)


def breakable_html(markup: str, every: int = BREAK_EVERY, width: float = 0.0,
                   advance: Optional[Callable[[str], float]] = None) -> str:
    """``markup`` with a zero-width space after every ``every`` characters of a run without
    whitespace (outside tags, entities whole; a run goes on across inline tags, ends at a line
    break): a word-wrapping label is as wide as its longest word, and a subject of 190 dots
    would widen the window. Given ``advance`` (the width a piece of text takes) and ``width``
    (the label's), a run wider than ``width`` is instead broken where each piece would grow
    wider than it, so that it wraps within the label rather than being cut at its right edge
    (60 bold capitals are wider than the message pane); a run that fits is left whole. A run holding "@"
    (an address, a list of them) gets none: a copied address must stay one; the label, never
    wider than it is given, clips it instead."""
    items: list[tuple[bool, str, int]] = []      # (is a tag, text, run number)
    runs_with_at: set[int] = set()
    run_text: dict[int, list[str]] = {}
    run_no, in_run = 0, False
    for m in _TAG_OR_TEXT.finditer(markup):
        if m.group(1):
            if _LINE_BREAK_TAG.match(m.group(1)):
                in_run = False
            items.append((True, m.group(1), -1))
            continue
        for unit in _TEXT_UNIT.findall(m.group(2)):
            if unit.isspace():
                in_run = False
                items.append((False, unit, -1))
                continue
            if not in_run:
                run_no, in_run = run_no + 1, True
                run_text[run_no] = []
            if unit == "@":
                runs_with_at.add(run_no)
            run_text[run_no].append(html.unescape(unit) if unit.startswith("&") else unit)
            items.append((False, unit, run_no))
    too_wide: set[int] = set()
    if advance is not None and width > 0:
        too_wide = {r for r, units in run_text.items()
                    if r not in runs_with_at and len(units) > 1 and advance("".join(units)) > width}
    out, count, last, piece = [], 0, None, ""
    for is_tag, text, run in items:
        if not is_tag and run >= 0:
            if run != last:
                count, piece = 1, ""
            else:
                count += 1
            last = run
            unit = html.unescape(text) if text.startswith("&") else text
            if run in too_wide:
                if piece and advance(piece + unit) > width:
                    out.append("\u200b")
                    piece = ""
            elif run not in runs_with_at and count > every and (count - 1) % every == 0:
                out.append("\u200b")
            piece += unit
        out.append(text)
    return "".join(out)


HEADER_CUT = 400   # characters of a header line shown before "… and N more"
ADDRESS_FIELDS = ("From", "To", "Cc", "Bcc")
_SEPARATOR_SPACE = re.compile(r"[ \t\r\n\f]+")    # what rich text shows as one space


def address_spans(value: str) -> list[tuple[int, int]]:
    """Where each address of an address list is: ``(start, end)`` of its text, without the
    separators (commas and semicolons outside quotes, angle brackets and parentheses) and the
    spaces around it; empty ones left out."""
    spans: list[tuple[int, int]] = []
    start, quoted, escaped, angle, paren = 0, False, False, 0, 0

    def add(a: int, b: int) -> None:
        while a < b and value[a].isspace():
            a += 1
        while b > a and value[b - 1].isspace():
            b -= 1
        if b > a:
            spans.append((a, b))
    for i, c in enumerate(value):
        if escaped:
            escaped = False
        elif c == "\\" and quoted:
            escaped = True
        elif c == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif c == "<":
            angle += 1
        elif c == ">":
            angle = max(0, angle - 1)
        elif c == "(":
            paren += 1
        elif c == ")":
            paren = max(0, paren - 1)
        elif c in ",;" and not angle and not paren:
            add(start, i)
            start = i + 1
    add(start, len(value))
    return spans


def shortened(name: str, value: str) -> Optional[tuple[int, str]]:
    """How the header line ``name`` shows ``value``: None when whole (at most :data:`HEADER_CUT`
    characters), else ``(cut, what is left out)``: an address list after the last address that
    ends within HEADER_CUT characters ("and 85 more"), anything else (or a first address longer
    than that) at HEADER_CUT characters ("and 14 more characters")."""
    if len(value) <= HEADER_CUT:
        return None
    if name in ADDRESS_FIELDS:
        spans = address_spans(value)
        whole = [b for _, b in spans if b <= HEADER_CUT]
        if len(whole) == len(spans):
            return None                       # (spaces after the last address only)
        if whole:
            more = len(spans) - len(whole)
            return whole[-1], f"and {more:,} more"
    more = len(value) - HEADER_CUT
    return HEADER_CUT, f"and {more:,} more character{'' if more == 1 else 's'}"


def _unbroken(text: str) -> str:
    """``text`` as HTML that wraps as one word (a link's words kept on one line)."""
    return html.escape(text).replace(" ", "&nbsp;")


def header_markup(subject_line: str, lines: Sequence[str]) -> str:
    """The header's rich text: the subject a block of its own whose direction comes from its
    text (dir="auto": a Hebrew or Arabic subject is right-aligned), then the labelled lines
    (From:, To:, ...) joined by line breaks in a block of their own, left to right: it begins
    with a label. (One paragraph of <br>-joined lines took its direction from its first strong
    character, the subject's, and a right-to-left subject right-aligned every line.)"""
    return f'<div dir="auto">{subject_line}</div>' + "<br>".join(lines)


class HeaderLabel(QLabel):
    """The message header: rich text that wraps within the label's width, however long a word
    without spaces in it is (see :func:`breakable_html`): its breaks are worked out again for
    each width the label is given. ``set_markup`` sets the text."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._markup = ""
        self._width = -1
        self._links: dict[str, tuple[str, bool]] = {}

    def set_markup(self, markup: str, links: Optional[dict[str, tuple[str, bool]]] = None) -> None:
        """Show ``markup``. ``links``: for each link of a shortened or lengthened line (its href),
        the text a copy gets in its place (the part of the line left out; nothing for "(show
        fewer)") and whether the space before the link was put there for it (copied as nothing)."""
        self._markup = markup
        self._links = dict(links or {})
        self._width = self.contentsRect().width()
        self.setText(self._broken(self._width))

    def markup(self) -> str:
        return self._markup

    def _broken(self, width: int) -> str:
        # Measured in the header's largest font (the subject's: 13 pt, weight 600), a little
        # short of the width, so that a piece fits whatever line of the header it is on.
        font = QFont(self.font())
        font.setPointSizeF(13)
        font.setWeight(QFont.Weight.DemiBold)
        metrics = QFontMetricsF(font)
        return breakable_html(self._markup, width=max(1.0, width - 4.0), advance=metrics.horizontalAdvance)

    def resizeEvent(self, event):  # noqa: N802 (Qt name)
        width = self.contentsRect().width()
        if width != self._width:
            self._width = width
            self.setText(self._broken(width))
        super().resizeEvent(event)

    # Copying: the breaks are the label's, not the text's. QLabel's own Copy put the zero-width
    # spaces on the clipboard (a URL in the subject pasted broken), so the label copies itself:
    # Ctrl+C, its context menu's Copy, and (X11) the selection a middle click pastes.
    def copied_text(self) -> str:
        """The selected text as it is copied: without the zero-width spaces (the copy of a URL
        or an address is the URL or address), a line break as a newline, and each line whole: a
        selection reaching into a shortened line's "… and 85 more" gets what it leaves out in
        its place, and into "(show fewer)" nothing."""
        text = self.selectedText()
        start = self.selectionStart()
        if self._links and text and start >= 0:
            # Qt's positions count UTF-16 units (an emoji is two), so the splice is made in them
            units = text.encode("utf-16-le", "surrogatepass")
            for a, b, (instead, spaced) in reversed(self._link_ranges()):
                lo, hi = max(a, start), min(b, start + len(units) // 2)
                if lo < hi:
                    units = (units[:2 * (lo - start)] + instead.encode("utf-16-le", "surrogatepass")
                             + units[2 * (hi - start):])
            text = units.decode("utf-16-le", "surrogatepass")
        return (text.replace("\u200b", "").replace("\u2029", "\n")
                .replace("\u2028", "\n").replace("\u00a0", " "))

    def _link_ranges(self) -> list[tuple[int, int, tuple[str, bool]]]:
        """Where the links of ``links`` are in the label's text (the space put before one
        included), in order."""
        doc = QTextDocument()
        doc.setHtml(self.text())
        out = []
        block = doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                href = fragment.charFormat().anchorHref() if fragment.charFormat().isAnchor() else ""
                if href in self._links:
                    a, b = fragment.position(), fragment.position() + fragment.length()
                    if out and out[-1][1] == a and out[-1][2] is self._links[href]:
                        a = out.pop()[0]      # one link in several fragments (breaks put in it)
                    elif self._links[href][1]:
                        a -= 1
                    out.append((a, b, self._links[href]))
                it += 1
            block = block.next()
        return out

    def copy(self) -> None:
        if self.hasSelectedText():
            QGuiApplication.clipboard().setText(self.copied_text())

    def select_all(self) -> None:
        doc = QTextDocument()
        doc.setHtml(self.text())
        self.setSelection(0, doc.characterCount() - 1)

    def keyPressEvent(self, event):  # noqa: N802 (Qt name)
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy()
            event.accept()
            return
        super().keyPressEvent(event)

    def mouseReleaseEvent(self, event):  # noqa: N802 (Qt name)
        super().mouseReleaseEvent(event)
        clipboard = QGuiApplication.clipboard()
        if clipboard.supportsSelection() and self.hasSelectedText():
            clipboard.setText(self.copied_text(), QClipboard.Mode.Selection)

    def context_menu(self) -> QMenu:
        """The label's context menu (in place of QLabel's): Copy, Select All."""
        menu = QMenu(self)
        copy = menu.addAction("&Copy", self.copy)
        copy.setShortcut(QKeySequence.StandardKey.Copy)
        copy.setEnabled(self.hasSelectedText())
        select = menu.addAction("Select All", self.select_all)
        select.setShortcut(QKeySequence.StandardKey.SelectAll)
        for href in self._links:   # the links of the shortened (lengthened) lines, for the keyboard too
            kind, _, name = href.partition(":")
            menu.addAction(f"Show all of {name}" if kind == "more" else f"Shorten {name} again",
                           lambda href=href: self.linkActivated.emit(href))
        return menu

    def contextMenuEvent(self, event):  # noqa: N802 (Qt name)
        menu = self.context_menu()
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(event.globalPos())
        event.accept()


class HeaderArea(QScrollArea):
    """The header label in a frameless scroll area as tall as the label needs at its width, or,
    :attr:`capped` (a line is shown whole, see DocumentView.whole_lines), at most about half the
    height of the view it is in: a list of thousands of addresses then scrolls, and the message
    below stays in sight. It never widens the view (the label wraps to the width it is given)."""

    LEAST_CAP = 160   # px: the cap in a view shorter than twice that

    def __init__(self, label: QLabel, parent=None):
        super().__init__(parent)
        self.label = label
        self.capped = False
        self.setObjectName("docHeaderArea")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setWidget(label)
        self.viewport().setAutoFillBackground(False)
        label.setAutoFillBackground(False)
        policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setMinimumWidth(1)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)   # (Tab goes on past the header as before)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt name)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt name)
        need = self.label.heightForWidth(max(1, width))
        if self.capped:
            view = self.parentWidget()
            return min(need, max(self.LEAST_CAP, (view.height() if view is not None else 0) // 2))
        return need

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt name)
        width = self.width() if self.width() > 1 else self.label.sizeHint().width()
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt name)
        return QSize(1, self.heightForWidth(self.width()) if self.width() > 1 else self.label.minimumSizeHint().height())


def _no_wider_than_given(label: QLabel) -> None:
    """The layout gives the label its width; its text wraps in it (never the other way round)."""
    label.setMinimumWidth(1)
    policy = label.sizePolicy()
    policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
    label.setSizePolicy(policy)


def query_marks(spans: Sequence[tuple[int, int]]) -> list[Mark]:
    return [Mark(int(a), int(b), QUERY) for a, b in spans]


def highlighted_html(text: str, spans: Sequence[tuple[int, int]], marks: Sequence[Mark] = ()) -> str:
    """Escaped text with the query-term spans (and any evidence marks) highlighted; whitespace kept."""
    return merged_html(text, query_marks(spans) + list(marks))


def page_document(inner_html: str) -> str:
    """A shown text's HTML (already escaped and highlighted) as the browser's page."""
    return ('<pre style="white-space:pre-wrap;font-family:sans-serif;font-size:10.5pt;margin:6px">'
            + inner_html + "</pre>")


def text_page(text: str, spans: Sequence[tuple[int, int]] = (), marks: Sequence[Mark] = ()) -> str:
    return page_document(highlighted_html(text, spans, marks))


def paged_text(text: str, spans: Sequence[tuple[int, int]] = (), marks: Sequence[Mark] = ()) -> PagedText:
    """The text in parts with its query-term spans and evidence marks; the first part's HTML is
    made here (call it on the worker thread), the others when they are shown."""
    pages = PagedText(text, query_marks(spans) + list(marks))
    pages.page_html(0)
    return pages


# A long message's search terms are found part by part (the whole-text analysis of a 1.5 MB
# message took 1.3 s, most of it for parts never shown): while it loads (on the worker) those of
# its first QUERY_AHEAD characters (body, then attachments; a text's first part always), so that
# a message up to that long opens with its part notice whole; the rest a slice at a time on the
# UI thread while it is idle (PagedBrowser), or at once for a part the reader turns to first.
QUERY_AHEAD = 700_000    # characters: about half a second of work
QUERY_SLICE = 5_000      # characters searched at a time (about 5 ms; the UI thread does it while idle)
WORD_REACH = 1_000       # characters read before and after a slice to have its edge words whole
_SPACES = (" ", "\n", "\t", "\r", "\f", "\v")
# The index's analyser is shared by the worker and the UI thread, and Whoosh's stem cache is not
# safe to use from two threads at once: every call to it from here holds this lock (a slice each).
_HIGHLIGHT_LOCK = threading.Lock()


def locked_highlighter(session, terms: Sequence[str]) -> Callable[[str], list[tuple[int, int]]]:
    """``text -> spans of the search terms in it`` (Session.highlight_spans), one call at a time."""
    terms = list(terms)

    def highlight(text: str) -> list[tuple[int, int]]:
        with _HIGHLIGHT_LOCK:
            return session.highlight_spans(text, terms)
    return highlight


def spans_within(highlight: Callable[[str], list[tuple[int, int]]], text: str, a: int, b: int,
                 reach: int = WORD_REACH) -> list[tuple[int, int]]:
    """The spans of ``highlight(text)`` that reach into ``text[a:b]`` (offsets into ``text``),
    found by analysing only the text around it: from just after the last whitespace up to
    ``reach`` characters before ``a`` to the first one up to ``reach`` characters after ``b``.
    A word has no whitespace in it, so the words reaching into ``text[a:b]`` are read whole and
    as in the whole text; failing whitespace, one cut at ``reach`` characters is longer than any
    indexed word (40), so neither it nor the whole word is a search term."""
    floor, ceiling = max(0, a - reach), min(len(text), b + reach)
    before = max(text.rfind(c, floor, a) for c in _SPACES)
    lo = before + 1 if before >= 0 else floor
    after = [i for i in (text.find(c, b, ceiling) for c in _SPACES) if i >= 0]
    hi = min(after) if after else ceiling
    return [(lo + s, lo + e) for s, e in highlight(text[lo:hi]) if lo + e > a and lo + s < b]


class QueryPages(PagedText):
    """A :class:`PagedText` whose search-term marks are found part by part, a slice of
    ``slice_chars`` at a time (:meth:`step`), by ``highlight`` (text -> spans): a part is
    searched in full before its HTML is made (:meth:`page_marks`); :meth:`pending` are the parts
    not yet searched. The spans are those of ``highlight`` over the whole text (see
    :func:`spans_within`)."""

    def __init__(self, text: str, marks: Sequence[Mark] = (),
                 highlight: Optional[Callable[[str], list[tuple[int, int]]]] = None,
                 size: int = PAGE_CHARS, slice_chars: int = QUERY_SLICE):
        super().__init__(text, marks, size)
        self.highlight = highlight
        self.slice_chars = max(1, slice_chars)
        self._found: dict[int, set[tuple[int, int]]] = {}   # part -> spans reaching into it
        self._upto: dict[int, int] = {}                      # part -> searched up to (offset into text)

    def done(self, page: int) -> bool:
        a, b = self.span(page)
        return self.highlight is None or self._upto.get(page, a) >= b

    def pending(self) -> list[int]:
        return [p for p in range(len(self)) if not self.done(p)]

    def step(self, page: int) -> bool:
        """Search the next slice of part ``page``; whether the part is searched in full."""
        a, b = self.span(page)
        start = self._upto.get(page, a)
        if self.highlight is None or start >= b:
            return True
        end = min(b, start + self.slice_chars)
        self._found.setdefault(page, set()).update(spans_within(self.highlight, self.text, start, end))
        self._upto[page] = end
        return end >= b

    def search(self, page: int) -> None:
        while not self.step(page):
            pass

    def look_ahead(self, budget: int) -> int:
        """Search the first part, and the next ones while ``budget`` characters last; what is left."""
        for page in range(len(self)):
            if page and budget <= 0:
                break
            self.search(page)
            a, b = self.span(page)
            budget -= b - a
        return budget

    def query_spans(self) -> list[tuple[int, int]]:
        """The spans found so far, in order."""
        return sorted(set().union(*self._found.values())) if self._found else []

    def page_marks(self, page: int) -> list[Mark]:
        marks = super().page_marks(page)
        if self.highlight is not None:
            self.search(page)
            a = self.span(page)[0]
            marks += [Mark(s - a, e - a, QUERY) for s, e in sorted(self._found.get(page, ()))]
        return marks

    def pages_with(self, layer: str) -> list[int]:
        parts = super().pages_with(layer)
        if layer != QUERY or self.highlight is None:
            return parts
        starts = {p for p, spans in self._found.items()
                  if any(self.span(p)[0] <= s < self.span(p)[1] for s, _ in spans)}
        return sorted(starts.union(parts))


def _part_range(parts: Sequence[int]) -> str:
    """'8–15' for a run of parts (0-based in, 1-based out), else as :func:`_part_list`."""
    if len(parts) > 2 and parts[-1] - parts[0] == len(parts) - 1:
        return f"{parts[0] + 1:,}–{parts[-1] + 1:,}"
    return _part_list(parts)


def _part_list(parts: Sequence[int], most: int = 8) -> str:
    shown = ", ".join(f"{p + 1:,}" for p in parts[:most])
    return shown + (f" and {len(parts) - most:,} more" if len(parts) > most else "")


class PagedBrowser(QWidget):
    """A :class:`SafeBrowser` showing a :class:`PagedText` one part at a time, with a bar above
    it (only for a text of several parts) saying which part this is and turning the parts."""

    def __init__(self, what: str, parent=None):
        super().__init__(parent)
        self.what = what  # "message", "attachment": for the notice
        self.pages: Optional[PagedText] = None
        self.page = 0
        self.browser = SafeBrowser()
        self.notice = QLabel()
        self.notice.setObjectName("partNotice")
        self.notice.setWordWrap(True)
        self.notice.setTextFormat(Qt.TextFormat.RichText)
        self.notice.setToolTip(f"A long text is shown in parts of up to {PAGE_CHARS:,} characters, "
                               "so that the window stays responsive")
        self.prev_button = QPushButton("◀ Previous part")
        self.next_button = QPushButton("Next part ▶")
        self.prev_button.clicked.connect(lambda: self.show_page(self.page - 1))
        self.next_button.clicked.connect(lambda: self.show_page(self.page + 1))
        self.bar = QWidget()
        self.bar.setObjectName("partBar")
        self.bar.setStyleSheet("QWidget#partBar { background:#fff6d6; border:1px solid #e6d38a; border-radius:3px; }")
        bar = QHBoxLayout(self.bar)
        bar.setContentsMargins(6, 3, 6, 3)
        bar.addWidget(self.notice, 1)
        bar.addWidget(self.prev_button)
        bar.addWidget(self.next_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        layout.addWidget(self.bar)
        layout.addWidget(self.browser, 1)
        self.bar.hide()
        # the parts of a QueryPages not yet searched for the search terms: a slice whenever idle
        self.search_timer = QTimer(self)
        self.search_timer.setSingleShot(True)
        self.search_timer.setInterval(0)
        self.search_timer.timeout.connect(self._search_more)

    def set_pages(self, pages: Optional[PagedText], html_page: str = "") -> None:
        """Show ``pages`` from its first part, or (``pages`` None) the ready-made ``html_page``."""
        self.pages, self.page = pages, 0
        self.search_timer.stop()
        if pages is None:
            self.bar.hide()
            self.browser.setHtml(html_page)
            return
        self.show_page(0)
        if isinstance(pages, QueryPages) and pages.pending():
            self.search_timer.start()

    def _search_more(self) -> None:
        """One slice of the first part not yet searched for the search terms; the notice says
        so once the part is searched in full."""
        pages = self.pages
        if not isinstance(pages, QueryPages):
            return
        pending = pages.pending()
        if not pending:
            return
        try:
            if pages.step(pending[0]):
                self._update_notice()
        except Exception:   # the highlights are extra: the text stays shown
            log.exception("looking for the search terms in part %d failed", pending[0] + 1)
            pages.highlight = None
            self._update_notice()
            return
        if len(pending) > 1 or not pages.done(pending[0]):
            self.search_timer.start()

    def position(self) -> tuple[int, int, int]:
        """Where the reader is: the part shown and the scroll bars' values."""
        return self.page, self.browser.verticalScrollBar().value(), self.browser.horizontalScrollBar().value()

    def restore(self, position: tuple[int, int, int]) -> None:
        """Back to ``position`` (see :meth:`position`) in the text shown now: the same part (the
        last one when it has fewer) and scrolled as far (as far as it goes)."""
        page, v, h = position
        if self.pages is not None and len(self.pages) > 1:
            self.show_page(min(page, len(self.pages) - 1))
        self.browser.document().size()  # lays the text out now, so the scroll bars have their range
        self.browser.verticalScrollBar().setValue(v)
        self.browser.horizontalScrollBar().setValue(h)

    def show_page(self, page: int) -> None:
        pages = self.pages
        if pages is None or not 0 <= page < len(pages):
            return
        self.page = page
        self.browser.setHtml(page_document(pages.page_html(page)))
        self._update_notice()

    def _update_notice(self) -> None:
        pages, page = self.pages, self.page
        if pages is None:
            return
        many = len(pages) > 1
        self.bar.setVisible(many)
        if many:
            a, b = pages.span(page)
            text = (f"<b>Long {self.what}:</b> part {page + 1:,} of {len(pages):,} "
                    f"(characters {a + 1:,}–{b:,} of {len(pages.text):,}).")
            # where the search terms are, and the evidence the sensitivity line counts
            pending = pages.pending() if isinstance(pages, QueryPages) else []
            for layer, what in ((QUERY, "Search terms"), (PII, "Personal information"), (CUE, "Sensitivity cue words")):
                hits = pages.pages_with(layer)
                if layer == QUERY and pending:
                    where = (f" in part{'s' if len(hits) > 1 else ''} {_part_list(hits)} so far;" if hits
                             else ": none found so far;")
                    text += (f" Search terms{where} part{'s' if len(pending) > 1 else ''} "
                             f"{_part_range(pending)} still being searched.")
                elif len(hits) == len(pages):
                    text += f" {what} in every part."
                elif hits:
                    text += f" {what} in part{'s' if len(hits) > 1 else ''} {_part_list(hits)}."
            self.notice.setText(text)
            self.prev_button.setEnabled(page > 0)
            self.next_button.setEnabled(page < len(pages) - 1)


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
        self.header = HeaderLabel()
        self.header.setObjectName("docHeader")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                            | Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.header.setWordWrap(True)
        self.header.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        _no_wider_than_given(self.header)
        self.header.linkActivated.connect(self._header_link)
        self.header.linkHovered.connect(self._header_link_hovered)
        self._link_tips: dict[str, str] = {}
        self.header_area = HeaderArea(self.header)
        self._header_rows: list[tuple[str, str, Sequence[tuple[int, int]], list[Mark]]] = []
        self._header_notes = ""
        self.whole_lines: set[str] = set()   # the header lines shown whole though long ("… and N more" clicked)
        self.sensitivity = QLabel()
        self.sensitivity.setObjectName("sensitivityPanel")
        self.sensitivity.setTextFormat(Qt.TextFormat.RichText)
        self.sensitivity.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.sensitivity.setWordWrap(True)
        _no_wider_than_given(self.sensitivity)
        self.sensitivity.setStyleSheet("QLabel#sensitivityPanel { background:#f6f6f4; border:1px solid #ddd;"
                                       " border-radius:3px; padding:4px 6px; }")
        self.sensitivity.setToolTip("The active persona's sensitivity classifier: its probability for this "
                                    "message and the features pushing it towards sensitive. Personal "
                                    "information and cue words are highlighted in the text (hover for the kind).")
        self.body_pager = PagedBrowser("message")
        self.body = self.body_pager.browser
        self.body.setObjectName("docBody")

        self.attachments = QListWidget()
        self.attachments.setObjectName("attachmentList")
        self.attachment_pager = PagedBrowser("attachment text")
        self.attachment_text = self.attachment_pager.browser
        att_split = QSplitter(Qt.Orientation.Vertical)
        att_split.addWidget(self.attachments)
        att_split.addWidget(self.attachment_pager)
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
        self.tabs.addTab(self.body_pager, "Message")
        self.tabs.addTab(att_split, "Attachments")
        self.tabs.addTab(thread_box, "Thread")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.header_area)
        layout.addWidget(self.sensitivity)
        layout.addWidget(self.tabs, 1)
        self.clear()

    def needed_height(self, width: int) -> int:
        """The height the view needs at ``width`` px: the header and the sensitivity line, each
        all of its lines (their height for that width), and the tabs at their least."""
        layout = self.layout()
        m = layout.contentsMargins()
        inner = max(1, width - m.left() - m.right())
        need = m.top() + m.bottom() + self.header_area.heightForWidth(inner) + self.tabs.minimumSizeHint().height()
        need += layout.spacing()
        if not self.sensitivity.isHidden():
            need += self.sensitivity.heightForWidth(inner) + layout.spacing()
        return need

    def resizeEvent(self, event):  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        if self.header_area.capped and event.size().height() != event.oldSize().height():
            self.header_area.updateGeometry()   # its cap is a share of this height

    # ------------------------------------------------------------------------------------
    def clear(self, message: str = "Open a search result to read it here.") -> None:
        self.doc = None
        self._header_rows, self._header_notes, self.whole_lines, self._link_tips = [], "", set(), {}
        self.header_area.capped = False
        self.header.set_markup(f'<span style="color:#666">{html.escape(message)}</span>')
        self.sensitivity.setText("")
        self.sensitivity.hide()
        self.body_pager.set_pages(None)
        self.attachments.clear()
        self.attachment_pager.set_pages(None)
        self.thread_list.clear()
        self.tabs.setTabText(1, "Attachments")
        self.tabs.setTabText(2, "Thread")
        self.prev_in_thread.setEnabled(False)
        self.next_in_thread.setEnabled(False)

    def show_document(self, payload: dict[str, Any]) -> None:
        """Show ``payload``. The message shown already, loaded again (a training finished, the
        persona or the preferences changed), keeps the reader's place: the part, the scrolling
        and the attachment chosen; only its highlights and sensitivity line change."""
        doc = payload["doc"]
        again = self.doc is not None and self.doc["doc"].get("doc_id") == doc.get("doc_id")
        if again:
            place = (self.body_pager.position(), self.attachments.currentRow(), self.attachment_pager.position(),
                     self.thread_list.verticalScrollBar().value())
        self.doc = payload
        sens = payload.get("sensitivity")
        explanation = (sens or {}).get("explanation")
        subject = doc.get("subject") or ""
        rows = [("Subject", subject or "(no subject)", payload.get("subject_spans", ()),
                 field_marks(explanation, "subject", subject)),
                ("From", doc.get("from") or "", (), []), ("To", doc.get("to") or "", (), []),
                ("Cc", doc.get("cc") or "", (), []), ("Bcc", doc.get("bcc") or "", (), []),
                ("Date", header_date(doc.get("date")) or "(no date)", (), []),
                ("Folder", folder_line(doc), (), [])]
        notes = []
        if doc.get("body_is_html"):
            notes.append("HTML message shown as text (no remote content is loaded)")
        if doc.get("notes"):
            notes.append("; ".join(doc["notes"]))
        self._header_rows = [row for row in rows if row[1] or row[0] not in ("Cc", "Bcc", "Folder")]
        self._header_notes = " · ".join(notes)
        if not again:
            self.whole_lines = set()
        self._show_header()
        panel = sensitivity_html(sens)
        self.sensitivity.setText(panel)   # (kept free of breaks: it holds a command to copy)
        self.sensitivity.setVisible(bool(panel))
        if "body_pages" not in payload:  # a payload not made by load_document: its parts are made here
            add_pages(payload)
        self.body_pager.set_pages(payload["body_pages"])

        self.attachments.clear()
        for i, a in enumerate(doc.get("attachments", [])):
            item = QListWidgetItem(f"{a.get('name')}  ·  {a.get('mime_type')}  ·  {_size(a.get('size'))}")
            item.setData(Qt.ItemDataRole.UserRole, i)
            self.attachments.addItem(item)
        n_att = len(doc.get("attachments", []))
        self.tabs.setTabText(1, f"Attachments ({n_att})")
        self.attachment_pager.set_pages(None)
        if n_att:
            self.attachments.setCurrentRow(0)

        self.thread_list.clear()
        thread = doc.get("thread", [])
        current = 0
        for i, t in enumerate(thread):
            item = QListWidgetItem(f"{local_date(t.get('date')):16}   {t.get('sender') or ''}   —   {t.get('subject') or '(no subject)'}")
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
        if again:
            body, row, attachment, thread_scroll = place
            self.body_pager.restore(body)
            if 0 <= row < self.attachments.count():
                if row != self.attachments.currentRow():
                    self.attachments.setCurrentRow(row)
                self.attachment_pager.restore(attachment)
            self.thread_list.verticalScrollBar().setValue(thread_scroll)

    def _show_header(self) -> None:
        """The header of the message shown: each line, a long one shortened (see :func:`shortened`)
        with a link showing it whole, unless it is in :attr:`whole_lines` (then with a link
        shortening it again)."""
        lines, links, subject_line = [], {}, ""
        self._link_tips = {}
        for name, value, spans, marks in self._header_rows:
            cut = shortened(name, value)
            link = ""
            if cut is not None and name not in self.whole_lines:
                at, more = cut   # a span or mark running past the cut is highlighted up to it
                spans = [(a, min(b, at)) for a, b in spans if a < at]
                marks = [replace(m, end=min(m.end, at)) for m in marks if m.start < at]
                shown, rest = value[:at], value[at:]
                spaced = not shown[-1:].isspace()
                if not spaced:    # (what rich text shows of the rest: its spaces one, none after a space)
                    rest = rest.lstrip(" \t\r\n\f")
                links[f"more:{name}"] = (_SEPARATOR_SPACE.sub(" ", rest), spaced)
                whole = (f"all {len(address_spans(value)):,} addresses" if "character" not in more
                         else f"all {len(value):,} characters")
                self._link_tips[f"more:{name}"] = f"Show the whole {name} line ({whole}). Copy copies it whole either way."
                link = f'{" " if spaced else ""}<a href="more:{name}">{_unbroken("… " + more)}</a>'
                value = shown
            elif cut is not None:
                spaced = not value[-1:].isspace()
                links[f"less:{name}"] = ("", spaced)
                less = "show fewer" if name in ADDRESS_FIELDS and "character" not in cut[1] else "show less"
                link = f'{" " if spaced else ""}<a href="less:{name}">{_unbroken(f"({less})")}</a>'
            shown = highlighted_html(value, spans, marks) + link
            if name == "Subject":
                subject_line = f'<span style="font-size:13pt;font-weight:600">{shown}</span>'
            else:
                lines.append(f'<span style="color:#555">{name}:</span> {shown}')
        if self._header_notes:
            lines.append(f'<span style="color:#8a6d00;font-size:9pt">{html.escape(self._header_notes)}</span>')
        # a line shown whole may be very long (a list of thousands): the header then scrolls,
        # taking at most about half the view, so that the message below stays in sight
        self.header_area.capped = bool(self.whole_lines)
        self.header.set_markup(header_markup(subject_line, lines), links)
        self.header_area.updateGeometry()

    def _header_link_hovered(self, href: str) -> None:
        self.header.setToolTip(plain_tip(self._link_tips.get(href, "")))

    def _header_link(self, href: str) -> None:
        kind, _, name = href.partition(":")
        if kind == "more":
            self.whole_lines.add(name)
        elif kind == "less":
            self.whole_lines.discard(name)
        else:
            return
        self._show_header()

    # ------------------------------------------------------------------------------------
    def _show_attachment(self, row: int) -> None:
        if self.doc is None or row < 0:
            self.attachment_pager.set_pages(None)
            return
        atts = self.doc["doc"].get("attachments", [])
        if row >= len(atts):
            return
        a = atts[row]
        pages = self.doc.get("attachment_pages", {}).get(row)
        if pages is not None:
            self.attachment_pager.set_pages(pages)
        else:
            self.attachment_pager.set_pages(None, text_page(
                f"No text was extracted from {a.get('name')} ({a.get('mime_type')})."))

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


def no_personas_message(root: Optional[Any] = None, read_only: Optional[str] = None) -> str:
    """Why nothing can be trained or checked in a project without personas, and how to give it
    some: the GUI has no judgment import, so the command line's, for this project; in a project
    open for reading only (``read_only``: the store's reason), nothing can be imported into it:
    a writable copy is needed."""
    project = shlex.quote(str(root)) if root else "PROJECT"
    if read_only:
        return ("this project has no personas yet: they come with sensitivity judgments, and "
                + read_only_hint("import some"))
    return ("this project has no personas yet: they come with sensitivity judgments, which are imported with "
            f"the command line: sasc judgments import {project} --sensitivity FILE (lines 'persona docid level'), "
            f"or sasc judgments import-categories {project} FOLDER (Berkeley .cats labels)")


def current_persona(session) -> Optional[dict[str, Any]]:
    """Runs on the worker thread: the persona a training or a model quality check is for (the
    active one, else the project's first), or None when the project has no personas."""
    personas = session.personas()
    if not personas:
        return None
    active = session.settings().get("active_persona")
    chosen = next((p for p in personas if p["id"] == active), personas[0])
    return {"persona": chosen["id"], "persona_name": chosen.get("name") or chosen["id"],
            "train_hint": f"{shlex.quote(str(session.root))} --persona {shlex.quote(chosen['id'])}"}


def load_sensitivity(session) -> Optional[dict[str, Any]]:
    """Runs on the worker thread: the persona the document view explains, which is the active
    one only; None when no persona is active (the status bar then says "Persona: none" and the
    results have no Sensitivity column: the message shows no sensitivity line either)."""
    active = session.settings().get("active_persona")
    if not active:
        return None
    chosen = current_persona(session)
    if chosen is None or chosen["persona"] != active:  # a persona no longer in the project
        return None
    # (a project open for reading only: the line's hints point to a writable copy, not to Train)
    return dict(chosen, explanation=None, read_only=session.store.read_only_reason)


def load_document(session, doc_id: str, terms: Sequence[str]) -> dict[str, Any]:
    """Runs on the worker thread: the document, its highlight spans and the active persona's
    sensitivity explanation (PII hits and cue words with offsets), as plain data."""
    doc = session.document(doc_id)
    terms = list(terms)
    payload: dict[str, Any] = {"doc": doc, "terms": terms}
    if terms:   # (the body's and the attachments' part by part: see add_pages)
        payload["highlight"] = locked_highlighter(session, terms)
        payload["subject_spans"] = payload["highlight"](doc.get("subject") or "")
    sens = None
    try:
        sens = load_sensitivity(session)
        if sens is not None:
            from ..engine.classify import NoModelError
            try:
                sens["explanation"] = session.explain_sensitivity(doc["doc_id"], sens["persona"])
            except NoModelError:
                pass  # the quiet "no model yet" line
    except SascError as exc:  # evidence is extra: the message itself still opens
        message = str(exc)
        if message.endswith(_OLD_HINT) and sens is not None:  # a model file of an older version
            message = message[:-len(_OLD_HINT)] + (
                read_only_hint("retrain it") if sens.get("read_only")
                else f"retrain with {TRAIN_MENU}, or: sasc classify train {sens['train_hint']}")
        sens = dict(sens or {"persona": "?"}, error=message)
    except Exception as exc:
        log.exception("the sensitivity explanation failed for %s", doc_id)
        sens = dict(sens or {"persona": "?"}, error=f"the explanation failed ({type(exc).__name__}); see the log")
    payload["sensitivity"] = sens
    add_pages(payload)
    return payload


def add_pages(payload: dict[str, Any]) -> None:
    """The body's and each attachment's text in parts, with their highlights, first parts made
    (on the worker thread: merging the marks of a long message is work the UI must not wait on).
    With a ``highlight`` (load_document's), the search terms of the first QUERY_AHEAD characters
    are found here, the rest's when needed (QueryPages); ``body_spans`` and ``attachment_spans``
    are those found here. Else the payload's ``body_spans`` and ``attachment_spans`` are used."""
    doc = payload["doc"]
    explanation = (payload.get("sensitivity") or {}).get("explanation")
    highlight = payload.get("highlight")
    budget = QUERY_AHEAD

    def pages_of(text: str, spans: Sequence[tuple[int, int]], marks: list[Mark]) -> PagedText:
        nonlocal budget
        if highlight is None:
            return paged_text(text, spans, marks)
        pages = QueryPages(text, marks, highlight)
        budget = pages.look_ahead(budget)
        pages.page_html(0)
        return pages
    body = doc.get("body") or ""
    payload["body_pages"] = (pages_of(body, payload.get("body_spans", ()), field_marks(explanation, "body", body))
                             if body else paged_text("(empty message)"))
    spans = payload.get("attachment_spans", {})
    payload["attachment_pages"] = {
        i: pages_of(a["text"], spans.get(i, ()), field_marks(explanation, f"attachment:{a.get('name')}", a["text"]))
        for i, a in enumerate(doc.get("attachments", [])) if a.get("text")}
    if highlight is not None:
        payload["body_spans"] = payload["body_pages"].query_spans() if body else []
        payload["attachment_spans"] = {i: p.query_spans() for i, p in payload["attachment_pages"].items()}
