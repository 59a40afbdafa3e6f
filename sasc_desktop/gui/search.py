"""The search panel: a query box with history and syntax help, the results table (sortable,
with a sensitivity bar when a classifier exists) and paging through large result sets."""
from __future__ import annotations

import html
import logging
from typing import Optional

from PySide6.QtCore import QEvent, QModelIndex, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QPushButton, QStyle, QTableView, QToolButton, QVBoxLayout, QWidget)

from ..engine.errors import SascError
from .models import (COLUMNS, HIT_ROLE, RANK, SENS, SHORT_TITLES, SUBJECT, FROM, DATE, SCORE, ResultsModel, ResultsProxy,
                     SensitivityBarDelegate)

log = logging.getLogger("sasc_desktop.gui")

PAGE_SIZE = 100
FROM_MIN, FROM_MAX = 90, 150  # px: the From column's width, by the room the results pane has
FROM_LEAST = 60               # px: From in a narrow pane, before Subject gives way
SUBJECT_MIN = 120             # px: Subject, the key column, stays at least this wide where it can
HEADER_PADDING = 6  # px either side of a column title (resources/style.qss: QHeaderView::section)
SEP = "&nbsp;&nbsp; · &nbsp;&nbsp;"  # between the parts of the summary under the table (rich text)


# Columns the engine sorts the whole result set by (Session.search(sort=...)); the others sort the
# page shown.
ENGINE_SORTS = {DATE: "date", FROM: "sender", SUBJECT: "subject"}


def sort_words(column: int, order: Qt.SortOrder) -> str:
    """'sorted by Date, oldest first', 'sorted by From, A–Z', ... for the summary line."""
    up = order == Qt.SortOrder.AscendingOrder
    how = {DATE: ("oldest first", "newest first"), FROM: ("A–Z", "Z–A"), SUBJECT: ("A–Z", "Z–A"),
           RANK: ("best first", "worst first")}.get(column, ("lowest first", "highest first"))
    return f"sorted by {COLUMNS[column]}, {how[0] if up else how[1]}"

# What the engine's query parser does (index/search_index.py); every example in the table, and the
# query box's, is run on a real project and finds mail in the demo project the app opens on first
# start (tests/gui/test_syntax_help.py). The examples' column is padded, and
# the examples of words searched as phrases do not wrap at their dashes and slashes.
SYNTAX_HELP = """<h3>Query syntax</h3>
<table cellspacing="4">
<tr><td style="padding-right:12px"><code>budget meeting</code></td><td>any of the words (OR is the default); messages with more of them usually rank first</td></tr>
<tr><td style="padding-right:12px"><code>budget AND meeting</code></td><td>both words</td></tr>
<tr><td style="padding-right:12px"><code>budget OR forecast</code></td><td>either word (the same as a space)</td></tr>
<tr><td style="padding-right:12px"><code>budget NOT draft</code>, <code>budget -draft</code></td><td>leave out messages with <i>draft</i></td></tr>
<tr><td style="padding-right:12px"><code>"board meeting"</code></td><td>the exact phrase; a word with dots, dashes or slashes (<i style="white-space:nowrap">year-end</i>, <i style="white-space:nowrap">john.snibert@arclight.example.com</i>, <i style="white-space:nowrap">red/yellow</i>) is searched the same way</td></tr>
<tr><td style="padding-right:12px"><code>budg*</code>, <code>bud?et</code></td><td>words starting with <i>budg</i>; any one letter</td></tr>
<tr><td style="padding-right:12px"><code>subject:budget</code></td><td>in a field: <code>subject</code>, <code>body</code>, <code>attachments</code>, or <code>all</code> of them</td></tr>
<tr><td style="padding-right:12px"><code>from:snibert</code>, <code>to:stonebridge.example.edu</code></td><td>sender / recipients: a name, address or domain</td></tr>
<tr><td style="padding-right:12px"><code>folder:inbox</code>, <code>folder:palmer_holly/inbox</code></td><td>every Inbox; one folder (a path) and its subfolders</td></tr>
<tr><td style="padding-right:12px"><code>date:2020-05</code>, <code>date:[2020-01 to 2020-03]</code></td><td>a month, or a date range (<code>{2020-01 to 2020-03}</code> leaves both bounds out: February only)</td></tr>
<tr><td style="padding-right:12px"><code>date:&gt;2020-03</code>, <code>date:&lt;2021</code></td><td>after March 2020 (from April on); before 2021 (up to the end of 2020); <code>&gt;=</code> and <code>&lt;=</code> include the date named</td></tr>
<tr><td style="padding-right:12px"><code>budget from:snibert date:2020</code></td><td>filters narrow the search, with or without words: <i>budget</i>, only from snibert, only in 2020</td></tr>
<tr><td style="padding-right:12px"><code>from:snibert from:palmer</code></td><td>filters on the same field: either one</td></tr>
<tr><td style="padding-right:12px"><code>from:snibert OR date:2020</code></td><td>an OR you type is kept: from snibert, or in 2020</td></tr>
<tr><td style="padding-right:12px"><code>power OR NOT gas</code></td><td>a NOT leaves its messages out of the whole group: <i>power</i>, without <i>gas</i></td></tr>
<tr><td style="padding-right:12px"><code>(budget OR forecast) AND review</code></td><td>group with parentheses</td></tr>
</table>
<p>Words are stemmed: <i>meeting</i> also finds <i>meetings</i>. Case and accents do not matter: <i>cafe</i> finds <i>Café</i>, <i>from:ines</i> finds <i>Inès</i>. Matching words are highlighted in the message (not those a NOT leaves out). Dates are the message's own date, as its sender's clock showed it. Words longer than 40 characters (a pasted hash) are not indexed, so a query with one is refused. Field weights are set in Preferences.</p>"""


