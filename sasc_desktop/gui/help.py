"""The shortcuts help panel (F1) and the list of shortcuts it shows; the query syntax window."""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import (QApplication, QDialog, QDialogButtonBox, QDockWidget, QFrame, QLabel, QScrollArea,
                               QVBoxLayout)

PANEL_WIDTH = 320  # px: the panel shows beside the results and the message without pushing them out
PANEL_LEAST = PANEL_WIDTH * 3 // 4  # px: the narrowest the panel is made, in a window with little room

SHORTCUTS = [
    ("Ctrl+F", "Go to the query box"),
    ("Enter", "Run the query / open the selected result"),
    ("J", "Next result (opens it)"),
    ("K", "Previous result (opens it)"),
    ("Alt+Right / Alt+Left", "Next / previous page of results"),
    ("Ctrl+I", "Import mail"),
    ("Ctrl+N", "New project"),
    ("Ctrl+O", "Open project"),
    ("Ctrl+,", "Preferences"),
    ("Ctrl+Shift+T", "Train the sensitivity model for the current persona"),
    ("Alt+T, Q", "Check the model's quality (in it: Enter runs, Esc closes and cancels)"),
    ("F1", "Show / hide this panel"),
    ("Ctrl+Q", "Quit"),
]


def shortcuts_html() -> str:
    rows = "".join(f"<tr><td style='padding:3px 10px 3px 0'><b>{k}</b></td><td style='padding:3px 0'>{v}</td></tr>"
                   for k, v in SHORTCUTS)
    return f"<h3>Keyboard shortcuts</h3><table>{rows}</table>"


class _PanelText(QLabel):
    """The panel's text, asking for :data:`PANEL_WIDTH` (its table would ask for ~550 px, the
    width of its longest lines unwrapped, and the dock would take that from the results)."""

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt name)
        width = PANEL_WIDTH - 2 * self.margin()
        return QSize(PANEL_WIDTH, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(PANEL_LEAST, super().minimumSizeHint().height())


class ShortcutsPanel(QDockWidget):
    def __init__(self, parent=None):
        super().__init__("Shortcuts", parent)
        self.setObjectName("shortcutsPanel")
        label = _PanelText(shortcuts_html())
        label.setTextFormat(Qt.TextFormat.RichText)   # (the app's own table)
        label.setMargin(10)
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setWidget(label)
        # For reading only: floating, it is shown beside the main window without taking the
        # activation (the keys typed after F1 go to the main window, as before it opened).
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)

    def text_height(self, width: int) -> int:
        """The height the panel's text needs in a panel ``width`` px wide (every shortcut in view)."""
        text = self.widget()
        margins = self.contentsMargins()
        return text.heightForWidth(max(1, width - margins.left() - margins.right()))


# The query syntax window's text width, in average character widths of its font (about 720 px in
# a 9-point font): its table's two columns then read without cramped wrapping. A screen
# narrower than that gets a narrower window.
SYNTAX_TEXT_CHARS = 110
# Room kept free around a window sized to fit the screen: its title bar and frame, which are not
# known before the window manager has shown it, and a little space.
FRAME_ROOM = QSize(40, 70)


class SyntaxHelpDialog(QDialog):
    """The query syntax (Help ▸ Query syntax, the "?" beside the query box): a non-modal window,
    one however often it is asked for, as wide as its table reads well and as tall as its text,
    so that all of it shows; only a screen too small for that gets a scroll bar. The text can be
    selected, to copy an example into the query box."""

    def __init__(self, text: str, parent=None):
        super().__init__(parent)
        self.setObjectName("syntaxHelp")
        self.setWindowTitle("Query syntax")
        self.setModal(False)
        self.label = QLabel(text)
        self.label.setObjectName("syntaxHelpText")
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setWordWrap(True)
        self.label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                           | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.scroll = QScrollArea()
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(self.label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(buttons)
        self.buttons = buttons

    def fit(self, screen: Optional[QRect] = None) -> QSize:
        """Resize to show the whole text within ``screen`` (the available geometry of the
        screen the window is on, by default), less FRAME_ROOM; returns the size."""
        if screen is None:
            where = self.screen() or QApplication.primaryScreen()
            screen = where.availableGeometry()
        margins = self.layout().contentsMargins()
        sides = margins.left() + margins.right()
        room = QSize(screen.width() - FRAME_ROOM.width(), screen.height() - FRAME_ROOM.height())
        text_width = min(self.label.fontMetrics().averageCharWidth() * SYNTAX_TEXT_CHARS, room.width() - sides)
        text_height = self.label.heightForWidth(text_width)
        height = (margins.top() + text_height + self.layout().spacing() + self.buttons.sizeHint().height()
                  + margins.bottom())
        if height > room.height():  # it scrolls: room for the scroll bar beside the text
            text_width = min(text_width + self.scroll.verticalScrollBar().sizeHint().width(), room.width() - sides)
        size = QSize(text_width + sides, min(height, room.height()))
        self.resize(size)
        return size

    def show_help(self) -> None:
        """Show the window (sized to its screen when first shown) and bring it to the front."""
        if not self.isVisible():
            self.fit()
        self.show()
        self.raise_()
        self.activateWindow()
