"""Small widgets shared by the windows."""
from __future__ import annotations

import html

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QStyle, QStyleOption, QToolButton


def elide_parts(text: str, fits, sep: str = "   ·   ", mark: str = " …") -> str:
    """``text`` as it fits: whole, else without its last ``sep``-separated parts (ending in
    ``mark``), else its first part cut at a word (at a character when a word would leave less
    than half of what fits), ending in "…". ``fits(s) -> bool`` says whether a string fits."""
    if fits(text):
        return text
    parts = text.split(sep)
    for n in range(len(parts) - 1, 0, -1):
        shown = sep.join(parts[:n]) + mark
        if fits(shown):
            return shown
    # not even the first part: cut it at a character, with the mark
    first = parts[0]
    lo, hi = 0, len(first)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(first[:mid].rstrip() + "…"):
            lo = mid
        else:
            hi = mid - 1
    cut = first[:lo]
    space = cut.rfind(" ")
    if lo < len(first) and space >= lo // 2:  # end at a word, when that keeps most of what fits
        cut = cut[:space]
    return cut.rstrip() + "…" if cut.strip() else ""


def plain_tip(text: str) -> str:
    """``text`` as a tooltip that shows it as written. Qt guesses whether a tooltip is HTML, so a
    message's subject '<img src="file:///...">' showed that file (and a named pipe there froze the
    window): text from mail, from files or from the user goes through here."""
    if not text:
        return ""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"


class ElidedLabel(QLabel):
    """A one-line plain-text label that, when it has less room than its text needs, shows the
    text without its last '·'-separated parts and a '…' (whole parts only), or a text of one part
    cut at a word, with the whole text in its tooltip. It asks for little room, so a status bar
    can give the rest to a message."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._tip = ""

    def setText(self, text: str) -> None:  # noqa: N802 (Qt name)
        super().setText(text)
        self._update_tip()
        self.update()

    def setToolTip(self, tip: str) -> None:  # noqa: N802
        self._tip = tip
        self._update_tip()

    def _update_tip(self) -> None:
        whole = self.text() if self.shown_text() != self.text() else ""
        super().setToolTip(plain_tip("\n".join(dict.fromkeys(t for t in (whole, self._tip) if t))))

    def _room(self) -> int:
        return self.contentsRect().width() - 2 * self.margin()

    def shown_text(self) -> str:
        """What the label shows at its present width."""
        fm, room = self.fontMetrics(), self._room()
        return elide_parts(self.text(), lambda s: fm.horizontalAdvance(s) <= room)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(0, super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._update_tip()

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_Widget, option, painter, self)
        rect = self.contentsRect().adjusted(self.margin(), 0, -self.margin(), 0)
        self.style().drawItemText(painter, rect, int(self.alignment()) | int(Qt.AlignmentFlag.AlignVCenter),
                                  self.palette(), self.isEnabled(), self.shown_text(), self.foregroundRole())


class NoticeBar(QFrame):
    """A quiet information bar above the results (as a browser's or an editor's): what opening a
    project did that its user should know (its search index rebuilt). It stays until it is
    dismissed or another project is opened, and never blocks anything; its text can be selected
    (a path to copy). It never widens the window: a long line wraps. ``shown(bool)``: it was
    shown or hidden (the panes below it got or gave back its height)."""

    shown = Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("noticeBar")
        self.setStyleSheet("QFrame#noticeBar { background:#e9f1fb; border:none; border-bottom:1px solid #b9cde6; }"
                           " QFrame#noticeBar QLabel { background:transparent; border:none; }")
        self.icon = QLabel()
        size = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
        self.icon.setPixmap(self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxInformation).pixmap(size, size))
        self.icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.text = QLabel()
        self.text.setObjectName("noticeText")
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        policy = self.text.sizePolicy()
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)   # wraps to the width it is given
        policy.setHeightForWidth(True)
        self.text.setSizePolicy(policy)
        self.close_button = QToolButton()
        self.close_button.setObjectName("noticeClose")
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Hide this note")
        self.close_button.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.notes: list[str] = []
        self.hide()

    def show_notes(self, notes: list[str]) -> None:
        """Show ``notes`` (sentences, without the first capital letter or the final stop, as the
        engine writes them), one to a line; none: hide the bar."""
        self.notes = list(notes)
        self.text.setText("<br>".join(html.escape(sentence(n)) for n in self.notes))
        self.setVisible(bool(self.notes))

    def plain_text(self) -> str:
        return "\n".join(sentence(n) for n in self.notes)

    def showEvent(self, event):  # noqa: N802 (Qt name)
        super().showEvent(event)
        self.shown.emit(True)

    def hideEvent(self, event):  # noqa: N802 (Qt name)
        super().hideEvent(event)
        self.shown.emit(False)


def sentence(text: str) -> str:
    """``text`` as a sentence: a capital first letter and a final stop."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")