def classifier_probabilities(session, persona: Optional[str], doc_ids: list[str]):
    """The persona's sensitivity probabilities for these documents, or None when there is no
    classifier module, no persona or no trained model (runs on the worker thread)."""
    if not persona or not doc_ids:
        return None
    try:
        from ..engine.classify import probabilities_for  # lands with the classifier issue
    except ImportError:
        return None
    except Exception:  # a half-written module must not break search
        log.exception("the classifier module cannot be imported")
        return None
    try:
        return [float(x) for x in probabilities_for(session, persona, doc_ids)]
    except SascError:
        return None  # no model trained for this persona yet
    except Exception:
        log.exception("sensitivity probabilities failed")
        return None


def run_search(session, query: str, offset: int, limit: int = PAGE_SIZE, sort: Optional[str] = None,
               descending: bool = False):
    """Worker-thread operation: one page of hits (in rank order, or the whole result set sorted
    by the engine: ``sort`` "date", "sender" or "subject") plus their sensitivity probabilities."""
    result = session.search(query, limit=limit, offset=offset, sort=sort, descending=descending)
    persona = session.settings().get("active_persona")
    probs = classifier_probabilities(session, persona, [h.doc_id for h in result.hits])
    return result, probs


class QueryLineEdit(QLineEdit):
    """The query box's line edit. QLineEdit emits returnPressed for Return / Enter and then
    ignores the key, which an editable QComboBox (its parent) hands back to the line edit: a
    second returnPressed, a second search, two identical error dialogs for a bad query. Taking
    the key here makes one Enter one search."""

    def keyPressEvent(self, event):  # noqa: N802 (Qt name)
        super().keyPressEvent(event)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()


