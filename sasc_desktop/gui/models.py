"""Qt models as thin adapters over engine records (SearchResult hits), and the sensitivity bar."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Optional, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QRect, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate

from ..engine.records import SearchHit
from ..engine.sorting import display_name, sender_sort_key, text_sort_key
from .widgets import plain_tip

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
HIT_ROLE = Qt.ItemDataRole.UserRole + 2

COLUMNS = ("Rank", "Score", "Sensitivity", "Date", "From", "Subject")
RANK, SCORE, SENS, DATE, FROM, SUBJECT = range(len(COLUMNS))
SHORT_TITLES = {SENS: "Sens."}  # in a narrow results pane


def short_date(iso: Optional[str]) -> str:
    """The date as the message gives it (the sender's clock): '2001-03-01 09:00'."""
    if not iso:
        return ""
    return iso[:16].replace("T", " ")


def _parse(iso: Optional[str]) -> Optional[datetime]:
    if not iso:
        return None
    try:
        when = datetime.fromisoformat(iso)
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)  # no offset given: UTC


def utc_timestamp(iso: Optional[str]) -> Optional[float]:
    """Seconds since the epoch of an ISO date with or without a UTC offset (none: UTC), or None."""
    when = _parse(iso)
    return None if when is None else when.timestamp()


def _minutes(when: datetime) -> str:
    """'YYYY-MM-DD HH:MM' with a four-digit year (strftime's %Y gives '999' for the year 999 on glibc)."""
    return f"{when.year:04d}-{when.month:02d}-{when.day:02d} {when.hour:02d}:{when.minute:02d}"


def local_date(iso: Optional[str]) -> str:
    """The date on this computer's clock, 'YYYY-MM-DD HH:MM', so that dates sent from different
    time zones read in the order they sort in; '' when there is none. A moment this computer's
    clock cannot name (before the year 1 or after 9999 there) reads as the message gives it."""
    when = _parse(iso)
    if when is None:
        return short_date(iso)
    try:
        return _minutes(when.astimezone())
    except (OverflowError, ValueError, OSError):
        return short_date(iso)


def header_date(iso: Optional[str]) -> str:
    """The message's Date as its sender's clock gave it, with its UTC offset, and the same moment
    on this computer's clock when that reads otherwise (the results list shows that one):
    '2020-09-02 09:47 -07:00 (16:47 on this computer)'."""
    when = _parse(iso)
    if when is None:
        return short_date(iso)
    offset = when.strftime("%z") if datetime.fromisoformat(iso).tzinfo is not None else ""  # none given: none shown
    own = f"{short_date(iso)} {offset[:3]}:{offset[3:]}" if offset else short_date(iso)
    here = local_date(iso)
    if here == short_date(iso):
        return own
    return f"{own} ({here[11:] if here[:10] == short_date(iso)[:10] else here} on this computer)"


def sensitivity_colour(p: float) -> QColor:
    """Green (unlikely sensitive) through amber to red (likely sensitive)."""
    p = min(1.0, max(0.0, p))
    if p < 0.5:
        a, b, t = (46, 160, 67), (230, 160, 20), p / 0.5
    else:
        a, b, t = (230, 160, 20), (200, 40, 40), (p - 0.5) / 0.5
    return QColor(*(int(x + (y - x) * t) for x, y in zip(a, b)))


class ResultsModel(QAbstractTableModel):
    """One page of search hits, plus (when a classifier exists) a sensitivity probability each."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.hits: list[SearchHit] = []
        self.probs: Optional[Sequence[float]] = None
        self.times: list[Optional[float]] = []
        self.date_only = False     # a narrow results pane: the Date column without the time
        self.short_titles = False  # ... and "Sens." for Sensitivity

    def set_compact(self, date_only: bool, short_titles: bool) -> None:
        """The narrow-pane look (see SearchPanel._fit_columns); the full date and time stay in
        the Date cell's tooltip."""
        if date_only != self.date_only:
            self.date_only = date_only
            if self.hits:
                self.dataChanged.emit(self.index(0, DATE), self.index(len(self.hits) - 1, DATE))
        if short_titles != self.short_titles:
            self.short_titles = short_titles
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, SENS, SENS)

    def set_hits(self, hits: Sequence[SearchHit], probs: Optional[Sequence[float]] = None) -> None:
        self.beginResetModel()
        self.hits = list(hits)
        self.probs = list(probs) if probs is not None and len(probs) == len(self.hits) else None
        # Dates sort by the moment they name (UTC), not as text: '...T09:00+10:00' is before '...T01:00-08:00'
        self.times = [utc_timestamp(h.date) for h in self.hits]
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.hits)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return SHORT_TITLES.get(section, COLUMNS[section]) if self.short_titles else COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole and section == SENS:
            return "Probability that the active persona would find this message sensitive (from the classifier)"
        return None

    def prob(self, row: int) -> Optional[float]:
        if self.probs is None:
            return None
        return float(self.probs[row])

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        hit, col = self.hits[index.row()], index.column()
        if role == HIT_ROLE:
            return hit
        if role == Qt.ItemDataRole.DisplayRole:
            if col == RANK:
                return str(hit.rank)
            if col == SCORE:
                return f"{hit.score:.2f}"
            if col == SENS:
                p = self.prob(index.row())
                return "n/a" if p is None else f"{p:.2f}"
            if col == DATE:
                return local_date(hit.date)[:10] if self.date_only else local_date(hit.date)
            if col == FROM:
                return display_name(hit.sender)
            if col == SUBJECT:
                return hit.subject or "(no subject)"
        if role == SORT_ROLE:
            if col == RANK:
                return hit.rank
            if col == SCORE:
                return hit.score
            if col == SENS:
                p = self.prob(index.row())
                return -1.0 if p is None else p
            if col == DATE:
                t = self.times[index.row()]
                return float("-inf") if t is None else t  # undated: before every dated message
            if col == FROM:
                return sender_sort_key(hit.sender)
            return text_sort_key(hit.subject)
        if role == Qt.ItemDataRole.ToolTipRole and col in (FROM, SUBJECT):
            return plain_tip(hit.sender if col == FROM else hit.subject)
        if role == Qt.ItemDataRole.ToolTipRole and col == DATE and hit.date:
            return (f"Sent {hit.date.replace('T', ' ')} (the sender's clock); "
                    + (f"{local_date(hit.date)} on this computer" if self.date_only else "shown in this computer's time"))
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (RANK, SCORE):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class ResultsProxy(QSortFilterProxyModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)


class SensitivityBarDelegate(QStyledItemDelegate):
    """Paints the probability as a coloured bar with the number on it."""

    def paint(self, painter: QPainter, option, index):
        hit_model = index.model()
        value = hit_model.data(index, SORT_ROLE)
        if value is None or value < 0:
            super().paint(painter, option, index)
            return
        painter.save()
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(option.rect, option.palette.highlight())
        r = option.rect.adjusted(4, 5, -4, -5)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(225, 225, 225))
        painter.drawRoundedRect(r, 3, 3)
        filled = QRect(r.left(), r.top(), max(2, int(r.width() * float(value))), r.height())
        painter.setBrush(sensitivity_colour(float(value)))
        painter.drawRoundedRect(filled, 3, 3)
        painter.setPen(QColor(20, 20, 20))
        painter.drawText(r, int(Qt.AlignmentFlag.AlignCenter), f"{float(value):.2f}")
        painter.restore()