class SearchPanel(QWidget):
    PLACEHOLDER_EXAMPLE = "budget from:snibert"   # finds mail in the demo project (tests/gui/test_syntax_help.py)
    search_requested = Signal(str, int)   # query, offset
    open_requested = Signal(str)          # doc_id
    help_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.query_box = QComboBox()
        self.query_box.setObjectName("queryBox")
        self.query_box.setEditable(True)
        self.query_box.setLineEdit(QueryLineEdit())
        self.query_box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.query_box.setMaxVisibleItems(20)
        self.query_box.lineEdit().setPlaceholderText(f"Search the collection (Ctrl+F)   e.g.  {self.PLACEHOLDER_EXAMPLE}")
        self.query_box.lineEdit().returnPressed.connect(self.submit)
        self.query_box.setSizePolicy(self.query_box.sizePolicy().horizontalPolicy(), self.query_box.sizePolicy().verticalPolicy())
        self.search_button = QPushButton("Search")
        self.search_button.setDefault(True)
        self.search_button.clicked.connect(self.submit)
        self.help_button = QToolButton()
        self.help_button.setText("?")
        self.help_button.setToolTip("Query syntax")
        self.help_button.clicked.connect(self.help_requested)

        self.model = ResultsModel(self)
        self.proxy = ResultsProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setObjectName("resultsTable")
        self.table.setModel(self.proxy)
        # Sorting is ours, not the view's: a click on Date, From or Subject asks the engine for
        # the whole result set in that order (a new search, from its first page); Rank goes back
        # to the search's order; the other columns sort the page shown, and say so under the
        # table. The sort chosen stays while paging through the same query's results.
        self.table.setSortingEnabled(False)
        self.sort_column, self.sort_order = RANK, Qt.SortOrder.AscendingOrder
        self.requested_sort: Optional[tuple[str, bool]] = None   # the engine sort last asked for / shown
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.setWordWrap(False)
        self.table.setTabKeyNavigation(False)   # Tab moves on to the message, as in a mail program (rows: arrows, J/K)
        self.table.setItemDelegateForColumn(SENS, SensitivityBarDelegate(self.table))
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionsClickable(True)
        header.setSortIndicatorShown(True)
        header.setSortIndicator(RANK, Qt.SortOrder.AscendingOrder)
        # Titles to the left, so the sort arrow (at the right) sits beside a title, never on it:
        # a column is at least its title, the padding, the arrow and a gap wide (48 px put the
        # arrow over "Rank").
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        arrow = header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize) + 4

        def room(title: str, width: int) -> int:
            return max(width, header.fontMetrics().horizontalAdvance(title) + 2 * HEADER_PADDING + arrow)
        cells = self.table.fontMetrics()
        # The fixed columns' widths, full and in a narrow pane (see _fit_columns): the date
        # without its time, "Sens." for Sensitivity (its bar and number fit in 60 px)
        self._widths = {RANK: room(COLUMNS[RANK], 48), SCORE: room(COLUMNS[SCORE], 56),
                        SENS: room(COLUMNS[SENS], 84), DATE: room(COLUMNS[DATE], 118)}
        self._narrow = {DATE: room(COLUMNS[DATE], cells.horizontalAdvance("0000-00-00") + 2 * HEADER_PADDING + 4),
                        SENS: room(SHORT_TITLES[SENS], 60)}
        for col, width in self._widths.items():
            header.resizeSection(col, width)
        header.resizeSection(FROM, room(COLUMNS[FROM], FROM_MAX))
        header.setSectionResizeMode(SUBJECT, QHeaderView.ResizeMode.Stretch)
        header.sortIndicatorChanged.connect(self._sort_changed)
        # From gives way to Subject in a narrow results pane (the F1 panel open, a small window),
        # until someone sets its width by hand; narrower still, the fixed columns do (_fit_columns).
        self._from_set_by_hand = False
        self._fitting = False
        self._sens_available = False
        self.narrow_level = 0
        self._fixed_state: Optional[tuple] = None   # (level, fixed columns shown) last sized
        header.sectionResized.connect(self._section_resized)
        self.table.viewport().installEventFilter(self)
        header.setToolTip("Click Date, From or Subject to sort all the results by it, Score or Sensitivity to sort "
                          "the results on this page; Rank is the search's own order")
        self.table.activated.connect(self._activated)       # Enter / double-click
        self.table.clicked.connect(self._activated)

        self.prev_button = QPushButton("◀ Previous")
        self.next_button = QPushButton("Next ▶")
        self.prev_button.setObjectName("prevPage")
        self.next_button.setObjectName("nextPage")
        self.prev_button.clicked.connect(lambda: self.go_page(-1))
        self.next_button.clicked.connect(lambda: self.go_page(1))
        self.summary = QLabel("")
        self.summary.setObjectName("resultSummary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)  # a narrow results pane: the note on sorting goes to a second line

        top = QHBoxLayout()
        top.addWidget(self.query_box, 1)
        top.addWidget(self.search_button)
        top.addWidget(self.help_button)
        bottom = QHBoxLayout()
        bottom.addWidget(self.summary, 1)
        bottom.addWidget(self.prev_button)
        bottom.addWidget(self.next_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addLayout(bottom)

        self.query = ""
        self.offset = 0
        self.total = 0
        self._summary = self._ms = ""  # the summary line: which results, and how long the search took
        self.terms: tuple[str, ...] = ()
        self.pending_select: Optional[int] = None  # row to open once the next page arrives (J/K)
        self._update_paging()
        self.set_sensitivity_available(False)

    # ------------------------------------------------------------------------------------
    def set_history(self, history: list[str]) -> None:
        text = self.query_box.currentText()
        self.query_box.blockSignals(True)
        self.query_box.clear()
        self.query_box.addItems(history)
        self.query_box.setCurrentIndex(-1)
        self.query_box.setEditText(text)
        self.query_box.blockSignals(False)

    def submit(self) -> None:
        query = self.query_box.currentText().strip()
        if query:
            self.search_requested.emit(query, 0)

    def go_page(self, step: int) -> None:
        if not self.query:
            return
        offset = self.offset + step * PAGE_SIZE
        if 0 <= offset < max(self.total, 1):
            self.search_requested.emit(self.query, offset)

    def set_sensitivity_available(self, available: bool) -> None:
        self._sens_available = available
        self.table.setColumnHidden(SENS, not available)
        self._fit_columns()

    def eventFilter(self, obj, event):  # noqa: N802 (Qt name)
        if obj is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return super().eventFilter(obj, event)

    def _section_resized(self, column: int, _old: int, _new: int) -> None:
        if column == FROM and not self._fitting:
            self._from_set_by_hand = True

    def _fixed_widths(self, level: int) -> dict[int, int]:
        """The widths of the fixed columns shown at a narrowing ``level``: 0 as they are made,
        1 the Date without its time, 2 also "Sens." for Sensitivity, 3 also no Score column
        (kept while the results are sorted by it)."""
        widths = dict(self._widths)
        if level >= 1:
            widths[DATE] = self._narrow[DATE]
        if level >= 2:
            widths[SENS] = self._narrow[SENS]
        if level >= 3 and self.sort_column != SCORE:
            del widths[SCORE]
        if not self._sens_available:
            del widths[SENS]
        return widths

    def _fit_columns(self) -> None:
        """Subject, the key column, keeps at least SUBJECT_MIN px wherever the pane allows: From
        takes up to two fifths of what the fixed columns leave (90 to 150 px), Subject stretches
        over the rest; in a narrower pane (a small window, the F1 panel open) the fixed columns
        give way, step by step (the least step that leaves Subject and From their room): the
        Date without its time, "Sens.", no Score; then From, down to FROM_LEAST px."""
        width = self.table.viewport().width()
        levels = [(level, width - sum(self._fixed_widths(level).values())) for level in range(4)]
        level, rest = next(((lv, r) for lv, r in levels if r >= SUBJECT_MIN + FROM_MIN),
                           next(((lv, r) for lv, r in levels if r >= SUBJECT_MIN + FROM_LEAST), levels[-1]))
        header = self.table.horizontalHeader()
        self._fitting = True
        try:
            widths = self._fixed_widths(level)
            # The fixed columns are sized when the level or the set of them shown changes (not on
            # every resize, which would undo a width set by hand): Sensitivity, left out while
            # there is no model, is sized when it is shown, at a level that may be unchanged.
            state = (level, tuple(sorted(widths)))
            if state != self._fixed_state:
                self._fixed_state = state
                self.narrow_level = level
                self.model.set_compact(date_only=level >= 1, short_titles=level >= 2)
                self.table.setColumnHidden(SCORE, SCORE not in widths)
                for col, w in widths.items():
                    if header.sectionSize(col) != w:
                        header.resizeSection(col, w)
            if not self._from_set_by_hand:
                shown = max(FROM_MIN, min(FROM_MAX, rest * 2 // 5))
                if rest - shown < SUBJECT_MIN:
                    shown = max(FROM_LEAST, rest - SUBJECT_MIN)
                header.resizeSection(FROM, shown)
        finally:
            self._fitting = False

    def least_width(self) -> int:
        """The narrowest the pane can be with Subject still SUBJECT_MIN px and From FROM_LEAST px
        wide (the fixed columns at their narrowest, room for a vertical scroll bar): what the
        shortcuts panel leaves it (MainWindow.toggle_shortcuts)."""
        table = self.table
        frame = self.width() - table.width() + 2 * table.frameWidth() + table.verticalScrollBar().sizeHint().width()
        columns = sum(self._fixed_widths(3).values()) + SUBJECT_MIN + FROM_LEAST
        return max(self.minimumSizeHint().width(), frame + columns)

    def engine_sort(self) -> Optional[tuple[str, bool]]:
        """(sort, descending) for Session.search when the column chosen is one the engine sorts
        the whole result set by, else None (rank order)."""
        if self.sort_column not in ENGINE_SORTS:
            return None
        return ENGINE_SORTS[self.sort_column], self.sort_order == Qt.SortOrder.DescendingOrder

    def _set_indicator(self, column: int, order: Qt.SortOrder) -> None:
        header = self.table.horizontalHeader()
        header.blockSignals(True)
        header.setSortIndicator(column, order)
        header.blockSignals(False)
        header.viewport().update()

    def show_result(self, result, probs, offset: Optional[int] = None,
                    sort: Optional[tuple[str, bool]] = None) -> None:
        """Show a page of results: ``offset`` of its first hit in the result set, ``sort`` the
        engine sort it was asked with (None: rank order, where the offset is the first rank's)."""
        same_query = result.query == self.query
        if offset is None:
            offset = result.hits[0].rank - 1 if result.hits and sort is None else 0
        self.query, self.offset, self.total, self.terms = result.query, offset, result.total, result.terms
        self.requested_sort = sort
        self.model.set_hits(result.hits, probs)
        self.set_sensitivity_available(probs is not None)
        if not same_query and sort is None:  # a new search starts in rank order; another page of this one keeps the sort chosen
            self.sort_column, self.sort_order = RANK, Qt.SortOrder.AscendingOrder
        if self.sort_column == SENS and probs is None:
            self.sort_column, self.sort_order = RANK, Qt.SortOrder.AscendingOrder
        self._set_indicator(self.sort_column, self.sort_order)
        if sort is not None or self.sort_column in ENGINE_SORTS:
            self.proxy.sort(-1)  # the engine's order, as it gave it
        else:
            self.proxy.sort(self.sort_column, self.sort_order)
        if result.hits:
            first, last = offset + 1, offset + len(result.hits)
            self._summary = f"{first:,}–{last:,} of {result.total:,} messages"
            self._ms = f"{SEP}{result.ms:.0f} ms"
        else:
            self._summary, self._ms = f"No messages match “{html.escape(result.query)}”.", ""
        self._show_summary()
        self._update_paging()
        if self.pending_select is not None and result.hits:
            row, self.pending_select = min(self.pending_select, len(result.hits) - 1), None
            self.select_row(row)

    def reset(self) -> None:
        """No results (another project was opened): the next search starts afresh, in rank order."""
        self.model.set_hits([])
        self.query, self.offset, self.total, self.terms, self._summary, self._ms = "", 0, 0, (), "", ""
        self.pending_select = None
        self.sort_column, self.sort_order, self.requested_sort = RANK, Qt.SortOrder.AscendingOrder, None
        self._set_indicator(RANK, Qt.SortOrder.AscendingOrder)
        self.proxy.sort(RANK, Qt.SortOrder.AscendingOrder)
        self._show_summary()
        self._update_paging()

    def _sort_changed(self, column: int, order: Qt.SortOrder) -> None:
        self.sort_column, self.sort_order = column, order
        wanted = self.engine_sort()
        if self.query and wanted != self.requested_sort:
            # The engine's order changes (a sort of the whole set, or back to rank order): the
            # search again, from its first page; the rows stay as they are until it answers.
            self.requested_sort = wanted
            self.search_requested.emit(self.query, 0)
            return
        if wanted is None:
            self.proxy.sort(column, order)
        self._show_summary()

    def sorted_within_page(self) -> bool:
        """True when the rows are sorted by a column the engine does not sort by (Score,
        Sensitivity, Rank worst first) and the results run to more than this page: the sort
        covers this page only. Rank best first is the search's own order: no note."""
        search_order = self.sort_column == RANK and self.sort_order == Qt.SortOrder.AscendingOrder
        return (not search_order and self.sort_column not in ENGINE_SORTS
                and self.total > self.model.rowCount() > 0)

    def _show_summary(self) -> None:
        if self.requested_sort is not None and self.sort_column in ENGINE_SORTS and self._summary and self.total:
            self.summary.setText(f"{self._summary}{SEP}{sort_words(self.sort_column, self.sort_order)}{self._ms}")
            self.summary.setToolTip("All the results are sorted; click Rank to return to the search's order.")
        elif self.sorted_within_page():
            self.summary.setText(f"{self._summary}{SEP}<b>this page {sort_words(self.sort_column, self.sort_order)}</b>")
            self.summary.setToolTip("Only the results on this page are sorted; the pages themselves follow the "
                                    "search's rank. Click Rank to return to the search's order.")
        else:
            self.summary.setText(self._summary + self._ms)
            self.summary.setToolTip("")

    def _update_paging(self) -> None:
        self.prev_button.setEnabled(self.offset > 0)
        self.next_button.setEnabled(self.offset + PAGE_SIZE < self.total)

    # ------------------------------------------------------------------------------------
    def hit_at(self, index: QModelIndex):
        return self.proxy.data(self.proxy.index(index.row(), 0), HIT_ROLE) if index.isValid() else None

    def _activated(self, index: QModelIndex) -> None:
        hit = self.hit_at(index)
        if hit is not None:
            self.open_requested.emit(hit.doc_id)

    def current_row(self) -> int:
        idx = self.table.currentIndex()
        return idx.row() if idx.isValid() else -1

    def select_row(self, row: int, open_it: bool = True) -> bool:
        if not 0 <= row < self.proxy.rowCount():
            return False
        idx = self.proxy.index(row, 0)
        self.table.setCurrentIndex(idx)
        self.table.selectRow(row)
        self.table.scrollTo(idx)
        if open_it:
            self._activated(idx)
        return True

    def step(self, delta: int) -> None:
        """J/K: the next / previous result, opened; across page boundaries too."""
        row = self.current_row()
        target = row + delta if row >= 0 else 0
        if not self.select_row(target):
            if delta > 0 and self.next_button.isEnabled():
                self.pending_select = 0
                self.go_page(1)
            elif delta < 0 and self.prev_button.isEnabled():
                self.pending_select = PAGE_SIZE - 1
                self.go_page(-1)

    def open_current(self) -> None:
        row = self.current_row()
        self.select_row(row if row >= 0 else 0)


__all__ = ["SearchPanel", "run_search", "ENGINE_SORTS", "PAGE_SIZE", "SYNTAX_HELP", "COLUMNS", "DATE", "SCORE", "FROM"]
